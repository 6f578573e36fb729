/* Fuzzes the HFile reader: open over the input bytes, a batch lookup of
 * keys taken from the input (before and after a full scan), a prefix scan
 * and every meta block. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "hfile/hfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_kv(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl) {
  size_t *n = ctx;
  (*n)++;
  return *n > 100000; /* bounded work per input */
}

static int on_found(void *ctx, size_t i, const uint8_t *v, size_t vl) {
  (void)ctx;
  (void)i;
  (void)v;
  (void)vl;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_hfile_reader_open_buffer(&r, data, size, "fuzz", &err) != HUDI_OK) return 0;
  size_t n = 0;
  /* Sorted keys: prefixes of the input's first bytes, shortest first. A
   * lookup before the scan walks the index levels lazily; after it, the
   * expanded index. */
  hudi_hfile_key keys[3] = {{data, 0}, {data, size < 4 ? size : 4}, {data, size < 12 ? size : 12}};
  hudi_status st = hudi_hfile_reader_lookup(r, keys, 3, on_found, NULL, &err);
  st = hudi_hfile_reader_scan(r, on_kv, &n, &err);
  st = hudi_hfile_reader_lookup(r, keys, 3, on_found, NULL, &err);
  n = 0;
  st = hudi_hfile_reader_scan_prefix(r, data, size < 3 ? size : 3, on_kv, &n, &err);
  for (size_t i = 0; i < hudi_hfile_reader_meta_count(r); i++) {
    hudi_buf b;
    hudi_buf_init(&b, 1 << 24);
    bool found;
    st = hudi_hfile_reader_meta_block(r, hudi_hfile_reader_meta_name(r, i), &b, &found, &err);
    hudi_buf_free(&b);
  }
  const uint8_t *v;
  size_t vl;
  (void)hudi_hfile_reader_file_info(r, "hfile.LASTKEY", &v, &vl);
  (void)st;
  hudi_hfile_reader_free(r);
  return 0;
}

/* Record-index entries of a segmented append (write_keys.h). */
#include "table/write_keys.h"

#include <string.h>

#include "base/alloc.h"

#define KEYS_MAX_BYTES ((size_t)1 << 40)

void hudi_write_keys_init(hudi_write_keys *k) {
  memset(k, 0, sizeof *k);
  hudi_buf_init(&k->bytes, KEYS_MAX_BYTES);
}

void hudi_write_keys_free(hudi_write_keys *k) {
  hudi_buf_free(&k->bytes);
  hudi_free(k->items);
  memset(k, 0, sizeof *k);
}

static hudi_status reserve(hudi_write_keys *k, size_t more, hudi_error *err) {
  if (k->n + more <= k->cap) return HUDI_OK;
  size_t cap = k->cap ? k->cap : 1024;
  while (cap < k->n + more) cap *= 2;
  hudi_write_key_entry *items = hudi_realloc(k->items, cap * sizeof *items);
  if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for %zu record-index entries", cap);
  k->items = items;
  k->cap = cap;
  return HUDI_OK;
}

static hudi_status add_string(hudi_write_keys *k, const char *s, uint64_t *off, hudi_error *err) {
  *off = k->bytes.len;
  return hudi_buf_append(&k->bytes, s, strlen(s) + 1, err);
}

hudi_status hudi_write_keys_add_file(hudi_write_keys *k, const hudi_write_rows *rows, size_t from, size_t to,
                                     const char *file_id, hudi_error *err) {
  if (to <= from) return HUDI_OK;
  uint64_t part_off, fid_off;
  HUDI_TRY(reserve(k, to - from, err));
  HUDI_TRY(add_string(k, hudi_write_rows_partition(rows, from), &part_off, err));
  HUDI_TRY(add_string(k, file_id, &fid_off, err));
  for (size_t i = from; i < to; i++) {
    size_t len;
    const char *key = hudi_write_rows_key(rows, i, &len);
    hudi_write_key_entry *e = &k->items[k->n];
    *e = (hudi_write_key_entry){k->bytes.len, part_off, fid_off, (uint32_t)len};
    HUDI_TRY(hudi_buf_append(&k->bytes, key, len, err));
    k->n++;
  }
  return HUDI_OK;
}

hudi_status hudi_write_keys_changes(const hudi_write_keys *k, hudi_mdt_key_change **out, hudi_error *err) {
  *out = hudi_calloc(k->n ? k->n : 1, sizeof **out);
  if (!*out) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for %zu record-index entries", k->n);
  const char *base = (const char *)k->bytes.data;
  for (size_t i = 0; i < k->n; i++) {
    const hudi_write_key_entry *e = &k->items[i];
    (*out)[i] = (hudi_mdt_key_change){base + e->key_off, e->key_len, base + e->part_off, base + e->fid_off};
  }
  return HUDI_OK;
}

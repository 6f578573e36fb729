/* Fuzzes the metadata-table payload codec. The first byte picks the
 * schema (bit 0: table version 8 or 9, Hudi's exact HoodieMetadataRecord
 * schemas) and the rest is one payload. A payload that decodes must
 * re-encode (typed path for files and record-index records, value tree for
 * the others; a file name with a NUL byte is refused with
 * HUDI_ERR_INVALID_ARG), the re-encoded bytes must decode again to the same bytes
 * (encoding is a fixed point after one round), the RLI file id must
 * build, and combining the record with a copy of itself must succeed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table/mdt_payload.h"
#include "table/mdt_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static hudi_avro_schema *schemas[2];

static const hudi_avro_node *schema(int v9) {
  if (!schemas[v9]) {
    size_t len;
    const char *json = hudi_mdt_schema_json(v9 ? 9 : 8, &len);
    if (hudi_avro_schema_parse(&schemas[v9], json, len, NULL) != HUDI_OK) abort();
  }
  return schemas[v9]->root;
}

static void roundtrip(const hudi_avro_node *s, hudi_mdt_record *r) {
  hudi_buf a, b;
  hudi_buf_init(&a, (size_t)1 << 26);
  hudi_buf_init(&b, (size_t)1 << 26);
  hudi_status st = hudi_mdt_record_encode(r, s, &a, NULL);
  if (st == HUDI_ERR_INVALID_ARG) { /* a map key with a NUL byte: refused, by design */
    hudi_buf_free(&a);
    hudi_buf_free(&b);
    return;
  }
  if (st != HUDI_OK) abort();
  hudi_mdt_record again;
  if (hudi_mdt_record_decode(&again, s, r->key, r->key_len, a.data, a.len, "again", NULL) != HUDI_OK) abort();
  if (hudi_mdt_record_encode(&again, s, &b, NULL) != HUDI_OK) abort();
  if (a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0)) abort();
  hudi_mdt_record_free(&again);
  hudi_buf_free(&a);
  hudi_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const hudi_avro_node *s = schema(data[0] & 1);
  hudi_mdt_record r;
  hudi_status st = hudi_mdt_record_decode(&r, s, "key", 3, data + 1, size - 1, "fuzz", NULL);
  if (st == HUDI_OK) {
    roundtrip(s, &r);
    if (r.has_rli) {
      hudi_buf id;
      hudi_buf_init(&id, 1 << 20);
      hudi_status rc = hudi_mdt_rli_file_id(&r.rli, &id, NULL);
      (void)rc; /* a null part is a reportable error, not a crash */
      hudi_buf_free(&id);
    }
    hudi_mdt_record copy, out;
    if (hudi_mdt_record_copy(&copy, &r, NULL) == HUDI_OK) {
      if (hudi_mdt_record_combine(&out, &copy, &r, NULL) == HUDI_OK) hudi_mdt_record_free(&out);
    } else {
      hudi_mdt_record_free(&copy);
      hudi_mdt_record_free(&r);
    }
    return 0;
  }
  hudi_mdt_record_free(&r);
  return 0;
}

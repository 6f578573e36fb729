/* Fuzzes the Avro layer. The first byte picks the target:
 *   0: object container file reader + generic decoder (then re-encodes
 *      every value: what we decode we must be able to write)
 *   1: schema JSON parser, both JSON emitters, fingerprint
 *   2: a datum of a fixed recursive schema, decoded, skipped, re-encoded. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "avro/container.h"
#include "avro/value.h"
#include "base/alloc.h"

#define FUZZ_MEM_CAP ((size_t)32 << 20)

static const char *const datum_schema =
    "{\"type\":\"record\",\"name\":\"T\",\"fields\":["
    "{\"name\":\"u\",\"type\":[\"null\",\"int\",\"long\",\"float\",\"double\",\"bytes\",\"string\",\"boolean\","
    " {\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}]},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"]}},"
    "{\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":3}},"
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":[\"null\",\"T\"]}}},"
    "{\"name\":\"n\",\"type\":{\"type\":\"array\",\"items\":\"null\"}}]}";

static int ok_or_resource(hudi_status st) {
  return st == HUDI_OK || st == HUDI_ERR_LIMIT || st == HUDI_ERR_NOMEM;
}

static void reencode(const hudi_avro_value *v, size_t n) {
  hudi_buf b;
  hudi_buf_init(&b, FUZZ_MEM_CAP);
  for (size_t i = 0; i < n; i++) {
    hudi_buf_reset(&b);
    if (!ok_or_resource(hudi_avro_encode(&v[i], &b, NULL))) abort();
  }
  hudi_buf_free(&b);
}

static void fuzz_container(const uint8_t *data, size_t size) {
  hudi_avro_file f;
  if (hudi_avro_file_open(&f, data, size, "fuzz.avro", NULL) != HUDI_OK) return;
  f.block.max = FUZZ_MEM_CAP; /* keep decompression bombs small */
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, FUZZ_MEM_CAP);
  hudi_avro_value *vals;
  size_t n, nb;
  int64_t *counts;
  if (hudi_avro_file_read_all(&f, &a, NULL, &vals, &n, &counts, &nb, NULL) == HUDI_OK) {
    reencode(vals, n);
    hudi_free(counts);
  }
  hudi_avro_arena_free(&a);
  hudi_avro_file_close(&f);
}

static void fuzz_schema(const uint8_t *data, size_t size) {
  hudi_avro_schema *s, *s2;
  if (hudi_avro_schema_parse(&s, (const char *)data, size, NULL) != HUDI_OK) return;
  hudi_buf js, c1, c2;
  hudi_buf_init(&js, FUZZ_MEM_CAP);
  hudi_buf_init(&c1, FUZZ_MEM_CAP);
  hudi_buf_init(&c2, FUZZ_MEM_CAP);
  /* Emitting as given and parsing again gives the same schema. */
  if (hudi_avro_schema_to_json(s, &js, NULL) != HUDI_OK) abort();
  if (hudi_avro_schema_parse(&s2, (const char *)js.data, js.len, NULL) != HUDI_OK) abort();
  if (!ok_or_resource(hudi_avro_schema_canonical(s->root, &c1, NULL))) abort();
  if (!ok_or_resource(hudi_avro_schema_canonical(s2->root, &c2, NULL))) abort();
  if (c1.len != c2.len || (c1.len && memcmp(c1.data, c2.data, c1.len) != 0)) abort();
  uint64_t fp;
  if (!ok_or_resource(hudi_avro_schema_fingerprint(s->root, &fp, NULL))) abort();
  /* A fresh value (when the defaults fit their types) encodes. */
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, FUZZ_MEM_CAP);
  hudi_avro_value v;
  hudi_buf_reset(&js);
  if (hudi_avro_value_init(&v, &a, s->root, NULL) == HUDI_OK && !ok_or_resource(hudi_avro_encode(&v, &js, NULL)))
    abort();
  hudi_avro_arena_free(&a);
  hudi_buf_free(&js);
  hudi_buf_free(&c1);
  hudi_buf_free(&c2);
  hudi_avro_schema_free(s2);
  hudi_avro_schema_free(s);
}

static void fuzz_datum(const uint8_t *data, size_t size) {
  static hudi_avro_schema *s;
  if (!s && hudi_avro_schema_parse(&s, datum_schema, strlen(datum_schema), NULL) != HUDI_OK) abort();
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, data, size, 0, "fuzz");
  int skip_ok = hudi_avro_skip(s->root, &c, NULL) == HUDI_OK;
  size_t skipped = c.pos;
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, FUZZ_MEM_CAP);
  hudi_avro_cursor_init(&c, data, size, 0, "fuzz");
  hudi_avro_value v;
  hudi_status st = hudi_avro_decode(&v, &a, s->root, NULL, &c, NULL);
  /* The skipper and the decoder agree on validity and length. */
  if (st == HUDI_OK && (!skip_ok || c.pos != skipped)) abort();
  if (st == HUDI_OK) reencode(&v, 1);
  hudi_avro_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  switch (data[0] % 3) {
    case 0: fuzz_container(data + 1, size - 1); break;
    case 1: fuzz_schema(data + 1, size - 1); break;
    default: fuzz_datum(data + 1, size - 1); break;
  }
  return 0;
}

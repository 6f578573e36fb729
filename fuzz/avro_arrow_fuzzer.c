/* Fuzzes the Avro -> Arrow decoder with random bytes against fixed
 * schemas. The first byte picks the schema and the framing (one datum,
 * or a Hudi data block); with a reader schema on odd schema numbers. A
 * batch that decodes must be a valid Arrow array (the view validates
 * offsets, lengths and children), and must encode back to Avro. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/view.h"
#include "avro/arrow_decode.h"
#include "avro/arrow_encode.h"

static const char *const schemas[] = {
    /* Hudi-style: nullable fields, null first and second, nested records, decimals. */
    "{\"type\":\"record\",\"name\":\"t_record\",\"namespace\":\"hoodie.t\",\"fields\":["
    "{\"name\":\"_hoodie_commit_time\",\"type\":[\"null\",\"string\"],\"doc\":\"\",\"default\":null},"
    "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"l\",\"type\":[\"long\",\"null\"]},"
    "{\"name\":\"b\",\"type\":[\"null\",\"boolean\"]},{\"name\":\"f\",\"type\":[\"null\",\"float\"]},"
    "{\"name\":\"d\",\"type\":\"double\"},{\"name\":\"by\",\"type\":[\"null\",\"bytes\"]},"
    "{\"name\":\"dec\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"fixed\",\"size\":7,"
    "\"logicalType\":\"decimal\",\"precision\":15,\"scale\":2}]},"
    "{\"name\":\"decb\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":38,\"scale\":3}},"
    "{\"name\":\"dt\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}},"
    "{\"name\":\"ts\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}]},"
    "{\"name\":\"arr\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",{\"type\":\"record\","
    "\"name\":\"arr\",\"fields\":[{\"name\":\"x\",\"type\":[\"null\",\"string\"]}]}]}]},"
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":[\"null\",\"double\"]}},"
    "{\"name\":\"st\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"st\",\"fields\":["
    "{\"name\":\"c\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}},"
    "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"F3\",\"size\":3}}]}]}]}",
    /* rag chunks */
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"chunk_id\",\"type\":\"string\"},"
    "{\"name\":\"pos\",\"type\":\"int\"},{\"name\":\"emb\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"float\"}]},"
    "{\"name\":\"nulls\",\"type\":{\"type\":\"array\",\"items\":\"null\"}},"
    "{\"name\":\"deep\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"map\",\"values\":\"long\"}}}},"
    "{\"name\":\"u\",\"type\":\"long\"}]}",
    /* skipped parts: a multi-branch union and a recursive list (projected away by the reader). */
    "{\"type\":\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
    "{\"name\":\"opt\",\"type\":[\"null\",\"string\",{\"type\":\"map\",\"values\":\"long\"},\"int\"]},"
    "{\"name\":\"list\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Node\",\"fields\":["
    "{\"name\":\"v\",\"type\":\"int\"},{\"name\":\"next\",\"type\":[\"null\",\"Node\"]}]}]},"
    "{\"name\":\"s\",\"type\":\"string\"}]}",
};
static const char *const reader =
    "{\"type\":\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"a\",\"type\":\"double\"},"
    "{\"name\":\"s\",\"type\":\"bytes\"},{\"name\":\"z\",\"type\":\"int\",\"default\":3}]}";

#define N_SCHEMAS (sizeof schemas / sizeof *schemas)

static hudi_avro_schema *parsed[N_SCHEMAS];
static hudi_avro_schema *parsed_reader;

static void check_batch(hudi_avro_decoder *d, const hudi_avro_schema *w) {
  struct ArrowArray a;
  struct ArrowSchema s;
  if (hudi_avro_decoder_finish(d, &a, NULL) != HUDI_OK) return;
  if (hudi_avro_decoder_export_schema(d, &s, NULL) != HUDI_OK) {
    a.release(&a);
    return;
  }
  hudi_arrow_view v;
  hudi_status st = hudi_arrow_view_init(&v, &s, &a, NULL);
  if (st != HUDI_OK && st != HUDI_ERR_NOMEM) abort(); /* our output must be valid Arrow */
  if (st == HUDI_OK && w) {
    hudi_avro_encoder *e = NULL;
    if (hudi_avro_encoder_create(&e, hudi_avro_decoder_schema(d), w->root, NULL) != HUDI_OK) abort();
    hudi_buf b;
    hudi_buf_init(&b, (size_t)64 << 20);
    st = hudi_avro_encoder_encode_rows(e, &b, &v, 0, v.length, NULL, false, NULL);
    if (st != HUDI_OK && st != HUDI_ERR_NOMEM && st != HUDI_ERR_LIMIT) abort();
    hudi_buf_free(&b);
    hudi_avro_encoder_free(e);
  }
  if (st == HUDI_OK) hudi_arrow_view_clear(&v);
  a.release(&a);
  s.release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  if (!parsed[0]) {
    for (size_t k = 0; k < N_SCHEMAS; k++)
      if (hudi_avro_schema_parse(&parsed[k], schemas[k], strlen(schemas[k]), NULL) != HUDI_OK) abort();
    if (hudi_avro_schema_parse(&parsed_reader, reader, strlen(reader), NULL) != HUDI_OK) abort();
  }
  size_t which = (size_t)(data[0] & 0x0F) % N_SCHEMAS;
  int block = (data[0] >> 4) & 1;
  const hudi_avro_schema *w = parsed[which];
  const hudi_avro_node *r = which == 2 ? parsed_reader->root : NULL;
  hudi_avro_decoder *d = NULL;
  if (hudi_avro_decoder_create(&d, w->root, r, NULL, NULL) != HUDI_OK) abort();
  hudi_status st = block ? hudi_avro_decoder_decode_data_block(d, data + 1, size - 1, 1, NULL, NULL)
                         : hudi_avro_decoder_decode(d, data + 1, size - 1, 1, 0, NULL);
  if (st == HUDI_OK) check_batch(d, r ? NULL : w);
  hudi_avro_decoder_free(d);
  return 0;
}

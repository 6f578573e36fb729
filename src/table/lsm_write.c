/* Writing the Parquet data files of the LSM history (lsm_timeline.h):
 * what Hudi's Avro Parquet writer produces for HoodieLSMTimelineInstant
 * (checked against history files Spark + Hudi 1.2.0 wrote: message name,
 * optional UTF8 / binary columns, required int32 version, GZIP, footer
 * parquet.avro.schema and writer.model.name). */
#include <stdio.h>
#include <string.h>

#include "arrow/builder.h"
#include "base/alloc.h"
#include "parquet/writer.h"
#include "table/lsm_timeline.h"

/* HoodieLSMTimelineInstant's class schema as the footer of Spark-written
 * history files holds it (Hudi 1.2.0): parquet-avro readers resolve the
 * file with it. */
static const char LSM_AVRO_SCHEMA[] =
    "{\"type\":\"record\",\"name\":\"HoodieLSMTimelineInstant\",\"namespace\":\"org.apache.hudi.avro.model\","
    "\"fields\":[{\"name\":\"instantTime\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],"
    "\"default\":null},{\"name\":\"completionTime\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":"
    "\"String\"}],\"default\":null},{\"name\":\"action\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":"
    "\"String\"}],\"default\":null},"
    "{\"name\":\"metadata\",\"type\":[\"null\",\"bytes\"],\"default\":null},"
    "{\"name\":\"plan\",\"type\":[\"null\",\"bytes\"],\"default\":null},"
    "{\"name\":\"version\",\"type\":\"int\",\"default\":1}]}";

/* parquet-avro names the message after the record's full name. */
#define LSM_ROOT_NAME "org.apache.hudi.avro.model.HoodieLSMTimelineInstant"

static hudi_status lsm_schema(hudi_arrow_field *f, hudi_error *err) {
  static const struct {
    const char *name, *fmt;
    int64_t flags;
  } cols[] = {{"instantTime", "u", ARROW_FLAG_NULLABLE}, {"completionTime", "u", ARROW_FLAG_NULLABLE},
              {"action", "u", ARROW_FLAG_NULLABLE},      {"metadata", "z", ARROW_FLAG_NULLABLE},
              {"plan", "z", ARROW_FLAG_NULLABLE},        {"version", "i", 0}};
  HUDI_TRY(hudi_arrow_field_init(f, "", "+s", 0, err));
  HUDI_TRY(hudi_arrow_field_alloc_children(f, 6, err));
  for (int i = 0; i < 6; i++)
    HUDI_TRY(hudi_arrow_field_init(&f->children[i], cols[i].name, cols[i].fmt, cols[i].flags, err));
  return HUDI_OK;
}

static hudi_status append_opt_str(hudi_arrow_builder *b, const char *s, hudi_error *err) {
  return s && *s ? hudi_arrow_builder_append_str(b, s, err) : hudi_arrow_builder_append_null(b, err);
}

static hudi_status append_opt_bytes(hudi_arrow_builder *b, const uint8_t *p, size_t n, hudi_error *err) {
  return p ? hudi_arrow_builder_append_bytes(b, p, (int64_t)n, err) : hudi_arrow_builder_append_null(b, err);
}

static hudi_status build_batch(struct ArrowArray *out, hudi_arrow_batch_builder *bb, const hudi_lsm_row *rows,
                               size_t n, hudi_error *err) {
  for (size_t i = 0; i < n; i++) {
    const hudi_lsm_row *r = &rows[i];
    HUDI_TRY(append_opt_str(hudi_arrow_batch_builder_column(bb, 0), r->instant_time, err));
    HUDI_TRY(append_opt_str(hudi_arrow_batch_builder_column(bb, 1), r->completion_time, err));
    HUDI_TRY(append_opt_str(hudi_arrow_batch_builder_column(bb, 2), r->action, err));
    HUDI_TRY(append_opt_bytes(hudi_arrow_batch_builder_column(bb, 3), r->metadata, r->metadata_len, err));
    HUDI_TRY(append_opt_bytes(hudi_arrow_batch_builder_column(bb, 4), r->plan, r->plan_len, err));
    HUDI_TRY(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 5), r->version ? r->version : 1, err));
    HUDI_TRY(hudi_arrow_batch_builder_end_row(bb, err));
  }
  return hudi_arrow_batch_builder_finish(bb, out, err);
}

hudi_status hudi_lsm_write_file(hudi_storage *s, const char *path, const hudi_lsm_row *rows, size_t n,
                                hudi_error *err) {
  hudi_arrow_field f;
  memset(&f, 0, sizeof f);
  hudi_arrow_batch_builder *bb = NULL;
  hudi_pq_writer *w = NULL;
  struct ArrowSchema schema = {0};
  struct ArrowArray batch = {0};
  hudi_status st = lsm_schema(&f, err);
  if (st == HUDI_OK) st = hudi_arrow_batch_builder_create(&bb, &f, err);
  if (st == HUDI_OK) st = hudi_arrow_field_export(&schema, &f, err);
  if (st == HUDI_OK) st = build_batch(&batch, bb, rows, n, err);
  if (st == HUDI_OK) {
    hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
    /* Hudi's default hoodie.parquet.compression.codec. */
    o.codec = HUDI_PQ_CODEC_GZIP;
    o.schema.root_name = LSM_ROOT_NAME;
    st = hudi_pq_writer_open_storage(&w, &schema, &o, s, path, err);
  }
  if (st == HUDI_OK) st = hudi_pq_writer_write_batch(w, &batch, HUDI_PQ_WRITE_LAST, err);
  if (st == HUDI_OK)
    st = hudi_pq_writer_add_metadata(w, "parquet.avro.schema", LSM_AVRO_SCHEMA, sizeof LSM_AVRO_SCHEMA - 1, err);
  if (st == HUDI_OK) st = hudi_pq_writer_add_metadata(w, "writer.model.name", "avro", 4, err);
  if (st == HUDI_OK) st = hudi_pq_writer_close(w, NULL, err);
  hudi_pq_writer_free(w);
  if (batch.release) batch.release(&batch);
  if (schema.release) schema.release(&schema);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
  if (st != HUDI_OK) hudi_err_context(err, st, "writing archive file %s", path);
  return st;
}


/* Avro <-> Arrow codec throughput on rag-chunks-shaped rows: chunk_id,
 * doc_id (strings), pos (int32), text (~500 chars), embedding (384
 * float32, as list<float> and as fixed_size_list<float, 384>), updated_at
 * (int64). Encodes a batch into a Hudi data block (length-prefixed
 * records) and decodes the block back into Arrow; prints MB/s of Avro
 * payload per core (CPU time of the process, so other load on a shared machine
 * does not count).
 *
 *   bench_avro_codec [rows] [seconds-per-measurement] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/builder.h"
#include "arrow/view.h"
#include "avro/arrow_decode.h"
#include "avro/arrow_encode.h"
#include "avro/arrow_schema.h"

#define DIM 384

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(hudi_status st, const hudi_error *err, const char *what) {
  if (st == HUDI_OK) return;
  fprintf(stderr, "%s: %s\n", what, err->message);
  exit(1);
}

static void make_schema(hudi_arrow_field *f, int fixed) {
  hudi_error err = HUDI_ERROR_INIT;
  check(hudi_arrow_field_init(f, "", "+s", 0, &err), &err, "schema");
  check(hudi_arrow_field_alloc_children(f, 6, &err), &err, "schema");
  check(hudi_arrow_field_init(&f->children[0], "chunk_id", "u", 0, &err), &err, "schema");
  check(hudi_arrow_field_init(&f->children[1], "doc_id", "u", ARROW_FLAG_NULLABLE, &err), &err, "schema");
  check(hudi_arrow_field_init(&f->children[2], "pos", "i", 0, &err), &err, "schema");
  check(hudi_arrow_field_init(&f->children[3], "text", "u", ARROW_FLAG_NULLABLE, &err), &err, "schema");
  check(hudi_arrow_field_init(&f->children[4], "embedding", fixed ? "+w:384" : "+l", ARROW_FLAG_NULLABLE, &err),
        &err, "schema");
  check(hudi_arrow_field_alloc_children(&f->children[4], 1, &err), &err, "schema");
  check(hudi_arrow_field_init(&f->children[4].children[0], "item", "f", 0, &err), &err, "schema");
  check(hudi_arrow_field_init(&f->children[5], "updated_at", "l", 0, &err), &err, "schema");
}

static void make_batch(const hudi_arrow_field *f, int64_t rows, struct ArrowArray *a, struct ArrowSchema *s) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_batch_builder *bb;
  check(hudi_arrow_batch_builder_create(&bb, f, &err), &err, "builder");
  char text[520], id[32];
  for (int k = 0; k < 510; k++) text[k] = (char)('a' + (k * 7) % 26);
  text[510] = 0;
  unsigned seed = 1;
  for (int64_t r = 0; r < rows; r++) {
    snprintf(id, sizeof id, "chunk-%08lld", (long long)r);
    check(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), id, &err), &err, "append");
    snprintf(id, sizeof id, "doc-%06lld", (long long)(r / 10));
    check(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), id, &err), &err, "append");
    check(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), r % 10, &err), &err, "append");
    check(hudi_arrow_builder_append_bytes(hudi_arrow_batch_builder_column(bb, 3), text, 480 + r % 40, &err), &err,
          "append");
    hudi_arrow_builder *emb = hudi_arrow_batch_builder_column(bb, 4);
    for (int d = 0; d < DIM; d++) {
      seed = seed * 1103515245u + 12345u;
      check(hudi_arrow_builder_append_double(hudi_arrow_builder_child(emb, 0), (double)(seed >> 8) / 16777216.0 - 0.5,
                                             &err),
            &err, "append");
    }
    check(hudi_arrow_builder_end_element(emb, &err), &err, "append");
    check(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 5), 1700000000000000 + r, &err), &err,
          "append");
    check(hudi_arrow_batch_builder_end_row(bb, &err), &err, "row");
  }
  check(hudi_arrow_batch_builder_finish(bb, a, &err), &err, "finish");
  check(hudi_arrow_batch_builder_export_schema(bb, s, &err), &err, "finish");
  hudi_arrow_batch_builder_free(bb);
}

static void run(int fixed, int64_t rows, double secs) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  make_schema(&f, fixed);
  struct ArrowArray a;
  struct ArrowSchema s;
  make_batch(&f, rows, &a, &s);
  hudi_arrow_view v;
  check(hudi_arrow_view_init(&v, &s, &a, &err), &err, "view");
  hudi_buf js;
  hudi_buf_init(&js, 0);
  check(hudi_avro_schema_from_arrow(&js, &f, "rag_chunks", true, &err), &err, "avro schema");
  hudi_avro_schema *as;
  check(hudi_avro_schema_parse(&as, (const char *)js.data, js.len, &err), &err, "parse");
  hudi_avro_encoder *enc;
  check(hudi_avro_encoder_create(&enc, &f, as->root, &err), &err, "encoder");

  hudi_avro_meta_values *meta = calloc((size_t)rows, sizeof *meta);
  char (*keys)[32] = calloc((size_t)rows, 32);
  for (int64_t r = 0; r < rows; r++) {
    snprintf(keys[r], 32, "chunk-%08lld", (long long)r);
    meta[r].value[0] = "20250101000000000";
    meta[r].len[0] = 17;
    meta[r].value[1] = "20250101000000000_0_1";
    meta[r].len[1] = 21;
    meta[r].value[2] = keys[r];
    meta[r].len[2] = strlen(keys[r]);
    meta[r].value[3] = "";
    meta[r].len[3] = 0;
    meta[r].value[4] = "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0";
    meta[r].len[4] = 38;
  }
  hudi_buf out;
  hudi_buf_init(&out, 0);
  int iters = 0;
  double t0 = now(), t;
  do {
    hudi_buf_reset(&out);
    check(hudi_avro_encoder_encode_data_block(enc, &out, &v, 0, rows, meta, &err), &err, "encode");
    iters++;
  } while ((t = now()) - t0 < secs);
  double mb = (double)out.len * iters / 1e6;
  printf("%-22s encode: %8.1f MB/s  (%lld rows, %.0f bytes/row)\n", fixed ? "fixed_size_list<f32>" : "list<f32>",
         mb / (t - t0), (long long)rows, (double)out.len / (double)rows);

  hudi_avro_decoder *dec;
  check(hudi_avro_decoder_create(&dec, as->root, NULL, NULL, &err), &err, "decoder");
  iters = 0;
  t0 = now();
  do {
    check(hudi_avro_decoder_decode_data_block(dec, out.data, out.len, 0, NULL, &err), &err, "decode");
    struct ArrowArray d;
    check(hudi_avro_decoder_finish(dec, &d, &err), &err, "finish");
    d.release(&d);
    iters++;
  } while ((t = now()) - t0 < secs);
  mb = (double)out.len * iters / 1e6;
  printf("%-22s decode: %8.1f MB/s  (into list<float>, all columns incl. meta)\n", "", mb / (t - t0));

  hudi_avro_decoder_free(dec);
  free(meta);
  free(keys);
  hudi_buf_free(&out);
  hudi_avro_encoder_free(enc);
  hudi_avro_schema_free(as);
  hudi_buf_free(&js);
  hudi_arrow_view_clear(&v);
  a.release(&a);
  s.release(&s);
  hudi_arrow_field_clear(&f);
}

int main(int argc, char **argv) {
  int64_t rows = argc > 1 ? atoll(argv[1]) : 10000;
  double secs = argc > 2 ? atof(argv[2]) : 2.0;
  run(0, rows, secs);
  run(1, rows, secs);
  return 0;
}

/* Schema evolution on write (write_schema.h) through hudi_table_append and
 * hudi_table_upsert on COW and MOR tables: a new column, int -> long
 * widening, long <- int promotion, the column order of the table kept, a
 * missing column refused (nothing written) or filled with null on request,
 * an incompatible type refused naming the column; the same on a table whose
 * bulk inserts read their keys in place. Values are read back
 * with hudi_table_read and compared with the rows written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "arrow/view.h"
#include "hudi/read.h"
#include "hudi/write.h"
#include "table/table.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-wschema-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* One row: id, city, ts, v, note (NULL: null). */
typedef struct row {
  const char *id, *city;
  int64_t ts, v;
  const char *note;
} row;

/* Columns named in `cols` (a string of letters: i=id, c=city, t=ts, v=v
 * as int32, V=v as int64, s=v as string, n=note), in that order. */
static void make_stream(struct ArrowArrayStream *out, const char *cols, const row *rows, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  int nc = (int)strlen(cols);
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, nc, &err), HUDI_OK);
  for (int k = 0; k < nc; k++) {
    const char *name = "", *fmt = "";
    switch (cols[k]) {
      case 'i': name = "id", fmt = "u"; break;
      case 'c': name = "city", fmt = "u"; break;
      case 't': name = "ts", fmt = "l"; break;
      case 'v': name = "v", fmt = "i"; break;
      case 'V': name = "v", fmt = "l"; break;
      case 's': name = "v", fmt = "u"; break;
      case 'n': name = "note", fmt = "u"; break;
      default: fail();
    }
    assert_int_equal(hudi_arrow_field_init(&f.children[k], name, fmt, ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  }
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < nc; k++) {
      hudi_arrow_builder *b = hudi_arrow_batch_builder_column(bb, k);
      char buf[32];
      hudi_status st = HUDI_OK;
      switch (cols[k]) {
        case 'i': st = hudi_arrow_builder_append_str(b, rows[i].id, &err); break;
        case 'c': st = hudi_arrow_builder_append_str(b, rows[i].city, &err); break;
        case 't': st = hudi_arrow_builder_append_int(b, rows[i].ts, &err); break;
        case 'v':
        case 'V': st = hudi_arrow_builder_append_int(b, rows[i].v, &err); break;
        case 's':
          snprintf(buf, sizeof buf, "%lld", (long long)rows[i].v);
          st = hudi_arrow_builder_append_str(b, buf, &err);
          break;
        case 'n':
          st = rows[i].note ? hudi_arrow_builder_append_str(b, rows[i].note, &err)
                            : hudi_arrow_builder_append_null(b, &err);
          break;
      }
      assert_int_equal(st, HUDI_OK);
    }
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

/* "id:v:note;..." of the snapshot, sorted by id; the schema's formats of
 * v and note into vfmt/nfmt ("" when absent). */
static void snapshot(char *out, size_t cap, hudi_table *t, char *vfmt, char *nfmt) {
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArrayStream s;
  assert_int_equal(hudi_table_read(&s, t, NULL, &err), HUDI_OK);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  int64_t ci = -1, cv = -1, cn = -1;
  for (int64_t k = 0; k < schema.n_children; k++) {
    const char *nm = schema.children[k]->name;
    if (!strcmp(nm, "id")) ci = k;
    if (!strcmp(nm, "v")) cv = k;
    if (!strcmp(nm, "note")) cn = k;
  }
  assert_true(ci >= 0 && cv >= 0);
  snprintf(vfmt, 8, "%s", schema.children[cv]->format);
  snprintf(nfmt, 8, "%s", cn >= 0 ? schema.children[cn]->format : "");
  char lines[64][96];
  size_t n = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
    for (int64_t i = 0; i < v.length; i++) {
      assert_true(n < 64);
      int64_t r = hudi_arrow_view_struct_row(&v, i), il, nl = 0;
      const uint8_t *id = hudi_arrow_view_bytes(&v.children[ci], r, &il);
      const uint8_t *note = NULL;
      if (cn >= 0 && !hudi_arrow_view_is_null(&v.children[cn], r)) note = hudi_arrow_view_bytes(&v.children[cn], r, &nl);
      snprintf(lines[n++], 96, "%.*s:%lld:%.*s;", (int)il, (const char *)id,
               (long long)hudi_arrow_view_int(&v.children[cv], r), (int)nl, note ? (const char *)note : "");
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  qsort(lines, n, sizeof lines[0], (int (*)(const void *, const void *))strcmp);
  out[0] = 0;
  size_t off = 0;
  for (size_t i = 0; i < n; i++) off += (size_t)snprintf(out + off, cap - off, "%s", lines[i]);
}

static hudi_status upsert(hudi_table *t, const char *cols, const row *rows, int n, const hudi_option *o, size_t no,
                          hudi_error *err) {
  struct ArrowArrayStream s;
  make_stream(&s, cols, rows, n);
  hudi_write_result r;
  return hudi_table_upsert(&r, t, &s, o, no, err);
}

/* A table under dir keyed by id, ordered by ts, partitioned by
 * partition_fields (NULL: none). */
static hudi_table *create_table(hudi_table_type type, const char *name, const char *partition_fields) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = partition_fields;
  o.ordering_fields = "ts";
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  return t;
}

static void evolve(hudi_table_type type, const char *name) {
  hudi_table *t = create_table(type, name, "city");
  hudi_error err = HUDI_ERROR_INIT;
  static const row first[] = {{"a", "sf", 1, 1, NULL}, {"b", "sf", 1, 2, NULL}, {"c", "nyc", 1, 3, NULL},
                              {"d", "nyc", 1, 4, NULL}};
  struct ArrowArrayStream s;
  make_stream(&s, "ictv", first, 4);
  hudi_write_result r;
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);
  char snap[2048], vf[8], nf[8];

  /* note is new, v widens to long (columns in another order). */
  static const row second[] = {{"a", "sf", 2, INT64_C(8589934592), "x"}, {"e", "nyc", 2, 5, NULL}};
  assert_int_equal(upsert(t, "nVcti", second, 2, NULL, 0, &err), HUDI_OK);
  snapshot(snap, sizeof snap, t, vf, nf);
  assert_string_equal(snap, "a:8589934592:x;b:2:;c:3:;d:4:;e:5:;");
  assert_string_equal(vf, "l");
  assert_string_equal(nf, "u");

  /* v as int32 again: promoted to the table's long (note given). */
  static const row third[] = {{"b", "sf", 3, 20, "y"}};
  assert_int_equal(upsert(t, "ictvn", third, 1, NULL, 0, &err), HUDI_OK);
  snapshot(snap, sizeof snap, t, vf, nf);
  assert_string_equal(snap, "a:8589934592:x;b:20:y;c:3:;d:4:;e:5:;");
  assert_string_equal(vf, "l");

  /* Refused, nothing written: a missing column, a string v. */
  size_t instants = t->timeline.count;
  static const row bad[] = {{"c", "nyc", 4, 30, "z"}};
  assert_int_equal(upsert(t, "ictv", bad, 1, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "'note'"));
  assert_int_equal(upsert(t, "ictsn", bad, 1, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "column 'v'"));
  make_stream(&s, "ictv", bad, 1);
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(t->timeline.count, instants);

  /* The missing column filled with null on request. */
  hudi_option fill[] = {{"hoodie.write.set.null.for.missing.columns", "true"}};
  assert_int_equal(upsert(t, "ictv", bad, 1, fill, 1, &err), HUDI_OK);
  snapshot(snap, sizeof snap, t, vf, nf);
  assert_string_equal(snap, "a:8589934592:x;b:20:y;c:30:;d:4:;e:5:;");
  assert_string_equal(nf, "u");
  hudi_table_free(t);
}

/* A table without partition fields keyed by one string column: its bulk
 * inserts read the keys in the input's buffers (write_rows.h key_column).
 * An append that evolves the schema rebuilds and frees those buffers; the
 * keys must be copied out first (ASan sees a use after free otherwise). */
static void evolve_keys_in_place(hudi_table_type type, const char *name) {
  hudi_table *t = create_table(type, name, NULL);
  hudi_error err = HUDI_ERROR_INIT;
  static const row first[] = {{"a", "sf", 1, 1, NULL}, {"b", "sf", 1, 2, NULL}};
  struct ArrowArrayStream s;
  make_stream(&s, "ictv", first, 2);
  hudi_write_result r;
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);
  /* note is new, v widens to long, the columns in another order. */
  static const row second[] = {{"key-c-long-enough", "nyc", 2, 5, "x"}, {"d", "sf", 2, 6, NULL},
                               {"key-e", "la", 2, 7, "y"}};
  make_stream(&s, "nVcti", second, 3);
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);
  char snap[2048], vf[8], nf[8];
  snapshot(snap, sizeof snap, t, vf, nf);
  assert_string_equal(snap, "a:1:;b:2:;d:6:;key-c-long-enough:5:x;key-e:7:y;");
  assert_string_equal(vf, "l");
  hudi_table_free(t);
}

static void test_keys_in_place(void **state) {
  (void)state;
  evolve_keys_in_place(HUDI_COPY_ON_WRITE, "cow-in-place");
  evolve_keys_in_place(HUDI_MERGE_ON_READ, "mor-in-place");
}

static void test_cow(void **state) {
  (void)state;
  evolve(HUDI_COPY_ON_WRITE, "cow");
}

static void test_mor(void **state) {
  (void)state;
  evolve(HUDI_MERGE_ON_READ, "mor");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_cow), cmocka_unit_test(test_mor),
                                     cmocka_unit_test(test_keys_in_place)};
  return cmocka_run_group_tests(tests, setup, teardown);
}

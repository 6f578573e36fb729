/* The Parquet writer on bad input and failing allocations: types Parquet
 * cannot hold are HUDI_ERR_UNSUPPORTED naming the column; nulls where the
 * Parquet schema says required are HUDI_ERR_INVALID_ARG naming the column;
 * a failed writer refuses further use; every allocation failure surfaces as
 * an error (ASan checks nothing leaks) and the writer succeeds once
 * allocations do. Schema mapping details (levels, annotations, field ids)
 * are checked here against hand-derived expectations; the pyarrow/DuckDB
 * oracle is test_writer.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hudi/alloc.h"
#include "io/backend.h"
#include "io/storage.h"
#include "parquet/arrow_to_parquet.h"
#include "parquet/metadata.h"
#include "parquet/writer.h"

/* ---- hand-made Arrow structs (static storage, no-op release) ---- */
static void noop_schema(struct ArrowSchema *s) { s->release = NULL; }
static void noop_array(struct ArrowArray *a) { a->release = NULL; }

static struct ArrowSchema mk_schema(const char *fmt, const char *name, int64_t flags, int64_t n,
                                    struct ArrowSchema **children) {
  struct ArrowSchema s = {.format = fmt, .name = name, .flags = flags, .n_children = n, .children = children,
                          .release = noop_schema};
  return s;
}

static struct ArrowArray mk_array(int64_t len, int64_t nulls, int64_t nbuf, const void **bufs, int64_t n,
                                  struct ArrowArray **children) {
  struct ArrowArray a = {.length = len, .null_count = nulls, .n_buffers = nbuf, .buffers = bufs,
                         .n_children = n, .children = children, .release = noop_array};
  return a;
}

#define NULLABLE ARROW_FLAG_NULLABLE

/* A one-column schema around child. */
static hudi_status open_with(hudi_pq_writer **w, struct ArrowSchema *child, hudi_buf *out,
                             const hudi_pq_writer_options *o, hudi_error *err) {
  struct ArrowSchema *kids[1] = {child};
  struct ArrowSchema root = mk_schema("+s", "", 0, 1, kids);
  return hudi_pq_writer_open_buf(w, &root, o, out, err);
}

static void expect_unsupported(struct ArrowSchema *col, const char *needle) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = NULL;
  hudi_status st = open_with(&w, col, &out, NULL, &err);
  if (st != HUDI_ERR_UNSUPPORTED) fail_msg("status %d (%s)", (int)st, err.message);
  assert_null(w);
  if (!strstr(err.message, needle)) fail_msg("'%s' does not name '%s'", err.message, needle);
  hudi_buf_free(&out);
}

static void unsupported_types_name_the_column(void **state) {
  (void)state;
  struct ArrowSchema na = mk_schema("n", "nothing", NULLABLE, 0, NULL);
  expect_unsupported(&na, "nothing");
  /* An empty struct inside a struct: parent.child path in the message. */
  struct ArrowSchema empty = mk_schema("+s", "hollow", NULLABLE, 0, NULL);
  struct ArrowSchema *k1[1] = {&empty};
  struct ArrowSchema outer = mk_schema("+s", "outer", NULLABLE, 1, k1);
  expect_unsupported(&outer, "outer.hollow");
  /* A dictionary whose values are nested. */
  struct ArrowSchema item = mk_schema("i", "item", NULLABLE, 0, NULL);
  struct ArrowSchema *k2[1] = {&item};
  struct ArrowSchema lst = mk_schema("+l", NULL, NULLABLE, 1, k2);
  struct ArrowSchema dict = mk_schema("i", "dl", NULLABLE, 0, NULL);
  dict.dictionary = &lst;
  expect_unsupported(&dict, "dl");
  /* A top-level non-struct schema is refused. */
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = NULL;
  struct ArrowSchema flat = mk_schema("i", "x", 0, 0, NULL);
  assert_int_equal(hudi_pq_writer_open_buf(&w, &flat, NULL, &out, &err), HUDI_ERR_INVALID_ARG);
  /* An unsupported codec. */
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  o.codec = HUDI_PQ_CODEC_BROTLI;
  struct ArrowSchema ok = mk_schema("i", "x", 0, 0, NULL);
  assert_int_equal(open_with(&w, &ok, &out, &o, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "codec"));
  hudi_buf_free(&out);
}

static void null_in_required_column_is_refused(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = NULL;
  struct ArrowSchema col = mk_schema("i", "must_have", 0, 0, NULL); /* not nullable */
  assert_int_equal(open_with(&w, &col, &out, NULL, &err), HUDI_OK);
  static const uint8_t validity[1] = {0x0b}; /* row 2 is null */
  static const int32_t vals[4] = {1, 2, 3, 4};
  const void *cb[2] = {validity, vals};
  struct ArrowArray c = mk_array(4, 1, 2, cb, 0, NULL);
  struct ArrowArray *kids[1] = {&c};
  const void *rb[1] = {NULL};
  struct ArrowArray batch = mk_array(4, 0, 1, rb, 1, kids);
  assert_int_equal(hudi_pq_writer_write_batch(w, &batch, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "must_have"));
  /* The failed writer refuses more work. */
  assert_int_not_equal(hudi_pq_writer_write_batch(w, &batch, 0, &err), HUDI_OK);
  assert_int_not_equal(hudi_pq_writer_close(w, NULL, &err), HUDI_OK);
  hudi_pq_writer_free(w);
  hudi_buf_free(&out);
}

static void compression_level_out_of_range_is_refused(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = NULL;
  struct ArrowSchema col = mk_schema("i", "n", 0, 0, NULL);
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  o.codec = HUDI_PQ_CODEC_ZSTD;
  o.codec_level = 23;
  assert_int_equal(open_with(&w, &col, &out, &o, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "compression level 23"));
  hudi_pq_writer_free(w);
  w = NULL;
  o.codec_level = 22;
  assert_int_equal(open_with(&w, &col, &out, &o, &err), HUDI_OK);
  hudi_pq_writer_free(w);
  hudi_buf_free(&out);
}

static void two_level_list_refuses_null_elements(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = NULL;
  struct ArrowSchema item = mk_schema("i", "item", NULLABLE, 0, NULL);
  struct ArrowSchema *k[1] = {&item};
  struct ArrowSchema lst = mk_schema("+l", "tags", NULLABLE, 1, k);
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  o.schema.list_style = HUDI_PQ_LIST_2LEVEL;
  assert_int_equal(open_with(&w, &lst, &out, &o, &err), HUDI_OK);
  static const uint8_t ev[1] = {0x05}; /* element 1 is null */
  static const int32_t evals[3] = {7, 0, 9};
  const void *eb[2] = {ev, evals};
  struct ArrowArray e = mk_array(3, 1, 2, eb, 0, NULL);
  struct ArrowArray *ek[1] = {&e};
  static const int32_t offs[3] = {0, 2, 3};
  const void *lb[2] = {NULL, offs};
  struct ArrowArray l = mk_array(2, 0, 2, lb, 1, ek);
  struct ArrowArray *kids[1] = {&l};
  const void *rb[1] = {NULL};
  struct ArrowArray batch = mk_array(2, 0, 1, rb, 1, kids);
  assert_int_equal(hudi_pq_writer_write_batch(w, &batch, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "tags"));
  hudi_pq_writer_free(w);
  /* The same data in the 3-level form is fine. */
  hudi_buf_reset(&out);
  assert_int_equal(open_with(&w, &lst, &out, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_pq_writer_write_batch(w, &batch, 0, &err), HUDI_OK);
  hudi_pq_write_summary s;
  assert_int_equal(hudi_pq_writer_close(w, &s, &err), HUDI_OK);
  assert_int_equal(s.num_rows, 2);
  assert_int_equal(s.columns[0].num_values, 3);
  assert_int_equal(s.columns[0].null_count, 1);
  assert_string_equal(s.columns[0].path, "tags.list.element");
  int32_t mn, mx;
  memcpy(&mn, s.columns[0].min.data, 4);
  memcpy(&mx, s.columns[0].max.data, 4);
  assert_int_equal(mn, 7);
  assert_int_equal(mx, 9);
  hudi_pq_write_summary_free(&s);
  hudi_pq_writer_free(w);
  hudi_buf_free(&out);
}

/* Levels and annotations of a nested schema, derived by hand from the
 * Dremel rules: m: map<string, list<int64 not null>> nullable. */
static void schema_levels(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field root, *m, *e, *l;
  assert_int_equal(hudi_arrow_field_init(&root, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&root, 1, &err), HUDI_OK);
  m = &root.children[0];
  assert_int_equal(hudi_arrow_field_init(m, "m", "+m", NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(m, 1, &err), HUDI_OK);
  e = &m->children[0];
  assert_int_equal(hudi_arrow_field_init(e, "entries", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(e, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&e->children[0], "key", "u", 0, &err), HUDI_OK);
  l = &e->children[1];
  assert_int_equal(hudi_arrow_field_init(l, "value", "+l", NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(l, 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&l->children[0], "item", "l", 0, &err), HUDI_OK);
  /* field id on m */
  assert_int_equal(hudi_arrow_field_set_metadata(m, "\x01\0\0\0\x10\0\0\0PARQUET:field_id\x02\0\0\0" "42", &err),
                   HUDI_OK);
  for (int style = 0; style < 2; style++) {
    hudi_pq_schema_options o = HUDI_PQ_SCHEMA_OPTIONS_INIT;
    o.list_style = style ? HUDI_PQ_LIST_2LEVEL : HUDI_PQ_LIST_3LEVEL;
    o.map_key_value_legacy = style == 1;
    hudi_pq_wschema ws;
    assert_int_equal(hudi_pq_wschema_build(&ws, &root, &o, &err), HUDI_OK);
    assert_int_equal(ws.n_leaves, 2);
    const hudi_pq_leaf_plan *key = &ws.leaves[0], *item = &ws.leaves[1];
    /* m optional (1), key_value repeated (2); key required. */
    assert_int_equal(key->max_def, 2);
    assert_int_equal(key->max_rep, 1);
    /* + value optional (3), list repeated (4), element required (3-level) */
    assert_int_equal(item->max_def, 4);
    assert_int_equal(item->max_rep, 2);
    assert_int_equal(item->path_len, style ? 4 : 5);
    assert_string_equal(item->path[style ? 3 : 4], style ? "array" : "element");
    assert_true(ws.elements[1].has_field_id);
    assert_int_equal(ws.elements[1].field_id, 42);
    assert_int_equal(ws.elements[1].converted_type, HUDI_PQ_CT_MAP);
    assert_int_equal(ws.elements[2].has_converted_type, style == 1);
    assert_int_equal(ws.elements[2].repetition, HUDI_PQ_REPEATED);
    hudi_pq_wschema_free(&ws);
  }
  hudi_arrow_field_clear(&root);
  assert_int_equal(hudi_pq_decimal_flba_width(9), 4);
  assert_int_equal(hudi_pq_decimal_flba_width(10), 5);
  assert_int_equal(hudi_pq_decimal_flba_width(18), 8);
  assert_int_equal(hudi_pq_decimal_flba_width(38), 16);
}

/* One small batch of every shape: nullable int32, string, list<int32>. */
static hudi_status write_small(hudi_buf *out, hudi_pq_write_summary *s, hudi_error *err) {
  static struct ArrowSchema a, str, item, lst, root;
  static struct ArrowSchema *lk[1], *rk[3];
  a = mk_schema("i", "a", NULLABLE, 0, NULL);
  str = mk_schema("u", "s", NULLABLE, 0, NULL);
  item = mk_schema("i", "item", NULLABLE, 0, NULL);
  lk[0] = &item;
  lst = mk_schema("+l", "l", NULLABLE, 1, lk);
  rk[0] = &a;
  rk[1] = &str;
  rk[2] = &lst;
  root = mk_schema("+s", "", 0, 3, rk);
  static const uint8_t v[1] = {0x0d};
  static const int32_t ai[4] = {5, -1, 7, 8};
  static const int32_t so[5] = {0, 3, 3, 8, 9};
  static const char sd[] = "abcdefghi";
  static const int32_t lo[5] = {0, 2, 2, 3, 5};
  static const int32_t li[5] = {1, 2, 3, 4, 5};
  const void *ab[2] = {v, ai}, *sb[3] = {v, so, sd}, *ib[2] = {NULL, li}, *lb[2] = {v, lo}, *rb[1] = {NULL};
  struct ArrowArray ca = mk_array(4, 1, 2, ab, 0, NULL), cs = mk_array(4, 1, 3, sb, 0, NULL);
  struct ArrowArray ci = mk_array(5, 0, 2, ib, 0, NULL);
  struct ArrowArray *ik[1] = {&ci};
  struct ArrowArray cl = mk_array(4, 1, 2, lb, 1, ik);
  struct ArrowArray *bk[3] = {&ca, &cs, &cl};
  struct ArrowArray batch = mk_array(4, 0, 1, rb, 3, bk);
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  o.row_group_rows = 3;
  hudi_pq_writer *w = NULL;
  hudi_status st = hudi_pq_writer_open_buf(&w, &root, &o, out, err);
  if (st == HUDI_OK) st = hudi_pq_writer_write_batch(w, &batch, 0, err);
  if (st == HUDI_OK) st = hudi_pq_writer_add_metadata(w, "k", "v", 1, err);
  if (st == HUDI_OK) st = hudi_pq_writer_write_batch(w, &batch, HUDI_PQ_WRITE_LAST, err);
  if (st == HUDI_OK) st = hudi_pq_writer_close(w, s, err);
  hudi_pq_writer_free(w);
  return st;
}

static void allocation_failures(void **state) {
  (void)state;
  long k = 0;
  int failures = 0;
  for (;; k++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_buf out;
    hudi_buf_init(&out, 0);
    hudi_pq_write_summary s;
    hudi_alloc_fail_after(k);
    hudi_status st = write_small(&out, &s, &err);
    hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) {
      /* The file parses and says what was written. */
      hudi_pq_arena a;
      hudi_pq_arena_init(&a, 0);
      hudi_pq_file_meta m;
      assert_int_equal(hudi_pq_file_meta_parse_file(&m, &a, out.data, out.len, &err), HUDI_OK);
      assert_int_equal(m.num_rows, 8);
      assert_int_equal(m.num_row_groups, 3); /* 3 + 3 + 2 rows */
      assert_int_equal(s.num_rows, 8);
      assert_int_equal(s.columns[0].null_count, 2);
      hudi_pq_arena_free(&a);
      hudi_pq_write_summary_free(&s);
      hudi_buf_free(&out);
      break;
    }
    assert_true(err.code != HUDI_OK);
    failures++;
    hudi_buf_free(&out);
    assert_true(k < 100000);
  }
  assert_true(failures > 50);
}

/* On local storage a file is written to a temporary of the writer's own
 * and published durable: its new directories named in their parents, the
 * file fsynced before it takes its name, then its directory. */
static void local_file_is_published_durable(void **state) {
  (void)state;
  char dir[] = "/tmp/hudi-pq-durable-XXXXXX";
  assert_non_null(mkdtemp(dir));
  hudi_storage *st;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_open(&st, dir, NULL, 0, &err), HUDI_OK);
  static struct ArrowSchema a, root;
  static struct ArrowSchema *rk[1];
  a = mk_schema("l", "a", 0, 0, NULL);
  rk[0] = &a;
  root = mk_schema("+s", "", 0, 1, rk);
  static const int64_t av[3] = {1, 2, 3};
  const void *ab[2] = {NULL, av}, *rb[1] = {NULL};
  struct ArrowArray ca = mk_array(3, 0, 2, ab, 0, NULL);
  struct ArrowArray *bk[1] = {&ca};
  struct ArrowArray batch = mk_array(3, 0, 1, rb, 1, bk);
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  hudi_pq_writer *w = NULL;
  uint64_t before = hudi_local_storage_fsyncs(st);
  assert_int_equal(hudi_pq_writer_open_storage(&w, &root, &o, st, "n/d/f.parquet", &err), HUDI_OK);
  /* n and n/d made: the base and n fsynced. */
  assert_int_equal(hudi_local_storage_fsyncs(st) - before, 2);
  assert_int_equal(hudi_pq_writer_write_batch(w, &batch, HUDI_PQ_WRITE_LAST, &err), HUDI_OK);
  assert_int_equal(hudi_pq_writer_close(w, NULL, &err), HUDI_OK);
  hudi_pq_writer_free(w);
  /* The temporary, then n/d after the rename. */
  assert_int_equal(hudi_local_storage_fsyncs(st) - before, 4);
  char path[128];
  struct stat sb;
  snprintf(path, sizeof path, "%s/n/d/f.parquet", dir);
  assert_int_equal(stat(path, &sb), 0);
  assert_true(sb.st_size > 12);
  hudi_storage_free(st);
  assert_int_equal(unlink(path), 0);
  snprintf(path, sizeof path, "%s/n/d", dir);
  assert_int_equal(rmdir(path), 0);
  snprintf(path, sizeof path, "%s/n", dir);
  assert_int_equal(rmdir(path), 0);
  assert_int_equal(rmdir(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(unsupported_types_name_the_column),
      cmocka_unit_test(null_in_required_column_is_refused),
      cmocka_unit_test(compression_level_out_of_range_is_refused),
      cmocka_unit_test(two_level_list_refuses_null_elements),
      cmocka_unit_test(schema_levels),
      cmocka_unit_test(allocation_failures),
      cmocka_unit_test(local_file_is_published_durable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Keyed writes (hudi_table_upsert / delete_keys / delete / update) on COW
 * and MOR tables, the BLOOM index behind them, and footer bloom filter
 * parsing. Results are read back with hudi_table_read and compared with
 * the expected rows written out by hand. */
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
#include "base/alloc.h"
#include "hudi/read.h"
#include "hudi/write.h"
#include "io/storage.h"
#include "table/bloom.h"
#include "table/index.h"
#include "table/index_rli.h"
#include "table/table.h"

static char dir[256];
/* Tables made by create() have the metadata table and record index
 * (the keyed writes then look keys up in it and keep it current). */
static bool with_rli;

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-upsert-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* One batch: id (string), city (string), ts (int64), v (int32). */
static void make_stream(struct ArrowArrayStream *out, const char *const *ids, const char *const *cities,
                        const int64_t *ts, const int32_t *v, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 4, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "ts", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[3], "v", "i", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    hudi_arrow_builder *c0 = hudi_arrow_batch_builder_column(bb, 0);
    assert_int_equal(ids[i] ? hudi_arrow_builder_append_str(c0, ids[i], &err) : hudi_arrow_builder_append_null(c0, &err),
                     HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), cities[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), ts[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 3), v[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static hudi_table *create(const char *name, hudi_table_type type, const char *parts) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = parts;
  o.ordering_fields = "ts";
  o.record_index_enabled = with_rli;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  return t;
}

typedef struct kv {
  char id[32], part[32];
  int32_t v;
} kv;

static int kv_cmp(const void *a, const void *b) { return strcmp(((const kv *)a)->id, ((const kv *)b)->id); }

/* "id:partition:v;..." of the table's snapshot, sorted by id. */
static void snapshot(char *out, size_t cap, hudi_table *t) {
  static const char *const cols[] = {"_hoodie_partition_path", "id", "v"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.projection = cols;
  ro.n_projection = 3;
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_read(&s, t, &ro, &err), HUDI_OK);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  kv rows[64];
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
      int64_t len, r = hudi_arrow_view_struct_row(&v, i);
      const uint8_t *p = hudi_arrow_view_bytes(&v.children[0], r, &len);
      snprintf(rows[n].part, sizeof rows[n].part, "%.*s", (int)len, (const char *)p);
      p = hudi_arrow_view_bytes(&v.children[1], r, &len);
      snprintf(rows[n].id, sizeof rows[n].id, "%.*s", (int)len, (const char *)p);
      rows[n].v = ((const int32_t *)v.children[2].values)[v.children[2].offset + r];
      n++;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  qsort(rows, n, sizeof *rows, kv_cmp);
  size_t off = 0;
  out[0] = 0;
  for (size_t i = 0; i < n; i++)
    off += (size_t)snprintf(out + off, cap - off, "%s:%s:%d;", rows[i].id, rows[i].part, rows[i].v);
}

static void upsert(hudi_table *t, hudi_write_result *r, const char *const *ids, const char *const *cities,
                   const int64_t *ts, const int32_t *v, int n) {
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, v, n);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_upsert(r, t, &s, NULL, 0, &err), HUDI_OK);
}

static void append4(hudi_table *t) {
  static const char *const ids[] = {"a", "b", "c", "d"};
  static const char *const cities[] = {"sf", "sf", "nyc", "nyc"};
  static const int64_t ts[] = {5, 5, 5, 5};
  static const int32_t v[] = {1, 2, 3, 4};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, v, 4);
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);
}

static void verbs(hudi_table_type type, const char *name, const char *parts) {
  hudi_table *t = create(name, type, parts);
  append4(t);
  bool part = parts != NULL;
  char snap[2048], want[2048];
  /* b: stale (lower ts) -> kept; c: moves to sf; e: new; a twice: ts 9 wins over 7. */
  static const char *const ids[] = {"a", "b", "c", "e", "a"};
  static const char *const cities[] = {"sf", "sf", "sf", "nyc", "sf"};
  static const int64_t ts[] = {9, 1, 6, 6, 7};
  static const int32_t v[] = {10, 20, 30, 50, 11};
  hudi_write_result r;
  upsert(t, &r, ids, cities, ts, v, 5);
  assert_string_equal(r.operation, "UPSERT");
  assert_string_equal(r.action, type == HUDI_MERGE_ON_READ ? "deltacommit" : "commit");
  assert_true(strcmp(r.completion_time, r.requested_time) > 0);
  snapshot(snap, sizeof snap, t);
  if (part) assert_string_equal(snap, "a:city=sf:10;b:city=sf:2;c:city=sf:30;d:city=nyc:4;e:city=nyc:50;");
  else assert_string_equal(snap, "a::10;b::2;c::30;d::4;e::50;");
  assert_int_equal(r.num_inserts, part ? 2 : 1); /* e, and c re-inserted in its new partition */
  if (type == HUDI_COPY_ON_WRITE) assert_int_equal(r.num_updates, part ? 1 : 2); /* a (and c) */
  if (with_rli) {
    /* The record index followed the write: c moved, e is new, zz absent. */
    hudi_index *ix = NULL;
    hudi_error ierr = HUDI_ERROR_INIT;
    assert_int_equal(hudi_index_rli_create(&ix, t, &ierr), HUDI_OK);
    const char *keys[] = {"c", "e", "zz"};
    size_t lens[] = {1, 1, 2};
    hudi_index_loc loc[3];
    assert_int_equal(hudi_index_lookup(ix, loc, keys, lens, 3, &ierr), HUDI_OK);
    assert_string_equal(loc[0].partition, part ? "city=sf" : "");
    assert_string_equal(loc[1].partition, part ? "city=nyc" : "");
    assert_null(loc[2].partition);
    hudi_index_free(ix);
  }
  /* d to sf with a lower ts: the stored record wins and stays where it is
   * (Java merges before it moves a key). */
  static const char *const stale_id[] = {"d"};
  static const char *const stale_city[] = {"sf"};
  static const int64_t stale_ts[] = {1};
  static const int32_t stale_v[] = {99};
  upsert(t, &r, stale_id, stale_city, stale_ts, stale_v, 1);
  snapshot(snap, sizeof snap, t);
  if (part) assert_string_equal(snap, "a:city=sf:10;b:city=sf:2;c:city=sf:30;d:city=nyc:4;e:city=nyc:50;");
  else assert_string_equal(snap, "a::10;b::2;c::30;d::4;e::50;");
  if (part) assert_string_equal(r.requested_time, ""); /* nothing to write */

  static const char *const del[] = {"d", "zz"};
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_delete_keys(&r, t, del, 2, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_deletes, 1);
  assert_string_equal(r.operation, "DELETE");
  assert_int_equal(hudi_table_delete(&r, t, "v >= 30 AND id <> 'a'", NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_deletes, 2);
  snapshot(snap, sizeof snap, t);
  snprintf(want, sizeof want, "a:%s:10;b:%s:2;", part ? "city=sf" : "", part ? "city=sf" : "");
  assert_string_equal(snap, want);

  hudi_update_assignment set[] = {{"v", "v_is_text", HUDI_ASSIGN_STRING}};
  assert_int_equal(hudi_table_update(&r, t, "id = 'b'", set, 1, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_update_assignment set2[] = {{"v", "77", HUDI_ASSIGN_SQL}, {"city", "'la'", HUDI_ASSIGN_SQL}};
  assert_int_equal(hudi_table_update(&r, t, "id = 'b'", set2, 2, NULL, 0, &err), HUDI_OK);
  snapshot(snap, sizeof snap, t);
  snprintf(want, sizeof want, "a:%s:10;b:%s:77;", part ? "city=sf" : "", part ? "city=la" : "");
  assert_string_equal(snap, want);

  /* Nothing to change: nothing committed. */
  size_t instants = t->timeline.count;
  assert_int_equal(hudi_table_delete_keys(&r, t, del + 1, 1, NULL, 0, &err), HUDI_OK);
  assert_string_equal(r.requested_time, "");
  assert_int_equal(t->timeline.count, instants);
  /* Bad input: errors, nothing written. */
  assert_int_equal(hudi_table_delete(&r, t, "nosuch = 1", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_table_delete(&r, t, "v = = 1", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_update_assignment key[] = {{"id", "'x'", HUDI_ASSIGN_SQL}};
  assert_int_equal(hudi_table_update(&r, t, NULL, key, 1, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  static const char *const null_id[] = {NULL};
  static const char *const c1[] = {"sf"};
  static const int64_t ts1[] = {1};
  static const int32_t v1[] = {1};
  struct ArrowArrayStream s;
  make_stream(&s, null_id, c1, ts1, v1, 1);
  assert_int_equal(hudi_table_upsert(&r, t, &s, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_table_free(t);
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_table *again = NULL;
  assert_int_equal(hudi_table_open(&again, path, NULL, 0, &err), HUDI_OK);
  assert_int_equal(again->timeline.count, instants);
  hudi_table_free(again);
}

static void cow_partitioned(void **state) {
  (void)state;
  verbs(HUDI_COPY_ON_WRITE, "cow_p", "city");
}
static void cow_flat(void **state) {
  (void)state;
  verbs(HUDI_COPY_ON_WRITE, "cow_f", NULL);
}
static void mor_partitioned(void **state) {
  (void)state;
  verbs(HUDI_MERGE_ON_READ, "mor_p", "city");
}
static void mor_flat(void **state) {
  (void)state;
  verbs(HUDI_MERGE_ON_READ, "mor_f", NULL);
}

/* The index finds keys in their partitions and reads only the file groups
 * whose footer admits a key. */
static void bloom_index_lookup(void **state) {
  (void)state;
  hudi_table *t = create("idx", HUDI_COPY_ON_WRITE, "city");
  append4(t);
  hudi_index *ix;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_index_bloom_create(&ix, t, &err), HUDI_OK);
  const char *keys[] = {"c", "a", "zz", "b0"};
  size_t lens[] = {1, 1, 2, 2};
  hudi_index_loc loc[4];
  assert_int_equal(hudi_index_lookup(ix, loc, keys, lens, 4, &err), HUDI_OK);
  assert_string_equal(loc[0].partition, "city=nyc");
  assert_string_equal(loc[1].partition, "city=sf");
  assert_null(loc[2].partition);
  assert_null(loc[3].partition);
  assert_int_equal(ix->files_considered, 2);
  assert_int_equal(ix->files_read, 2); /* each holds one of a, c */
  const char *absent[] = {"zz"};
  size_t alen[] = {2};
  assert_int_equal(hudi_index_lookup(ix, loc, absent, alen, 1, &err), HUDI_OK);
  assert_null(loc[0].partition);
  assert_int_equal(ix->files_read, 0); /* "zz" is above both files' max key */
  hudi_index_free(ix);
  hudi_table_free(t);
}

static void overwrite(hudi_table_type type, const char *name) {
  hudi_table *t = create(name, type, "city");
  append4(t);
  static const char *const ids[] = {"e", "a"};
  static const char *const cities[] = {"sf", "sf"};
  static const int64_t ts[] = {1, 1};
  static const int32_t v[] = {5, 6};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, v, 2);
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_overwrite(&r, t, &s, HUDI_OVERWRITE_PARTITIONS, NULL, 0, &err), HUDI_OK);
  assert_string_equal(r.action, "replacecommit");
  assert_string_equal(r.operation, "INSERT_OVERWRITE");
  char snap[1024];
  snapshot(snap, sizeof snap, t);
  assert_string_equal(snap, "a:city=sf:6;c:city=nyc:3;d:city=nyc:4;e:city=sf:5;");
  /* b was overwritten away: a delete finds nothing (in the index too). */
  static const char *const b[] = {"b"};
  assert_int_equal(hudi_table_delete_keys(&r, t, b, 1, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_deletes, 0);
  assert_string_equal(r.requested_time, "");
  make_stream(&s, ids + 1, cities, ts, v, 1);
  assert_int_equal(hudi_table_overwrite(&r, t, &s, HUDI_OVERWRITE_TABLE, NULL, 0, &err), HUDI_OK);
  assert_string_equal(r.operation, "INSERT_OVERWRITE_TABLE");
  snapshot(snap, sizeof snap, t);
  assert_string_equal(snap, "a:city=sf:5;");
  make_stream(&s, ids, cities, ts, v, 1);
  assert_int_equal(hudi_table_overwrite(&r, t, &s, (hudi_overwrite_scope)7, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_table_free(t);
}

static void overwrite_cow(void **state) {
  (void)state;
  overwrite(HUDI_COPY_ON_WRITE, "ow_cow");
}
static void overwrite_mor(void **state) {
  (void)state;
  overwrite(HUDI_MERGE_ON_READ, "ow_mor");
}

static void rli_cow_partitioned(void **state) {
  (void)state;
  with_rli = true;
  verbs(HUDI_COPY_ON_WRITE, "rli_cow_p", "city");
  overwrite(HUDI_COPY_ON_WRITE, "rli_ow_cow");
  with_rli = false;
}
static void rli_mor_flat(void **state) {
  (void)state;
  with_rli = true;
  verbs(HUDI_MERGE_ON_READ, "rli_mor_f", NULL);
  verbs(HUDI_MERGE_ON_READ, "rli_mor_p", "city");
  overwrite(HUDI_MERGE_ON_READ, "rli_ow_mor");
  with_rli = false;
}

static void bloom_roundtrip(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_bloom b, back;
  assert_int_equal(hudi_bloom_init(&b, 100, 1e-6, 300, &err), HUDI_OK);
  char key[32];
  for (int i = 0; i < 250; i++) { /* three rows */
    snprintf(key, sizeof key, "key-%d", i);
    assert_int_equal(hudi_bloom_add(&b, key, strlen(key), &err), HUDI_OK);
  }
  hudi_buf text, again;
  hudi_buf_init(&text, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&again, HUDI_BUF_DEFAULT_MAX);
  assert_int_equal(hudi_bloom_serialize(&b, &text, &err), HUDI_OK);
  assert_int_equal(hudi_bloom_deserialize(&back, (const char *)text.data, text.len, true, &err), HUDI_OK);
  assert_int_equal(back.n_rows, 3);
  assert_int_equal(hudi_bloom_serialize(&back, &again, &err), HUDI_OK);
  assert_int_equal(again.len, text.len);
  assert_memory_equal(again.data, text.data, text.len);
  for (int i = 0; i < 250; i++) {
    snprintf(key, sizeof key, "key-%d", i);
    assert_true(hudi_bloom_might_contain(&back, key, strlen(key)));
  }
  int fp = 0;
  for (int i = 0; i < 1000; i++) {
    snprintf(key, sizeof key, "other-%d", i);
    fp += hudi_bloom_might_contain(&back, key, strlen(key));
  }
  assert_true(fp < 5);
  /* Truncated and garbled text is an error, not a crash. */
  hudi_bloom bad;
  assert_int_equal(hudi_bloom_deserialize(&bad, (const char *)text.data, text.len / 2, true, &err), HUDI_ERR_CORRUPT);
  assert_int_equal(hudi_bloom_deserialize(&bad, "!!!!", 4, true, &err), HUDI_ERR_CORRUPT);
  assert_int_equal(hudi_bloom_deserialize(&bad, "AAAA", 4, false, &err), HUDI_ERR_CORRUPT);
  hudi_buf_free(&text);
  hudi_buf_free(&again);
  hudi_bloom_free(&b);
  hudi_bloom_free(&back);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bloom_roundtrip), cmocka_unit_test(bloom_index_lookup), cmocka_unit_test(cow_partitioned),
      cmocka_unit_test(cow_flat),        cmocka_unit_test(mor_partitioned),    cmocka_unit_test(mor_flat),
      cmocka_unit_test(overwrite_cow), cmocka_unit_test(overwrite_mor),
      cmocka_unit_test(rli_cow_partitioned), cmocka_unit_test(rli_mor_flat),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

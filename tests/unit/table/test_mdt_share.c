/* One metadata-table handle per write (mdt_reader.h hudi_mdt_share_*):
 * while sharing is on, hudi_mdt_acquire hands out one handle, and after
 * the MDT or the data timeline moved (a commit by another table handle,
 * then a reload; or hudi_mdt_share_invalidate) the handle it hands out is
 * refreshed in place. The oracle is a fresh hudi_mdt_open at the same
 * moment: the same MDT timeline, the same file groups and latest slices,
 * the same valid instants, and the same record-index locations. A write
 * through the shared path (upsert, delete) leaves the table as a table
 * written without it would be: its keys are found again by a fresh handle. */
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
#include "base/alloc.h"
#include "hudi/write.h"
#include "table/mdt_reader.h"
#include "table/mdt_record_index.h"
#include "table/table.h"
#include "table/write.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-mdt-share-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void make_stream(struct ArrowArrayStream *out, int from, int n, int64_t ts) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "ts", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = from; i < from + n; i++) {
    char id[32];
    snprintf(id, sizeof id, "key%05d", i);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), id, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), i % 2 ? "sf" : "nyc", &err),
                     HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), ts, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static const hudi_option NO_SERVICES[] = {{"hoodie.clean.automatic", "false"}, {"hoodie.compact.inline", "false"}};

static void upsert(hudi_table *t, int from, int n, int64_t ts) {
  struct ArrowArrayStream s;
  make_stream(&s, from, n, ts);
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_upsert(&r, t, &s, NO_SERVICES, 2, &err), HUDI_OK);
  assert_true(r.completion_time[0] != '\0');
}

static hudi_table *create(const char *name, hudi_table_type type) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  o.record_index_enabled = true;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  struct ArrowArrayStream s;
  make_stream(&s, 0, 40, 1);
  hudi_write_result r;
  assert_int_equal(hudi_table_append(&r, t, &s, NO_SERVICES, 2, &err), HUDI_OK);
  return t;
}

static hudi_table *reopen(const hudi_table *t) {
  hudi_table *o = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&o, t->base_uri, NULL, 0, &err), HUDI_OK);
  return o;
}

static void same_slice(const hudi_file_slice *a, const hudi_file_slice *b) {
  assert_true((a == NULL) == (b == NULL));
  if (!a) return;
  assert_string_equal(a->base_instant, b->base_instant);
  assert_true((a->base == NULL) == (b->base == NULL));
  if (a->base) assert_string_equal(a->base->path, b->base->path);
  assert_int_equal(a->n_logs, b->n_logs);
  for (size_t i = 0; i < a->n_logs; i++) assert_string_equal(a->logs[i].path, b->logs[i].path);
}

/* Keys key00000 .. key(n-1): their record-index locations. */
static hudi_rli_location *lookup(hudi_mdt *m, int n) {
  char (*names)[16] = malloc((size_t)n * sizeof *names);
  const char **keys = malloc((size_t)n * sizeof *keys);
  size_t *lens = malloc((size_t)n * sizeof *lens);
  assert_non_null(names);
  assert_non_null(keys);
  assert_non_null(lens);
  for (int i = 0; i < n; i++) {
    snprintf(names[i], sizeof names[i], "key%05d", i);
    keys[i] = names[i];
    lens[i] = strlen(names[i]);
  }
  hudi_rli_location *out = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_mdt_record_index_lookup(m, keys, lens, (size_t)n, &out, NULL, &err), HUDI_OK);
  free(names);
  free(keys);
  free(lens);
  return out;
}

/* a (the shared handle) shows what a fresh opening on t shows now. */
static void same_as_fresh(hudi_mdt *a, hudi_table *t, int n_keys) {
  hudi_mdt *b = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_mdt_open(&b, t, &err), HUDI_OK);
  const hudi_timeline *ta = &hudi_mdt_table(a)->timeline, *tb = &hudi_mdt_table(b)->timeline;
  assert_int_equal(ta->count, tb->count);
  for (size_t i = 0; i < ta->count; i++) {
    assert_string_equal(ta->items[i].requested_time, tb->items[i].requested_time);
    assert_int_equal(ta->items[i].state, tb->items[i].state);
    assert_int_equal(hudi_mdt_instant_valid(a, ta->items[i].requested_time),
                     hudi_mdt_instant_valid(b, ta->items[i].requested_time));
  }
  for (size_t i = 0; i < t->timeline.count; i++)
    assert_int_equal(hudi_mdt_instant_valid(a, t->timeline.items[i].requested_time),
                     hudi_mdt_instant_valid(b, t->timeline.items[i].requested_time));
  size_t na, nb;
  const hudi_file_group *ga = hudi_mdt_all_groups(a, &na), *gb = hudi_mdt_all_groups(b, &nb);
  assert_int_equal(na, nb);
  for (size_t i = 0; i < na; i++) {
    assert_string_equal(ga[i].partition, gb[i].partition);
    assert_string_equal(ga[i].file_id, gb[i].file_id);
    same_slice(hudi_file_group_latest_slice(&ga[i]), hudi_file_group_latest_slice(&gb[i]));
  }
  hudi_rli_location *la = lookup(a, n_keys), *lb = lookup(b, n_keys);
  for (int i = 0; i < n_keys; i++) {
    assert_int_equal(la[i].found, lb[i].found);
    if (la[i].found) {
      assert_string_equal(la[i].partition, lb[i].partition);
      assert_string_equal(la[i].file_id, lb[i].file_id);
    }
  }
  hudi_rli_locations_free(la, (size_t)n_keys);
  hudi_rli_locations_free(lb, (size_t)n_keys);
  hudi_mdt_free(b);
}

static int found_count(hudi_mdt *m, int n) {
  hudi_rli_location *l = lookup(m, n);
  int k = 0;
  for (int i = 0; i < n; i++) k += l[i].found;
  hudi_rli_locations_free(l, (size_t)n);
  return k;
}

static void test_acquire_shares_and_refreshes(void **state) {
  (void)state;
  hudi_table *t = create("share", HUDI_MERGE_ON_READ);
  hudi_table *other = reopen(t);
  hudi_error err = HUDI_ERROR_INIT;

  /* Without sharing: every acquire is an opening of its own. */
  hudi_mdt *x = NULL, *y = NULL;
  assert_int_equal(hudi_mdt_acquire(&x, t, &err), HUDI_OK);
  assert_int_equal(hudi_mdt_acquire(&y, t, &err), HUDI_OK);
  assert_ptr_not_equal(x, y);
  assert_null(hudi_mdt_shared_table(t));
  hudi_mdt_release(t, x);
  hudi_mdt_release(t, y);

  hudi_mdt_share_begin(t);
  assert_null(hudi_mdt_shared_table(t)); /* opened on first use */
  hudi_mdt *m = NULL, *again = NULL;
  assert_int_equal(hudi_mdt_acquire(&m, t, &err), HUDI_OK);
  assert_ptr_equal(hudi_mdt_shared_table(t), hudi_mdt_table(m));
  assert_int_equal(hudi_mdt_acquire(&again, t, &err), HUDI_OK);
  assert_ptr_equal(m, again);
  hudi_mdt_release(t, again); /* not freed: still the shared one */
  assert_int_equal(found_count(m, 60), 40);
  size_t before = hudi_mdt_table(m)->timeline.count;

  /* Another handle commits keys 40..59; t's timeline reloaded (as a write
   * does under its lock): the same handle, refreshed. */
  upsert(other, 40, 20, 2);
  assert_int_equal(hudi_write_reload_timeline(t, &err), HUDI_OK);
  assert_int_equal(hudi_mdt_acquire(&again, t, &err), HUDI_OK);
  assert_ptr_equal(m, again);
  assert_true(hudi_mdt_table(m)->timeline.count > before);
  assert_int_equal(found_count(m, 60), 60);
  same_as_fresh(m, t, 60);

  /* An MDT change without a data-timeline change (a metadata clean or
   * compaction): invalidated, then refreshed on the next acquire. Here the
   * other handle commits and t's data timeline is left as it was. */
  upsert(other, 60, 5, 3);
  before = hudi_mdt_table(m)->timeline.count;
  assert_int_equal(hudi_mdt_acquire(&again, t, &err), HUDI_OK);
  assert_int_equal(hudi_mdt_table(m)->timeline.count, before); /* nothing said it moved */
  hudi_mdt_share_invalidate(t);
  assert_int_equal(hudi_mdt_acquire(&again, t, &err), HUDI_OK);
  assert_ptr_equal(m, again);
  assert_true(hudi_mdt_table(m)->timeline.count > before);
  same_as_fresh(m, t, 70);

  /* A sibling sees the same state through its own schema cache. */
  hudi_mdt *sib = NULL;
  assert_int_equal(hudi_mdt_open_sibling(&sib, m, &err), HUDI_OK);
  size_t ns, nm;
  assert_ptr_equal(hudi_mdt_all_groups(sib, &ns), hudi_mdt_all_groups(m, &nm));
  assert_int_equal(ns, nm);
  assert_int_equal(found_count(sib, 70), 65);
  assert_int_equal(hudi_mdt_refresh(sib, &err), HUDI_ERR_INTERNAL);
  hudi_mdt_free(sib);

  hudi_mdt_share_end(t);
  assert_null(hudi_mdt_shared_table(t));
  assert_false(t->mdt_sharing);
  hudi_table_free(other);
  hudi_table_free(t);
}

/* Upserts and deletes through the shared handle, then a fresh handle (and a
 * fresh table) finds exactly the keys that should be there, in the file
 * groups the table's rows are in. */
static void writes_keep_the_index(hudi_table_type type, const char *name) {
  hudi_table *t = create(name, type);
  hudi_error err = HUDI_ERROR_INIT;
  for (int step = 0; step < 3; step++) {
    upsert(t, 40 + step * 10, 10, 2 + step); /* new keys, then the index must know them */
    upsert(t, step * 10, 5, 10 + step);       /* updates */
    const char *gone[] = {"key00001", "key00041", "key00051"};
    hudi_write_result r;
    assert_int_equal(hudi_table_delete_keys(&r, t, &gone[step], 1, NO_SERVICES, 2, &err), HUDI_OK);
    assert_int_equal(r.num_deletes, 1);
    assert_null(hudi_mdt_shared_table(t)); /* the write's handle ended with it */
  }
  hudi_table *fresh = reopen(t);
  hudi_mdt *m = NULL;
  assert_int_equal(hudi_mdt_open(&m, fresh, &err), HUDI_OK);
  hudi_rli_location *l = lookup(m, 80);
  for (int i = 0; i < 80; i++) {
    bool want = i < 70 && i != 1 && i != 41 && i != 51;
    if (l[i].found != want) fail_msg("key%05d: found %d, want %d", i, l[i].found, want);
  }
  hudi_rli_locations_free(l, 80);
  hudi_mdt_free(m);
  hudi_table_free(fresh);
  hudi_table_free(t);
}

static void test_mor_writes_keep_the_index(void **state) {
  (void)state;
  writes_keep_the_index(HUDI_MERGE_ON_READ, "mor");
}

static void test_cow_writes_keep_the_index(void **state) {
  (void)state;
  writes_keep_the_index(HUDI_COPY_ON_WRITE, "cow");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_acquire_shares_and_refreshes),
      cmocka_unit_test(test_mor_writes_keep_the_index),
      cmocka_unit_test(test_cow_writes_keep_the_index),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

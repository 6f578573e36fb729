/* Archival of the metadata table's (MDT) own timeline (archive.h): after
 * the data table's, by the same rules with the MDT's config, never at or
 * past the data table's earliest active commit or the MDT's latest
 * compaction. Checked: the archived MDT instants (read back from the MDT's
 * LSM history) against those rules and the active MDT timeline; reads and
 * writes after it; nothing archived without an MDT compaction. */
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
#include "hudi/services.h"
#include "hudi/write.h"
#include "table/table.h"
#include "table/timeline.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-archive-mdt-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static hudi_table *create_table(const char *name) {
  char p[300];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  o.record_index_enabled = true; /* metadata table with files and record_index */
  hudi_option fs = {"fsync", "false"};
  o.options = &fs;
  o.n_options = 1;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("create %s: %s", p, err.message);
  return t;
}

static void one_row_stream(struct ArrowArrayStream *out, int i) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "v", "l", 0, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  char id[16];
  snprintf(id, sizeof id, "k%02d", i);
  assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), id, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 1), i, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

typedef struct commit_times {
  char req[24], done[24];
} commit_times;

static void append_n(hudi_table *t, int n, const hudi_option *opts, size_t n_opts, commit_times *out) {
  for (int i = 0; i < n; i++) {
    struct ArrowArrayStream s;
    one_row_stream(&s, i);
    hudi_write_result r;
    hudi_error err = HUDI_ERROR_INIT;
    if (hudi_table_append(&r, t, &s, opts, n_opts, &err) != HUDI_OK) fail_msg("append %d: %s", i, err.message);
    snprintf(out[i].req, sizeof out[i].req, "%s", r.requested_time);
    snprintf(out[i].done, sizeof out[i].done, "%s", r.completion_time);
  }
}

/* Rows of a read, and its ids joined in order. */
static int64_t read_ids(hudi_table *t, const hudi_option *ro, size_t n_ro, char *ids, size_t cap) {
  hudi_read_options o = HUDI_READ_OPTIONS_INIT;
  o.options = ro;
  o.n_options = n_ro;
  const char *proj[] = {"id"};
  o.projection = proj;
  o.n_projection = 1;
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_read(&s, t, &o, &err) != HUDI_OK) fail_msg("read: %s", err.message);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  char *vals[64];
  size_t nv = 0;
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    if (s.get_next(&s, &a)) fail_msg("stream: %s", s.get_last_error(&s));
    if (!a.release) break;
    rows += a.length;
    hudi_arrow_view v;
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
    for (int64_t i = 0; i < v.length && nv < 64; i++) {
      int64_t len;
      const uint8_t *p = hudi_arrow_view_bytes(&v.children[0], i, &len);
      vals[nv] = strndup((const char *)p, (size_t)len);
      nv++;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  for (size_t i = 1; i < nv; i++)
    for (size_t j = i; j > 0 && strcmp(vals[j - 1], vals[j]) > 0; j--) {
      char *x = vals[j];
      vals[j] = vals[j - 1];
      vals[j - 1] = x;
    }
  ids[0] = 0;
  for (size_t i = 0; i < nv; i++) {
    if (i) strncat(ids, ",", cap - strlen(ids) - 1);
    strncat(ids, vals[i], cap - strlen(ids) - 1);
    free(vals[i]);
  }
  return rows;
}

static const hudi_option SMALL[] = {{"hoodie.keep.min.commits", "3"},
                                    {"hoodie.keep.max.commits", "5"},
                                    {"hoodie.metadata.keep.min.commits", "3"},
                                    {"hoodie.metadata.keep.max.commits", "5"},
                                    {"hoodie.clean.commits.retained", "1"}};
#define N_SMALL (sizeof SMALL / sizeof SMALL[0])

static void mdt_timeline_archived(void **state) {
  (void)state;
  hudi_table *t = create_table("mdt");
  hudi_option off[] = {{"hoodie.archive.automatic", "false"}};
  commit_times c[24];
  append_n(t, 24, off, 1, c);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_timeline before;
  assert_int_equal(hudi_timeline_load(&before, t->storage, ".hoodie/metadata", 2, &err), HUDI_OK);
  hudi_archive_result r;
  if (hudi_table_archive(&r, t, SMALL, N_SMALL, &err) != HUDI_OK) fail_msg("archive: %s", err.message);
  assert_true(r.num_instants_archived > 0);
  assert_true(r.mdt_instants_archived > 0);

  hudi_timeline mdt;
  assert_int_equal(hudi_timeline_load(&mdt, t->storage, ".hoodie/metadata", 2, &err), HUDI_OK);
  assert_int_equal(hudi_timeline_load_archive(&mdt, t->storage, ".hoodie/metadata/.hoodie/timeline/history", &err),
                   HUDI_OK);
  assert_int_equal((int64_t)mdt.n_archived, r.mdt_instants_archived);
  /* One instant more: the compaction that refreshed the file groups whose
   * latest base file an archived compaction wrote (archive.c
   * refresh_live_bases), later than every other. */
  assert_int_equal(mdt.count + mdt.n_archived, before.count + 1);
  const hudi_instant *refresh = &mdt.items[mdt.count - 1];
  assert_null(hudi_timeline_find(&before, refresh->requested_time));
  assert_string_equal(refresh->action, "commit");
  assert_int_equal(refresh->state, HUDI_INSTANT_COMPLETED);
  const char *last_compaction = NULL;
  for (size_t i = 0; i < mdt.count; i++)
    if (mdt.items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(mdt.items[i].action, "commit"))
      last_compaction = mdt.items[i].requested_time;
  assert_non_null(last_compaction);
  const char *earliest_data = t->timeline.items[0].requested_time;
  for (size_t i = 0; i < mdt.n_archived; i++) {
    const char *a = mdt.archived[i].requested_time;
    assert_true(strcmp(a, earliest_data) < 0);
    assert_true(strcmp(a, last_compaction) < 0);
    assert_null(hudi_timeline_find(&mdt, a));
    /* it was a completed instant of the MDT, with its completion time */
    const hudi_instant *b = hudi_timeline_find(&before, a);
    assert_non_null(b);
    assert_string_equal(mdt.archived[i].completion_time, b->completion_time);
  }
  /* The initialisation deltacommits went first. */
  assert_memory_equal(mdt.archived[0].requested_time, "00000000000000", 14);
  hudi_timeline_free(&mdt);
  hudi_timeline_free(&before);

  /* Reads and writes (whose metadata-table updates read the archived
   * MDT's timeline) work on. */
  char ids[1024];
  assert_int_equal(read_ids(t, NULL, 0, ids, sizeof ids), 24);
  commit_times again[3];
  append_n(t, 3, off, 1, again); /* appends: three more rows */
  assert_int_equal(read_ids(t, NULL, 0, ids, sizeof ids), 27);
  hudi_table_free(t);
}

/* Without an MDT compaction nothing of the MDT is archived. */
static void nothing_before_mdt_compaction(void **state) {
  (void)state;
  hudi_table *t = create_table("early");
  hudi_option opts[] = {{"hoodie.archive.automatic", "false"}, {"hoodie.metadata.compact.max.delta.commits", "100"}};
  commit_times c[12];
  append_n(t, 12, opts, 2, c);
  hudi_archive_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_option small[N_SMALL + 1];
  memcpy(small, SMALL, sizeof SMALL);
  small[N_SMALL] = (hudi_option){"hoodie.metadata.compact.max.delta.commits", "100"};
  if (hudi_table_archive(&r, t, small, N_SMALL + 1, &err) != HUDI_OK) fail_msg("archive: %s", err.message);
  assert_int_equal(r.mdt_instants_archived, 0);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(mdt_timeline_archived, setup, teardown),
      cmocka_unit_test_setup_teardown(nothing_before_mdt_compaction, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

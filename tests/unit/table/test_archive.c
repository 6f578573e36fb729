/* Timeline archival into the layout-2 LSM history and reading it back:
 * file names and manifest text as Spark + Hudi 1.2.0 write them, the
 * active timeline cut to hoodie.keep.min.commits, the archived instants'
 * completion times, time travel and incremental reads into the history,
 * and LSM compaction of L0 files. */
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
#include "avro/value.h"
#include "io/storage.h"
#include "table/log_avro_block.h"
#include "table/log_format.h"
#include "table/lsm_timeline.h"
#include "table/table.h"
#include "table/timeline.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-archive-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* ---- manifests -------------------------------------------------------------- */

/* manifest_2 as Spark + Hudi 1.2.0 wrote it (Jackson pretty printer). */
static const char SPARK_MANIFEST[] =
    "{\n  \"files\" : [ {\n    \"fileName\" : \"20261130072811313_20261130072844984_0.parquet\",\n"
    "    \"fileLen\" : 3005\n  }, {\n    \"fileName\" : \"20261130072858789_20261130072915248_0.parquet\",\n"
    "    \"fileLen\" : 3051\n  } ]\n}";

static void manifest_round_trip(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_lsm_manifest m;
  assert_int_equal(hudi_lsm_manifest_parse(&m, SPARK_MANIFEST, strlen(SPARK_MANIFEST), "m", &err), HUDI_OK);
  assert_int_equal(m.count, 2);
  assert_string_equal(m.files[1].name, "20261130072858789_20261130072915248_0.parquet");
  assert_int_equal(m.files[1].len, 3051);
  hudi_buf b;
  hudi_buf_init(&b, 1 << 20);
  assert_int_equal(hudi_lsm_manifest_json(&b, &m, &err), HUDI_OK);
  assert_int_equal(b.len, strlen(SPARK_MANIFEST));
  assert_memory_equal(b.data, SPARK_MANIFEST, b.len);
  hudi_buf_free(&b);
  hudi_lsm_manifest_free(&m);

  /* Unknown keys are ignored; broken JSON is an error naming the byte. */
  const char *extra = "{\"v\":[1,{\"a\":null}],\"files\":[{\"x\":true,\"fileName\":\"1_2_0.parquet\",\"fileLen\":7}]}";
  assert_int_equal(hudi_lsm_manifest_parse(&m, extra, strlen(extra), "m", &err), HUDI_OK);
  assert_int_equal(m.count, 1);
  assert_int_equal(m.files[0].len, 7);
  hudi_lsm_manifest_free(&m);
  const char *bad[] = {"", "{\"files\":[{\"fileLen\":1}]}", "{\"files\":[{\"fileName\":\"a\"", "{\"files\":[", "[]"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(hudi_lsm_manifest_parse(&m, bad[i], strlen(bad[i]), "manifest_9", &err), HUDI_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "manifest_9"));
  }
  int level;
  char mn[24], mx[24];
  assert_true(hudi_lsm_parse_file_name("20261130072811313_20261130072948206_1.parquet", mn, mx, &level));
  assert_string_equal(mn, "20261130072811313");
  assert_string_equal(mx, "20261130072948206");
  assert_int_equal(level, 1);
  assert_false(hudi_lsm_parse_file_name("manifest_1", NULL, NULL, NULL));
  assert_false(hudi_lsm_parse_file_name("1_2_x.parquet", NULL, NULL, NULL));
}

/* ---- tables ------------------------------------------------------------------- */

static hudi_table *create_table_version(const char *name, hudi_table_type type, const char *version) {
  char p[300];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.record_index_enabled = false;
  hudi_option fs[3] = {{"fsync", "false"}, {"hoodie.write.table.version", version}, {"hoodie.metadata.enable", "false"}};
  o.options = fs;
  o.n_options = 3;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("create %s: %s", p, err.message);
  return t;
}

static hudi_table *create_table(const char *name, hudi_table_type type) {
  return create_table_version(name, type, "8");
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

static size_t count_completed_commits(const hudi_table *t) {
  size_t n = 0;
  for (size_t i = 0; i < t->timeline.count; i++)
    n += t->timeline.items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(t->timeline.items[i].action, "commit");
  return n;
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

static void expected_ids(char *out, size_t cap, int from, int to) {
  out[0] = 0;
  for (int i = from; i < to; i++) {
    char id[16];
    snprintf(id, sizeof id, "%sk%02d", i > from ? "," : "", i);
    strncat(out, id, cap - strlen(out) - 1);
  }
}

static void read_text(char *out, size_t cap, const char *table, const char *rel) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s/%s", dir, table, rel);
  FILE *f = fopen(p, "rb");
  if (!f) fail_msg("missing %s", p);
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = 0;
  fclose(f);
}

static long file_size(const char *table, const char *rel) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s/%s", dir, table, rel);
  FILE *f = fopen(p, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

/* 35 commits with archival after every commit (defaults 20/30): at the
 * 31st, the oldest 11 go to one L0 history file; 24 stay active. */
static void automatic_archival(void **state) {
  (void)state;
  hudi_table *t = create_table("auto", HUDI_COPY_ON_WRITE);
  commit_times c[35];
  append_n(t, 35, NULL, 0, c);
  assert_int_equal(count_completed_commits(t), 24);
  assert_string_equal(t->timeline.items[0].requested_time, c[11].req);

  char name[128], rel[256], text[4096], want[4096];
  snprintf(name, sizeof name, "%s_%s_0.parquet", c[0].req, c[10].req);
  snprintf(rel, sizeof rel, ".hoodie/timeline/history/%s", name);
  long len = file_size("auto", rel);
  assert_true(len > 0);
  read_text(text, sizeof text, "auto", ".hoodie/timeline/history/_version_");
  assert_string_equal(text, "1");
  read_text(text, sizeof text, "auto", ".hoodie/timeline/history/manifest_1");
  snprintf(want, sizeof want, "{\n  \"files\" : [ {\n    \"fileName\" : \"%s\",\n    \"fileLen\" : %ld\n  } ]\n}", name,
           len);
  assert_string_equal(text, want);
  /* The archived instants' files are gone from the active timeline. */
  snprintf(rel, sizeof rel, ".hoodie/timeline/%s_%s.commit", c[10].req, c[10].done);
  assert_int_equal(file_size("auto", rel), -1);
  snprintf(rel, sizeof rel, ".hoodie/timeline/%s_%s.commit", c[11].req, c[11].done);
  assert_true(file_size("auto", rel) > 0);

  /* The history's rows: the 11 commits with their completion times, the
   * completed files' bytes, no plan. */
  hudi_error err = HUDI_ERROR_INIT;
  hudi_lsm_rows rows;
  assert_int_equal(hudi_lsm_load(&rows, t->storage, ".hoodie/timeline/history",
                                 HUDI_LSM_READ_METADATA | HUDI_LSM_READ_PLAN, &err),
                   HUDI_OK);
  assert_int_equal(rows.count, 11);
  for (size_t i = 0; i < 11; i++) {
    assert_string_equal(rows.items[i].instant_time, c[i].req);
    assert_string_equal(rows.items[i].completion_time, c[i].done);
    assert_string_equal(rows.items[i].action, "commit");
    assert_non_null(rows.items[i].metadata);
    assert_memory_equal(rows.items[i].metadata, "Obj\x01", 4);
    assert_null(rows.items[i].plan);
    assert_int_equal(rows.items[i].version, 1);
  }
  hudi_lsm_rows_free(&rows);

  /* The timeline with its history: all 35, right completion times. */
  assert_int_equal(hudi_timeline_load_archive(&t->timeline, t->storage, NULL, &err), HUDI_OK);
  assert_int_equal(t->timeline.n_archived, 11);
  for (int i = 0; i < 35; i++) {
    const hudi_instant *in = i < 11 ? hudi_timeline_find_archived(&t->timeline, c[i].req)
                                    : hudi_timeline_find(&t->timeline, c[i].req);
    assert_non_null(in);
    assert_string_equal(in->completion_time, c[i].done);
    assert_int_equal(in->state, HUDI_INSTANT_COMPLETED);
  }
  hudi_table_free(t);

  /* A fresh handle: time travel to an archived commit equals the table as
   * that commit left it; an incremental read over archived commits. */
  char p[300], ids[1024], exp[1024];
  snprintf(p, sizeof p, "%s/auto", dir);
  assert_int_equal(hudi_table_open(&t, p, NULL, 0, &err), HUDI_OK);
  hudi_option tt = {"hoodie.read.as.of.timestamp", c[4].req};
  assert_int_equal(read_ids(t, &tt, 1, ids, sizeof ids), 5);
  expected_ids(exp, sizeof exp, 0, 5);
  assert_string_equal(ids, exp);
  hudi_option inc[3] = {{"hoodie.read.query.type", "incremental"},
                        {"hoodie.read.start.timestamp", c[2].done},
                        {"hoodie.read.end.timestamp", c[13].done}};
  assert_int_equal(read_ids(t, inc, 3, ids, sizeof ids), 11);
  expected_ids(exp, sizeof exp, 3, 14);
  assert_string_equal(ids, exp);
  assert_int_equal(read_ids(t, NULL, 0, ids, sizeof ids), 35);
  hudi_table_free(t);
}

/* hudi_table_archive on demand: 35 commits without automatic archival,
 * then one run keeps 20. */
static void on_demand_archival(void **state) {
  (void)state;
  hudi_table *t = create_table("manual", HUDI_COPY_ON_WRITE);
  hudi_option off = {"hoodie.archive.automatic", "false"};
  commit_times c[35];
  append_n(t, 35, &off, 1, c);
  assert_int_equal(count_completed_commits(t), 35);
  hudi_archive_result r;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_archive(&r, t, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_instants_archived, 15);
  assert_string_equal(r.first_archived, c[0].req);
  assert_string_equal(r.last_archived, c[14].req);
  assert_int_equal(count_completed_commits(t), 20);
  /* Nothing more to do. */
  assert_int_equal(hudi_table_archive(&r, t, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_instants_archived, 0);
  /* Bad settings are refused. */
  hudi_option bad[2] = {{"hoodie.keep.min.commits", "30"}, {"hoodie.keep.max.commits", "20"}};
  assert_int_equal(hudi_table_archive(&r, t, bad, 2, &err), HUDI_ERR_INVALID_ARG);
  char ids[1024], exp[1024];
  hudi_option tt = {"hoodie.read.as.of.timestamp", c[9].req};
  assert_int_equal(read_ids(t, &tt, 1, ids, sizeof ids), 10);
  expected_ids(exp, sizeof exp, 0, 10);
  assert_string_equal(ids, exp);
  hudi_table_free(t);
}

/* keep 2/3 with one retained commit and batch size 3: L0 files of two
 * commits each, merged into an L1 file once there are three. */
static void lsm_compaction(void **state) {
  (void)state;
  hudi_table *t = create_table("lsm", HUDI_COPY_ON_WRITE);
  hudi_option o[4] = {{"hoodie.keep.min.commits", "2"},
                      {"hoodie.keep.max.commits", "3"},
                      {"hoodie.clean.commits.retained", "1"},
                      {"hoodie.timeline.compaction.batch.size", "3"}};
  commit_times c[12];
  append_n(t, 12, o, 4, c);
  hudi_error err = HUDI_ERROR_INIT;
  int v;
  assert_int_equal(hudi_lsm_latest_version(&v, t->storage, ".hoodie/timeline/history", &err), HUDI_OK);
  hudi_lsm_manifest m;
  assert_int_equal(hudi_lsm_manifest_read(&m, t->storage, ".hoodie/timeline/history", v, &err), HUDI_OK);
  int levels[10] = {0};
  for (size_t i = 0; i < m.count; i++) {
    int l;
    assert_true(hudi_lsm_parse_file_name(m.files[i].name, NULL, NULL, &l));
    levels[l]++;
  }
  assert_true(levels[1] >= 1);
  assert_true(levels[0] < 3);
  hudi_lsm_manifest_free(&m);
  /* At most 3 + 1 manifests stay after a compaction. */
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(t->storage, ".hoodie/timeline/history", 0, &l, &err), HUDI_OK);
  size_t manifests = 0;
  for (size_t i = 0; i < l.count; i++) manifests += strstr(l.items[i].path, "manifest_") != NULL;
  assert_true(manifests <= 4);
  hudi_file_list_free(&l);
  /* Every archived commit is still there, once. */
  assert_int_equal(hudi_timeline_load_archive(&t->timeline, t->storage, NULL, &err), HUDI_OK);
  size_t commits = 0;
  for (size_t i = 0; i < t->timeline.n_archived; i++) commits += !strcmp(t->timeline.archived[i].action, "commit");
  assert_int_equal(commits + count_completed_commits(t), 12);
  for (int i = 0; i < 12; i++) {
    const hudi_instant *in = hudi_timeline_find_archived(&t->timeline, c[i].req);
    if (!in) in = hudi_timeline_find(&t->timeline, c[i].req);
    assert_non_null(in);
    assert_string_equal(in->completion_time, c[i].done);
  }
  char ids[1024], exp[1024];
  assert_int_equal(read_ids(t, NULL, 0, ids, sizeof ids), 12);
  expected_ids(exp, sizeof exp, 0, 12);
  assert_string_equal(ids, exp);
  hudi_table_free(t);
}

/* Table version 6 (layout 1): 12 commits, one archival run keeping 4 --
 * 8 instants (24 state files) into .hoodie/archived/.commits_.archive.1_1-0-1,
 * blocks of at most 10 HoodieArchivedMetaEntry records that our own log
 * and Avro readers decode (fastavro and Spark check them in
 * tests/python/test_archive_v6.py and tests/interop). */
static void v6_archival(void **state) {
  (void)state;
  hudi_table *t = create_table_version("v6", HUDI_COPY_ON_WRITE, "6");
  hudi_option off = {"hoodie.archive.automatic", "false"};
  commit_times c[12];
  append_n(t, 12, &off, 1, c);
  hudi_archive_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_option keep[3] = {{"hoodie.keep.min.commits", "4"}, {"hoodie.keep.max.commits", "5"},
                         {"hoodie.clean.commits.retained", "2"}};
  assert_int_equal(hudi_table_archive(&r, t, keep, 3, &err), HUDI_OK);
  assert_int_equal(r.num_instants_archived, 8);
  assert_string_equal(r.first_archived, c[0].req);
  assert_string_equal(r.last_archived, c[7].req);
  assert_int_equal(count_completed_commits(t), 4);
  char path[400];
  snprintf(path, sizeof path, "%s/v6/.hoodie/archived/.commits_.archive.1_1-0-1", dir);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static uint8_t data[1 << 20];
  size_t len = fread(data, 1, sizeof data, f);
  fclose(f);
  size_t at = 0, n_records = 0;
  int blocks = 0;
  while (at < len) {
    assert_true(len - at > 14);
    uint64_t size = 0;
    for (int k = 6; k < 14; k++) size = size << 8 | data[at + k];
    hudi_log_block b;
    assert_int_equal(hudi_log_block_parse(&b, data + at, 14 + size, at, path, &err), HUDI_OK);
    assert_int_equal(b.type, HUDI_LOG_BLOCK_AVRO_DATA);
    assert_int_equal(b.header.count, 1);
    size_t sl = 0;
    const char *sj = hudi_log_meta_get(&b.header, HUDI_LOG_HEADER_SCHEMA, &sl);
    assert_non_null(sj);
    hudi_avro_schema *schema = NULL;
    assert_int_equal(hudi_avro_schema_parse(&schema, sj, sl, &err), HUDI_OK);
    hudi_log_avro_records it;
    assert_int_equal(hudi_log_avro_records_open(&it, b.content, b.content_len, 0, path, &err), HUDI_OK);
    assert_true(it.count >= 1 && it.count <= 10);
    for (;;) {
      const uint8_t *datum;
      size_t dl;
      bool has;
      assert_int_equal(hudi_log_avro_records_next(&it, &datum, &dl, &has, &err), HUDI_OK);
      if (!has) break;
      hudi_avro_arena a;
      hudi_avro_arena_init(&a, 0);
      hudi_avro_cursor cur;
      hudi_avro_cursor_init(&cur, datum, dl, 0, path);
      hudi_avro_value v;
      assert_int_equal(hudi_avro_decode(&v, &a, schema->root, NULL, &cur, &err), HUDI_OK);
      assert_int_equal(hudi_avro_cursor_left(&cur), 0);
      /* Records go in time order, requested -> inflight -> completed. */
      const hudi_avro_value *when = hudi_avro_value_unwrap(hudi_avro_value_field(&v, "commitTime"));
      const hudi_avro_value *st = hudi_avro_value_unwrap(hudi_avro_value_field(&v, "actionState"));
      assert_string_equal((const char *)when->v.bytes.data, c[n_records / 3].req);
      static const char *const states[] = {"REQUESTED", "INFLIGHT", "COMPLETED"};
      assert_string_equal((const char *)st->v.bytes.data, states[n_records % 3]);
      assert_true(hudi_avro_value_is_null(hudi_avro_value_field(&v, "version")));
      const hudi_avro_value *cm = hudi_avro_value_field(&v, "hoodieCommitMetadata");
      assert_int_equal(hudi_avro_value_is_null(cm), n_records % 3 != 2);
      hudi_avro_arena_free(&a);
      n_records++;
    }
    hudi_avro_schema_free(schema);
    hudi_log_block_free(&b);
    at += 14 + size;
    blocks++;
  }
  assert_int_equal(n_records, 24);
  assert_int_equal(blocks, 3);
  /* Reads as before, time travel to an archived commit included. */
  char ids[1024], exp[1024];
  assert_int_equal(read_ids(t, NULL, 0, ids, sizeof ids), 12);
  hudi_option tt = {"hoodie.read.as.of.timestamp", c[5].req};
  assert_int_equal(read_ids(t, &tt, 1, ids, sizeof ids), 6);
  expected_ids(exp, sizeof exp, 0, 6);
  assert_string_equal(ids, exp);
  /* The next run writes the next file version. */
  for (int i = 0; i < 2; i++) append_n(t, 1, &off, 1, c);
  hudi_option keep2[3] = {{"hoodie.keep.min.commits", "2"}, {"hoodie.keep.max.commits", "3"},
                          {"hoodie.clean.commits.retained", "1"}};
  assert_int_equal(hudi_table_archive(&r, t, keep2, 3, &err), HUDI_OK);
  assert_true(r.num_instants_archived > 0);
  snprintf(path, sizeof path, "%s/v6/.hoodie/archived/.commits_.archive.2_1-0-1", dir);
  f = fopen(path, "rb");
  assert_non_null(f);
  fclose(f);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(manifest_round_trip),
      cmocka_unit_test_setup_teardown(automatic_archival, setup, teardown),
      cmocka_unit_test_setup_teardown(on_demand_archival, setup, teardown),
      cmocka_unit_test_setup_teardown(lsm_compaction, setup, teardown),
      cmocka_unit_test_setup_teardown(v6_archival, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

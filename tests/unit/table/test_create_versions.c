/* hudi_table_create with hoodie.write.table.version 6, 8 and 9: the
 * hoodie.properties written is compared key by key with the one Spark wrote
 * for the same table (the fixtures, whose .sql names the table, keys,
 * partitioning and ordering field). The only keys allowed to differ are
 * listed below with the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "base/alloc.h"
#include "base/instant.h"
#include "hudi/write.h"
#include "table/commit_metadata.h"
#include "table/log_file_name.h"
#include "table/properties.h"

#define DATA HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-create-versions-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void load_props(hudi_props *p, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text, f);
  fclose(f);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_props_init(p);
  if (hudi_props_parse(p, text, n, path, &err) != HUDI_OK) fail_msg("%s", err.message);
}

/* Keys we write that Spark did not: the base file format (Hudi's default
 * made explicit, which Trino native needs upper case) and the timeline
 * timezone (UTC: Java's default LOCAL would misorder our UTC instants on a
 * non-UTC machine; hudi-format-core.md §2 and §8.6). */
static int our_extra(const char *k) {
  return !strcmp(k, "hoodie.table.base.file.format") || !strcmp(k, "hoodie.table.timeline.timezone");
}

/* Keys Spark wrote that we need not: the optional create schema (readers
 * take the schema from the commits). */
static int their_extra(const char *k) { return !strcmp(k, "hoodie.table.create.schema"); }

typedef struct want {
  const char *rel;  /* zip folder under DATA */
  const char *name; /* table folder */
  const char *table_name, *version;
  hudi_table_type type;
  const char *key, *parts, *ordering, *hive;
  /* A key whose value differs on purpose ("" = none), with our value. */
  const char *differ_key, *differ_value;
} want;

static void compare(const want *w) {
  char base[600], theirs[900], ours[900];
  static int n;
  snprintf(base, sizeof base, "%s/%s_%s_%d", dir, w->name, w->version, n++);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.table_name = w->table_name;
  o.database_name = "default";
  o.type = w->type;
  o.record_key_fields = w->key;
  o.partition_fields = w->parts;
  o.ordering_fields = w->ordering;
  o.record_index_enabled = false;
  hudi_option opts[3] = {{"hoodie.write.table.version", w->version},
                         {"hoodie.datasource.write.hive_style_partitioning", w->hive},
                         {"fsync", "false"}};
  o.options = opts;
  o.n_options = 3;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, base, &o, &err) != HUDI_OK) fail_msg("create %s: %s", base, err.message);
  assert_int_equal(hudi_table_version(t), atoi(w->version));
  assert_int_equal(hudi_table_timeline_layout(t), w->version[0] == '6' ? 1 : 2);
  hudi_table_free(t);

  snprintf(theirs, sizeof theirs, DATA "%s/%s/%s/.hoodie/hoodie.properties", w->rel, w->name, w->name);
  snprintf(ours, sizeof ours, "%s/.hoodie/hoodie.properties", base);
  hudi_props a, b;
  load_props(&a, theirs);
  load_props(&b, ours);
  assert_int_equal(hudi_props_validate_checksum(&b, ours, &err), HUDI_OK);
  for (size_t i = 0; i < a.len; i++) {
    const char *k = a.entries[i].key, *v = a.entries[i].value;
    if (their_extra(k)) continue;
    const char *mine = hudi_props_get(&b, k);
    if (!mine) fail_msg("%s: key %s=%s missing from ours", w->name, k, v);
    if (*w->differ_key && !strcmp(k, w->differ_key)) {
      assert_string_equal(mine, w->differ_value);
      continue;
    }
    if (strcmp(mine, v) != 0) fail_msg("%s: %s is '%s', Spark wrote '%s'", w->name, k, mine, v);
  }
  for (size_t i = 0; i < b.len; i++) {
    const char *k = b.entries[i].key;
    if (!hudi_props_get(&a, k) && !our_extra(k)) fail_msg("%s: we wrote %s, Spark did not", w->name, k);
  }
  hudi_props_free(&a);
  hudi_props_free(&b);
}

static void version_9(void **state) {
  (void)state;
  /* sample_table/{cow,mor/avro}/v9_txns_*_nometa.sql: PARTITIONED BY (region),
   * primaryKey txn_id, preCombineField txn_ts, metadata off (Hudi 1.1.1). */
  const want w[] = {
      {"sample_table/cow", "v9_txns_simple_nometa", "v9_txns_cow_simple_nometa", "9", HUDI_COPY_ON_WRITE, "txn_id",
       "region", "txn_ts", "true", "", NULL},
      {"sample_table/mor/avro", "v9_txns_simple_nometa", "v9_txns_mor_simple_nometa", "9", HUDI_MERGE_ON_READ,
       "txn_id", "region", "txn_ts", "true", "", NULL},
      {"sample_table/cow", "v9_txns_nonpart_nometa", "v9_txns_cow_nonpart_nometa", "9", HUDI_COPY_ON_WRITE, "txn_id",
       NULL, "txn_ts", "true", "", NULL},
      {"sample_table/mor/avro", "v9_txns_nonpart_nometa", "v9_txns_mor_nonpart_nometa", "9", HUDI_MERGE_ON_READ,
       "txn_id", NULL, "txn_ts", "true", "", NULL},
  };
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) compare(&w[i]);
}

static void version_8(void **state) {
  (void)state;
  const want w[] = {
      {"sample_table/cow", "v8_nonpartitioned", "v8_nonpartitioned", "8", HUDI_COPY_ON_WRITE, "id", NULL,
       "longField", "true", "", NULL},
      {"sample_table/cow", "v8_simplekeygen_nonhivestyle", "v8_simplekeygen_nonhivestyle", "8", HUDI_COPY_ON_WRITE,
       "id", "byteField", "longField", "false", "", NULL},
  };
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) compare(&w[i]);
}

static void version_6(void **state) {
  (void)state;
  /* The v6 MOR fixtures store OverwriteWithLatestAvroPayload, which Hudi
   * 1.x reads as COMMIT_TIME_ORDERING for tables before version 8; hudi-c
   * merges by the ordering field, so it names DefaultHoodieRecordPayload
   * (EVENT_TIME_ORDERING in 1.x, the ordering-aware payload in 0.x). */
  const char *dflt = "org.apache.hudi.common.model.DefaultHoodieRecordPayload";
  const want w[] = {
      {"sample_table/mor/parquet", "v6_nonpartitioned", "v6_nonpartitioned", "6", HUDI_MERGE_ON_READ, "id", NULL,
       "longField", "true", "hoodie.compaction.payload.class", dflt},
      {"quickstart_trips_table/mor/avro", "v6_trips_8i1u", "v6_trips_8i1u", "6", HUDI_MERGE_ON_READ, "uuid", "city",
       "ts", "true", "hoodie.compaction.payload.class", dflt},
      {"sample_table/mor/parquet", "v6_simplekeygen_nonhivestyle", "v6_simplekeygen_nonhivestyle", "6",
       HUDI_MERGE_ON_READ, "id", "byteField", "longField", "false", "hoodie.compaction.payload.class", dflt},
  };
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) compare(&w[i]);
}

/* The v6 COW fixtures (2024) carry neither payload class nor merger
 * strategy; ours carry both (the merge behaviour, as the MOR ones do):
 * every other key must agree. */
static void version_6_cow(void **state) {
  (void)state;
  char base[600];
  snprintf(base, sizeof base, "%s/v6cow", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.table_name = "v6_simplekeygen_nonhivestyle";
  o.database_name = "default";
  o.record_key_fields = "id";
  o.partition_fields = "byteField";
  o.ordering_fields = "longField";
  o.record_index_enabled = false;
  hudi_option opts[2] = {{"hoodie.write.table.version", "6"},
                         {"hoodie.datasource.write.hive_style_partitioning", "false"}};
  o.options = opts;
  o.n_options = 2;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, base, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_table_free(t);
  char ours[700];
  snprintf(ours, sizeof ours, "%s/.hoodie/hoodie.properties", base);
  hudi_props a, b;
  load_props(&a, DATA "sample_table/cow/v6_simplekeygen_nonhivestyle/v6_simplekeygen_nonhivestyle/.hoodie/"
                  "hoodie.properties");
  load_props(&b, ours);
  for (size_t i = 0; i < a.len; i++) {
    if (their_extra(a.entries[i].key)) continue;
    const char *mine = hudi_props_get(&b, a.entries[i].key);
    if (!mine || strcmp(mine, a.entries[i].value)) fail_msg("%s differs", a.entries[i].key);
  }
  for (size_t i = 0; i < b.len; i++) {
    const char *k = b.entries[i].key;
    if (hudi_props_get(&a, k) || our_extra(k)) continue;
    if (!strcmp(k, "hoodie.compaction.payload.class"))
      assert_string_equal(b.entries[i].value, "org.apache.hudi.common.model.DefaultHoodieRecordPayload");
    else if (!strcmp(k, "hoodie.compaction.record.merger.strategy"))
      assert_string_equal(b.entries[i].value, "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5");
    else fail_msg("we wrote %s, Spark did not", k);
  }
  hudi_props_free(&a);
  hudi_props_free(&b);
  /* Layout 1: no timeline/ directory; archived/ as Spark lays it out. */
  struct stat sb;
  char p[700];
  snprintf(p, sizeof p, "%s/.hoodie/timeline", base);
  assert_int_not_equal(stat(p, &sb), 0);
  snprintf(p, sizeof p, "%s/.hoodie/archived", base);
  assert_int_equal(stat(p, &sb), 0);
}

/* Commit-time ordering (no ordering field), checked against what Spark
 * 1.2 writes for CREATE TABLE without preCombineField (v9: merge mode only;
 * v8: mode, payload and strategy; v6: the payload says it). */
static void commit_time_ordering(void **state) {
  (void)state;
  const char *versions[] = {"6", "8", "9"};
  for (int i = 0; i < 3; i++) {
    char base[600];
    snprintf(base, sizeof base, "%s/cto_%s", dir, versions[i]);
    hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
    o.type = HUDI_MERGE_ON_READ;
    o.record_key_fields = "id";
    o.record_index_enabled = false;
    hudi_option opt = {"hoodie.write.table.version", versions[i]};
    o.options = &opt;
    o.n_options = 1;
    hudi_table *t = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    if (hudi_table_create(&t, base, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
    const char *mode = hudi_table_property(t, "hoodie.record.merge.mode");
    const char *payload = hudi_table_property(t, "hoodie.compaction.payload.class");
    const char *strategy = hudi_table_property(t, "hoodie.record.merge.strategy.id");
    assert_null(hudi_table_property(t, "hoodie.table.precombine.field"));
    assert_null(hudi_table_property(t, "hoodie.table.ordering.fields"));
    if (i == 0) {
      assert_null(mode);
      assert_string_equal(payload, "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload");
      assert_string_equal(hudi_table_property(t, "hoodie.table.keygenerator.class"),
                          "org.apache.hudi.keygen.NonpartitionedKeyGenerator");
    } else if (i == 1) {
      assert_string_equal(mode, "COMMIT_TIME_ORDERING");
      assert_string_equal(payload, "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload");
      assert_string_equal(strategy, "ce9acb64-bde0-424c-9b91-f6ebba25356d");
    } else {
      assert_string_equal(mode, "COMMIT_TIME_ORDERING");
      assert_null(payload);
      assert_null(strategy);
      assert_string_equal(hudi_table_property(t, "hoodie.table.format"), "native");
    }
    hudi_table_free(t);
  }
}

static void refusals(void **state) {
  (void)state;
  char base[600];
  snprintf(base, sizeof base, "%s/refused", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.record_key_fields = "id";
  hudi_option opt = {"hoodie.write.table.version", "7"};
  o.options = &opt;
  o.n_options = 1;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, base, &o, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "6, 8 and 9"));
  /* Version 6 with the record index (the default): no v6 metadata table. */
  opt.value = "6";
  hudi_error_clear(&err);
  assert_int_equal(hudi_table_create(&t, base, &o, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "turn record_index_enabled off"));
  struct stat sb;
  assert_int_not_equal(stat(base, &sb), 0); /* nothing written */
}

/* Version 9 with the record index: the MDT is a version-9 table and the
 * data table points at the index definitions as Hudi 1.1+ does. */
static void version_9_mdt(void **state) {
  (void)state;
  char base[600], p[700];
  snprintf(base, sizeof base, "%s/v9mdt", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.record_key_fields = "id";
  o.ordering_fields = "ts";
  hudi_option opt = {"hoodie.write.table.version", "9"};
  o.options = &opt;
  o.n_options = 1;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, base, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files,record_index");
  assert_string_equal(hudi_table_property(t, "hoodie.table.index.defs.path"), ".hoodie/.index_defs/index.json");
  hudi_table_free(t);
  hudi_props m;
  snprintf(p, sizeof p, "%s/.hoodie/metadata/.hoodie/hoodie.properties", base);
  load_props(&m, p);
  assert_string_equal(hudi_props_get(&m, "hoodie.table.version"), "9");
  assert_string_equal(hudi_props_get(&m, "hoodie.table.initial.version"), "9");
  assert_int_equal(hudi_props_validate_checksum(&m, p, &err), HUDI_OK);
  hudi_props_free(&m);
  snprintf(p, sizeof p, "%s/.hoodie/.index_defs/index.json", base);
  FILE *f = fopen(p, "rb");
  if (!f) fail_msg("no %s", p);
  char text[4096];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  assert_non_null(strstr(text, "\"indexName\" : \"record_index\""));
  assert_non_null(strstr(text, "\"version\" : \"V1\""));
}

/* One batch: id, city (strings), ts (int64). */
static void make_stream(struct ArrowArrayStream *out, const char *const *ids, const char *const *cities,
                        const int64_t *ts, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "ts", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), ids[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), cities[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), ts[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  static uint8_t buf[1 << 20];
  *len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[*len] = 0;
  return buf;
}

/* The process-wide instant generator hands out max(clock, last + 1) ms:
 * drawing many times in a burst moves it ahead of the wall clock, so the
 * next commit's requested and completion times lie in the future (as they
 * do for a fast commit whose file the kernel stamps with a lagging clock). */
static int64_t lead_instant_clock(int n) {
  char t[HUDI_INSTANT_TIME_BUF];
  int64_t ms = 0;
  hudi_error err = HUDI_ERROR_INIT;
  for (int i = 0; i < n; i++)
    if (hudi_instant_time_now(t, &ms, &err) != HUDI_OK) fail_msg("%s", err.message);
  return ms - hudi_clock_realtime_ms(NULL);
}

/* Java reads a layout-1 completed file's mtime as the instant's completion
 * time: it must be the completion time the writer reported, never earlier
 * than the requested time. */
static void check_completion_mtime(const char *path, const hudi_write_result *r) {
  struct stat sb;
  assert_int_equal(stat(path, &sb), 0);
  int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000, done, req;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_instant_time_to_millis(&done, r->completion_time, 17, &err), HUDI_OK);
  assert_int_equal(hudi_instant_time_to_millis(&req, r->requested_time, 17, &err), HUDI_OK);
  assert_true(done > req);
  if (mtime != done) fail_msg("%s: mtime %lld ms, completion time %s (%lld ms)", path, (long long)mtime,
                              r->completion_time, (long long)done);
}

/* A version-6 MOR table written through the C API: layout-1 timeline files
 * in .hoodie/ holding JSON commit metadata (the JSON reader parses them
 * back to the counts written), with the completion time as the completed
 * file's mtime, and the upserts' log files named by the base file's instant
 * with versions 1 and 2. */
static void version_6_writes(void **state) {
  (void)state;
  char base[600], p[900];
  snprintf(base, sizeof base, "%s/v6w", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  o.record_index_enabled = false;
  hudi_option opt = {"hoodie.write.table.version", "6"};
  o.options = &opt;
  o.n_options = 1;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, base, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  const char *ids[] = {"a", "b", "c"}, *cities[] = {"sf", "sf", "nyc"};
  int64_t ts[] = {1, 1, 1}, ts2[] = {2, 2, 2};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, 3);
  hudi_write_result r0, r1, r2;
  if (hudi_table_append(&r0, t, &s, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  make_stream(&s, ids, cities, ts2, 1);
  assert_true(lead_instant_clock(20000) > 2000); /* the next two commits are >= 2 s "in the future" */
  if (hudi_table_upsert(&r1, t, &s, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  make_stream(&s, ids, cities, ts2, 2);
  if (hudi_table_upsert(&r2, t, &s, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(hudi_table_instant_count(t), 3);
  hudi_table_free(t);

  const hudi_write_result *rs[] = {&r0, &r1, &r2};
  const int64_t inserts[] = {3, 0, 0}, updates[] = {0, 1, 2};
  for (int i = 0; i < 3; i++) {
    struct stat sb;
    snprintf(p, sizeof p, "%s/.hoodie/%s.deltacommit.requested", base, rs[i]->requested_time);
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_size, 0);
    snprintf(p, sizeof p, "%s/.hoodie/%s.deltacommit.inflight", base, rs[i]->requested_time);
    size_t len;
    uint8_t *d = slurp(p, &len);
    assert_true(len > 0 && d[0] == '{');
    snprintf(p, sizeof p, "%s/.hoodie/%s.deltacommit", base, rs[i]->requested_time);
    check_completion_mtime(p, rs[i]);
    d = slurp(p, &len);
    assert_true(len > 0 && d[0] == '{' && d[len - 1] == '}');
    hudi_commit_metadata *m = NULL;
    if (hudi_commit_metadata_parse_json(&m, d, len, 0, p, &err) != HUDI_OK) fail_msg("%s", err.message);
    assert_int_equal(hudi_commit_metadata_total(m, offsetof(hudi_write_stat, num_inserts)), inserts[i]);
    assert_int_equal(hudi_commit_metadata_total(m, offsetof(hudi_write_stat, num_update_writes)), updates[i]);
    assert_non_null(hudi_commit_metadata_schema(m));
    assert_string_equal(m->operation_type, i ? "UPSERT" : "BULK_INSERT");
    hudi_commit_metadata_free(m);
    assert_null(strstr((const char *)d, "\"version\"")); /* the JSON form has no version key */
    snprintf(p, sizeof p, "%s/.hoodie/timeline", base);
    assert_int_not_equal(stat(p, &sb), 0);
  }
  /* Logs in partition sf: .<fid>_<append instant>.log.1_* and .log.2_*. */
  snprintf(p, sizeof p, "%s/city=sf", base);
  DIR *dd = opendir(p);
  assert_non_null(dd);
  struct dirent *e;
  int versions = 0;
  while ((e = readdir(dd)) != NULL) {
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&n, e->d_name, strlen(e->d_name), NULL) != HUDI_OK) continue;
    assert_string_equal(n.instant, r0.requested_time);
    versions |= 1 << n.version;
    hudi_log_file_name_free(&n);
  }
  closedir(dd);
  assert_int_equal(versions, (1 << 1) | (1 << 2));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(version_9),     cmocka_unit_test(version_8),    cmocka_unit_test(version_6),
      cmocka_unit_test(version_6_cow), cmocka_unit_test(commit_time_ordering), cmocka_unit_test(refusals),
      cmocka_unit_test(version_9_mdt), cmocka_unit_test(version_6_writes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

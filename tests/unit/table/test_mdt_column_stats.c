/* column_stats / partition_stats records against the Spark-written
 * fixtures: for every base file of the copy-on-write fixture tables whose
 * metadata table has column stats, the records hudi-c computes from the
 * file's Parquet footer must equal (key and value bytes) the records Spark
 * wrote for it; the partition stats of every partition must equal Spark's
 * (recomputed from the latest base files). For the merge-on-read fixtures
 * the same holds for every log file: the records computed from its
 * records (data blocks) or, for a file of deletes only, the NULL-typed
 * stubs, equal Spark's byte for byte. Plus key vectors and tombstones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "avro/value.h"
#include "table/fsview.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_reader.h"
#include "table/mdt_schema.h"
#include "table/mdt_shard.h"
#include "table/mdt_write_common.h"
#include "table/table.h"
#include "hudi/table.h"

#define FIX HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/sample_table/cow/"
#define FIX_MOR HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/sample_table/mor/avro/"

static const char *const tables[] = {
    FIX "v9_txns_nonpart_meta/v9_txns_nonpart_meta",
    FIX "v9_txns_simple_meta/v9_txns_simple_meta",
    FIX "v9_txns_complex_meta/v9_txns_complex_meta",
    /* Merge-on-read: Spark's log files carry column stats of their records. */
    FIX_MOR "v9_txns_nonpart_meta/v9_txns_nonpart_meta",
    FIX_MOR "v9_txns_simple_meta/v9_txns_simple_meta",
};

/* Every merged record of an MDT partition, re-encoded (which is byte-exact
 * for fixture records, test_mdt_payload.c). */
typedef struct expected {
  char **keys;
  hudi_buf *values;
  bool *matched;
  size_t n;
} expected;

static void load_expected(expected *e, hudi_mdt *m, const char *partition) {
  hudi_error err = HUDI_ERROR_INIT;
  memset(e, 0, sizeof *e);
  size_t ng;
  const hudi_file_group *g = hudi_mdt_groups(m, partition, &ng);
  assert_true(ng > 0);
  for (size_t i = 0; i < ng; i++) {
    hudi_mdt_records r = {0};
    if (hudi_mdt_group_scan(m, &g[i], &r, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
    e->keys = realloc(e->keys, (e->n + r.count) * sizeof *e->keys);
    e->values = realloc(e->values, (e->n + r.count) * sizeof *e->values);
    e->matched = realloc(e->matched, (e->n + r.count) * sizeof *e->matched);
    for (size_t j = 0; j < r.count; j++) {
      /* Spark puts a key in file group mapRecordKeyToFileGroupIndex(key, n),
       * as hudi_cs_group_blocks_build does. */
      int32_t shard = -1;
      assert_int_equal(hudi_mdt_shard_of(&shard, r.items[j].key, r.items[j].key_len, ng, &err), HUDI_OK);
      assert_int_equal(shard, (int32_t)i);
      e->keys[e->n] = strdup(r.items[j].key);
      hudi_buf_init(&e->values[e->n], 1 << 24);
      assert_int_equal(hudi_avro_encode(r.items[j].value, &e->values[e->n], &err), HUDI_OK);
      e->matched[e->n] = false;
      e->n++;
    }
    hudi_mdt_records_free(&r);
  }
}

static void free_expected(expected *e) {
  for (size_t i = 0; i < e->n; i++) {
    free(e->keys[i]);
    hudi_buf_free(&e->values[i]);
  }
  free(e->keys);
  free(e->values);
  free(e->matched);
}

static size_t find(const expected *e, const char *key) {
  for (size_t i = 0; i < e->n; i++)
    if (!strcmp(e->keys[i], key)) return i;
  return (size_t)-1;
}

static void dump_hex(const char *what, const uint8_t *d, size_t n) {
  printf("%s:", what);
  for (size_t i = 0; i < n; i++) printf(d[i] >= 32 && d[i] < 127 ? "%c" : "\\x%02x", d[i]);
  printf("\n");
}

/* Compares one record we built with Spark's. */
static int check_record(expected *e, const hudi_mdt_record *r, const hudi_avro_node *schema, const char *what,
                        bool tolerant) {
  hudi_error err = HUDI_ERROR_INIT;
  size_t i = find(e, r->key);
  if (i == (size_t)-1) return 0; /* Spark has no record for it (e.g. a column added later) */
  hudi_buf got;
  hudi_buf_init(&got, 1 << 24);
  if (hudi_mdt_record_encode(r, schema, &got, &err) != HUDI_OK) fail_msg("%s", err.message);
  /* Spark's MDT compaction fills _hoodie_file_name (harmless, spec §2):
   * compare what follows the five meta fields; ours are all null. */
  size_t ours_end = 0, theirs_end = 0;
  assert_true(hudi_mdt_standard_layout(schema));
  assert_true(hudi_mdt_payload_meta_end(got.data, got.len, &ours_end));
  assert_true(hudi_mdt_payload_meta_end(e->values[i].data, e->values[i].len, &theirs_end));
  assert_int_equal(ours_end, HUDI_MDT_META_FIELDS);
  if (got.len - ours_end != e->values[i].len - theirs_end ||
      memcmp(got.data + ours_end, e->values[i].data + theirs_end, got.len - ours_end) != 0) {
    if (tolerant) {
      /* Spark's partition stats after clustering also count the replaced
       * file groups (getFilesToFetchColumnStats compares file names with
       * the replaced file ids, so nothing is dropped): a looser range. Ours
       * must count fewer values. */
      hudi_mdt_record theirs;
      assert_int_equal(hudi_mdt_record_decode(&theirs, schema, r->key, r->key_len, e->values[i].data,
                                              e->values[i].len, what, &err),
                       HUDI_OK);
      hudi_buf_reset(&got);
      hudi_mdt_record ours;
      assert_int_equal(hudi_mdt_record_encode(r, schema, &got, &err), HUDI_OK);
      assert_int_equal(hudi_mdt_record_decode(&ours, schema, r->key, r->key_len, got.data, got.len, what, &err),
                       HUDI_OK);
      assert_true(ours.column_stats.value_count < theirs.column_stats.value_count);
      assert_string_equal(ours.column_stats.column_name, theirs.column_stats.column_name);
      hudi_mdt_record_free(&ours);
      hudi_mdt_record_free(&theirs);
      e->matched[i] = true;
      hudi_buf_free(&got);
      return -1;
    }
    dump_hex("ours ", got.data, got.len);
    dump_hex("spark", e->values[i].data, e->values[i].len);
    fail_msg("%s: record %s differs from Spark's (%zu vs %zu bytes)", what, r->key, got.len, e->values[i].len);
  }
  e->matched[i] = true;
  hudi_buf_free(&got);
  return 1;
}

/* The column_stats records hudi-c's commit path computes for one log file
 * (from its records; a delete-only file: NULL-typed stubs) against
 * Spark's. Returns the records matched (all or none). */
static int check_log(expected *cs, hudi_table *t, const hudi_avro_node *schema, const char *partition,
                     const hudi_fs_log_file *l, int *stubs) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt_file_change f = {partition, l->file_name, (int64_t)l->size, false};
  hudi_cs_records recs = {0};
  if (hudi_cs_commit_records(&recs, t, schema, NULL, &f, 1, true, false, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  assert_true(recs.n > 0);
  int matched = 0;
  for (size_t k = 0; k < recs.n; k++) {
    assert_int_equal(recs.items[k]->type, HUDI_MDT_TYPE_COLUMN_STATS);
    matched += check_record(cs, recs.items[k], schema, l->path, false);
  }
  if (matched && (size_t)matched != recs.n)
    fail_msg("%s: %d of %zu column records found in the fixture", l->path, matched, recs.n);
  hudi_cs_ranges rs = {0};
  char **cols = NULL;
  size_t n_cols = 0;
  assert_int_equal(hudi_cs_columns_load(&cols, &n_cols, NULL, t->storage,
                                        hudi_props_get(&t->props, "hoodie.table.index.defs.path"), &err),
                   HUDI_OK);
  if (hudi_cs_log_ranges(&rs, t->storage, l->path, (const char *const *)cols, n_cols, NULL, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  if (matched && rs.n == 0) (*stubs)++;
  printf("%s: %d records, %s\n", l->path, matched, rs.n ? "data" : "deletes only");
  hudi_cs_ranges_free(&rs);
  hudi_cs_columns_free(cols, n_cols);
  hudi_cs_records_free(&recs);
  return matched;
}

/* Partition statistics over the fixtures: files taken from their
 * column_stats records, files read. */
static size_t ps_files_from_records, ps_files_read;

static void fixture_table(const char *path, int *files_checked, int *records_checked, int *partitions_checked,
                          int *exact_partitions, int *logs_checked, int *stub_logs) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t = NULL;
  hudi_mdt *m = NULL;
  if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (hudi_mdt_open(&m, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_avro_schema *schema = NULL;
  assert_int_equal(hudi_mdt_w_schema(&schema, 9, &err), HUDI_OK);
  char **cols = NULL;
  size_t n_cols = 0;
  if (hudi_cs_columns_load(&cols, &n_cols, NULL, t->storage, hudi_props_get(&t->props, "hoodie.table.index.defs.path"),
                           &err) != HUDI_OK)
    fail_msg("%s", err.message);
  assert_true(n_cols >= 3);
  assert_string_equal(cols[0], "_hoodie_commit_time");

  expected cs, ps;
  load_expected(&cs, m, "column_stats");
  bool has_ps = hudi_mdt_partition_available(m, "partition_stats");
  if (has_ps) load_expected(&ps, m, "partition_stats");

  hudi_fsview v;
  hudi_fsview_options fo = {NULL, t->version, false};
  assert_int_equal(hudi_fsview_build_from_listing(&v, t->storage, &t->timeline, &fo, &err), HUDI_OK);
  for (size_t g = 0; g < v.n_groups; g++) {
    for (size_t s = 0; s < v.groups[g].n_slices; s++) {
      const hudi_fs_base_file *b = v.groups[g].slices[s].base;
      if (!b) continue;
      const char *name = strrchr(b->path, '/');
      name = name ? name + 1 : b->path;
      hudi_cs_ranges rs = {0};
      if (hudi_cs_parquet_ranges(&rs, t->storage, b->path, b->size, (const char *const *)cols, n_cols, &err) !=
          HUDI_OK)
        fail_msg("%s", err.message);
      int matched = 0;
      for (size_t k = 0; k < rs.n; k++) {
        hudi_mdt_record r;
        if (hudi_cs_record(&r, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, v.groups[g].partition, name, &rs.items[k],
                           false, 2, &err) != HUDI_OK)
          fail_msg("%s", err.message);
        matched += check_record(&cs, &r, schema->root, b->path, false);
        hudi_mdt_record_free(&r);
      }
      /* Spark indexed every column of every live file: all or none match
       * (none: the file was replaced and its records cleaned). */
      if (matched) {
        if ((size_t)matched != rs.n) fail_msg("%s: %d of %zu column records found in the fixture", b->path, matched, rs.n);
        (*files_checked)++;
        *records_checked += matched;
      }
      hudi_cs_ranges_free(&rs);
    }
    for (size_t s = 0; s < v.groups[g].n_slices; s++)
      for (size_t l = 0; l < v.groups[g].slices[s].n_logs; l++) {
        int matched = check_log(&cs, t, schema->root, v.groups[g].partition, &v.groups[g].slices[s].logs[l], stub_logs);
        *logs_checked += matched > 0;
        *records_checked += matched;
      }
  }
  /* Partition stats: recomputed from every file of the latest merged
   * slices of each partition (one "added" file per partition: its
   * group's latest base, or on merge-on-read its latest log file, which
   * the view already shows and so counts once). */
  for (size_t g = 0; has_ps && g < v.n_groups; g++) {
    if (g > 0 && !strcmp(v.groups[g - 1].partition, v.groups[g].partition)) continue;
    const hudi_file_slice *sl = hudi_file_group_latest_slice(&v.groups[g]);
    assert_non_null(sl);
    hudi_mdt_file_change f = {v.groups[g].partition, NULL, 0, false};
    if (sl->n_logs) {
      f.name = sl->logs[sl->n_logs - 1].file_name;
      f.size = (int64_t)sl->logs[sl->n_logs - 1].size;
    } else {
      assert_non_null(sl->base);
      const char *name = strrchr(sl->base->path, '/');
      f.name = name ? name + 1 : sl->base->path;
      f.size = (int64_t)sl->base->size;
    }
    hudi_cs_records recs = {0};
    if (hudi_cs_commit_records(&recs, t, schema->root, NULL, &f, 1, false, true, &err) != HUDI_OK)
      fail_msg("%s", err.message);
    int matched = 0, loose = 0;
    for (size_t k = 0; k < recs.n; k++) {
      assert_int_equal(recs.items[k]->type, HUDI_MDT_TYPE_PARTITION_STATS);
      int c = check_record(&ps, recs.items[k], schema->root, v.groups[g].partition, true);
      if (c < 0) loose++;
      else matched += c;
    }
    printf("%s partition %s: %d exact, %d looser in Spark (%zu files from their records, %zu read)\n", path,
           v.groups[g].partition, matched, loose, recs.ps_files_from_records, recs.ps_files_read);
    ps_files_from_records += recs.ps_files_from_records;
    ps_files_read += recs.ps_files_read;
    /* Only region=apac was last written by a clustering (see check_record). */
    if (loose && strcmp(v.groups[g].partition, "region=apac") != 0)
      fail_msg("%s: partition %s differs from Spark's", path, v.groups[g].partition);
    *exact_partitions += matched && !loose;
    if ((size_t)(matched + loose) != recs.n || recs.n == 0)
      fail_msg("partition %s: %d of %zu partition stats found in the fixture", v.groups[g].partition, matched, recs.n);
    (*partitions_checked)++;
    hudi_cs_records_free(&recs);
  }
  if (has_ps) {
    for (size_t i = 0; i < ps.n; i++)
      if (!ps.matched[i]) fail_msg("%s: fixture partition stats record %s not reproduced", path, ps.keys[i]);
    free_expected(&ps);
  }
  hudi_fsview_free(&v);
  free_expected(&cs);
  hudi_cs_columns_free(cols, n_cols);
  hudi_avro_schema_free(schema);
  hudi_mdt_free(m);
  hudi_table_free(t);
}

static void fixtures(void **state) {
  (void)state;
  int files = 0, records = 0, partitions = 0, exact = 0, logs = 0, stubs = 0;
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    int f0 = files;
    fixture_table(tables[i], &files, &records, &partitions, &exact, &logs, &stubs);
    if (files == f0) fail_msg("%s: no base file matched", tables[i]);
  }
  printf("column stats: %d files, %d log files (%d of deletes only), %d records; partition stats: %d partitions\n",
         files, logs, stubs, records, partitions);
  /* The merge-on-read fixtures hold live log files of updates and of deletes. */
  assert_true(logs >= 10);
  assert_true(stubs >= 4);
  assert_true(files >= 10);
  assert_true(partitions >= 6);
  assert_true(exact >= 4);
  /* The partition statistics above equal Spark's with the existing files'
   * ranges taken from Spark's column_stats records (not their footers or
   * log records). */
  printf("partition stats: %zu files from their records, %zu read\n", ps_files_from_records, ps_files_read);
  assert_true(ps_files_from_records >= 8);
  assert_int_equal(ps_files_read, 0);
}

/* Key vectors taken from the fixtures (Spark 1.1): column "currency",
 * non-partitioned ("."), and partition "region=us". */
static void keys(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf k;
  hudi_buf_init(&k, 4096);
  assert_int_equal(hudi_cs_column_stats_key(&k, "currency", "",
                                            "69b35e18-1fe5-42cd-a71a-f58436f2ab0d-0_0-163-386_20260307162549239.parquet",
                                            &err),
                   HUDI_OK);
  assert_int_equal(k.len, strlen("/m6lxu4Dh5w=FXThHwelITM=2L+SC2aJ7G1BVG/ath8Sag=="));
  assert_memory_equal(k.data, "/m6lxu4Dh5w=FXThHwelITM=2L+SC2aJ7G1BVG/ath8Sag==", k.len);
  hudi_buf_reset(&k);
  assert_int_equal(hudi_cs_partition_stats_key(&k, "currency", "region=us", &err), HUDI_OK);
  assert_int_equal(k.len, strlen("/m6lxu4Dh5w=431THTTwO5Q="));
  assert_memory_equal(k.data, "/m6lxu4Dh5w=431THTTwO5Q=", k.len);
  hudi_buf_free(&k);
}

/* A tombstone: isDeleted true, no bounds, zero counts, type NULL; it
 * decodes back through the payload codec. */
static void tombstone(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_avro_schema *schema = NULL;
  assert_int_equal(hudi_mdt_w_schema(&schema, 9, &err), HUDI_OK);
  hudi_cs_range stub;
  memset(&stub, 0, sizeof stub);
  stub.column = "txn_id";
  stub.value_type = HUDI_CS_VT_NULL;
  hudi_mdt_record r, back;
  assert_int_equal(hudi_cs_record(&r, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "region=eu", "f.parquet", &stub, true,
                                  2, &err),
                   HUDI_OK);
  hudi_buf out;
  hudi_buf_init(&out, 1 << 20);
  assert_int_equal(hudi_mdt_record_encode(&r, schema->root, &out, &err), HUDI_OK);
  assert_int_equal(hudi_mdt_record_decode(&back, schema->root, r.key, r.key_len, out.data, out.len, "test", &err),
                   HUDI_OK);
  assert_true(back.has_column_stats);
  assert_true(back.column_stats.is_deleted);
  assert_string_equal(back.column_stats.file_name, "f.parquet");
  assert_string_equal(back.column_stats.column_name, "txn_id");
  assert_null(back.column_stats.min_value);
  assert_int_equal(back.column_stats.value_count, 0);
  hudi_mdt_record_free(&back);
  hudi_mdt_record_free(&r);
  hudi_buf_free(&out);
  hudi_avro_schema_free(schema);
}

/* The V1 layout (tables Spark upgraded from version 8): the record of a
 * long range is the V2 record without its valueType (one union branch
 * byte instead of branch, ordinal and a null additionalInfo); a date
 * range is wrapped as Spark 1.2 wraps it there (DateWrapper, valueType
 * null); a millisecond timestamp, whose V1 wrapping was not seen, is
 * refused naming the column. */
static void v1_layout(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_avro_schema *schema = NULL;
  assert_int_equal(hudi_mdt_w_schema(&schema, 9, &err), HUDI_OK);
  hudi_cs_range r;
  memset(&r, 0, sizeof r);
  r.column = "v";
  r.value_type = HUDI_CS_VT_LONG;
  r.kind = HUDI_PQ_STAT_INT;
  r.has_min = r.has_max = true;
  r.min.v.i = 10;
  r.max.v.i = 5000;
  r.value_count = 3;
  hudi_buf enc[2];
  for (int layout = 1; layout <= 2; layout++) {
    hudi_mdt_record rec;
    assert_int_equal(hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                                    layout, &err),
                     HUDI_OK);
    hudi_buf_init(&enc[layout - 1], 1 << 20);
    assert_int_equal(hudi_mdt_record_encode(&rec, schema->root, &enc[layout - 1], &err), HUDI_OK);
    hudi_mdt_record_free(&rec);
  }
  /* V2's valueType: branch 1, ordinal 4 (LONG), additionalInfo branch 0. */
  assert_int_equal(enc[1].len, enc[0].len + 2);
  size_t common = 0;
  while (common < enc[0].len && enc[0].data[common] == enc[1].data[common]) common++;
  assert_true(common + 16 > enc[0].len); /* they differ only near the end: the valueType */
  hudi_buf_free(&enc[0]);
  hudi_buf_free(&enc[1]);
  hudi_mdt_record rec;
  r.value_type = HUDI_CS_VT_DATE;
  assert_int_equal(hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                                  HUDI_CS_LAYOUT_V1, &err),
                   HUDI_OK);
  const hudi_avro_value *cs = hudi_avro_value_field(rec.value, "ColumnStatsMetadata")->v.u.value;
  const hudi_avro_value *mn = hudi_avro_value_field(cs, "minValue")->v.u.value;
  assert_string_equal(mn->node->name, "org.apache.hudi.avro.model.DateWrapper");
  assert_int_equal(hudi_avro_value_field(mn, "value")->v.i, 10);
  const hudi_avro_value *vt = hudi_avro_value_field(cs, "valueType");
  assert_int_equal(vt->node->branches[vt->v.u.branch]->type, HUDI_AVRO_NULL);
  hudi_mdt_record_free(&rec);
  r.value_type = HUDI_CS_VT_TIMESTAMP_MILLIS;
  assert_int_equal(hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                                  HUDI_CS_LAYOUT_V1, &err),
                   HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "column 'v' (timestamp-millis)"));
  hudi_mdt_record_free(&rec);
  hudi_avro_schema_free(schema);
}

/* The branch name of a record's bound (a union of wrapper records). */
static const char *bound_wrapper(const hudi_mdt_record *rec, const char *bound) {
  const hudi_avro_value *cs = hudi_avro_value_field(rec->value, "ColumnStatsMetadata");
  assert_non_null(cs);
  const hudi_avro_value *u = hudi_avro_value_field(cs->v.u.value, bound);
  assert_non_null(u);
  assert_non_null(u->v.u.value);
  return u->v.u.value->node->name;
}

/* The V1 layout of version-8 metadata tables, as Spark 1.0.2 writes it
 * (its records seen in test_mdt_column_stats_engines.py::
 * test_v1_wrappers_match_spark): no valueType field in the schema; dates
 * in DateWrapper, decimals in DecimalWrapper at scale 15 (12.34 of a
 * decimal(10,2) is 12340000000000000), UTC microsecond timestamps in
 * LongWrapper; decimals outside decimal(30,15) and other timestamps are
 * refused naming the column. */
static void v1_layout_version8(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_avro_schema *schema = NULL;
  assert_int_equal(hudi_mdt_w_schema(&schema, 8, &err), HUDI_OK);
  hudi_cs_range r;
  memset(&r, 0, sizeof r);
  r.column = "c";
  r.kind = HUDI_PQ_STAT_INT;
  r.has_min = r.has_max = true;
  r.min.v.i = -1;
  r.max.v.i = 19782;
  r.value_count = 2;
  hudi_mdt_record rec;
  const struct { int32_t vt; const char *wrapper; } ok[] = {
      {HUDI_CS_VT_DATE, "org.apache.hudi.avro.model.DateWrapper"},
      {HUDI_CS_VT_TIMESTAMP_MICROS, "org.apache.hudi.avro.model.LongWrapper"},
      {HUDI_CS_VT_INT, "org.apache.hudi.avro.model.IntWrapper"}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    r.value_type = ok[i].vt;
    if (hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                       HUDI_CS_LAYOUT_V1, &err) != HUDI_OK)
      fail_msg("%s", err.message);
    assert_string_equal(bound_wrapper(&rec, "minValue"), ok[i].wrapper);
    const hudi_avro_value *cs = hudi_avro_value_field(rec.value, "ColumnStatsMetadata")->v.u.value;
    assert_null(hudi_avro_value_field(cs, "valueType"));
    hudi_mdt_record_free(&rec);
  }
  /* A decimal(10,2) range [-0.05, 12.34]: unscaled values at scale 15. */
  r.value_type = HUDI_CS_VT_DECIMAL;
  r.kind = HUDI_PQ_STAT_DECIMAL;
  r.precision = 10;
  r.scale = 2;
  r.min.v.dec = -5;
  r.max.v.dec = 1234;
  assert_int_equal(hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                                  HUDI_CS_LAYOUT_V1, &err),
                   HUDI_OK);
  assert_string_equal(bound_wrapper(&rec, "maxValue"), "org.apache.hudi.avro.model.DecimalWrapper");
  const hudi_avro_value *cs = hudi_avro_value_field(rec.value, "ColumnStatsMetadata")->v.u.value;
  const hudi_avro_value *mx = hudi_avro_value_field(hudi_avro_value_field(cs, "maxValue")->v.u.value, "value");
  const hudi_avro_value *mn = hudi_avro_value_field(hudi_avro_value_field(cs, "minValue")->v.u.value, "value");
  static const uint8_t max_be[] = {0x2b, 0xd7, 0x2a, 0x24, 0x87, 0x40, 0x00}; /* 12340000000000000 */
  static const uint8_t min_be[] = {0xd2, 0x86, 0x77, 0xc2, 0xe0, 0x00};       /* -50000000000000 */
  assert_int_equal(mx->v.bytes.len, sizeof max_be);
  assert_memory_equal(mx->v.bytes.data, max_be, sizeof max_be);
  assert_int_equal(mn->v.bytes.len, sizeof min_be);
  assert_memory_equal(mn->v.bytes.data, min_be, sizeof min_be);
  hudi_mdt_record_free(&rec);
  /* Out of decimal(30,15): scale 16, or 16 integer digits. */
  r.scale = 16;
  assert_int_equal(hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                                  HUDI_CS_LAYOUT_V1, &err),
                   HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "column 'c' (decimal(10,16))"));
  hudi_mdt_record_free(&rec);
  r.precision = 20;
  r.scale = 0;
  r.max.v.dec = (hudi_pq_i128)1000000000000000LL; /* 10^15: 16 digits */
  assert_int_equal(hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                                  HUDI_CS_LAYOUT_V1, &err),
                   HUDI_ERR_UNSUPPORTED);
  hudi_mdt_record_free(&rec);
  r.max.v.dec = (hudi_pq_i128)999999999999999LL; /* 15 digits fit */
  assert_int_equal(hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                                  HUDI_CS_LAYOUT_V1, &err),
                   HUDI_OK);
  hudi_mdt_record_free(&rec);
  /* Millisecond timestamps: not seen written by Spark 1.0.2. */
  r.value_type = HUDI_CS_VT_TIMESTAMP_MILLIS;
  r.kind = HUDI_PQ_STAT_INT;
  assert_int_equal(hudi_cs_record(&rec, schema->root, HUDI_MDT_TYPE_COLUMN_STATS, "p", "f.parquet", &r, false,
                                  HUDI_CS_LAYOUT_V1, &err),
                   HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "column 'c' (timestamp-millis)"));
  hudi_mdt_record_free(&rec);
  hudi_avro_schema_free(schema);
}

/* Merging: a range whose values have unknown bounds (a string bound over
 * HUDI_CS_MAX_BOUND) leaves the merge without bounds, in either order; a
 * range of nulls only leaves the other's bounds. */
static void merge_unknown_bounds(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  for (int order = 0; order < 2; order++) {
    hudi_cs_range known, unknown, nulls;
    memset(&known, 0, sizeof known);
    known.column = "c";
    known.value_type = HUDI_CS_VT_LONG;
    known.kind = HUDI_PQ_STAT_INT;
    known.has_min = known.has_max = true;
    known.min.v.i = 1;
    known.max.v.i = 9;
    known.value_count = 3;
    unknown = known;
    unknown.has_min = unknown.has_max = false;
    unknown.bounds_unknown = true;
    nulls = known;
    nulls.has_min = nulls.has_max = false;
    nulls.null_count = nulls.value_count = 2;
    hudi_cs_ranges acc = {0};
    assert_int_equal(hudi_cs_ranges_push(&acc, order ? &unknown : &known, &err), HUDI_OK);
    assert_int_equal(hudi_cs_range_merge(&acc.items[0], order ? &known : &unknown, &err), HUDI_OK);
    assert_false(acc.items[0].has_min || acc.items[0].has_max);
    assert_true(acc.items[0].bounds_unknown);
    assert_int_equal(acc.items[0].value_count, 6);
    hudi_cs_ranges_free(&acc);
    assert_int_equal(hudi_cs_ranges_push(&acc, order ? &nulls : &known, &err), HUDI_OK);
    assert_int_equal(hudi_cs_range_merge(&acc.items[0], order ? &known : &nulls, &err), HUDI_OK);
    assert_true(acc.items[0].has_min && acc.items[0].has_max);
    assert_int_equal(acc.items[0].min.v.i, 1);
    assert_int_equal(acc.items[0].max.v.i, 9);
    hudi_cs_ranges_free(&acc);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(merge_unknown_bounds),
      cmocka_unit_test(keys),
      cmocka_unit_test(tombstone),
      cmocka_unit_test(v1_layout), cmocka_unit_test(v1_layout_version8),
      cmocka_unit_test(fixtures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

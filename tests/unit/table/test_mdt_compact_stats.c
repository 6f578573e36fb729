/* Metadata-table compaction of an MDT holding column_stats and
 * partition_stats (mdt_compact.h) over Spark-written records: a copy of the
 * v9 copy-on-write and merge-on-read fixtures v9_txns_simple_meta (the
 * latter's column_stats hold its log files' records), with their
 * secondary-index partitions removed from the copy, is compacted, and then
 *   - every file group of files, column_stats, partition_stats and
 *     record_index that had log files has a base HFile of the compaction
 *     instant, and none has logs left;
 *   - every key's merged value (Spark's records, merged by our reader
 *     before compaction) is unchanged apart from _hoodie_file_name, which
 *     names the new base file;
 *   - the HFiles' keys ascend and their file info carries the schema;
 * the same with the secondary indexes kept (they compact too); and a copy
 * whose index partitions include one hudi-c does not maintain (a
 * secondary index of index version V1) is left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "avro/value.h"
#include "table/mdt_compact.h"
#include "table/mdt_reader.h"
#include "table/mdt_write_common.h"
#include "table/table.h"

#define FIX HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/sample_table/cow/v9_txns_simple_meta/v9_txns_simple_meta"
/* Merge-on-read: column_stats also hold its log files' records. */
#define FIX_MOR HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/sample_table/mor/avro/v9_txns_simple_meta/v9_txns_simple_meta"

static const char *const PARTS[] = {"files", "column_stats", "partition_stats", "record_index",
                                    "secondary_index_merchant_idx", "secondary_index_txn_date_idx"};
#define N_BASE_PARTS 4
#define N_PARTS 6

static char *make_copy(const char *fixture, bool drop_secondary) {
  char tmpl[] = "/tmp/hudi_mdtcs_XXXXXX";
  assert_non_null(mkdtemp(tmpl));
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/t'", fixture, tmpl);
  assert_int_equal(system(cmd), 0);
  if (drop_secondary) {
    snprintf(cmd, sizeof cmd,
             "cd '%s/t/.hoodie' && rm -rf metadata/secondary_index_* && "
             "sed -i 's/^hoodie.table.metadata.partitions=.*/hoodie.table.metadata.partitions="
             "column_stats,files,partition_stats,record_index/' hoodie.properties",
             tmpl);
    assert_int_equal(system(cmd), 0);
  }
  char *out = malloc(strlen(tmpl) + 3);
  sprintf(out, "%s/t", tmpl);
  return out;
}

static void remove_copy(char *path) {
  *strrchr(path, '/') = '\0'; /* the mkdtemp directory */
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (!getenv("HUDI_CLEAN_KEEP")) assert_int_equal(system(cmd), 0);
  free(path);
}

/* One partition's merged records: key -> value bytes after the meta fields. */
typedef struct snapshot {
  char **keys;
  hudi_buf *rest;
  size_t n;
  size_t groups, logs, groups_with_logs, bases_of_instant;
} snapshot;

static void snapshot_free(snapshot *s) {
  for (size_t i = 0; i < s->n; i++) {
    free(s->keys[i]);
    hudi_buf_free(&s->rest[i]);
  }
  free(s->keys);
  free(s->rest);
  memset(s, 0, sizeof *s);
}

static void take(snapshot *s, hudi_table *t, const char *partition, const char *instant) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt *m = NULL;
  memset(s, 0, sizeof *s);
  if (hudi_mdt_open(&m, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  size_t ng;
  const hudi_file_group *g = hudi_mdt_groups(m, partition, &ng);
  assert_true(ng > 0);
  s->groups = ng;
  hudi_avro_schema *v9 = NULL;
  assert_int_equal(hudi_mdt_w_schema(&v9, 9, &err), HUDI_OK);
  for (size_t i = 0; i < ng; i++) {
    const hudi_file_slice *sl = hudi_file_group_latest_slice(&g[i]);
    assert_non_null(sl);
    s->logs += sl->n_logs;
    s->groups_with_logs += sl->n_logs > 0;
    char suffix[64];
    snprintf(suffix, sizeof suffix, "_%s.hfile", instant ? instant : "-");
    if (instant && sl->base && strlen(sl->base->path) > strlen(suffix) &&
        !strcmp(sl->base->path + strlen(sl->base->path) - strlen(suffix), suffix))
      s->bases_of_instant++;
    hudi_mdt_records r = {0};
    if (hudi_mdt_group_scan(m, &g[i], &r, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
    s->keys = realloc(s->keys, (s->n + r.count) * sizeof *s->keys);
    s->rest = realloc(s->rest, (s->n + r.count) * sizeof *s->rest);
    for (size_t j = 0; j < r.count; j++) {
      hudi_buf all;
      hudi_buf_init(&all, 1 << 24);
      /* Merged file listings carry no value tree: built in the v9 schema. */
      const hudi_avro_node *node = r.items[j].value ? r.items[j].value->node : v9->root;
      assert_int_equal(r.items[j].value ? hudi_avro_encode(r.items[j].value, &all, &err)
                                        : hudi_mdt_record_encode(&r.items[j], node, &all, &err),
                       HUDI_OK);
      size_t meta_end;
      assert_true(hudi_mdt_standard_layout(node));
      assert_true(hudi_mdt_payload_meta_end(all.data, all.len, &meta_end));
      /* The compacted record names its base file; before, Spark's log records name none. */
      if (instant) {
        const char *fname = r.items[j].meta[4];
        assert_non_null(fname);
        assert_non_null(strstr(sl->base->path, fname));
      }
      s->keys[s->n] = strdup(r.items[j].key);
      hudi_buf_init(&s->rest[s->n], 1 << 24);
      assert_int_equal(hudi_buf_append(&s->rest[s->n], all.data + meta_end, all.len - meta_end, &err), HUDI_OK);
      hudi_buf_free(&all);
      s->n++;
    }
    hudi_mdt_records_free(&r);
  }
  hudi_avro_schema_free(v9);
  hudi_mdt_free(m);
}

static void compacts(const char *fixture, bool with_secondary) {
  hudi_error err = HUDI_ERROR_INIT;
  char *path = make_copy(fixture, !with_secondary);
  int n_parts = with_secondary ? N_PARTS : N_BASE_PARTS;
  hudi_table *t = NULL;
  if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  snapshot before[N_PARTS];
  for (int p = 0; p < n_parts; p++) {
    take(&before[p], t, PARTS[p], NULL);
    assert_true(before[p].n > 0);
    assert_true(before[p].logs > 0);
  }
  hudi_mdt_compact_options o = HUDI_MDT_COMPACT_OPTIONS_INIT;
  o.force = true;
  hudi_mdt_compact_result res;
  if (hudi_mdt_compact(t, &o, &res, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_true(res.instant[0] != '\0');
  size_t groups = 0;
  for (int p = 0; p < n_parts; p++) groups += before[p].groups_with_logs;
  assert_int_equal(res.file_groups, groups);
  hudi_table_free(t);
  if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  for (int p = 0; p < n_parts; p++) {
    snapshot after;
    take(&after, t, PARTS[p], res.instant);
    assert_int_equal(after.logs, 0);
    assert_int_equal(after.bases_of_instant, before[p].groups_with_logs);
    assert_int_equal(after.n, before[p].n);
    for (size_t i = 0; i < after.n; i++) {
      assert_string_equal(after.keys[i], before[p].keys[i]);
      assert_int_equal(after.rest[i].len, before[p].rest[i].len);
      assert_memory_equal(after.rest[i].data, before[p].rest[i].data, after.rest[i].len);
    }
    snapshot_free(&after);
    snapshot_free(&before[p]);
  }
  hudi_table_free(t);
  remove_copy(path);
}

static void compacts_every_maintained_partition(void **state) {
  (void)state;
  compacts(FIX, false);
}

static void compacts_every_maintained_partition_mor(void **state) {
  (void)state;
  compacts(FIX_MOR, false);
}

/* Secondary indexes hudi-c keeps compact with the rest. */
static void compacts_secondary_indexes(void **state) {
  (void)state;
  compacts(FIX, true);
  compacts(FIX_MOR, true);
}

static void leaves_unmaintained_partitions_alone(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  char *path = make_copy(FIX, false);
  /* A secondary index of index version V1 is not one hudi-c keeps. */
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "cd '%s/.hoodie/.index_defs' && sed -i 's/\"version\" : \"V2\"/\"version\" : \"V1\"/' index.json", path);
  assert_int_equal(system(cmd), 0);
  hudi_table *t = NULL;
  if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_mdt_compact_options o = HUDI_MDT_COMPACT_OPTIONS_INIT;
  o.force = true;
  hudi_mdt_compact_result res;
  if (hudi_mdt_compact(t, &o, &res, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(res.instant, "");
  assert_int_equal(res.file_groups, 0);
  hudi_table_free(t);
  remove_copy(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(compacts_every_maintained_partition),
      cmocka_unit_test(compacts_every_maintained_partition_mor),
      cmocka_unit_test(compacts_secondary_indexes),
      cmocka_unit_test(leaves_unmaintained_partitions_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

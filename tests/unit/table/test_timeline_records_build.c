/* Records built in C (no fixture holds a clean): fastavro reads our files
 * with Java's schema, finds the values we set, and its own encoding of
 * each record equals our datum bytes; our parser reads them back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "avro/avro_test.h"
#include "table/clean_plan.h"
#include "table/commit_metadata.h"
#include "table/requested_replace.h"

#define ORACLE HUDI_SOURCE_DIR "/tests/unit/table/timeline_records_oracle.py"

static char scratch[3000];
static const uint8_t SYNC[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static int run_oracle(const char *args) {
  char cmd[8000];
  snprintf(cmd, sizeof cmd, "'%s' '%s' %s", avro_test_python(), ORACLE, args);
  int rc = system(cmd);
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* Writes name.avro, name.schema.json and name.expect.json for the oracle. */
static void emit(const char *name, const hudi_buf *file, hudi_tl_schema_id id, const char *expect_json) {
  char path[3200];
  snprintf(path, sizeof path, "%s/%s.avro", scratch, name);
  assert_int_equal(avro_test_write_file(path, file->data, file->len), 0);
  size_t len;
  const char *js = hudi_tl_schema_json(id, &len);
  snprintf(path, sizeof path, "%s/%s.schema.json", scratch, name);
  assert_int_equal(avro_test_write_file(path, (const uint8_t *)js, len), 0);
  snprintf(path, sizeof path, "%s/%s.expect.json", scratch, name);
  assert_int_equal(avro_test_write_file(path, (const uint8_t *)expect_json, strlen(expect_json)), 0);
  /* Java's header: only avro.schema, the string verbatim, our sync at the end. */
  assert_memory_equal(file->data, "Obj\x01\x02\x16" "avro.schema", 17);
  assert_memory_equal(file->data + file->len - 16, SYNC, 16);
}

#define OK(x)                                                  \
  do {                                                         \
    hudi_error e_ = HUDI_ERROR_INIT;                           \
    (void)e_;                                                  \
  } while (0);                                                 \
  if ((x) != HUDI_OK) fail_msg("%s failed", #x)

static void cleaner_plan(void **state) {
  (void)state;
  hudi_cleaner_plan *p;
  OK(hudi_cleaner_plan_new(&p, NULL));
  hudi_avro_arena *a = &p->doc.arena;
  OK(hudi_avro_arena_alloc(a, sizeof *p->earliest_instant_to_retain, (void **)&p->earliest_instant_to_retain, NULL));
  OK(hudi_tl_strdup(a, "20260101000000000", &p->earliest_instant_to_retain->timestamp, NULL));
  OK(hudi_tl_strdup(a, "commit", &p->earliest_instant_to_retain->action, NULL));
  OK(hudi_tl_strdup(a, "COMPLETED", &p->earliest_instant_to_retain->state, NULL));
  OK(hudi_tl_strdup(a, "20260102000000000", &p->last_completed_commit_timestamp, NULL));
  OK(hudi_tl_strdup(a, "KEEP_LATEST_COMMITS", &p->policy, NULL));
  p->files_to_be_deleted_per_partition.has = 1; /* empty legacy map */
  p->version = (hudi_tl_int){2, 1};
  hudi_clean_file_infos_entry *e;
  OK(hudi_tl_list_push(&p->file_paths_to_be_deleted_per_partition, a, sizeof *e, (void **)&e, NULL));
  OK(hudi_tl_strdup(a, "city=sf", &e->key, NULL));
  hudi_clean_file_info *fi;
  OK(hudi_tl_list_push(&e->value, a, sizeof *fi, (void **)&fi, NULL));
  OK(hudi_tl_strdup(a, "/t/city=sf/f1_0-1-2_20250101000000000.parquet", &fi->file_path, NULL));
  fi->is_bootstrap_base_file = (hudi_tl_bool){0, 1};
  OK(hudi_tl_list_push(&e->value, a, sizeof *fi, (void **)&fi, NULL));
  OK(hudi_tl_strdup(a, "/t/city=sf/.f1_20250101000000000.log.1_0-1-2", &fi->file_path, NULL));
  OK(hudi_tl_strs_push(&p->partitions_to_be_deleted, a, "city=la", NULL));
  /* extraMetadata left null */
  hudi_buf out;
  hudi_buf_init(&out, 0);
  OK(hudi_cleaner_plan_to_avro(p, SYNC, &out, NULL));
  emit("cleaner_plan", &out, HUDI_TL_CLEANER_PLAN,
       "[{\"earliestInstantToRetain\": {\"timestamp\": \"20260101000000000\", \"action\": \"commit\", \"state\": "
       "\"COMPLETED\"}, \"lastCompletedCommitTimestamp\": \"20260102000000000\", \"policy\": "
       "\"KEEP_LATEST_COMMITS\", \"filesToBeDeletedPerPartition\": {}, \"version\": 2, "
       "\"filePathsToBeDeletedPerPartition\": {\"city=sf\": [{\"filePath\": "
       "\"/t/city=sf/f1_0-1-2_20250101000000000.parquet\", \"isBootstrapBaseFile\": false}, {\"filePath\": "
       "\"/t/city=sf/.f1_20250101000000000.log.1_0-1-2\", \"isBootstrapBaseFile\": null}]}, "
       "\"partitionsToBeDeleted\": [\"city=la\"], \"extraMetadata\": null}]");
  /* Read back: the same struct, and the same bytes again. */
  hudi_cleaner_plan *q;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_cleaner_plan_parse(&q, out.data, out.len, "plan", &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(q->doc.schema, HUDI_TL_CLEANER_PLAN);
  assert_string_equal(q->policy, "KEEP_LATEST_COMMITS");
  assert_string_equal(q->earliest_instant_to_retain->state, "COMPLETED");
  const hudi_clean_file_infos_entry *qe = q->file_paths_to_be_deleted_per_partition.items;
  assert_int_equal(qe->value.n, 2);
  assert_false(((hudi_clean_file_info *)qe->value.items)[1].is_bootstrap_base_file.has);
  assert_false(q->extra_metadata.has);
  assert_true(q->files_to_be_deleted_per_partition.has);
  hudi_buf again;
  hudi_buf_init(&again, 0);
  OK(hudi_cleaner_plan_to_avro(q, SYNC, &again, NULL));
  assert_int_equal(again.len, out.len);
  assert_memory_equal(again.data, out.data, out.len);
  hudi_buf_free(&again);
  hudi_cleaner_plan_free(q);
  hudi_buf_free(&out);

  /* A required field left unset is an error naming it. */
  p->policy = NULL;
  hudi_buf_init(&out, 0);
  assert_int_equal(hudi_cleaner_plan_to_avro(p, SYNC, &out, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "policy"));
  hudi_buf_free(&out);
  hudi_cleaner_plan_free(p);
}

static void clean_metadata(void **state) {
  (void)state;
  hudi_clean_metadata *m;
  OK(hudi_clean_metadata_new(&m, NULL));
  hudi_avro_arena *a = &m->doc.arena;
  OK(hudi_tl_strdup(a, "20260103000000000", &m->start_clean_time, NULL));
  m->time_taken_in_millis = hudi_tl_some_long(1234);
  m->total_files_deleted = (hudi_tl_int){1, 1};
  OK(hudi_tl_strdup(a, "20260101000000000", &m->earliest_commit_to_retain, NULL));
  /* lastCompletedCommitTimestamp unset: the schema default "" */
  hudi_clean_partition_entry *e;
  OK(hudi_tl_list_push(&m->partition_metadata, a, sizeof *e, (void **)&e, NULL));
  OK(hudi_tl_strdup(a, "city=sf", &e->key, NULL));
  OK(hudi_tl_strdup(a, "city=sf", &e->value.partition_path, NULL));
  OK(hudi_tl_strdup(a, "KEEP_LATEST_COMMITS", &e->value.policy, NULL));
  OK(hudi_tl_strs_push(&e->value.delete_path_patterns, a, "f1_0-1-2_20250101000000000.parquet", NULL));
  OK(hudi_tl_strs_push(&e->value.success_delete_files, a, "f1_0-1-2_20250101000000000.parquet", NULL));
  /* failedDeleteFiles unset: an empty array (required) */
  e->value.is_partition_deleted = (hudi_tl_bool){0, 1};
  m->version = (hudi_tl_int){2, 1};
  OK(hudi_tl_str_map_set(&m->extra_metadata, a, "k", "v\"\n\xc3\xa9", NULL));
  hudi_buf out;
  hudi_buf_init(&out, 0);
  OK(hudi_clean_metadata_to_avro(m, SYNC, &out, NULL));
  emit("clean_metadata", &out, HUDI_TL_CLEAN_METADATA,
       "[{\"startCleanTime\": \"20260103000000000\", \"timeTakenInMillis\": 1234, \"totalFilesDeleted\": 1, "
       "\"earliestCommitToRetain\": \"20260101000000000\", \"lastCompletedCommitTimestamp\": \"\", "
       "\"partitionMetadata\": {\"city=sf\": {\"partitionPath\": \"city=sf\", \"policy\": \"KEEP_LATEST_COMMITS\", "
       "\"deletePathPatterns\": [\"f1_0-1-2_20250101000000000.parquet\"], \"successDeleteFiles\": "
       "[\"f1_0-1-2_20250101000000000.parquet\"], \"failedDeleteFiles\": [], \"isPartitionDeleted\": false}}, "
       "\"version\": 2, \"bootstrapPartitionMetadata\": null, \"extraMetadata\": {\"k\": \"v\\\"\\n\\u00e9\"}}]");
  hudi_clean_metadata *q;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_clean_metadata_parse(&q, out.data, out.len, "clean", &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(q->last_completed_commit_timestamp, "");
  assert_int_equal(q->time_taken_in_millis.v, 1234);
  assert_string_equal(hudi_tl_str_map_get(&q->extra_metadata, "k"), "v\"\n\xc3\xa9");
  hudi_clean_metadata_free(q);
  hudi_buf_free(&out);
  hudi_clean_metadata_free(m);
}

/* A commit metadata built the way a write builds it. */
static void commit_for_a_write(void **state) {
  (void)state;
  hudi_commit_metadata *m;
  OK(hudi_commit_metadata_new(&m, 0, NULL));
  OK(hudi_commit_metadata_set_operation(m, "UPSERT", NULL));
  OK(hudi_commit_metadata_set_schema(m, "{\"type\":\"record\",\"name\":\"t_record\",\"fields\":[]}", NULL));
  m->compacted = (hudi_tl_bool){0, 1};
  const char *parts[] = {"p=1", "p=2", "p=1"};
  for (int i = 0; i < 3; i++) {
    hudi_write_stat *s;
    OK(hudi_commit_metadata_add_stat(m, parts[i], &s, NULL));
    char buf[128];
    snprintf(buf, sizeof buf, "fg-%d", i);
    OK(hudi_commit_metadata_strdup(m, buf, &s->file_id, NULL));
    snprintf(buf, sizeof buf, "%s/fg-%d_0-1-2_20260101000000000.parquet", parts[i], i);
    OK(hudi_commit_metadata_strdup(m, buf, &s->path, NULL));
    OK(hudi_commit_metadata_strdup(m, "null", &s->prev_commit, NULL));
    s->num_writes = s->num_inserts = hudi_tl_some_long(10 + i);
    s->total_write_bytes = s->file_size_in_bytes = hudi_tl_some_long(4096);
    hudi_write_stat_zero_unset(s);
  }
  assert_int_equal(hudi_commit_metadata_n_stats(m), 3);
  assert_int_equal(hudi_commit_metadata_total(m, offsetof(hudi_write_stat, num_inserts)), 33);
  size_t n;
  hudi_commit_metadata_partitions(m, &n);
  assert_int_equal(n, 2);
  hudi_buf out;
  hudi_buf_init(&out, 0);
  OK(hudi_commit_metadata_to_avro(m, SYNC, &out, NULL));
  static const char zeros[] =
      "\"numDeletes\": 0, \"numUpdateWrites\": 0, \"totalWriteErrors\": 0, \"totalLogRecords\": 0, "
      "\"totalLogFiles\": null, \"totalUpdatedRecordsCompacted\": 0, \"totalLogBlocks\": 0, "
      "\"totalCorruptLogBlock\": 0, \"totalRollbackBlocks\": 0, \"logVersion\": null, \"logOffset\": null, "
      "\"baseFile\": null, \"logFiles\": null, \"cdcStats\": null, \"prevBaseFile\": null, \"minEventTime\": null, "
      "\"maxEventTime\": null, \"runtimeStats\": null, \"totalLogFilesCompacted\": 0, \"totalLogReadTimeMs\": 0, "
      "\"totalLogSizeCompacted\": 0, \"tempPath\": null, \"numUpdates\": 0";
  char expect[8192];
#define STAT(i, p) \
  "{\"fileId\": \"fg-" #i "\", \"path\": \"" p "/fg-" #i "_0-1-2_20260101000000000.parquet\", \"prevCommit\": " \
  "\"null\", \"numWrites\": 1" #i ", \"totalWriteBytes\": 4096, \"partitionPath\": \"" p "\", \"numInserts\": 1" #i \
  ", \"fileSizeInBytes\": 4096, %s}"
  snprintf(expect, sizeof expect,
           "[{\"partitionToWriteStats\": {\"p=1\": [" STAT(0, "p=1") ", " STAT(2, "p=1") "], \"p=2\": [" STAT(1, "p=2")
           "]}, \"compacted\": false, \"extraMetadata\": {\"schema\": "
           "\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"t_record\\\",\\\"fields\\\":[]}\"}, \"version\": null, "
           "\"operationType\": \"UPSERT\"}]",
           zeros, zeros, zeros);
  emit("commit_for_write", &out, HUDI_TL_COMMIT_METADATA, expect);

  /* v6 JSON of the same, read back into an equal struct (same Avro bytes). */
  hudi_buf js;
  hudi_buf_init(&js, 0);
  OK(hudi_commit_metadata_to_json(m, &js, NULL));
  json_error_t jerr;
  json_t *parsed = json_loadb((const char *)js.data, js.len, 0, &jerr);
  assert_non_null(parsed);
  assert_int_equal(json_integer_value(json_object_get(
                       json_array_get(json_object_get(json_object_get(parsed, "partitionToWriteStats"), "p=1"), 1),
                       "numWrites")),
                   12);
  json_decref(parsed);
  hudi_commit_metadata *q;
  OK(hudi_commit_metadata_parse_json(&q, js.data, js.len, 0, "j", NULL));
  q->version = m->version;
  /* JSON lacks the Avro-only stat fields; restore them for the comparison. */
  hudi_buf again;
  hudi_buf_init(&again, 0);
  hudi_partition_write_stats *qp = q->partition_to_write_stats.items;
  for (size_t i = 0; i < q->partition_to_write_stats.n; i++)
    for (size_t k = 0; k < qp[i].value.n; k++) {
      hudi_write_stat *s = (hudi_write_stat *)qp[i].value.items + k;
      s->total_log_read_time_ms = s->num_updates = hudi_tl_some_long(0);
    }
  OK(hudi_commit_metadata_to_avro(q, SYNC, &again, NULL));
  assert_int_equal(again.len, out.len);
  assert_memory_equal(again.data, out.data, out.len);
  hudi_buf_free(&again);
  hudi_buf_free(&js);
  hudi_commit_metadata_free(q);
  hudi_buf_free(&out);
  hudi_commit_metadata_free(m);
}

/* The 0.x requested-replace schema drops the field it lacks. */
static void requested_replace_v6(void **state) {
  (void)state;
  hudi_requested_replace *r;
  OK(hudi_requested_replace_new(&r, NULL));
  assert_int_equal(r->doc.schema, HUDI_TL_REQUESTED_REPLACE);
  r->doc.schema = HUDI_TL_REQUESTED_REPLACE_V6;
  OK(hudi_tl_strdup(&r->doc.arena, "CLUSTER", &r->operation_type, NULL));
  OK(hudi_avro_arena_alloc(&r->doc.arena, sizeof *r->clustering_plan, (void **)&r->clustering_plan, NULL));
  OK(hudi_tl_strs_push(&r->clustering_plan->missing_schedule_partitions, &r->doc.arena, "p", NULL));
  r->version = (hudi_tl_int){1, 1};
  hudi_buf out;
  hudi_buf_init(&out, 0);
  OK(hudi_requested_replace_to_avro(r, SYNC, &out, NULL));
  emit("requested_replace_v6", &out, HUDI_TL_REQUESTED_REPLACE_V6,
       "[{\"operationType\": \"CLUSTER\", \"clusteringPlan\": {\"inputGroups\": null, \"strategy\": null, "
       "\"extraMetadata\": null, \"version\": null, \"preserveHoodieMetadata\": null}, \"extraMetadata\": null, "
       "\"version\": 1}]");
  hudi_requested_replace *q;
  OK(hudi_requested_replace_parse(&q, out.data, out.len, "rr", NULL));
  assert_int_equal(q->doc.schema, HUDI_TL_REQUESTED_REPLACE_V6);
  assert_false(q->clustering_plan->missing_schedule_partitions.has);
  hudi_requested_replace_free(q);
  hudi_buf_free(&out);
  hudi_requested_replace_free(r);
}

static void fastavro_agrees(void **state) {
  (void)state;
  char args[3100];
  snprintf(args, sizeof args, "check '%s'", scratch);
  assert_int_equal(run_oracle(args), 0);
}

int main(void) {
  avro_test_scratch(scratch, sizeof scratch, "tlbuild");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cleaner_plan), cmocka_unit_test(clean_metadata), cmocka_unit_test(commit_for_a_write),
      cmocka_unit_test(requested_replace_v6), cmocka_unit_test(fastavro_agrees),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  avro_test_rmdir(scratch);
  return rc;
}

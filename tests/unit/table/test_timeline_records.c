/* Typed timeline records against the Spark-written fixtures and fastavro:
 * every Avro timeline file (v6 .hoodie/, v8/v9 timeline/, metadata tables)
 * parses into its struct, the struct equals what fastavro decodes, and
 * writing it again with the file's sync marker gives the file's bytes;
 * every v6 JSON commit re-serialises byte for byte; the clean records (no
 * fixture) are checked by fastavro reading and re-encoding our files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "avro/avro_test.h"
#include "table/clean_plan.h"
#include "table/commit_metadata.h"
#include "table/compaction_plan.h"
#include "table/requested_replace.h"
#include "table/rollback_plan.h"

#define ROOT HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data"
#define LOOSE HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/commit_metadata"
#define ORACLE HUDI_SOURCE_DIR "/tests/unit/table/timeline_records_oracle.py"

static json_t *dump;
static char scratch[3000];

static int run_oracle(const char *args) {
  char cmd[8000];
  snprintf(cmd, sizeof cmd, "'%s' '%s' %s", avro_test_python(), ORACLE, args);
  int rc = system(cmd);
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static int setup(void **state) {
  (void)state;
  char args[7000], path[3100];
  avro_test_scratch(scratch, sizeof scratch, "tlrec");
  snprintf(path, sizeof path, "%s/fastavro.json", scratch);
  snprintf(args, sizeof args, "dump '%s' '%s'", ROOT, path);
  if (run_oracle(args) != 0) return -1;
  json_error_t jerr;
  dump = json_load_file(path, 0, &jerr);
  unlink(path);
  return dump ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  json_decref(dump);
  avro_test_rmdir(scratch);
  return 0;
}

/* ------------------------------------------------------------ Avro files */

typedef struct counts {
  int commit, replace, compaction, rollback_plan, rollback_meta, requested, requested_v6, skipped;
} counts;
static counts seen;

static const char *writer_name(const uint8_t *data, size_t len, const char *path) {
  static char name[128];
  hudi_avro_file f;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_avro_file_open(&f, data, len, path, &err) != HUDI_OK) fail_msg("%s", err.message);
  snprintf(name, sizeof name, "%s", hudi_avro_short_name(f.schema->root->name));
  hudi_avro_file_close(&f);
  return name;
}

/* Parses with the typed API of the record, returns the doc and its type. */
static void *parse_typed(const char *wname, const uint8_t *data, size_t len, const char *path,
                         const hudi_tl_type **type) {
  hudi_error err = HUDI_ERROR_INIT;
  void *doc = NULL;
  hudi_status st;
  if (!strcmp(wname, "HoodieCommitMetadata") || !strcmp(wname, "HoodieReplaceCommitMetadata")) {
    *type = &hudi_commit_metadata_type;
    st = hudi_commit_metadata_parse_avro((hudi_commit_metadata **)&doc, data, len, path, &err);
  } else if (!strcmp(wname, "HoodieCompactionPlan")) {
    *type = &hudi_compaction_plan_type;
    st = hudi_compaction_plan_parse((hudi_compaction_plan **)&doc, data, len, path, &err);
  } else if (!strcmp(wname, "HoodieRollbackPlan")) {
    *type = &hudi_rollback_plan_type;
    st = hudi_rollback_plan_parse((hudi_rollback_plan **)&doc, data, len, path, &err);
  } else if (!strcmp(wname, "HoodieRollbackMetadata")) {
    *type = &hudi_rollback_metadata_type;
    st = hudi_rollback_metadata_parse((hudi_rollback_metadata **)&doc, data, len, path, &err);
  } else if (!strcmp(wname, "HoodieRequestedReplaceMetadata")) {
    *type = &hudi_requested_replace_type;
    st = hudi_requested_replace_parse((hudi_requested_replace **)&doc, data, len, path, &err);
  } else {
    return NULL;
  }
  if (st != HUDI_OK) fail_msg("%s", err.message);
  return doc;
}

static void check_avro_file(const char *path, const char *rel) {
  size_t len;
  uint8_t *data = avro_test_read_file(path, &len);
  assert_non_null(data);
  const char *wname = writer_name(data, len, path);
  const hudi_tl_type *type;
  hudi_tl_doc *doc = parse_typed(wname, data, len, path, &type);
  if (!doc) { /* index plans: not typed here */
    seen.skipped++;
    free(data);
    return;
  }
  hudi_error err = HUDI_ERROR_INIT;
  /* The struct, as a value of the file's schema, equals fastavro's decoding. */
  hudi_avro_schema *s;
  assert_int_equal(hudi_tl_schema_parse(&s, doc->schema, &err), HUDI_OK);
  hudi_avro_arena arena;
  hudi_avro_arena_init(&arena, 0);
  hudi_avro_value v;
  if (hudi_tl_to_value(&v, &arena, s->root, doc, type, &err) != HUDI_OK) fail_msg("%s: %s", rel, err.message);
  json_t *got = avro_test_tj(&v), *want = json_object_get(dump, rel);
  if (!want) fail_msg("fastavro did not decode %s", rel);
  assert_int_equal(json_array_size(want), 1);
  if (!json_equal(got, json_array_get(want, 0))) {
    char *g = json_dumps(got, JSON_SORT_KEYS), *w = json_dumps(json_array_get(want, 0), JSON_SORT_KEYS);
    fail_msg("%s: typed struct differs from fastavro\n ours: %.2000s\n fastavro: %.2000s", rel, g, w);
  }
  json_decref(got);
  /* Written again with the file's sync marker: the same bytes. */
  hudi_buf out;
  hudi_buf_init(&out, 0);
  if (hudi_tl_write(doc, type, data + len - HUDI_AVRO_SYNC_SIZE, &out, &err) != HUDI_OK)
    fail_msg("%s: %s", rel, err.message);
  if (out.len != len || memcmp(out.data, data, len) != 0) fail_msg("%s: re-encoded bytes differ", rel);

  if (type == &hudi_commit_metadata_type) {
    if (hudi_commit_metadata_is_replace((hudi_commit_metadata *)doc)) seen.replace++;
    else seen.commit++;
  } else if (type == &hudi_compaction_plan_type) seen.compaction++;
  else if (type == &hudi_rollback_plan_type) seen.rollback_plan++;
  else if (type == &hudi_rollback_metadata_type) seen.rollback_meta++;
  else if (doc->schema == HUDI_TL_REQUESTED_REPLACE_V6) seen.requested_v6++;
  else seen.requested++;

  hudi_buf_free(&out);
  hudi_avro_arena_free(&arena);
  hudi_avro_schema_free(s);
  hudi_tl_doc_free(doc);
  free(data);
}

/* v6 JSON commit metadata: parse, write, same bytes. */
static int n_json;
static void check_json_file(const char *path) {
  size_t len;
  uint8_t *data = avro_test_read_file(path, &len);
  assert_non_null(data);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_commit_metadata *m;
  size_t pl = strlen(path);
  int replace = pl > 14 && strcmp(path + pl - 14, ".replacecommit") == 0; /* .replacecommit.inflight: plain */
  if (hudi_commit_metadata_parse(&m, data, len, replace, path, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_buf out;
  hudi_buf_init(&out, 0);
  assert_int_equal(hudi_commit_metadata_to_json(m, &out, &err), HUDI_OK);
  if (out.len != len || memcmp(out.data, data, len) != 0) {
    size_t i = 0;
    while (i < len && i < out.len && out.data[i] == data[i]) i++;
    fail_msg("%s: JSON differs at byte %zu: ours ...%.60s", path, i, (const char *)out.data + (i > 20 ? i - 20 : 0));
  }
  n_json++;
  hudi_buf_free(&out);
  hudi_commit_metadata_free(m);
  free(data);
}

static int is_json_commit(const char *name) {
  static const char *ext[] = {".commit", ".deltacommit", ".inflight", ".replacecommit"};
  size_t n = strlen(name);
  for (size_t i = 0; i < 4; i++) {
    size_t e = strlen(ext[i]);
    if (n > e && strcmp(name + n - e, ext[i]) == 0) return 1;
  }
  return 0;
}

static void walk(const char *dir, size_t root_len, int in_hoodie) {
  DIR *d = opendir(dir);
  if (!d) return;
  const char *base = strrchr(dir, '/');
  int hoodie = in_hoodie || (base && strcmp(base + 1, ".hoodie") == 0);
  int v6_root = base && strcmp(base + 1, ".hoodie") == 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      walk(path, root_len, hoodie);
      continue;
    }
    if (!hoodie || st.st_size == 0) continue;
    FILE *fp = fopen(path, "rb");
    char magic[4] = {0};
    size_t got = fread(magic, 1, 4, fp);
    fclose(fp);
    if (got == 4 && memcmp(magic, "Obj\x01", 4) == 0) check_avro_file(path, path + root_len + 1);
    else if (v6_root && magic[0] == '{' && is_json_commit(e->d_name)) check_json_file(path);
  }
  closedir(d);
}

static void fixture_files_typed_and_byte_exact(void **state) {
  (void)state;
  walk(ROOT, strlen(ROOT), 0);
  check_json_file(LOOSE "/v6_commit.json");
  printf("typed+byte-exact: %d commit, %d replacecommit, %d compaction plans, %d rollback plans, %d rollback "
         "metadata, %d requested replace (1.x), %d (0.x); %d index files skipped; %d v6 JSON commits\n",
         seen.commit, seen.replace, seen.compaction, seen.rollback_plan, seen.rollback_meta, seen.requested,
         seen.requested_v6, seen.skipped, n_json);
  int total = seen.commit + seen.replace + seen.compaction + seen.rollback_plan + seen.rollback_meta +
              seen.requested + seen.requested_v6 + seen.skipped;
  assert_int_equal((size_t)total, json_object_size(dump)); /* every file fastavro found */
  assert_true(seen.commit > 600 && seen.replace == 20 && seen.compaction == 15);
  assert_int_equal(seen.rollback_plan, 3);
  assert_int_equal(seen.rollback_meta, 3);
  assert_int_equal(seen.requested_v6, 1);
  assert_int_equal(n_json, 47); /* the spec's count: 46 in the v6 zips + the loose one */
}

static hudi_commit_metadata *load_commit(const char *path) {
  size_t len;
  uint8_t *data = avro_test_read_file(path, &len);
  if (!data) fail_msg("cannot read %s", path);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_commit_metadata *m;
  if (hudi_commit_metadata_parse(&m, data, len, strstr(path, "replacecommit") != NULL, path, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  free(data);
  return m;
}

/* Values the .sql recipes and the spec's example determine. */
static void commit_metadata_values(void **state) {
  (void)state;
  /* v8_simplekeygen_nonhivestyle: second INSERT is an upsert into partitions 10 and 20. */
  hudi_commit_metadata *m = load_commit(ROOT "/sample_table/cow/v8_simplekeygen_nonhivestyle/"
                                             "v8_simplekeygen_nonhivestyle/.hoodie/timeline/"
                                             "20250713011315930_20250713011316231.commit");
  assert_string_equal(m->operation_type, "UPSERT");
  assert_true(m->compacted.has && !m->compacted.v);
  assert_false(m->version.has);
  assert_non_null(strstr(hudi_commit_metadata_schema(m), "\"name\":\"v8_simplekeygen_nonhivestyle_record\""));
  size_t n;
  const hudi_partition_write_stats *p20 = hudi_commit_metadata_find_partition(m, "20");
  assert_non_null(p20);
  const hudi_write_stat *s = hudi_partition_stats(p20, &n);
  assert_int_equal(n, 1);
  assert_string_equal(s->file_id, "352d465e-0bef-4a4c-b558-3079e02459ed-0");
  assert_string_equal(s->path, "20/352d465e-0bef-4a4c-b558-3079e02459ed-0_0-115-168_20250713011315930.parquet");
  assert_string_equal(s->prev_commit, "null");
  assert_int_equal(s->total_write_bytes.v, 441164);
  assert_int_equal(s->file_size_in_bytes.v, 441164);
  assert_int_equal(s->num_inserts.v, 1);
  assert_false(s->log_files.has);
  assert_null(s->base_file);
  assert_int_equal(s->runtime_stats->total_create_time.v, 72);
  assert_non_null(hudi_commit_metadata_find_partition(m, "10"));
  assert_int_equal(hudi_commit_metadata_total(m, offsetof(hudi_write_stat, num_writes)), 3);
  hudi_commit_metadata_free(m);

  /* v6 JSON: INSERT OVERWRITE TABLE replaces every file group, also in partition 20. */
  m = load_commit(ROOT "/sample_table/cow/v6_simplekeygen_nonhivestyle_overwritetable/"
                       "v6_simplekeygen_nonhivestyle_overwritetable/.hoodie/20240707001303088.replacecommit");
  assert_true(hudi_commit_metadata_is_replace(m));
  assert_string_equal(m->operation_type, "INSERT_OVERWRITE_TABLE");
  assert_non_null(hudi_commit_metadata_replaced(m, "20"));
  assert_true(hudi_commit_metadata_replaced(m, "20")->n >= 1);
  hudi_commit_metadata_free(m);

  /* The loose v6 JSON and v8 Avro commits hudi-rs tests with. */
  m = load_commit(LOOSE "/v8_deltacommit.avro");
  assert_true(hudi_commit_metadata_n_stats(m) >= 1);
  assert_non_null(hudi_commit_metadata_schema(m));
  hudi_commit_metadata_free(m);
}

/* A string that is not UTF-8 (an Avro string from a damaged or foreign
 * file: the fuzzer found one) is written to JSON as U+FFFD per bad byte, as
 * Java decodes it, so the JSON parses again (jansson rejects raw bad
 * bytes); valid multi-byte characters stay as they are. */
static void json_invalid_utf8_replaced(void **state) {
  (void)state;
  hudi_commit_metadata *m = load_commit(ROOT "/sample_table/cow/v8_simplekeygen_nonhivestyle/"
                                             "v8_simplekeygen_nonhivestyle/.hoodie/timeline/"
                                             "20250713011315930_20250713011316231.commit");
  size_t n;
  hudi_write_stat *s = (hudi_write_stat *)hudi_partition_stats(hudi_commit_metadata_find_partition(m, "20"), &n);
  char *saved = s->path;
  static char bad[] = "20/a\xff\xc3(\xc3\xa9\xed\xa0\x80.parquet"; /* 0xff; 0xc3 cut; e-acute; a surrogate */
  s->path = bad;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_commit_metadata_to_json(m, &out, &err), HUDI_OK);
  assert_non_null(strstr((const char *)out.data, "\"20/a\\uFFFD\\uFFFD(\xc3\xa9\\uFFFD\\uFFFD\\uFFFD.parquet\""));
  hudi_commit_metadata *q = NULL;
  assert_int_equal(hudi_commit_metadata_parse_json(&q, out.data, out.len, 0, "re", &err), HUDI_OK);
  size_t qn;
  const hudi_write_stat *qs = hudi_partition_stats(hudi_commit_metadata_find_partition(q, "20"), &qn);
  assert_string_equal(qs->path, "20/a\xef\xbf\xbd\xef\xbf\xbd(\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd.parquet");
  s->path = saved;
  hudi_commit_metadata_free(q);
  hudi_commit_metadata_free(m);
  hudi_buf_free(&out);
}

static void rollback_values(void **state) {
  (void)state;
  /* The recipe's rollback undoes the second INSERT (20260403184242950, whose
   * instant files the rollback then deleted): one base file, non-partitioned. */
  const char *dir = ROOT "/sample_table/mor/avro/v9_nonpartitioned_rollback/v9_nonpartitioned_rollback/.hoodie/timeline/";
  char path[4096];
  size_t len;
  hudi_error err = HUDI_ERROR_INIT;
  snprintf(path, sizeof path, "%s20260403184259077.rollback.requested", dir);
  uint8_t *data = avro_test_read_file(path, &len);
  hudi_rollback_plan *plan;
  assert_int_equal(hudi_rollback_plan_parse(&plan, data, len, path, &err), HUDI_OK);
  assert_string_equal(plan->instant_to_rollback->commit_time, "20260403184242950");
  assert_string_equal(plan->instant_to_rollback->action, "deltacommit");
  assert_int_equal(plan->version.v, 1);
  assert_int_equal(plan->rollback_requests.n, 1);
  const hudi_rollback_request *rq = plan->rollback_requests.items;
  assert_string_equal(rq->partition_path, "");
  assert_int_equal(rq->files_to_be_deleted.n, 1);
  const char *victim = ((char **)rq->files_to_be_deleted.items)[0];
  assert_string_equal(victim + strlen(victim) - 26, "_20260403184242950.parquet");
  assert_true(rq->log_blocks_to_be_deleted.has && rq->log_blocks_to_be_deleted.n == 0);
  hudi_rollback_plan_free(plan);
  free(data);
  snprintf(path, sizeof path, "%s20260403184259077_20260403184300219.rollback", dir);
  data = avro_test_read_file(path, &len);
  hudi_rollback_metadata *rm;
  assert_int_equal(hudi_rollback_metadata_parse(&rm, data, len, path, &err), HUDI_OK);
  assert_string_equal(rm->start_rollback_time, "20260403184259077");
  assert_int_equal(rm->commits_rollback.n, 1);
  assert_string_equal(((char **)rm->commits_rollback.items)[0], "20260403184242950");
  assert_int_equal(rm->total_files_deleted.v, 1);
  assert_int_equal(rm->partition_metadata.n, 1);
  const hudi_rollback_partition_entry *pe = rm->partition_metadata.items;
  assert_string_equal(pe->key, "");
  assert_int_equal(pe->value.success_delete_files.n, 1);
  assert_true(pe->value.failed_delete_files.has && pe->value.failed_delete_files.n == 0);
  assert_int_equal(rm->instants_rollback.n, 1);
  assert_string_equal(((hudi_rollback_instant *)rm->instants_rollback.items)->action, "deltacommit");
  hudi_rollback_metadata_free(rm);
  free(data);
}

/* ------------------------------------------------------------ corrupt input */

static void corrupt_inputs(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_commit_metadata *m = NULL;
  size_t len;
  uint8_t *data = avro_test_read_file(LOOSE "/v8_deltacommit.avro", &len);
  /* truncated anywhere: an error, never a crash */
  for (size_t cut = 0; cut < len; cut += 97) {
    hudi_status st = hudi_commit_metadata_parse_avro(&m, data, cut, "cut.avro", &err);
    assert_int_not_equal(st, HUDI_OK);
    assert_null(m);
  }
  /* a flipped byte in the datum */
  data[3400] ^= 0xff;
  hudi_status st = hudi_commit_metadata_parse_avro(&m, data, len, "flip.avro", &err);
  if (st == HUDI_OK) hudi_commit_metadata_free(m); /* may still decode: the value changed, not the shape */
  free(data);

  /* a rollback plan is not commit metadata */
  const char *rb = ROOT "/sample_table/mor/avro/v9_nonpartitioned_rollback/v9_nonpartitioned_rollback/.hoodie/"
                        "timeline/20260403184259077.rollback.requested";
  data = avro_test_read_file(rb, &len);
  assert_int_equal(hudi_commit_metadata_parse_avro(&m, data, len, "x.rollback.requested", &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "HoodieRollbackPlan"));
  assert_non_null(strstr(err.message, "x.rollback.requested"));
  free(data);

  assert_int_equal(hudi_commit_metadata_parse_avro(&m, (const uint8_t *)"", 0, "empty", &err), HUDI_ERR_CORRUPT);
  const char *bad = "{\n  \"partitionToWriteStats\" : { \"p\" : [ { \"numWrites\" : \"x\" } ] }\n}";
  assert_int_equal(hudi_commit_metadata_parse_json(&m, (const uint8_t *)bad, strlen(bad), 0, "bad.commit", &err),
                   HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "numWrites"));
  assert_non_null(strstr(err.message, "bad.commit"));
  const char *trunc = "{ \"partitionToWriteStats\" : {";
  assert_int_equal(hudi_commit_metadata_parse_json(&m, (const uint8_t *)trunc, strlen(trunc), 0, "t.commit", &err),
                   HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "byte"));
  /* An empty v6 instant file reads as empty metadata, as in Java. */
  assert_int_equal(hudi_commit_metadata_parse(&m, (const uint8_t *)"", 0, 0, "e.inflight", &err), HUDI_OK);
  assert_int_equal(hudi_commit_metadata_n_stats(m), 0);
  hudi_commit_metadata_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fixture_files_typed_and_byte_exact),
      cmocka_unit_test(commit_metadata_values),
      cmocka_unit_test(json_invalid_utf8_replaced),
      cmocka_unit_test(rollback_values),
      cmocka_unit_test(corrupt_inputs),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

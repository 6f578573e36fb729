/* Metadata-table compaction and cleaning (mdt_compact.h, mdt_clean.h).
 * A MOR table with the record index gets 12 commits (inserts, in-place
 * upserts, deletes); the oracles are a model of the keys written and the
 * storage listing, plus the state read through the MDT before compaction:
 * after compaction every record-index lookup and the files listing are
 * identical, lookups read the new base HFiles and no log file, and a clean
 * deletes the older slices' files. The bloom filter of our base HFiles is
 * checked against a Spark-written MDT base file ([F9]). */
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
#include "base/threadpool.h"
#include "hfile/hfile.h"
#include "hudi/write.h"
#include "io/storage.h"
#include "table/bloom.h"
#include "table/mdt_clean.h"
#include "table/mdt_compact.h"
#include "table/mdt_files.h"
#include "table/mdt_reader.h"
#include "table/mdt_write.h"
#include "table/log_format.h"
#include "table/log_reader.h"
#include "table/timeline.h"
#include "table/mdt_record_index.h"
#include "table/table.h"
#include "mdt_test_util.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-mdt-compact-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  if (getenv("HUDI_MDT_COMPACT_KEEP")) return 0;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *const CITIES[] = {"sf", "nyc", "la"};
static const hudi_option NO_AUTO[] = {{"hoodie.metadata.compact.max.delta.commits", "1000"}, {"fsync", "false"}};
/* The table handles' options: these tests compact record-index shards
 * whose keys came in log blocks (as Java's commits write them), so the
 * first keys go to logs too (test_mdt_compact_copy.c and
 * tests/python/test_rli_base_files.py cover the default, base files). */
static const hudi_option FS_OFF[] = {{"fsync", "false"}, {HUDI_MDT_RLI_BASE_FILES_OPTION, "false"}};

#define MAX_KEYS 2000
typedef struct model {
  char *keys[MAX_KEYS];
  int city[MAX_KEYS];
  bool live[MAX_KEYS];
  int n;
} model;

static void model_free(model *m) {
  for (int i = 0; i < m->n; i++) free(m->keys[i]);
  m->n = 0;
}

static void make_stream(struct ArrowArrayStream *out, char **ids, const int *cities, int n, int64_t v) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "v", "l", 0, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), ids[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), CITIES[cities[i]], &err),
                     HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), v, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static hudi_table *create_table(const char *name) {
  char p[300];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT; /* record index on */
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.options = FS_OFF;
  o.n_options = 2;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("create %s: %s", p, err.message);
  return t;
}

/* Commit number `round`: even rounds insert 40 new keys, odd rounds upsert
 * 15 live keys in place, every third round deletes 5 live keys. */
static void commit_round(hudi_table *t, model *m, int round, const hudi_option *opts, size_t n_opts) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_write_result r;
  if (round % 3 == 2) {
    const char *del[5];
    int n = 0;
    for (int i = round; i < m->n && n < 5; i += 7)
      if (m->live[i]) {
        del[n++] = m->keys[i];
        m->live[i] = false;
      }
    if (hudi_table_delete_keys(&r, t, del, (size_t)n, opts, n_opts, &err) != HUDI_OK) fail_msg("%s", err.message);
    assert_int_equal(r.num_deletes, n);
    return;
  }
  char *ids[64];
  int cities[64];
  int n = 0;
  if (round % 2 == 0) {
    for (; n < 40; n++) {
      char k[64];
      snprintf(k, sizeof k, "key-%02d-%03d", round, n);
      assert_true(m->n < MAX_KEYS);
      m->keys[m->n] = strdup(k);
      m->city[m->n] = (n * 5 + round) % 3;
      m->live[m->n] = true;
      ids[n] = m->keys[m->n];
      cities[n] = m->city[m->n];
      m->n++;
    }
  } else {
    for (int i = round; i < m->n && n < 15; i += 3)
      if (m->live[i]) {
        ids[n] = m->keys[i];
        cities[n++] = m->city[i];
      }
  }
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, n, round);
  if (hudi_table_upsert(&r, t, &s, opts, n_opts, &err) != HUDI_OK) fail_msg("upsert: %s", err.message);
}

/* What the MDT says: each model key's location ("" when absent) and the
 * files listing, as text. */
typedef struct snapshot {
  char *locations;
  char *listing;
  hudi_mdt_read_stats stats;
} snapshot;

static void snapshot_free(snapshot *s) {
  free(s->locations);
  free(s->listing);
}

static void append(char **buf, size_t *len, const char *s) {
  size_t n = strlen(s);
  *buf = realloc(*buf, *len + n + 1);
  memcpy(*buf + *len, s, n + 1);
  *len += n;
}

static snapshot take(const char *name, const model *m) {
  char base[300];
  snprintf(base, sizeof base, "%s/%s", dir, name);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t;
  if (hudi_table_open(&t, base, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_mdt *mdt;
  if (hudi_mdt_open(&mdt, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  snapshot s = {0};
  size_t len = 0;
  hudi_rli_location *locs;
  if (hudi_mdt_record_index_lookup(mdt, (const char *const *)m->keys, NULL, (size_t)m->n, &locs, &s.stats, &err) !=
      HUDI_OK)
    fail_msg("%s", err.message);
  for (int i = 0; i < m->n; i++) {
    char line[256];
    if (locs[i].found != m->live[i]) fail_msg("key %s: found=%d, model says live=%d", m->keys[i], locs[i].found, m->live[i]);
    snprintf(line, sizeof line, "%s=%s/%s@%lld\n", m->keys[i], locs[i].found ? locs[i].partition : "",
             locs[i].found ? locs[i].file_id : "", locs[i].found ? (long long)locs[i].instant_ms : 0LL);
    if (locs[i].found) {
      char want[32];
      snprintf(want, sizeof want, "city=%s", CITIES[m->city[i]]);
      assert_string_equal(locs[i].partition, want);
    }
    append(&s.locations, &len, line);
  }
  hudi_rli_locations_free(locs, (size_t)m->n);
  len = 0;
  hudi_mdt_strings parts;
  if (hudi_mdt_list_partitions(mdt, &parts, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_mdt_partition_files *pf;
  if (hudi_mdt_list_files(mdt, (const char *const *)parts.items, parts.count, &pf, NULL, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  for (size_t p = 0; p < parts.count; p++)
    for (size_t f = 0; f < pf[p].n_files; f++) {
      char line[512];
      snprintf(line, sizeof line, "%s/%s %llu\n", parts.items[p], pf[p].files[f].name,
               (unsigned long long)pf[p].files[f].size);
      append(&s.listing, &len, line);
      /* The oracle: the listed file is on storage with that size. */
      char path[900];
      snprintf(path, sizeof path, "%s/%s/%s", base, parts.items[p], pf[p].files[f].name);
      size_t sz;
      unsigned char *bytes = mdt_read_file(path, &sz);
      if (!bytes) fail_msg("listed file %s is not on storage", path);
      free(bytes);
      assert_int_equal(sz, pf[p].files[f].size);
    }
  hudi_mdt_partition_files_free(pf, parts.count);
  hudi_mdt_strings_free(&parts);
  hudi_mdt_free(mdt);
  hudi_table_free(t);
  return s;
}

/* Names of files under the MDT partition dir containing `needle`. */
static int count_files(const char *name, const char *partition, const char *needle) {
  char p[400];
  snprintf(p, sizeof p, "%s/%s/.hoodie/metadata/%s", dir, name, partition);
  DIR *d = opendir(p);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, needle)) n++;
  closedir(d);
  return n;
}


/* Rewrites the HFile log block of the log file at path with its key-value
 * number `dup` written twice (an HFile allows equal keys; a record-index
 * block never has them); that key goes to key_out. False when the block
 * has fewer than dup + 1 key-values (the file is left alone). */
typedef struct kvs {
  char *keys[64], *values[64];
  size_t key_lens[64], value_lens[64];
  size_t n;
} kvs;

static int collect_kv(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len) {
  kvs *c = ctx;
  assert_true(c->n < 64);
  c->keys[c->n] = malloc(key_len + 1);
  c->values[c->n] = malloc(value_len + 1);
  memcpy(c->keys[c->n], key, key_len);
  memcpy(c->values[c->n], value, value_len);
  c->keys[c->n][key_len] = 0;
  c->key_lens[c->n] = key_len;
  c->value_lens[c->n++] = value_len;
  return 0;
}

static bool duplicate_hfile_key(const char *path, size_t dup, char *key_out, size_t key_cap) {
  size_t len;
  unsigned char *bytes = mdt_read_file(path, &len);
  assert_non_null(bytes);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_log_reader *r;
  assert_int_equal(hudi_log_reader_open_memory(&r, bytes, len, path, &err), HUDI_OK);
  hudi_buf out;
  hudi_buf_init(&out, HUDI_BUF_DEFAULT_MAX);
  bool done = false, has = false;
  for (;;) {
    hudi_log_block b;
    assert_int_equal(hudi_log_reader_next(r, &b, &has, &err), HUDI_OK);
    if (!has) break;
    kvs c = {0};
    if (b.type == HUDI_LOG_BLOCK_HFILE_DATA && b.content_len > 0) {
      hudi_hfile_reader *hr;
      assert_int_equal(hudi_hfile_reader_open_buffer(&hr, b.content, b.content_len, path, &err), HUDI_OK);
      assert_int_equal(hudi_hfile_reader_scan(hr, collect_kv, &c, &err), HUDI_OK);
      hudi_hfile_reader_free(hr);
    }
    if (c.n > dup) {
      hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
      hudi_hfile_writer *w;
      assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
      for (size_t i = 0; i < c.n; i++)
        for (int twice = 0; twice < (i == dup ? 2 : 1); twice++)
          assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)c.keys[i], c.key_lens[i],
                                                    (const uint8_t *)c.values[i], c.value_lens[i], &err),
                           HUDI_OK);
      uint8_t *hf;
      size_t hf_len;
      assert_int_equal(hudi_hfile_writer_finish(w, &hf, &hf_len, &err), HUDI_OK);
      hudi_hfile_writer_free(w);
      assert_int_equal(hudi_log_block_encode(&out, b.type, &b.header, &b.footer, hf, hf_len, &err), HUDI_OK);
      hudi_free(hf);
      snprintf(key_out, key_cap, "%s", c.keys[dup]);
      done = true;
    } else {
      assert_int_equal(hudi_buf_append(&out, bytes + b.offset, b.length, &err), HUDI_OK);
    }
    for (size_t i = 0; i < c.n; i++) {
      free(c.keys[i]);
      free(c.values[i]);
    }
    hudi_log_block_free(&b);
  }
  hudi_log_reader_free(r);
  if (done) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
    fclose(f);
  }
  hudi_buf_free(&out);
  free(bytes);
  return done;
}

/* A record-index shard without a base file is compacted by streaming its
 * oldest HFile log block as the base (mdt_reader.c, "lead"), which relies
 * on the block's keys being strictly ascending, as Java writes them. A
 * block holding a key twice would put that key twice into the compacted
 * HFile: the compaction fails with HUDI_ERR_CORRUPT naming the key and is
 * undone (the MDT reads as before). */
static void lead_block_repeated_key_is_corrupt(void **state) {
  (void)state;
  hudi_table *t = create_table("t_lead");
  model m = {0};
  commit_round(t, &m, 0, NO_AUTO, 2); /* 40 keys: every shard's block in a log file */
  char ri[400], key[128] = "";
  snprintf(ri, sizeof ri, "%s/t_lead/.hoodie/metadata/record_index", dir);
  DIR *d = opendir(ri);
  assert_non_null(d);
  bool rewritten = false;
  struct dirent *e;
  while (!rewritten && (e = readdir(d))) {
    if (e->d_name[0] != '.' || !strstr(e->d_name, ".log.") || strstr(e->d_name, ".crc")) continue;
    char p[700];
    snprintf(p, sizeof p, "%s/%s", ri, e->d_name);
    rewritten = duplicate_hfile_key(p, 1, key, sizeof key);
  }
  closedir(d);
  assert_true(rewritten);
  snapshot before = take("t_lead", &m);

  hudi_mdt_compact_options co = HUDI_MDT_COMPACT_OPTIONS_INIT;
  co.force = true;
  hudi_mdt_compact_result res;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_mdt_compact(t, &co, &res, &err), HUDI_ERR_CORRUPT);
  if (!strstr(err.message, "not in ascending order") || !strstr(err.message, key))
    fail_msg("message: %s (key %s)", err.message, key);
  /* Undone at once: no base HFile of the shards compacted beside it, no
   * compaction instant; readers see the slices as before. */
  assert_int_equal(count_files("t_lead", "record_index", ".hfile"), 0);
  char tl[400];
  snprintf(tl, sizeof tl, "%s/t_lead/.hoodie/metadata/.hoodie/timeline", dir);
  DIR *td = opendir(tl);
  assert_non_null(td);
  while ((e = readdir(td)))
    if (strstr(e->d_name, "compaction") || strstr(e->d_name, ".commit")) fail_msg("left: %s", e->d_name);
  closedir(td);
  snapshot after = take("t_lead", &m);
  assert_string_equal(after.locations, before.locations);
  assert_string_equal(after.listing, before.listing);
  snapshot_free(&before);
  snapshot_free(&after);
  model_free(&m);
  hudi_table_free(t);
}

static void compaction_keeps_lookups_and_listing(void **state) {
  (void)state;
  hudi_table *t = create_table("t1");
  model m = {0};
  for (int round = 0; round < 12; round++) commit_round(t, &m, round, NO_AUTO, 2);
  snapshot before = take("t1", &m);
  assert_true(before.stats.log_files_opened > 0);
  assert_int_equal(before.stats.base_files_opened, 0); /* record_index had no base file yet */

  /* 2 initialisation + 12 deltacommits >= 10: due. */
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt_compact_result res;
  if (hudi_mdt_compact(t, NULL, &res, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(res.delta_commits, 14);
  assert_int_equal(strlen(res.instant), 17);
  assert_true(strcmp(res.completion_time, res.instant) > 0);
  assert_int_equal(res.file_groups, 11); /* files + 10 record-index shards */
  char commit_name[64];
  snprintf(commit_name, sizeof commit_name, "%s_%s.commit", res.instant, res.completion_time);
  char path[600];
  snprintf(path, sizeof path, "%s/t1/.hoodie/metadata/.hoodie/timeline/%s", dir, commit_name);
  assert_true(mdt_is_file(path));
  snprintf(path, sizeof path, "%s/t1/.hoodie/metadata/.hoodie/timeline/%s.compaction.requested", dir, res.instant);
  assert_true(mdt_is_file(path));
  char suffix[40];
  snprintf(suffix, sizeof suffix, "_%s.hfile", res.instant);
  assert_int_equal(count_files("t1", "files", suffix), 1);
  assert_int_equal(count_files("t1", "record_index", suffix), 10);

  snapshot after = take("t1", &m);
  assert_string_equal(after.locations, before.locations);
  assert_string_equal(after.listing, before.listing);
  /* Now the base HFiles answer alone. */
  assert_int_equal(after.stats.log_files_opened, 0);
  assert_int_equal(after.stats.base_files_opened, 10);

  /* Not due again right away. */
  hudi_mdt_compact_result again;
  if (hudi_mdt_compact(t, NULL, &again, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(again.instant, "");
  assert_int_equal(again.delta_commits, 0);

  /* Three more commits read base + their logs; then a clean keeping two
   * commits deletes every older slice's files. */
  for (int round = 12; round < 15; round++) commit_round(t, &m, round, NO_AUTO, 2);
  snapshot later = take("t1", &m);
  assert_true(later.stats.log_files_opened > 0);
  hudi_mdt_clean_options co = HUDI_MDT_CLEAN_OPTIONS_INIT;
  hudi_mdt_clean_result cr;
  /* With the defaults (20 commits retained) nothing is old enough. */
  if (hudi_mdt_clean(t, &co, &cr, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(cr.instant, "");
  /* KEEP_LATEST_BY_HOURS (the data table's 5 hours: 6 for the MDT): every
   * commit is minutes old, so nothing is; with "now" 6 hours after the
   * second newest MDT commit that commit is the ECR, as two retained
   * commits make it below. */
  hudi_mdt_clean_options ch = HUDI_MDT_CLEAN_OPTIONS_INIT;
  ch.by_hours = true;
  ch.data_hours_retained = 5;
  if (hudi_mdt_clean(t, &ch, &cr, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(cr.instant, "");
  hudi_storage *ms;
  snprintf(path, sizeof path, "%s/t1", dir);
  assert_int_equal(hudi_storage_open(&ms, path, NULL, 0, &err), HUDI_OK);
  hudi_timeline mtl;
  memset(&mtl, 0, sizeof mtl);
  assert_int_equal(hudi_timeline_load(&mtl, ms, ".hoodie/metadata", 2, &err), HUDI_OK);
  const char *second = NULL, *newest = NULL;
  for (size_t i = 0; i < mtl.count; i++)
    if (mtl.items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(mtl.items[i].action, "deltacommit")) {
      second = newest;
      newest = mtl.items[i].requested_time;
    }
  assert_non_null(second);
  char want_ecr[HUDI_INSTANT_TIME_BUF];
  snprintf(want_ecr, sizeof want_ecr, "%.17s", second);
  int64_t second_ms;
  assert_int_equal(hudi_instant_time_to_millis(&second_ms, want_ecr, 17, &err), HUDI_OK);
  hudi_timeline_free(&mtl);
  hudi_storage_free(ms);
  ch.now_ms = second_ms + 6 * INT64_C(3600000);
  if (hudi_mdt_clean(t, &ch, &cr, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(strlen(cr.instant), 17);
  assert_string_equal(cr.earliest_commit_to_retain, want_ecr);
  assert_true(cr.files_deleted > 12);
  /* Two retained commits name the same ECR: nothing is left to delete. */
  co.commits_retained_override = 2;
  hudi_mdt_clean_result again_cr;
  if (hudi_mdt_clean(t, &co, &again_cr, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(again_cr.instant, "");
  /* Left: the new base files and the logs written after the compaction. */
  assert_int_equal(count_files("t1", "files", "00000000000000000"), 0);
  assert_int_equal(count_files("t1", "record_index", "00000000000000001"), 0);
  assert_int_equal(count_files("t1", "record_index", suffix), 10);
  snapshot cleaned = take("t1", &m);
  assert_string_equal(cleaned.locations, later.locations);
  assert_string_equal(cleaned.listing, later.listing);
  snprintf(path, sizeof path, "%s/t1/.hoodie/metadata/.hoodie/timeline/%s.clean.requested", dir, cr.instant);
  assert_true(mdt_is_file(path));

  snapshot_free(&before);
  snapshot_free(&after);
  snapshot_free(&later);
  snapshot_free(&cleaned);
  model_free(&m);
  hudi_table_free(t);
}

/* KEEP_LATEST_FILE_VERSIONS (HoodieMetadataWriteUtils: the MDT keeps
 * ceil(1.2 x the data table's versions) slices of each file group): after
 * two compactions every group has three slices; one data version keeps
 * two, so the first slice of every group goes (no earliest commit to
 * retain); two data versions keep three: nothing goes. Lookups and the
 * listing stay the same. */
static void clean_by_file_versions(void **state) {
  (void)state;
  hudi_table *t = create_table("tv");
  model m = {0};
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt_compact_result res;
  int round = 0;
  for (int compaction = 0; compaction < 2; compaction++) {
    for (int k = 0; k < 11; k++, round++) commit_round(t, &m, round, NO_AUTO, 2);
    if (hudi_mdt_compact(t, NULL, &res, &err) != HUDI_OK) fail_msg("%s", err.message);
    assert_int_equal(strlen(res.instant), 17);
  }
  for (int k = 0; k < 3; k++, round++) commit_round(t, &m, round, NO_AUTO, 2);
  snapshot before = take("tv", &m);
  /* The first slices: the initialisation instants' files. */
  assert_true(count_files("tv", "files", "00000000000000000") > 0);
  assert_true(count_files("tv", "record_index", "00000000000000001") > 0);

  hudi_mdt_clean_options co = HUDI_MDT_CLEAN_OPTIONS_INIT;
  co.by_versions = true;
  co.data_versions_retained = 2; /* keeps 3 */
  hudi_mdt_clean_result cr;
  if (hudi_mdt_clean(t, &co, &cr, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(cr.instant, "");
  co.data_versions_retained = 1; /* keeps 2 */
  if (hudi_mdt_clean(t, &co, &cr, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(strlen(cr.instant), 17);
  assert_string_equal(cr.earliest_commit_to_retain, "");
  assert_true(cr.files_deleted >= 11); /* at least one file of each of the 11 groups */
  assert_int_equal(count_files("tv", "files", "00000000000000000"), 0);
  assert_int_equal(count_files("tv", "record_index", "00000000000000001"), 0);
  assert_int_equal(count_files("tv", "record_index", res.instant), 10); /* the newest base files stay */
  snapshot after = take("tv", &m);
  assert_string_equal(after.locations, before.locations);
  assert_string_equal(after.listing, before.listing);
  char path[600];
  snprintf(path, sizeof path, "%s/tv/.hoodie/metadata/.hoodie/timeline/%s.clean.requested", dir, cr.instant);
  assert_true(mdt_is_file(path));
  /* Done: two slices per group are left, which is what it keeps. */
  if (hudi_mdt_clean(t, &co, &cr, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(cr.instant, "");
  snapshot_free(&before);
  snapshot_free(&after);
  model_free(&m);
  hudi_table_free(t);
}

/* The file info names (in order) and meta blocks of an HFile, as text. */
static char *hfile_layout(const char *path) {
  size_t len;
  unsigned char *bytes = mdt_read_file(path, &len);
  if (!bytes) fail_msg("cannot read %s", path);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_hfile_reader *r;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, bytes, len, path, &err), HUDI_OK);
  char *out = NULL;
  size_t n = 0;
  for (size_t i = 0; i < hudi_hfile_reader_file_info_count(r); i++) {
    const uint8_t *k, *v;
    size_t kl, vl;
    hudi_hfile_reader_file_info_at(r, i, &k, &kl, &v, &vl);
    char line[300];
    snprintf(line, sizeof line, "info %.*s\n", (int)kl, (const char *)k);
    append(&out, &n, line);
  }
  for (size_t i = 0; i < hudi_hfile_reader_meta_count(r); i++) {
    char line[300];
    snprintf(line, sizeof line, "meta %s\n", hudi_hfile_reader_meta_name(r, i));
    append(&out, &n, line);
  }
  char line[64];
  snprintf(line, sizeof line, "codec %u\n", (unsigned)hudi_hfile_reader_trailer(r)->compression_codec);
  append(&out, &n, line);
  hudi_hfile_reader_free(r);
  free(bytes);
  return out;
}

/* Our compacted base HFiles carry what Spark's do ([F9]'s compaction
 * output): the same file info entries in the same order, the bloomFilter
 * meta block, GZ. */
static void base_hfile_layout_matches_spark(void **state) {
  (void)state;
  char spark[1024];
  snprintf(spark, sizeof spark,
           "%s/sample_table/mor/avro/v9_txns_simple_meta/v9_txns_simple_meta/.hoodie/metadata/record_index/"
           "record-index-0001-0_2-170-391_20260307162612567.hfile",
           MDT_FIXTURES);
  if (!mdt_is_file(spark)) {
    skip();
    return;
  }
  hudi_table *t = create_table("t4");
  model m = {0};
  for (int round = 0; round < 2; round++) commit_round(t, &m, round, NO_AUTO, 2);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt_compact_options co = HUDI_MDT_COMPACT_OPTIONS_INIT;
  co.force = true;
  hudi_mdt_compact_result res;
  if (hudi_mdt_compact(t, &co, &res, &err) != HUDI_OK) fail_msg("%s", err.message);
  char ours[600];
  snprintf(ours, sizeof ours, "%s/t4/.hoodie/metadata/record_index/record-index-0003-0_%s_%s.hfile", dir,
           HUDI_MDT_WRITE_TOKEN, res.instant);
  char *a = hfile_layout(ours), *b = hfile_layout(spark);
  assert_string_equal(a, b);
  free(a);
  free(b);
  model_free(&m);
  hudi_table_free(t);
}

/* Through the writes' hook with the defaults: the 8th commit makes 10
 * deltacommits and compacts; later commits leave it alone. */
static void writes_compact_automatically(void **state) {
  (void)state;
  hudi_table *t = create_table("t2");
  model m = {0};
  for (int round = 0; round < 12; round++) {
    commit_round(t, &m, round, FS_OFF, 2);
    int n = count_files("t2", "record_index", ".hfile");
    assert_int_equal(n, round < 7 ? 0 : 10);
  }
  snapshot s = take("t2", &m);
  assert_int_equal(s.stats.base_files_opened, 10);
  snapshot_free(&s);
  model_free(&m);
  hudi_table_free(t);
}

/* Our base HFiles carry the bloom filter Spark's MDT base files do: the
 * same bytes for the same keys ([F9] record-index-0001 holds TXN-008). */
static void bloom_matches_spark(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path,
           "%s/sample_table/mor/avro/v9_txns_simple_meta/v9_txns_simple_meta/.hoodie/metadata/record_index/"
           "record-index-0001-0_2-170-391_20260307162612567.hfile",
           MDT_FIXTURES);
  size_t len;
  unsigned char *bytes = mdt_read_file(path, &len);
  if (!bytes) {
    skip();
    return;
  }
  hudi_error err = HUDI_ERROR_INIT;
  hudi_hfile_reader *r;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, bytes, len, path, &err), HUDI_OK);
  hudi_buf spark;
  hudi_buf_init(&spark, 1 << 24);
  bool found = false;
  assert_int_equal(hudi_hfile_reader_meta_block(r, "bloomFilter", &spark, &found, &err), HUDI_OK);
  assert_true(found);
  hudi_bloom b;
  assert_int_equal(hudi_bloom_init(&b, 10000, 1e-9, HUDI_BLOOM_DEFAULT_MAX_ENTRIES, &err), HUDI_OK);
  assert_int_equal(hudi_bloom_add(&b, "TXN-008", 7, &err), HUDI_OK);
  hudi_buf ours;
  hudi_buf_init(&ours, 1 << 24);
  assert_int_equal(hudi_bloom_serialize(&b, &ours, &err), HUDI_OK);
  assert_int_equal(ours.len, spark.len);
  assert_memory_equal(ours.data, spark.data, ours.len);
  hudi_buf_free(&ours);
  hudi_bloom_free(&b);
  hudi_buf_free(&spark);
  hudi_hfile_reader_free(r);
  free(bytes);
}

/* Every allocation failure point of a compaction and a clean: an error
 * (never a crash or, under ASan, a leak), and what it leaves behind (a
 * pending compaction, a half-written base file) does not change what the
 * MDT answers, and the next compaction undoes it and succeeds. */
static void alloc_failures(void **state) {
  (void)state;
  hudi_table *t = create_table("t3");
  model m = {0};
  for (int round = 0; round < 4; round++) commit_round(t, &m, round, NO_AUTO, 2);
  hudi_table_free(t);
  snapshot want = take("t3", &m);
  long k;
  int failures = 0;
  for (k = 0; k < 1000000; k += 1 + k / 40) {
    char cmd[1200], name[64], path[400];
    snprintf(name, sizeof name, "t3-%ld", k);
    snprintf(cmd, sizeof cmd, "rm -rf '%s/%s' && cp -r '%s/t3' '%s/%s'", dir, name, dir, dir, name);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hudi_error err = HUDI_ERROR_INIT;
    hudi_table *c;
    if (hudi_table_open(&c, path, FS_OFF, 2, &err) != HUDI_OK) fail_msg("%s", err.message);
    hudi_mdt_compact_options co = HUDI_MDT_COMPACT_OPTIONS_INIT;
    co.force = true;
    hudi_mdt_clean_options cl = HUDI_MDT_CLEAN_OPTIONS_INIT;
    cl.commits_retained_override = 1;
    hudi_alloc_fail_after(k);
    hudi_status st = hudi_mdt_compact(c, &co, NULL, &err);
    if (st == HUDI_OK) st = hudi_mdt_clean(c, &cl, NULL, &err);
    hudi_alloc_fail_after(-1);
    if (st != HUDI_OK) {
      failures++;
      assert_true(err.message[0] != '\0');
      snapshot mid = take(name, &m);
      assert_string_equal(mid.locations, want.locations);
      assert_string_equal(mid.listing, want.listing);
      snapshot_free(&mid);
      hudi_error e2 = HUDI_ERROR_INIT;
      if (hudi_mdt_compact(c, &co, NULL, &e2) != HUDI_OK) fail_msg("after failure %ld: %s", k, e2.message);
    }
    hudi_table_free(c);
    snapshot got = take(name, &m);
    assert_string_equal(got.locations, want.locations);
    assert_string_equal(got.listing, want.listing);
    assert_int_equal(got.stats.log_files_opened, 0);
    snapshot_free(&got);
    snprintf(cmd, sizeof cmd, "rm -rf '%s/%s'", dir, name);
    assert_int_equal(system(cmd), 0);
    if (st == HUDI_OK) break;
  }
  assert_true(k < 1000000);
  assert_true(failures > 20);
  snapshot_free(&want);
  model_free(&m);
}

/* Groups compacted on one thread or on four give the same MDT: the same
 * lookups and listing, the same records and (nearly) bytes. */
static void parallel_equals_serial(void **state) {
  (void)state;
  hudi_table *t = create_table("t5");
  model m = {0};
  for (int round = 0; round < 6; round++) commit_round(t, &m, round, NO_AUTO, 2);
  hudi_table_free(t);
  snapshot want = take("t5", &m);
  hudi_mdt_compact_result res[2];
  for (int k = 0; k < 2; k++) {
    char cmd[900], name[32], path[400];
    snprintf(name, sizeof name, "t5-%d", k);
    snprintf(cmd, sizeof cmd, "rm -rf '%s/%s' && cp -r '%s/t5' '%s/%s'", dir, name, dir, dir, name);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hudi_error err = HUDI_ERROR_INIT;
    hudi_table *c;
    if (hudi_table_open(&c, path, FS_OFF, 2, &err) != HUDI_OK) fail_msg("%s", err.message);
    hudi_mdt_compact_options co = HUDI_MDT_COMPACT_OPTIONS_INIT;
    co.force = true;
    co.hfile_create_time_ms = 1700000000000LL;
    co.parallelism = k == 0 ? 1 : 4;
    if (hudi_mdt_compact(c, &co, &res[k], &err) != HUDI_OK) fail_msg("%s", err.message);
    hudi_table_free(c);
    snapshot got = take(name, &m);
    assert_string_equal(got.locations, want.locations);
    assert_string_equal(got.listing, want.listing);
    assert_int_equal(got.stats.log_files_opened, 0);
    snapshot_free(&got);
  }
  assert_int_equal(res[0].file_groups, 11);
  assert_int_equal(res[1].file_groups, res[0].file_groups);
  assert_int_equal(res[1].log_files, res[0].log_files);
  assert_int_equal(res[1].records, res[0].records);
  /* Each run's file names (in every record) carry its own instant, so
   * the compressed sizes may differ by a few bytes. */
  assert_true(res[1].bytes_written > res[0].bytes_written - res[0].bytes_written / 200 &&
              res[1].bytes_written < res[0].bytes_written + res[0].bytes_written / 200);
  snapshot_free(&want);
  model_free(&m);
}

/* Completed compactions on t's MDT timeline; the latest one's instant
 * goes to last (when not NULL). */
static int mdt_compactions(const char *name, char *last, size_t cap) {
  char p[400];
  snprintf(p, sizeof p, "%s/%s/.hoodie/metadata/.hoodie/timeline", dir, name);
  DIR *d = opendir(p);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  if (last) last[0] = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 7 || strcmp(e->d_name + len - 7, ".commit")) continue;
    n++;
    if (last && strncmp(e->d_name, last, 17) > 0) snprintf(last, cap, "%.17s", e->d_name);
  }
  closedir(d);
  return n;
}

/* hoodie.metadata.compact.incremental: every commit compacts a share of
 * the groups (the stalest first), none holds more than max logs for
 * long, and every lookup and listing stays what the model says. */
static void incremental_spreads_compaction(void **state) {
  (void)state;
  static const hudi_option INC[] = {{"hoodie.metadata.compact.incremental", "true"}, {"fsync", "false"}};
  hudi_table *t = create_table("t6");
  model m = {0};
  int total_groups = 0, shares = 0;
  int p = hudi_cpu_count() < 4 ? hudi_cpu_count() : 4; /* groups side by side */
  for (int round = 0; round < 24; round++) {
    commit_round(t, &m, round, INC, 2);
    if (round % 6 == 5) {
      snapshot s = take("t6", &m);
      snapshot_free(&s);
    }
    char last[32], suffix[40];
    /* At most one compaction per commit. */
    int now = mdt_compactions("t6", last, sizeof last);
    assert_true(now == shares || now == shares + 1);
    if (now == shares) continue;
    shares = now;
    snprintf(suffix, sizeof suffix, "_%s.hfile", last);
    int groups = count_files("t6", "files", suffix) + count_files("t6", "record_index", suffix);
    /* A share, not the whole table: 11 groups, p/10 of the bytes. */
    assert_true(groups >= 1 && groups <= 2 * p + 3);
    total_groups += groups;
  }
  /* A share every p commits, or sooner for a group's old log; about the
   * work of compacting every group every 10 commits. */
  assert_true(shares >= 24 / p - 1 && shares <= 24);
  assert_true(total_groups >= 15 && total_groups <= 45);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt *mdt;
  if (hudi_mdt_open(&mdt, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  size_t n;
  const hudi_file_group *g = hudi_mdt_all_groups(mdt, &n);
  assert_int_equal(n, 11);
  for (size_t i = 0; i < n; i++) {
    const hudi_file_slice *sl = hudi_file_group_latest_slice(&g[i]);
    assert_non_null(sl->base); /* each was compacted at least once */
    if (sl->n_logs > 10) fail_msg("%s/%s reads %zu logs", g[i].partition, g[i].file_id, sl->n_logs);
  }
  hudi_mdt_free(mdt);
  /* Without the option the count rule is back: not due after one commit. */
  int before = mdt_compactions("t6", NULL, 0);
  commit_round(t, &m, 24, FS_OFF, 1);
  assert_int_equal(mdt_compactions("t6", NULL, 0), before);
  /* A bad value is refused, naming the key; nothing is written. */
  static const hudi_option BAD[] = {{"hoodie.metadata.compact.incremental", "yes"}, {"fsync", "false"}};
  hudi_write_result r;
  const char *k[1] = {m.keys[0]};
  hudi_status st = hudi_table_delete_keys(&r, t, k, 1, BAD, 2, &err); /* refused before the write */
  assert_int_not_equal(st, HUDI_OK);
  assert_non_null(strstr(err.message, "hoodie.metadata.compact.incremental"));
  snapshot s = take("t6", &m);
  snapshot_free(&s);
  model_free(&m);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bloom_matches_spark),
      cmocka_unit_test(base_hfile_layout_matches_spark),
      cmocka_unit_test(compaction_keeps_lookups_and_listing),
      cmocka_unit_test(lead_block_repeated_key_is_corrupt),
      cmocka_unit_test(clean_by_file_versions),
      cmocka_unit_test(writes_compact_automatically),
      cmocka_unit_test(parallel_equals_serial),
      cmocka_unit_test(incremental_spreads_compaction),
      cmocka_unit_test(alloc_failures),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

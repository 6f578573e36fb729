/* Keyed writes find their keys through the record index, not by scanning:
 * a table of many file groups, its storage wrapped by a recorder of every
 * path read, then an upsert of 100 keys that live in a few file groups.
 * Every data file read must belong to one of those file groups (COW: their
 * base files, rewritten; MOR: none at all, the updates go to log files);
 * everything else read is under .hoodie/ (timeline, properties, the
 * metadata table's files and record-index shards). A table without a
 * record index is the control: its BLOOM index reads the footers of every
 * base file of the partition.
 *
 * Also: inserts fill small file groups (hudi-write-semantics.md §4), and
 * the record index then maps the new keys to those file groups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "arrow/view.h"
#include "base/alloc.h"
#include "hudi/read.h"
#include "hudi/write.h"
#include "io/backend.h"
#include "io/storage.h"
#include "table/index.h"
#include "table/index_rli.h"
#include "table/rollback.h"
#include "table/table.h"

#define N_ROWS 2000
#define N_UPSERT 100

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-index-used-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* ---- a storage that records the paths read --------------------------- */

#define MAX_PATHS 4096

typedef struct recorder {
  hudi_storage base;
  hudi_storage *inner;
  char *read[MAX_PATHS];
  size_t n_read;
  size_t n_list_data; /* listings outside .hoodie/ */
  pthread_mutex_t mu;  /* reads run on pool threads (the BLOOM index, the MDT) */
} recorder;

static void note(recorder *r, const char *path) {
  pthread_mutex_lock(&r->mu);
  bool seen = false;
  for (size_t i = 0; i < r->n_read && !seen; i++) seen = !strcmp(r->read[i], path);
  if (!seen && r->n_read < MAX_PATHS) r->read[r->n_read++] = strdup(path);
  pthread_mutex_unlock(&r->mu);
}

static hudi_status rec_read(hudi_storage *s, const char *path, uint64_t off, void *dst, size_t len, size_t *n,
                            hudi_error *err) {
  recorder *r = (recorder *)s;
  note(r, path);
  return hudi_storage_read(r->inner, path, off, dst, len, n, err);
}

static hudi_status rec_read_all(hudi_storage *s, const char *path, size_t max, hudi_buf *out, hudi_error *err) {
  recorder *r = (recorder *)s;
  note(r, path);
  return hudi_storage_read_all(r->inner, path, max, out, err);
}

static hudi_status rec_stat(hudi_storage *s, const char *path, hudi_file_stat *out, hudi_error *err) {
  return hudi_storage_stat(((recorder *)s)->inner, path, out, err);
}

static hudi_status rec_write(hudi_storage *s, const char *path, const void *data, size_t len, unsigned flags,
                             hudi_error *err) {
  return hudi_storage_write(((recorder *)s)->inner, path, data, len, flags, err);
}

static hudi_status rec_rename(hudi_storage *s, const char *from, const char *to, unsigned flags, hudi_error *err) {
  return hudi_storage_rename(((recorder *)s)->inner, from, to, flags, err);
}

static hudi_status rec_list(hudi_storage *s, const char *d, unsigned flags, hudi_file_list *out, hudi_error *err) {
  recorder *r = (recorder *)s;
  pthread_mutex_lock(&r->mu);
  if (strncmp(d, ".hoodie", 7) != 0) r->n_list_data++;
  pthread_mutex_unlock(&r->mu);
  return hudi_storage_list(r->inner, d, flags, out, err);
}

static hudi_status rec_remove(hudi_storage *s, const char *path, unsigned flags, hudi_error *err) {
  return hudi_storage_delete(((recorder *)s)->inner, path, flags, err);
}

static void rec_destroy(hudi_storage *s) {
  recorder *r = (recorder *)s;
  for (size_t i = 0; i < r->n_read; i++) free(r->read[i]);
  pthread_mutex_destroy(&r->mu);
  hudi_free(r->base.base);
  hudi_free(r);
}

static const hudi_storage_vtable rec_vtable = {"recorder", rec_read, rec_read_all, rec_stat, rec_write,
                                               rec_rename, rec_list, rec_remove, rec_destroy, NULL, NULL, NULL, NULL, NULL, NULL};

static recorder *wrap(hudi_table *t) {
  recorder *r = hudi_calloc(1, sizeof *r);
  assert_non_null(r);
  assert_int_equal(pthread_mutex_init(&r->mu, NULL), 0);
  r->base.vtable = &rec_vtable;
  r->base.base = hudi_strdup(t->storage->base);
  r->inner = t->storage;
  t->storage = &r->base;
  return r;
}

static void unwrap(hudi_table *t, recorder *r) {
  t->storage = r->inner;
  rec_destroy(&r->base);
}

/* ---- data --------------------------------------------------------------- */

static void make_stream(struct ArrowArrayStream *out, int from, int n, int64_t ts, int stride) {
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
  for (int k = 0; k < n; k++) {
    int i = from + k * stride;
    char id[32];
    snprintf(id, sizeof id, "key%05d", i);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), id, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), i % 2 ? "sf" : "nyc", &err),
                     HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), ts, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 3), i + ts, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

/* A table of many small file groups in two partitions; version 0: the
 * default, else hoodie.write.table.version. */
static hudi_table *create_version(const char *name, hudi_table_type type, bool rli, int version) {
  char path[300], v[16];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(v, sizeof v, "%d", version);
  hudi_option vo[] = {{"hoodie.write.table.version", v}};
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  o.record_index_enabled = rli;
  if (version) {
    o.options = vo;
    o.n_options = 1;
  }
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  /* Many small file groups: ~55 rows each (the rows compress to ~7 bytes
   * each; bulk-insert files are sized by their compressed data). */
  struct ArrowArrayStream s;
  make_stream(&s, 0, N_ROWS, 1, 1);
  hudi_option opts[] = {{"hoodie.parquet.max.file.size", "400"}};
  hudi_write_result r;
  assert_int_equal(hudi_table_append(&r, t, &s, opts, 1, &err), HUDI_OK);
  assert_true(r.files_written >= 20);
  return t;
}

static hudi_table *create(const char *name, hudi_table_type type, bool rli) {
  return create_version(name, type, rli, 0);
}

/* key -> file id of its row, from a read of the table. */
typedef struct loc {
  char key[16];
  char file_id[64];
  int32_t v;
} loc;

static size_t locate(hudi_table *t, loc *out, size_t cap) {
  static const char *const cols[] = {"_hoodie_record_key", "_hoodie_file_name", "v"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.projection = cols;
  ro.n_projection = 3;
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_read(&s, t, &ro, &err), HUDI_OK);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  size_t n = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
    for (int64_t i = 0; i < v.length; i++) {
      assert_true(n < cap);
      int64_t len, r = hudi_arrow_view_struct_row(&v, i);
      const uint8_t *p = hudi_arrow_view_bytes(&v.children[0], r, &len);
      snprintf(out[n].key, sizeof out[n].key, "%.*s", (int)len, (const char *)p);
      p = hudi_arrow_view_bytes(&v.children[1], r, &len);
      snprintf(out[n].file_id, sizeof out[n].file_id, "%.*s", (int)len, (const char *)p);
      /* The file id is the base file name before its first '_' (log rows
       * carry the file id itself). */
      char *u = strchr(out[n].file_id, '_');
      if (u) *u = 0;
      out[n].v = (int32_t)hudi_arrow_view_int(&v.children[2], r);
      n++;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  return n;
}

static const loc *find(const loc *l, size_t n, const char *key) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(l[i].key, key)) return &l[i];
  return NULL;
}

static bool in_set(char set[][64], size_t n, const char *id) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(set[i], id)) return true;
  return false;
}

/* The file id of a data file path (base or log), or NULL for .hoodie/ files. */
static const char *data_file_id(const char *path, char out[64]) {
  if (!strncmp(path, ".hoodie", 7)) return NULL;
  const char *name = strrchr(path, '/');
  name = name ? name + 1 : path;
  if (!strcmp(name, ".hoodie_partition_metadata")) return NULL;
  if (*name == '.') name++; /* a log file */
  size_t n = strcspn(name, "_");
  snprintf(out, 64, "%.*s", (int)n, name);
  return out;
}

static void upsert_reads_only_touched_groups(hudi_table_type type, const char *name) {
  hudi_table *t = create(name, type, true);
  static loc before[N_ROWS + 8];
  size_t n = locate(t, before, N_ROWS + 8);
  assert_int_equal(n, N_ROWS);
  /* Keys key00000, key00004, ... key00396: the first few file groups of each
   * partition (rows are laid out in key order). */
  char touched[N_UPSERT][64];
  size_t n_touched = 0;
  for (int k = 0; k < N_UPSERT; k++) {
    char key[16];
    snprintf(key, sizeof key, "key%05d", k * 4);
    const loc *l = find(before, n, key);
    assert_non_null(l);
    if (!in_set(touched, n_touched, l->file_id)) snprintf(touched[n_touched++], 64, "%s", l->file_id);
  }
  size_t n_groups = 0;
  char all[N_ROWS][64];
  for (size_t i = 0; i < n; i++)
    if (!in_set(all, n_groups, before[i].file_id)) snprintf(all[n_groups++], 64, "%s", before[i].file_id);
  assert_true(n_touched * 3 < n_groups); /* a small part of the table */

  recorder *r = wrap(t);
  struct ArrowArrayStream s;
  make_stream(&s, 0, N_UPSERT, 2, 4);
  hudi_write_result res;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_upsert(&res, t, &s, NULL, 0, &err), HUDI_OK);
  assert_int_equal(res.num_updates, N_UPSERT);
  assert_int_equal(res.num_inserts, 0);
  size_t data_reads = 0, mdt_reads = 0;
  for (size_t i = 0; i < r->n_read; i++) {
    char id[64];
    const char *fid = data_file_id(r->read[i], id);
    if (!fid) {
      mdt_reads += !strncmp(r->read[i], ".hoodie/metadata/", 17);
      continue;
    }
    data_reads++;
    if (!in_set(touched, n_touched, fid)) fail_msg("the upsert read %s, of a file group it does not touch", r->read[i]);
  }
  /* COW rewrites each touched group's base file; MOR reads no data file. */
  if (type == HUDI_COPY_ON_WRITE) assert_int_equal(data_reads, n_touched);
  else assert_int_equal(data_reads, 0);
  assert_true(r->n_read < MAX_PATHS);
  /* The record index is read through the metadata table's own storage,
   * by the write's one MDT handle (mdt_reader.h): nothing under
   * .hoodie/metadata/ is read through the data table's, as the MDT writer
   * and the archival did when they read its hoodie.properties again. That
   * no untouched file group was read (above) rules out the BLOOM index. */
  assert_int_equal(mdt_reads, 0);
  unwrap(t, r);

  /* The updates landed: every upserted key has its new value. */
  static loc after[N_ROWS + 8];
  assert_int_equal(locate(t, after, N_ROWS + 8), N_ROWS);
  for (int k = 0; k < N_ROWS; k++) {
    char key[16];
    snprintf(key, sizeof key, "key%05d", k);
    const loc *l = find(after, N_ROWS, key);
    assert_non_null(l);
    bool upd = k % 4 == 0 && k < 4 * N_UPSERT;
    assert_int_equal(l->v, k + (upd ? 2 : 1));
  }
  hudi_table_free(t);
}

static void test_cow_upsert_uses_index(void **state) {
  (void)state;
  upsert_reads_only_touched_groups(HUDI_COPY_ON_WRITE, "cow");
}

static void test_mor_upsert_uses_index(void **state) {
  (void)state;
  upsert_reads_only_touched_groups(HUDI_MERGE_ON_READ, "mor");
}

/* Control: without a record index the BLOOM index opens base files (their
 * footers) to find keys, so the recorder does see them. The 10 keys lie
 * in 10 different file groups (~50 rows each), so whatever order the index
 * searches in, it opens more than 5 files. */
static void test_bloom_control_reads_footers(void **state) {
  (void)state;
  hudi_table *t = create("bloom", HUDI_COPY_ON_WRITE, false);
  recorder *r = wrap(t);
  struct ArrowArrayStream s;
  make_stream(&s, 0, 10, 2, 200);
  hudi_write_result res;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_upsert(&res, t, &s, NULL, 0, &err), HUDI_OK);
  assert_int_equal(res.num_updates, 10);
  size_t data_reads = 0;
  for (size_t i = 0; i < r->n_read; i++) {
    char id[64];
    data_reads += data_file_id(r->read[i], id) != NULL;
  }
  assert_true(data_reads > 5);
  unwrap(t, r);
  hudi_table_free(t);
}

/* New keys go into small file groups (COW: rewritten with them), and the
 * record index maps them there. */
static void small_files(hudi_table_type type, const char *name) {
  hudi_table *t = create(name, type, true);
  static loc before[N_ROWS + 64];
  size_t n = locate(t, before, N_ROWS + 64);
  size_t n_groups = 0;
  static char all[N_ROWS][64];
  for (size_t i = 0; i < n; i++)
    if (!in_set(all, n_groups, before[i].file_id)) snprintf(all[n_groups++], 64, "%s", before[i].file_id);
  /* 20 new keys, half per partition. */
  struct ArrowArrayStream s;
  make_stream(&s, N_ROWS, 20, 3, 1);
  hudi_write_result res;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_upsert(&res, t, &s, NULL, 0, &err), HUDI_OK);
  assert_int_equal(res.num_inserts, 20);
  static loc after[N_ROWS + 64];
  size_t m = locate(t, after, N_ROWS + 64);
  assert_int_equal(m, N_ROWS + 20);
  hudi_index *ix = NULL;
  assert_int_equal(hudi_index_rli_create(&ix, t, &err), HUDI_OK);
  for (int k = N_ROWS; k < N_ROWS + 20; k++) {
    char key[16];
    snprintf(key, sizeof key, "key%05d", k);
    const loc *l = find(after, m, key);
    assert_non_null(l);
    assert_int_equal(l->v, k + 3);
    /* an existing file group took it */
    assert_true(in_set(all, n_groups, l->file_id));
    const char *keys[] = {key};
    size_t lens[] = {strlen(key)};
    hudi_index_loc il;
    assert_int_equal(hudi_index_lookup(ix, &il, keys, lens, 1, &err), HUDI_OK);
    assert_non_null(il.partition);
    assert_string_equal(il.partition, k % 2 ? "city=sf" : "city=nyc");
    assert_string_equal(il.file_id, l->file_id);
  }
  hudi_index_free(ix);
  hudi_table_free(t);
}

static void test_cow_small_files(void **state) {
  (void)state;
  small_files(HUDI_COPY_ON_WRITE, "cow_small");
}

static void test_mor_small_files(void **state) {
  (void)state;
  small_files(HUDI_MERGE_ON_READ, "mor_small");
}


/* Every key's value is its index plus `plus` (the ts of the write that
 * holds it), after `when`. */
static void expect_values(hudi_table *t, int plus, const char *when) {
  static loc after[N_ROWS + 8];
  assert_int_equal(locate(t, after, N_ROWS + 8), N_ROWS);
  for (size_t k = 0; k < N_ROWS; k++) {
    int i = atoi(after[k].key + 3);
    if (after[k].v != i + plus) fail_msg("%s: v %d after %s, want %d", after[k].key, after[k].v, when, i + plus);
  }
}

/* ---- a failed version-6 upsert's rollback lists each partition once ---- */

/* A version-6 MOR upsert appends a log file to every file group (~40 in
 * two partitions); a crash before its completion leaves its APPEND
 * markers. The next writer's rollback writes a command block into each
 * of those slices. It lists each partition once to plan and once to
 * execute, not once (plan) and twice (execute) per slice as before. */
static void test_v6_rollback_lists_partitions_once(void **state) {
  (void)state;
  char path[300], cmd[900];
  snprintf(path, sizeof path, "%s/v6-rollback", dir);
  hudi_table *t = create_version("v6-rollback", HUDI_MERGE_ON_READ, false, 6);
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArrayStream s;
  hudi_write_result r;
  make_stream(&s, 0, N_ROWS, 2, 1); /* every key: a log file in every file group */
  assert_int_equal(hudi_table_upsert(&r, t, &s, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_updates, N_ROWS);
  hudi_table_free(t);

  /* What a crash before the completion leaves: T inflight, an APPEND
   * marker per log file (the upsert's markers are gone with its commit;
   * every log file is T's). */
  snprintf(cmd, sizeof cmd,
           "cd '%s' && rm .hoodie/%s.deltacommit && for f in $(find . -name '.*.log.*' -path './city=*'); do "
           "d=.hoodie/.temp/%s/$(dirname $f); mkdir -p $d && touch $d/$(basename $f).marker.APPEND; done",
           path, r.requested_time, r.requested_time);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "test $(find '%s' -name '.*.log.*' -path '*/city=*' | wc -l) -ge 20", path);
  assert_int_equal(system(cmd), 0);

  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  recorder *rec = wrap(t);
  size_t n = 0;
  assert_int_equal(hudi_rollback_failed_writes(t, NULL, 0, &n, &err), HUDI_OK);
  assert_int_equal(n, 1);
  size_t lists = rec->n_list_data;
  unwrap(t, rec);
  if (lists > 4) fail_msg("the rollback listed partitions %zu times (2 partitions: at most 4)", lists);

  /* Every slice holds its command block, and reads see the rows before T. */
  snprintf(cmd, sizeof cmd, "test $(find '%s' -name '.*.log.*' -path '*/city=*' | wc -l) -ge 40", path);
  assert_int_equal(system(cmd), 0);
  expect_values(t, 1, "the rollback");
  hudi_table_free(t);
}

/* ---- the rollback of a completed version-6 upsert reads its own logs --- */

/* Log files of the table written by rollbacks (write token 1-0-1). */
static size_t command_block_files(const char *path) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "find '%s' -name '.*.log.*_1-0-1' -path '*/city=*' | wc -l", path);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  unsigned long n = 0;
  assert_int_equal(fscanf(f, "%lu", &n), 1);
  assert_int_equal(pclose(f), 0);
  return (size_t)n;
}

/* A version-6 MOR table whose every file group has a log file (upsert U1),
 * then an upsert U2 of a few keys. Rolling U2 back (completed: its markers
 * are gone) reads the log files U2's commit metadata names for U2's
 * blocks, not every log file of the table as a listing-only rollback
 * must (~40 here). */
static void test_v6_rollback_of_completed_reads_its_logs(void **state) {
  (void)state;
  char path[300], cmd[600];
  snprintf(path, sizeof path, "%s/v6-rollback-done", dir);
  hudi_table *t = create_version("v6-rollback-done", HUDI_MERGE_ON_READ, false, 6);
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArrayStream s;
  hudi_write_result r;
  make_stream(&s, 0, N_ROWS, 2, 1); /* U1: every key, a log file in every file group */
  assert_int_equal(hudi_table_upsert(&r, t, &s, NULL, 0, &err), HUDI_OK);
  make_stream(&s, 0, 4, 3, 1); /* U2: keys 0-3, in at most 4 file groups */
  assert_int_equal(hudi_table_upsert(&r, t, &s, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_updates, 4);
  snprintf(cmd, sizeof cmd, "test $(find '%s' -name '.*.log.*' -path '*/city=*' | wc -l) -ge 20", path);
  assert_int_equal(system(cmd), 0);

  recorder *rec = wrap(t);
  hudi_rollback_result rr;
  assert_int_equal(hudi_table_rollback(&rr, t, r.requested_time, NULL, 0, &err), HUDI_OK);
  size_t logs_read = 0;
  for (size_t i = 0; i < rec->n_read; i++) {
    const char *name = strrchr(rec->read[i], '/');
    if (strncmp(rec->read[i], ".hoodie", 7) && name && strstr(name, ".log.")) logs_read++;
  }
  unwrap(t, rec);
  if (logs_read == 0 || logs_read > 4) fail_msg("the rollback read %zu log files (U2 wrote 1 to 4)", logs_read);

  /* U2's values are gone, U1's stay. */
  expect_values(t, 2, "the rollback");

  /* U3, whose completed file is blank (it parses as metadata without
   * write stats): the rollback falls back to reading every log file, and
   * still writes its command blocks (readers would hide U3's blocks
   * without them only until archival passes U3). */
  size_t blocks_before = command_block_files(path);
  make_stream(&s, 0, 4, 4, 1);
  assert_int_equal(hudi_table_upsert(&r, t, &s, NULL, 0, &err), HUDI_OK);
  hudi_table_free(t);
  snprintf(cmd, sizeof cmd, ": > '%s/.hoodie/%s.deltacommit'", path, r.requested_time);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_table_rollback(&rr, t, r.requested_time, NULL, 0, &err), HUDI_OK);
  if (command_block_files(path) <= blocks_before) fail_msg("rolling back U3 wrote no command block");
  expect_values(t, 2, "rolling back U3");
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cow_upsert_uses_index), cmocka_unit_test(test_mor_upsert_uses_index),
      cmocka_unit_test(test_bloom_control_reads_footers), cmocka_unit_test(test_cow_small_files),
      cmocka_unit_test(test_mor_small_files), cmocka_unit_test(test_v6_rollback_lists_partitions_once),
      cmocka_unit_test(test_v6_rollback_of_completed_reads_its_logs),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

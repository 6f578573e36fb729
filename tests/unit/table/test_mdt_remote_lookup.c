/* Record-index lookups over an object store's read policy (issue 10): the
 * same hudi-c table (a bulk insert leaves each record-index shard's keys in
 * one big HFILE_DATA log block; an upsert and a delete add small blocks)
 * opened over two counting wrappers of the local file system, one whose
 * backend name is "s3" (so the metadata reader takes its object-store
 * policy: block reads merged across gaps of up to 1 MiB, the HFile trailer
 * and index brought by the log walk's tail read) and one with another name
 * (the local policy). Both must answer every lookup as a read of the table
 * does (the oracle: each row's _hoodie_file_name); the "s3" one must read
 * each large shard log with at most 4 ranged reads (head; tail with the
 * HFile's end; the data blocks, merged) where the local one makes one per
 * block the keys need. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "hudi/write.h"
#include "io/backend.h"
#include "io/storage.h"
#include "table/mdt_write.h"
#include "table/mdt_reader.h"
#include "table/mdt_record_index.h"
#include "table/table.h"
#include "compact_rows.h"

#define N_ROWS 100000
#define N_UPSERT 300
#define N_NEW 50
#define N_DELETE 20
#define N_ALL (N_ROWS + N_NEW)
#define MAX_FILES 64

static char dir[512];

/* ------------------------------------------------------------ counting storage */

/* Ranged reads of record-index log files, per file; whole-file reads. */
typedef struct file_count {
  char name[256];
  uint64_t reads, bytes;
} file_count;
static file_count counts[MAX_FILES];
static size_t n_counts;
static int whole_reads;
/* Lookups of many keys read shards from several threads at once. */
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_rli_log(const char *path) { return strstr(path, "record_index/.") && strstr(path, ".log."); }

static void count_read_locked(const char *path, size_t n) {
  const char *name = strrchr(path, '/') + 1;
  for (size_t i = 0; i < n_counts; i++)
    if (strcmp(counts[i].name, name) == 0) {
      counts[i].reads++;
      counts[i].bytes += n;
      return;
    }
  assert_true(n_counts < MAX_FILES);
  snprintf(counts[n_counts].name, sizeof counts[n_counts].name, "%s", name);
  counts[n_counts].reads = 1;
  counts[n_counts++].bytes = n;
}

static void count_read(const char *path, size_t n) {
  pthread_mutex_lock(&counts_lock);
  count_read_locked(path, n);
  pthread_mutex_unlock(&counts_lock);
}

static void counts_reset(void) {
  n_counts = 0;
  whole_reads = 0;
}

typedef struct counting {
  hudi_storage base;
  hudi_storage *inner;
} counting;

static hudi_status c_read(hudi_storage *s, const char *path, uint64_t off, void *dst, size_t len, size_t *n,
                          hudi_error *err) {
  hudi_status st = hudi_storage_read(((counting *)s)->inner, path, off, dst, len, n, err);
  if (st == HUDI_OK && is_rli_log(path)) count_read(path, *n);
  return st;
}
static hudi_status c_read_all(hudi_storage *s, const char *path, size_t max, hudi_buf *out, hudi_error *err) {
  if (is_rli_log(path)) {
    pthread_mutex_lock(&counts_lock);
    whole_reads++;
    pthread_mutex_unlock(&counts_lock);
  }
  return hudi_storage_read_all(((counting *)s)->inner, path, max, out, err);
}
static hudi_status c_stat(hudi_storage *s, const char *path, hudi_file_stat *out, hudi_error *err) {
  return hudi_storage_stat(((counting *)s)->inner, path, out, err);
}
static hudi_status c_write(hudi_storage *s, const char *path, const void *d, size_t len, unsigned fl, hudi_error *err) {
  return hudi_storage_write(((counting *)s)->inner, path, d, len, fl, err);
}
static hudi_status c_rename(hudi_storage *s, const char *a, const char *b, unsigned fl, hudi_error *err) {
  return hudi_storage_rename(((counting *)s)->inner, a, b, fl, err);
}
static hudi_status c_list(hudi_storage *s, const char *d, unsigned fl, hudi_file_list *out, hudi_error *err) {
  return hudi_storage_list(((counting *)s)->inner, d, fl, out, err);
}
static hudi_status c_remove(hudi_storage *s, const char *path, unsigned fl, hudi_error *err) {
  return hudi_storage_delete(((counting *)s)->inner, path, fl, err);
}
static void c_destroy(hudi_storage *s) {
  hudi_storage_free(((counting *)s)->inner);
  hudi_free(s->base);
  hudi_free(s);
}

/* The same wrapper under two names: "s3" takes the object-store policy. */
static const hudi_storage_vtable as_s3_vt = {.name = "s3",
                                             .read = c_read,
                                             .read_all = c_read_all,
                                             .stat = c_stat,
                                             .write = c_write,
                                             .rename = c_rename,
                                             .list = c_list,
                                             .remove = c_remove,
                                             .destroy = c_destroy};
static const hudi_storage_vtable as_local_vt = {.name = "h1local",
                                                .read = c_read,
                                                .read_all = c_read_all,
                                                .stat = c_stat,
                                                .write = c_write,
                                                .rename = c_rename,
                                                .list = c_list,
                                                .remove = c_remove,
                                                .destroy = c_destroy};

static hudi_status wrap_open(hudi_storage **out, const char *path, const hudi_storage_vtable *vt,
                             const hudi_storage_option *o, size_t n, hudi_error *err) {
  counting *c = hudi_calloc(1, sizeof *c);
  if (!c) return HUDI_ERR_NOMEM;
  hudi_status st = hudi_local_storage_open(&c->inner, path, o, n, err);
  if (st != HUDI_OK) {
    hudi_free(c);
    return st;
  }
  c->base.vtable = vt;
  c->base.base = hudi_strdup(path);
  *out = &c->base;
  return HUDI_OK;
}

static hudi_status s3_open(hudi_storage **out, const char *uri, const hudi_storage_option *o, size_t n,
                           hudi_error *err) {
  return wrap_open(out, uri + strlen("h1s3://"), &as_s3_vt, o, n, err);
}

static hudi_status local_open(hudi_storage **out, const char *uri, const hudi_storage_option *o, size_t n,
                              hudi_error *err) {
  return wrap_open(out, uri + strlen("h1local://"), &as_local_vt, o, n, err);
}

/* ------------------------------------------------------------ the table */

static char *keys[N_ALL];

static void rows(struct ArrowArrayStream *s, size_t from, size_t n, int32_t v) {
  const char **ids = calloc(n, sizeof *ids);
  const char **cities = calloc(n, sizeof *cities);
  int64_t *ts = calloc(n, sizeof *ts);
  int32_t *vs = calloc(n, sizeof *vs);
  static const char *const city[] = {"sf", "nyc", "la"};
  for (size_t i = 0; i < n; i++) {
    ids[i] = keys[from + i];
    cities[i] = city[(from + i) % 3];
    ts[i] = (int64_t)(from + i);
    vs[i] = v;
  }
  make_stream(s, ids, cities, ts, vs, (int)n);
  free(ids);
  free(cities);
  free(ts);
  free(vs);
}

static int setup(void **state) {
  (void)state;
  char cwd[256];
  if (!getcwd(cwd, sizeof cwd)) return -1;
  snprintf(dir, sizeof dir, "%s/mdt_remote_%ld", cwd, (long)getpid());
  for (size_t i = 0; i < N_ALL; i++) {
    /* uuid-like keys (splitmix64 of i): they compress as real ones do. */
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ULL + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    char k[48];
    snprintf(k, sizeof k, "%08x-%04x-4%03x-a%03x-%012llx", (unsigned)(z >> 32), (unsigned)(z >> 16) & 0xffff,
             (unsigned)z & 0xfff, (unsigned)(z >> 20) & 0xfff, (unsigned long long)(z * 31 + i) & 0xffffffffffffULL);
    keys[i] = strdup(k);
  }
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  o.record_index_enabled = true;
  /* The bulk insert's keys in each shard's log, whose ranged reads this
   * tests (by default a shard's first keys go to a base file). */
  static const hudi_option log_first[] = {{HUDI_MDT_RLI_BASE_FILES_OPTION, "false"}};
  o.options = log_first;
  o.n_options = 1;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, dir, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  struct ArrowArrayStream s;
  hudi_write_result r;
  rows(&s, 0, N_ROWS, 1);
  if (hudi_table_append(&r, t, &s, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  /* Updates of existing keys and N_NEW inserts. */
  rows(&s, N_ROWS - N_UPSERT, N_UPSERT + N_NEW, 2);
  if (hudi_table_upsert(&r, t, &s, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  const char *del[N_DELETE];
  for (size_t i = 0; i < N_DELETE; i++) del[i] = keys[i * 101];
  if (hudi_table_delete_keys(&r, t, del, N_DELETE, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_table_free(t);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  int rc = system(cmd);
  for (size_t i = 0; i < N_ALL; i++) free(keys[i]);
  return rc == 0 ? 0 : -1;
}

/* key -> file id, from a read of the table (N_ALL - N_DELETE rows). */
typedef struct truth {
  char key[48];
  char file_id[64];
} truth;

static int truth_cmp(const void *a, const void *b) { return strcmp(((const truth *)a)->key, ((const truth *)b)->key); }

static size_t read_truth(hudi_table *t, truth *out) {
  static const char *const cols[] = {"_hoodie_record_key", "_hoodie_file_name"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.projection = cols;
  ro.n_projection = 2;
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
      assert_true(n < N_ALL);
      int64_t len, r = hudi_arrow_view_struct_row(&v, i);
      const uint8_t *p = hudi_arrow_view_bytes(&v.children[0], r, &len);
      snprintf(out[n].key, sizeof out[n].key, "%.*s", (int)len, (const char *)p);
      p = hudi_arrow_view_bytes(&v.children[1], r, &len);
      snprintf(out[n].file_id, sizeof out[n].file_id, "%.*s", (int)len, (const char *)p);
      char *u = strchr(out[n].file_id, '_'); /* base file name: the file id before '_' */
      if (u) *u = 0;
      n++;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  qsort(out, n, sizeof *out, truth_cmp);
  return n;
}

static uint64_t file_size(const char *name) {
  char f[1024];
  struct stat st;
  snprintf(f, sizeof f, "%.480s/.hoodie/metadata/record_index/%.255s", dir, name);
  assert_int_equal(stat(f, &st), 0);
  return (uint64_t)st.st_size;
}

static hudi_table *open_as(const char *scheme) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status rs = hudi_storage_register("h1s3", s3_open, &err);
  assert_true(rs == HUDI_OK || rs == HUDI_ERR_EXISTS);
  rs = hudi_storage_register("h1local", local_open, &err);
  assert_true(rs == HUDI_OK || rs == HUDI_ERR_EXISTS);
  char uri[700];
  snprintf(uri, sizeof uri, "%s://%s", scheme, dir);
  hudi_table *t;
  if (hudi_table_open(&t, uri, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  return t;
}

/* Looks q up through scheme; checks every answer against the read of the
 * table; returns the ranged reads and bytes of large (> 64 KiB) and of all
 * record-index log files. */
typedef struct tally {
  uint64_t big_files, big_reads, max_big_reads, reads, bytes;
} tally;

static tally lookup_as(const char *scheme, const char *const *q, size_t n, const truth *tr, size_t n_tr) {
  hudi_table *t = open_as(scheme);
  hudi_mdt *m;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_mdt_open(&m, t, &err), HUDI_OK);
  counts_reset();
  hudi_rli_location *locs;
  if (hudi_mdt_record_index_lookup(m, q, NULL, n, &locs, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
  for (size_t i = 0; i < n; i++) {
    truth k;
    snprintf(k.key, sizeof k.key, "%s", q[i]);
    const truth *hit = bsearch(&k, tr, n_tr, sizeof *tr, truth_cmp);
    assert_int_equal(locs[i].found, hit != NULL);
    if (hit) assert_string_equal(locs[i].file_id, hit->file_id);
  }
  hudi_rli_locations_free(locs, n);
  assert_int_equal(whole_reads, 0);
  tally r = {0, 0, 0, 0, 0};
  for (size_t i = 0; i < n_counts; i++) {
    r.reads += counts[i].reads;
    r.bytes += counts[i].bytes;
    if (file_size(counts[i].name) <= (64 << 10)) continue;
    r.big_files++;
    r.big_reads += counts[i].reads;
    if (counts[i].reads > r.max_big_reads) r.max_big_reads = counts[i].reads;
  }
  hudi_mdt_free(m);
  hudi_table_free(t);
  return r;
}

static void object_store_policy_merges_reads(void **state) {
  (void)state;
  truth *tr = calloc(N_ALL, sizeof *tr);
  hudi_table *t = open_as("h1local");
  size_t n_tr = read_truth(t, tr);
  hudi_table_free(t);
  assert_int_equal(n_tr, N_ALL - N_DELETE);
  /* 1000 keys over the whole range (some deleted, some upserted, new ones), one absent. */
  const char *q[1001];
  size_t n = 0;
  for (size_t i = 0; i < 1000; i++) q[n++] = keys[(i * 100003) % N_ALL];
  q[n++] = "key-absent";
  tally local = lookup_as("h1local", q, n, tr, n_tr);
  tally s3 = lookup_as("h1s3", q, n, tr, n_tr);
  print_message("1000 keys: local policy %llu reads, %llu bytes; s3 policy %llu reads (large shard logs: %llu files, "
                "%llu reads, at most %llu a file), %llu bytes\n",
                (unsigned long long)local.reads, (unsigned long long)local.bytes, (unsigned long long)s3.reads,
                (unsigned long long)s3.big_files, (unsigned long long)s3.big_reads,
                (unsigned long long)s3.max_big_reads, (unsigned long long)s3.bytes);
  assert_int_equal(s3.big_files, 10); /* every shard's bulk-insert log */
  assert_true(s3.max_big_reads <= 4);
  assert_true(local.big_reads > 10 * s3.max_big_reads);
  /* Every key, present or not: the same answers under both policies. */
  const char **all = calloc(N_ALL, sizeof *all);
  for (size_t i = 0; i < N_ALL; i++) all[i] = keys[i];
  tally everything = lookup_as("h1s3", all, N_ALL, tr, n_tr);
  assert_true(everything.max_big_reads <= 4);
  free(all);
  free(tr);
}

int main(void) {
  (void)read_lines; /* compact_rows.h's, unused here */
  const struct CMUnitTest tests[] = {cmocka_unit_test(object_store_policy_merges_reads)};
  return cmocka_run_group_tests(tests, setup, teardown);
}

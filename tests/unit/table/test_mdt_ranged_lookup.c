/* Record-index lookups read the metadata table's log files by ranges: a
 * table written by hudi-c (a bulk insert leaves each record-index shard's
 * keys in one big HFILE_DATA log block; an upsert and a delete add more
 * blocks), opened over a counting storage. A lookup of a few keys must read
 * a small part of the shards' log files and never read one whole; lookups
 * of every key must agree with a read of the table (the oracle: each row's
 * _hoodie_file_name); a log file with garbage after its blocks (a corrupt
 * block, in Java's terms) falls back to the whole-file reader with the same
 * answers. */
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

static char dir[512];

/* ------------------------------------------------------------ counting storage */

/* "h4count://<abs path>": the local file system, counting what is read of
 * record-index log files. */
static uint64_t log_bytes_read;
static int log_whole_reads;
/* Lookups of many keys read shards from several threads at once. */
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_rli_log(const char *path) { return strstr(path, "record_index/.") && strstr(path, ".log."); }

typedef struct counting {
  hudi_storage base;
  hudi_storage *inner;
} counting;

static hudi_status c_read(hudi_storage *s, const char *path, uint64_t off, void *dst, size_t len, size_t *n,
                          hudi_error *err) {
  hudi_status st = hudi_storage_read(((counting *)s)->inner, path, off, dst, len, n, err);
  if (st == HUDI_OK && is_rli_log(path)) {
    pthread_mutex_lock(&counts_lock);
    log_bytes_read += *n;
    pthread_mutex_unlock(&counts_lock);
  }
  return st;
}
static hudi_status c_read_all(hudi_storage *s, const char *path, size_t max, hudi_buf *out, hudi_error *err) {
  size_t before = out->len;
  hudi_status st = hudi_storage_read_all(((counting *)s)->inner, path, max, out, err);
  if (st == HUDI_OK && is_rli_log(path)) {
    pthread_mutex_lock(&counts_lock);
    log_whole_reads++;
    log_bytes_read += out->len - before;
    pthread_mutex_unlock(&counts_lock);
  }
  return st;
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

static const hudi_storage_vtable counting_vt = {.name = "h4count",
                                                .read = c_read,
                                                .read_all = c_read_all,
                                                .stat = c_stat,
                                                .write = c_write,
                                                .rename = c_rename,
                                                .list = c_list,
                                                .remove = c_remove,
                                                .destroy = c_destroy};

static hudi_status counting_open(hudi_storage **out, const char *uri, const hudi_storage_option *o, size_t n,
                                 hudi_error *err) {
  const char *path = uri + strlen("h4count://");
  counting *c = hudi_calloc(1, sizeof *c);
  if (!c) return HUDI_ERR_NOMEM;
  hudi_status st = hudi_local_storage_open(&c->inner, path, o, n, err);
  if (st != HUDI_OK) {
    hudi_free(c);
    return st;
  }
  c->base.vtable = &counting_vt;
  c->base.base = hudi_strdup(path);
  *out = &c->base;
  return HUDI_OK;
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
  snprintf(dir, sizeof dir, "%s/mdt_ranged_%ld", cwd, (long)getpid());
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

static uint64_t rli_log_size(void) {
  char p[1024];
  snprintf(p, sizeof p, "%s/.hoodie/metadata/record_index", dir);
  DIR *d = opendir(p);
  assert_non_null(d);
  uint64_t total = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strstr(e->d_name, ".log.")) continue;
    char f[2048];
    struct stat st;
    snprintf(f, sizeof f, "%s/%s", p, e->d_name);
    assert_int_equal(stat(f, &st), 0);
    total += (uint64_t)st.st_size;
  }
  closedir(d);
  return total;
}

static hudi_table *open_counted(void) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status rs = hudi_storage_register("h4count", counting_open, &err);
  assert_true(rs == HUDI_OK || rs == HUDI_ERR_EXISTS);
  char uri[700];
  snprintf(uri, sizeof uri, "h4count://%s", dir);
  hudi_table *t;
  if (hudi_table_open(&t, uri, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  return t;
}

/* Every key (and the deleted and absent ones) against the oracle. */
static void check_all(hudi_table *t, hudi_mdt *m) {
  truth *tr = calloc(N_ALL, sizeof *tr);
  size_t n = read_truth(t, tr);
  assert_int_equal(n, N_ALL - N_DELETE);
  const char **q = calloc(N_ALL + 1, sizeof *q);
  for (size_t i = 0; i < N_ALL; i++) q[i] = keys[i];
  q[N_ALL] = "key-absent";
  hudi_rli_location *locs;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_mdt_record_index_lookup(m, q, NULL, N_ALL + 1, &locs, NULL, &err), HUDI_OK);
  size_t found = 0;
  for (size_t i = 0; i <= N_ALL; i++) {
    truth k;
    snprintf(k.key, sizeof k.key, "%s", q[i]);
    const truth *hit = bsearch(&k, tr, n, sizeof *tr, truth_cmp);
    assert_int_equal(locs[i].found, hit != NULL);
    if (!hit) continue;
    found++;
    assert_string_equal(locs[i].file_id, hit->file_id);
  }
  assert_int_equal(found, n);
  hudi_rli_locations_free(locs, N_ALL + 1);
  free(q);
  free(tr);
}

static void few_keys_read_little(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t = open_counted();
  hudi_mdt *m;
  assert_int_equal(hudi_mdt_open(&m, t, &err), HUDI_OK);
  uint64_t size = rli_log_size();
  /* Three old keys, an upserted one, a new one, a deleted one, an absent one. */
  const char *q[] = {keys[5], keys[17000], keys[33333], keys[N_ROWS - 10], keys[N_ROWS + 3], keys[101],
                     "key-absent"};
  const bool want[] = {true, true, true, true, true, false, false};
  log_bytes_read = 0;
  log_whole_reads = 0;
  hudi_rli_location *locs;
  hudi_mdt_read_stats st = {0};
  assert_int_equal(hudi_mdt_record_index_lookup(m, q, NULL, 7, &locs, &st, &err), HUDI_OK);
  for (size_t i = 0; i < 7; i++) assert_int_equal(locs[i].found, want[i]);
  hudi_rli_locations_free(locs, 7);
  print_message("record-index log files: %llu bytes; a 7-key lookup read %llu (%llu blocks merged)\n",
                (unsigned long long)size, (unsigned long long)log_bytes_read,
                (unsigned long long)st.log_blocks_merged);
  assert_int_equal(log_whole_reads, 0);
  assert_true(log_bytes_read > 0);
  assert_true(log_bytes_read * 8 < size);
  /* The reader's own count is what storage saw. */
  assert_int_equal(st.log_bytes_read, log_bytes_read);
  check_all(t, m);
  assert_int_equal(log_whole_reads, 0);
  hudi_mdt_free(m);
  hudi_table_free(t);
}

/* Garbage after the last block of every shard's bulk-insert log: a
 * corrupt block to Java; the lookup falls back to the whole-file reader
 * and answers the same. A tail shorter than a magic is no block at all
 * (Java stops there) and keeps the ranged path. */
static void damaged_logs_fall_back(void **state) {
  (void)state;
  char p[1024];
  snprintf(p, sizeof p, "%s/.hoodie/metadata/record_index", dir);
  for (int round = 0; round < 2; round++) {
    DIR *d = opendir(p);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strstr(e->d_name, ".log.") || strstr(e->d_name, "_00000000000000")) continue;
      char f[2048];
      snprintf(f, sizeof f, "%s/%s", p, e->d_name);
      FILE *fp = fopen(f, "ab");
      assert_non_null(fp);
      /* round 0: 3 bytes (a torn tail); round 1: 3 more and then some. */
      const char *junk = round == 0 ? "#HU" : "DI#garbage-after-the-block";
      assert_int_equal(fwrite(junk, 1, strlen(junk), fp), strlen(junk));
      fclose(fp);
    }
    closedir(d);
    hudi_error err = HUDI_ERROR_INIT;
    hudi_table *t = open_counted();
    hudi_mdt *m;
    assert_int_equal(hudi_mdt_open(&m, t, &err), HUDI_OK);
    log_whole_reads = 0;
    check_all(t, m);
    if (round == 0) assert_int_equal(log_whole_reads, 0);
    else assert_true(log_whole_reads > 0);
    hudi_mdt_free(m);
    hudi_table_free(t);
  }
}

int main(void) {
  (void)read_lines; /* compact_rows.h: not needed here */
  const struct CMUnitTest tests[] = {cmocka_unit_test(few_keys_read_little), cmocka_unit_test(damaged_logs_fall_back)};
  return cmocka_run_group_tests(tests, setup, teardown);
}

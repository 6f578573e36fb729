/* Writes keep the metadata table current: hudi_table_create with the
 * record index (the default) creates the MDT, and every append records its
 * base files in `files` and its keys in `record_index`. The oracle is the
 * storage listing (the committed .parquet files and their sizes) and the
 * keys we wrote; the Python tests add hudi_check.py and pyarrow. */
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
#include "hudi/write.h"
#include "io/storage.h"
#include "table/index_rli.h"
#include "table/mdt_files.h"
#include "table/mdt_reader.h"
#include "table/mdt_record_index.h"
#include "table/read_plan.h"
#include "table/table.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-write-mdt-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  if (getenv("HUDI_WRITE_MDT_KEEP")) return 0;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* A stream of ceil(n / per) batches (at least one): id (string), city
 * (string), v (int64). */
static void make_batches(struct ArrowArrayStream *out, char **ids, const char *const *cities, int n, int per) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "v", "l", 0, &err), HUDI_OK);
  struct ArrowArray arrays[16];
  int nb = 0;
  for (int from = 0; from < n || nb == 0; from += per, nb++) {
    assert_true(nb < 16);
    hudi_arrow_batch_builder *bb;
    assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
    for (int i = from; i < n && i < from + per; i++) {
      assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), ids[i], &err), HUDI_OK);
      assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), cities[i], &err),
                       HUDI_OK);
      assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), i, &err), HUDI_OK);
      assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
    }
    assert_int_equal(hudi_arrow_batch_builder_finish(bb, &arrays[nb], &err), HUDI_OK);
    hudi_arrow_batch_builder_free(bb);
  }
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, arrays, (size_t)nb, &err), HUDI_OK);
  hudi_arrow_field_clear(&f);
}

/* A stream of one batch. */
static void make_stream(struct ArrowArrayStream *out, char **ids, const char *const *cities, int n) {
  make_batches(out, ids, cities, n, n);
}

static const char *const CITIES[] = {"sf", "nyc", "la"};
static const char *const CITY_PARTS[] = {"city=sf", "city=nyc", "city=la"}; /* hive-style */

#define MAX_KEYS 600
typedef struct model {
  char *keys[MAX_KEYS];
  const char *partition[MAX_KEYS];
  int n;
} model;

static void model_free(model *m) {
  for (int i = 0; i < m->n; i++) free(m->keys[i]);
  m->n = 0;
}

static hudi_table *create_table(const char *name, hudi_table_type type, const char *parts, const hudi_option *opts,
                                size_t n_opts) {
  char p[300];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT; /* record_index_enabled = true */
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = parts;
  o.options = opts;
  o.n_options = n_opts;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("create %s: %s", p, err.message);
  return t;
}

/* Appends n new keys "<tag>-NNN" spread over the cities (or ""), with
 * the write option extra (or none). */
static void append_keys_with(hudi_table *t, model *m, const char *tag, int n, bool partitioned,
                             const hudi_option *extra) {
  char *ids[MAX_KEYS];
  const char *cities[MAX_KEYS];
  for (int i = 0; i < n; i++) {
    char k[64];
    snprintf(k, sizeof k, "%s-%03d", tag, i);
    ids[i] = strdup(k);
    cities[i] = CITIES[(i * 7) % 3];
    assert_true(m->n < MAX_KEYS);
    m->keys[m->n] = strdup(k);
    m->partition[m->n] = partitioned ? CITY_PARTS[(i * 7) % 3] : "";
    m->n++;
  }
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, n);
  /* Small files: several file groups per partition (sized by their
   * compressed data, ~17 bytes a row here). */
  hudi_option opts[] = {{"hoodie.parquet.max.file.size", "300"}, {NULL, NULL}};
  if (extra) opts[1] = *extra;
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_append(&r, t, &s, opts, extra ? 2 : 1, &err) != HUDI_OK) fail_msg("append: %s", err.message);
  assert_int_equal(r.num_inserts, n);
  assert_true(r.files_written > (partitioned ? 3 : 1));
  for (int i = 0; i < n; i++) free(ids[i]);
}

static void append_keys(hudi_table *t, model *m, const char *tag, int n, bool partitioned) {
  append_keys_with(t, m, tag, n, partitioned, NULL);
}

/* The committed base files on storage (no pending instants here): path ->
 * size, and which file id each lives in. */
typedef struct listing {
  hudi_file_list l;
} listing;

static bool is_base(const char *path) {
  size_t n = strlen(path);
  return n > 8 && !strcmp(path + n - 8, ".parquet") && strncmp(path, ".hoodie", 7) != 0;
}

static void split(const char *path, char *part, size_t cap, const char **name) {
  const char *slash = strrchr(path, '/');
  size_t plen = slash ? (size_t)(slash - path) : 0;
  assert_true(plen < cap);
  memcpy(part, path, plen);
  part[plen] = '\0';
  *name = slash ? slash + 1 : path;
}

/* Reopens the table and checks its MDT against storage and the model. */
static void check_mdt(const char *name, const model *m) {
  char base[300];
  snprintf(base, sizeof base, "%s/%s", dir, name);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t;
  if (hudi_table_open(&t, base, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files,record_index");
  hudi_mdt *mdt;
  if (hudi_mdt_open(&mdt, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_true(hudi_mdt_has_record_index(mdt));

  hudi_storage *s;
  assert_int_equal(hudi_storage_open(&s, base, NULL, 0, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(s, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);

  /* `files`: exactly the base files on storage, with their sizes. */
  hudi_mdt_strings parts;
  if (hudi_mdt_list_partitions(mdt, &parts, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_mdt_partition_files *pf;
  if (hudi_mdt_list_files(mdt, (const char *const *)parts.items, parts.count, &pf, NULL, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  size_t on_storage = 0, listed = 0;
  for (size_t i = 0; i < l.count; i++) {
    if (l.items[i].is_dir || !is_base(l.items[i].path)) continue;
    on_storage++;
    char part[256];
    const char *fname;
    split(l.items[i].path, part, sizeof part, &fname);
    bool found = false;
    for (size_t p = 0; p < parts.count; p++) {
      if (strcmp(parts.items[p], part) != 0) continue;
      for (size_t f = 0; f < pf[p].n_files; f++)
        if (!strcmp(pf[p].files[f].name, fname)) {
          assert_int_equal(pf[p].files[f].size, l.items[i].size);
          found = true;
        }
    }
    if (!found) fail_msg("%s is not in the files partition", l.items[i].path);
  }
  for (size_t p = 0; p < parts.count; p++) listed += pf[p].n_files;
  assert_int_equal(listed, on_storage);

  /* `record_index`: every key, in its partition, in a file group whose base
   * file is on storage; an unknown key is not found. */
  const char *keys[MAX_KEYS + 1];
  size_t lens[MAX_KEYS + 1];
  for (int i = 0; i < m->n; i++) keys[i] = m->keys[i], lens[i] = strlen(m->keys[i]);
  keys[m->n] = "no-such-key";
  lens[m->n] = strlen(keys[m->n]);
  hudi_rli_location *locs;
  if (hudi_mdt_record_index_lookup(mdt, keys, lens, (size_t)m->n + 1, &locs, NULL, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  for (int i = 0; i < m->n; i++) {
    if (!locs[i].found) fail_msg("key %s is not in the record index", keys[i]);
    assert_string_equal(locs[i].partition, m->partition[i]);
    bool file_there = false;
    for (size_t k = 0; k < l.count; k++) {
      char part[256];
      const char *fname;
      if (!is_base(l.items[k].path)) continue;
      split(l.items[k].path, part, sizeof part, &fname);
      file_there |= !strcmp(part, m->partition[i]) && !strncmp(fname, locs[i].file_id, strlen(locs[i].file_id)) &&
                    fname[strlen(locs[i].file_id)] == '_';
    }
    if (!file_there) fail_msg("key %s: file group %s has no base file", keys[i], locs[i].file_id);
  }
  assert_false(locs[m->n].found);
  hudi_rli_locations_free(locs, (size_t)m->n + 1);
  hudi_mdt_partition_files_free(pf, parts.count);
  hudi_mdt_strings_free(&parts);
  hudi_file_list_free(&l);
  hudi_storage_free(s);
  hudi_mdt_free(mdt);
  hudi_table_free(t);
}

static void check_index(const char *name, const model *m);

static void run_appends(const char *name, hudi_table_type type, bool partitioned) {
  hudi_option fs = {"fsync", "false"};
  hudi_table *t = create_table(name, type, partitioned ? "city" : NULL, &fs, 1);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files,record_index");
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions.inflight"), "");
  assert_string_equal(hudi_table_property(t, "hoodie.table.timeline.timezone"), "UTC");
  model m = {0};
  /* (The empty MDT is checked by tests/python/test_write_mdt.py: listing it
   * here trips UBSan in mdt_files.c, qsort of a NULL array -- reported.) */
  const char *tags[] = {"a", "b", "c"};
  for (int round = 0; round < 3; round++) {
    append_keys(t, &m, tags[round], 60 + 20 * round, partitioned);
    check_mdt(name, &m);
    check_index(name, &m);
    /* The data instant completes after the MDT deltacommit T. */
    hudi_instant_info in;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_table_instant_at(t, hudi_table_instant_count(t) - 1, &in, &err), HUDI_OK);
    char mdt_done[400];
    snprintf(mdt_done, sizeof mdt_done, "%s/%s/.hoodie/metadata/.hoodie/timeline", dir, name);
    hudi_storage *s;
    assert_int_equal(hudi_storage_open(&s, mdt_done, NULL, 0, &err), HUDI_OK);
    hudi_file_list l = HUDI_FILE_LIST_INIT;
    assert_int_equal(hudi_storage_list(s, "", 0, &l, &err), HUDI_OK);
    bool seen = false;
    for (size_t i = 0; i < l.count; i++) {
      const char *p = l.items[i].path;
      if (strncmp(p, in.requested_time, 17) || p[17] != '_') continue;
      seen = true;
      assert_true(strncmp(p + 18, in.completion_time, 17) < 0);
    }
    assert_true(seen);
    hudi_file_list_free(&l);
    hudi_storage_free(s);
  }
  hudi_table_free(t);
  model_free(&m);
}

/* The record index through the write path's index interface agrees with
 * the BLOOM index (footer bloom filters and key ranges, confirmed by
 * reading the files): an independent lookup of the same keys. */
static void check_index(const char *name, const model *m) {
  char base[300];
  snprintf(base, sizeof base, "%s/%s", dir, name);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t;
  if (hudi_table_open(&t, base, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_index *rli, *bloom;
  if (hudi_index_rli_create(&rli, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (hudi_index_bloom_create(&bloom, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  const char *keys[MAX_KEYS + 1];
  size_t lens[MAX_KEYS + 1];
  for (int i = 0; i < m->n; i++) keys[i] = m->keys[i], lens[i] = strlen(m->keys[i]);
  keys[m->n] = "absent";
  lens[m->n] = 6;
  hudi_index_loc a[MAX_KEYS + 1], b[MAX_KEYS + 1];
  if (hudi_index_lookup(rli, a, keys, lens, (size_t)m->n + 1, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (hudi_index_lookup(bloom, b, keys, lens, (size_t)m->n + 1, &err) != HUDI_OK) fail_msg("%s", err.message);
  for (int i = 0; i < m->n; i++) {
    assert_non_null(a[i].partition);
    assert_non_null(b[i].partition);
    assert_string_equal(a[i].partition, b[i].partition);
    assert_string_equal(a[i].file_id, b[i].file_id);
    assert_string_equal(a[i].partition, m->partition[i]);
  }
  assert_null(a[m->n].partition);
  assert_null(b[m->n].partition);
  hudi_index_free(rli);
  hudi_index_free(bloom);
  hudi_table_free(t);
}

static void cow_partitioned(void **state) {
  (void)state;
  run_appends("cow_part", HUDI_COPY_ON_WRITE, true);
}

static void mor_plain(void **state) {
  (void)state;
  run_appends("mor_plain", HUDI_MERGE_ON_READ, false);
}

static void duplicate_keys_refused(void **state) {
  (void)state;
  hudi_table *t = create_table("dups", HUDI_COPY_ON_WRITE, "city", NULL, 0);
  char *ids[] = {"k1", "k2", "k1"};
  const char *cities[] = {"sf", "nyc", "la"};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, 3);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_append(NULL, t, &s, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "'k1' appears twice"));
  assert_int_equal(hudi_table_instant_count(t), 0);
  hudi_table_free(t);
}

/* Enough rows for the duplicate check to hash and scan on every core
 * (65536 or more), the repeat's rows far apart in two partitions (sorted
 * by partition, one lands near row 23,000, the other past row 65,535: past
 * 16 bits of row number): the key and both partitions are named, and
 * nothing is written. */
static void duplicate_keys_refused_many(void **state) {
  (void)state;
  enum { N = 70000, FIRST = 69999, SECOND = 100 };
  hudi_table *t = create_table("dups_many", HUDI_COPY_ON_WRITE, "city", NULL, 0);
  char **ids = calloc(N, sizeof *ids);
  const char **cities = calloc(N, sizeof *cities);
  assert_non_null(ids);
  assert_non_null(cities);
  for (int i = 0; i < N; i++) {
    char k[32];
    snprintf(k, sizeof k, "m-%06d", i == SECOND ? FIRST : i);
    ids[i] = strdup(k);
    cities[i] = CITIES[(i * 7) % 3]; /* FIRST: sf (the last partition), SECOND: nyc */
  }
  struct ArrowArrayStream s;
  make_batches(&s, ids, cities, N, N / 5);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_append(NULL, t, &s, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  if (!strstr(err.message, "record key 'm-069999' appears twice in the data (partitions 'city=nyc' and 'city=sf')"))
    fail_msg("%s", err.message);
  assert_int_equal(hudi_table_instant_count(t), 0);
  for (int i = 0; i < N; i++) free(ids[i]);
  free(ids);
  free(cities);
  hudi_table_free(t);
}

/* hudi_c.append.segment.bytes below one batch: each batch is a segment of
 * its own, written into the one commit; the metadata table lists every
 * file and indexes every key. A key given again in a later segment is
 * refused and leaves no file, instant or index entry behind. */
static void segmented_append(void **state) {
  (void)state;
  hudi_option fs = {"fsync", "false"};
  hudi_table *t = create_table("seg", HUDI_MERGE_ON_READ, "city", &fs, 1);
  model m = {0};
  char *ids[MAX_KEYS];
  const char *cities[MAX_KEYS];
  for (int i = 0; i < 160; i++) {
    char k[64];
    snprintf(k, sizeof k, "s-%03d", i);
    ids[i] = strdup(k);
    cities[i] = CITIES[(i * 7) % 3];
    m.keys[m.n] = strdup(k);
    m.partition[m.n++] = CITY_PARTS[(i * 7) % 3];
  }
  struct ArrowArrayStream s;
  make_batches(&s, ids, cities, 160, 40);
  hudi_option o[] = {{"hudi_c.append.segment.bytes", "1"}, {"hoodie.parquet.max.file.size", "300"}};
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_append(&r, t, &s, o, 2, &err) != HUDI_OK) fail_msg("append: %s", err.message);
  assert_int_equal(r.num_inserts, 160);
  assert_int_equal(r.num_writes, 160);
  assert_int_equal(hudi_table_instant_count(t), 1);
  check_mdt("seg", &m);
  check_index("seg", &m);

  for (int i = 0; i < 80; i++) snprintf(ids[i], 6, "d-%03d", i == 70 ? 5 : i);
  make_batches(&s, ids, cities, 80, 40);
  assert_int_equal(hudi_table_append(&r, t, &s, o, 2, &err), HUDI_ERR_INVALID_ARG);
  if (!strstr(err.message, "'d-005' appears twice")) fail_msg("%s", err.message);
  hudi_error_clear(&err);
  assert_int_equal(hudi_table_instant_count(t), 1);
  check_mdt("seg", &m);
  check_index("seg", &m);
  for (int i = 0; i < 160; i++) free(ids[i]);
  hudi_table_free(t);
  model_free(&m);
}

/* MDT partitions hudi-c does not maintain: writing is refused, naming them. */
static void unmaintained_partitions_refused(void **state) {
  (void)state;
  hudi_table *t = create_table("colstats", HUDI_COPY_ON_WRITE, NULL, NULL, 0);
  hudi_table_free(t);
  char path[400];
  snprintf(path, sizeof path, "%s/colstats/.hoodie/hoodie.properties", dir);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  char *at = strstr(text, "=files,record_index\n");
  assert_non_null(at);
  char out[8300];
  snprintf(out, sizeof out, "%.*s=files,record_index,column_stats,partition_stats\n%s", (int)(at - text), text,
           at + strlen("=files,record_index\n"));
  f = fopen(path, "wb");
  assert_non_null(f);
  fputs(out, f);
  fclose(f);
  snprintf(path, sizeof path, "%s/colstats", dir);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  char *ids[] = {"k1"};
  const char *cities[] = {"sf"};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, 1);
  assert_int_equal(hudi_table_append(NULL, t, &s, NULL, 0, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "column_stats, partition_stats"));
  assert_int_equal(hudi_table_instant_count(t), 0);
  hudi_table_free(t);
}

/* hoodie.metadata.enable=true without the record index: `files` only. */
static void files_only(void **state) {
  (void)state;
  char p[300];
  snprintf(p, sizeof p, "%s/files_only", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.record_key_fields = "id";
  o.record_index_enabled = false;
  hudi_option on = {"hoodie.metadata.enable", "true"};
  o.options = &on;
  o.n_options = 1;
  hudi_table *t;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files");
  char *ids[] = {"k1", "k1"}; /* duplicates are fine without a record index */
  const char *cities[] = {"sf", "sf"};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, 2);
  if (hudi_table_append(NULL, t, &s, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_mdt *mdt;
  if (hudi_mdt_open(&mdt, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_false(hudi_mdt_has_record_index(mdt));
  const char *root = "";
  hudi_mdt_partition_files *pf;
  if (hudi_mdt_list_files(mdt, &root, 1, &pf, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(pf[0].n_files, 1);
  hudi_mdt_partition_files_free(pf, 1);
  hudi_mdt_free(mdt);
  hudi_index *ix;
  assert_int_equal(hudi_index_rli_create(&ix, t, &err), HUDI_ERR_NOT_FOUND);
  assert_null(ix);
  hudi_table_free(t);

  /* The contradictions are refused before anything is written. */
  snprintf(p, sizeof p, "%s/bad", dir);
  o.record_index_enabled = true;
  hudi_option off = {"hoodie.metadata.enable", "false"};
  o.options = &off;
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_ERR_INVALID_ARG);
  hudi_option bloom = {"hoodie.metadata.index.bloom.filter.enable", "true"};
  o.options = &bloom;
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_ERR_UNSUPPORTED);
  hudi_option ps = {"hoodie.metadata.index.partition.stats.enable", "true"}; /* without column stats */
  o.options = &ps;
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_ERR_INVALID_ARG);
  hudi_option cs_off[] = {{"hoodie.metadata.index.column.stats.enable", "true"}, {"hoodie.metadata.enable", "false"}};
  o.record_index_enabled = false;
  o.options = cs_off;
  o.n_options = 2;
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "column stats live in the metadata table"));
  FILE *f = fopen(p, "r");
  assert_null(f);
}

/* hoodie.metadata.enable=true in a write's options on a table without a
 * metadata table builds one first (mdt_bootstrap.h): afterwards it lists
 * every file on storage and indexes every key, the earlier writes' too. */
static void bootstrap_existing(void **state) {
  (void)state;
  char p[300];
  snprintf(p, sizeof p, "%s/bootstrap", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.record_index_enabled = false;
  hudi_option off = {"hoodie.metadata.enable", "false"};
  o.options = &off;
  o.n_options = 1;
  hudi_table *t;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_false(hudi_table_property(t, "hoodie.table.metadata.partitions") &&
               *hudi_table_property(t, "hoodie.table.metadata.partitions"));
  model m = {0};
  append_keys(t, &m, "a", 90, true);
  append_keys(t, &m, "b", 60, true);
  hudi_option on = {"hoodie.metadata.enable", "true"};
  append_keys_with(t, &m, "c", 30, true, &on);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files,record_index");
  hudi_table_free(t);
  check_mdt("bootstrap", &m);
  model_free(&m);
}

/* hoodie.metadata.record.index.enable=true on a table whose metadata
 * table has `files` only adds `record_index` (mdt_bootstrap.h): the
 * earlier writes' keys are indexed, at the first free initialisation
 * times (00..1 empty, 00..2 the keys). */
static bool exists(const char *table, const char *rel);

static void add_record_index(void **state) {
  (void)state;
  char p[300];
  snprintf(p, sizeof p, "%s/addrli", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_COPY_ON_WRITE;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.record_index_enabled = false;
  hudi_option files = {"hoodie.metadata.enable", "true"};
  o.options = &files;
  o.n_options = 1;
  hudi_table *t;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files");
  model m = {0};
  append_keys(t, &m, "a", 90, true);
  append_keys(t, &m, "b", 60, true);
  hudi_option on = {"hoodie.metadata.record.index.enable", "true"};
  append_keys_with(t, &m, "c", 30, true, &on);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files,record_index");
  hudi_table_free(t);
  assert_true(exists("addrli", ".hoodie/metadata/record_index/.record-index-0009-0_00000000000000001.log.1_0-0-0"));
  assert_true(exists("addrli", ".hoodie/metadata/record_index/record-index-0000-0_1-0-1_00000000000000002.hfile"));
  check_mdt("addrli", &m);
  /* =false drops it again (mdt_drop.h); =true then adds it at the next
   * free initialisation times (00..3 empty, 00..4 the keys). */
  hudi_option off = {"hoodie.metadata.record.index.enable", "false"};
  if (hudi_table_open(&t, p, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  append_keys_with(t, &m, "d", 20, true, &off);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files");
  assert_false(exists("addrli", ".hoodie/metadata/record_index/record-index-0000-0_1-0-1_00000000000000002.hfile"));
  append_keys_with(t, &m, "e", 20, true, &on);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "files,record_index");
  assert_true(exists("addrli", ".hoodie/metadata/record_index/record-index-0000-0_1-0-1_00000000000000004.hfile"));
  hudi_table_free(t);
  check_mdt("addrli", &m);
  model_free(&m);
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  static char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return buf;
}

static bool exists(const char *table, const char *rel) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s/%s", dir, table, rel);
  FILE *f = fopen(p, "rb");
  if (f) fclose(f);
  return f != NULL;
}

/* hoodie.metadata.index.column.stats.enable=true at create: column_stats
 * (2 file groups) and, on a partitioned table, partition_stats (1) are
 * initialised in Hudi's order (files 00..0, column_stats ..1, record_index
 * ..2, partition_stats ..3; what the v8/v9 fixtures' MDT timelines show),
 * index.json gets the column_stats definition with no columns, and the
 * first commit lists the columns it indexed there (Hudi's rule: the three
 * meta columns, then the data columns). */
static void column_stats_at_create(void **state) {
  (void)state;
  hudi_option opts[] = {{"hoodie.metadata.index.column.stats.enable", "true"}, {"hoodie.write.table.version", "9"}};
  hudi_table *t = create_table("cs9", HUDI_COPY_ON_WRITE, "city", opts, 2);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"),
                      "column_stats,files,partition_stats,record_index");
  assert_string_equal(hudi_table_property(t, "hoodie.table.index.defs.path"), ".hoodie/.index_defs/index.json");
  assert_true(exists("cs9", ".hoodie/metadata/column_stats/.col-stats-0000-0_00000000000000001.log.1_0-0-0"));
  assert_true(exists("cs9", ".hoodie/metadata/column_stats/.col-stats-0001-0_00000000000000001.log.1_0-0-0"));
  assert_false(exists("cs9", ".hoodie/metadata/column_stats/.col-stats-0002-0_00000000000000001.log.1_0-0-0"));
  assert_true(exists("cs9", ".hoodie/metadata/record_index/.record-index-0009-0_00000000000000002.log.1_0-0-0"));
  assert_true(exists("cs9", ".hoodie/metadata/partition_stats/.partition-stats-0000-0_00000000000000003.log.1_0-0-0"));
  assert_true(exists("cs9", ".hoodie/metadata/.hoodie/timeline/00000000000000003.deltacommit.requested"));
  char p[600];
  snprintf(p, sizeof p, "%s/cs9/.hoodie/.index_defs/index.json", dir);
  assert_string_equal(read_text(p), "{\n"
                                    "  \"indexDefinitions\" : {\n"
                                    "    \"record_index\" : {\n"
                                    "      \"indexName\" : \"record_index\",\n"
                                    "      \"indexType\" : \"record_index\",\n"
                                    "      \"indexFunction\" : \"\",\n"
                                    "      \"sourceFields\" : [ ],\n"
                                    "      \"indexOptions\" : {\n"
                                    "        \"isPartitioned\" : \"false\"\n"
                                    "      },\n"
                                    "      \"version\" : \"V1\"\n"
                                    "    },\n"
                                    "    \"column_stats\" : {\n"
                                    "      \"indexName\" : \"column_stats\",\n"
                                    "      \"indexType\" : \"column_stats\",\n"
                                    "      \"indexFunction\" : \"column_stats\",\n"
                                    "      \"sourceFields\" : [ ],\n"
                                    "      \"indexOptions\" : { },\n"
                                    "      \"version\" : \"V2\"\n"
                                    "    }\n"
                                    "  }\n"
                                    "}");
  model m = {0};
  append_keys(t, &m, "a", 30, true);
  const char *text = read_text(p);
  assert_non_null(strstr(text, "\"sourceFields\" : [ \"_hoodie_commit_time\", \"_hoodie_partition_path\", "
                               "\"_hoodie_record_key\", \"id\", \"city\", \"v\" ],"));
  assert_non_null(strstr(text, "\"record_index\" : {")); /* the other definitions kept */
  /* Our reader skips files by these stats: with data skipping, the plan
   * for one key keeps fewer slices than without (the key's file among
   * them: the Python tests check the records against the footers). */
  hudi_read_options on = HUDI_READ_OPTIONS_INIT, off = HUDI_READ_OPTIONS_INIT;
  on.filter_sql = off.filter_sql = "id = 'a-005'";
  hudi_option skip_off = {"hoodie.enable.data.skipping", "false"};
  off.options = &skip_off;
  off.n_options = 1;
  hudi_read_plan *pon, *poff;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_read_plan_create(&pon, t, &on, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (hudi_read_plan_create(&poff, t, &off, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(poff->n_col_stats_pruned, 0);
  assert_true(pon->n_col_stats_pruned > 0);
  assert_int_equal(pon->n_slices + pon->n_col_stats_pruned, poff->n_slices);
  hudi_read_plan_free(pon);
  hudi_read_plan_free(poff);
  model_free(&m);
  hudi_table_free(t);

  /* Version 8 (Hudi 1.0): no record_index entry and no version; a table
   * without partitions gets no partition_stats. */
  opts[1].value = "8";
  t = create_table("cs8", HUDI_MERGE_ON_READ, NULL, opts, 2);
  assert_string_equal(hudi_table_property(t, "hoodie.table.metadata.partitions"), "column_stats,files,record_index");
  assert_true(exists("cs8", ".hoodie/metadata/record_index/.record-index-0000-0_00000000000000002.log.1_0-0-0"));
  snprintf(p, sizeof p, "%s/cs8/.hoodie/.index_defs/index.json", dir);
  text = read_text(p);
  assert_null(strstr(text, "record_index"));
  assert_null(strstr(text, "version"));
  assert_non_null(strstr(text, "\"indexFunction\" : \"column_stats\",\n      \"sourceFields\" : [ ],\n      "
                               "\"indexOptions\" : { }\n    }"));
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cow_partitioned), cmocka_unit_test(mor_plain), cmocka_unit_test(duplicate_keys_refused),
      cmocka_unit_test(duplicate_keys_refused_many),
      cmocka_unit_test(unmaintained_partitions_refused), cmocka_unit_test(files_only),
      cmocka_unit_test(segmented_append), cmocka_unit_test(column_stats_at_create),
      cmocka_unit_test(bootstrap_existing), cmocka_unit_test(add_record_index)};
  return cmocka_run_group_tests(tests, setup, teardown);
}

/* Keeping the metadata table current from the write path (write_mdt.h). */
#include "table/mdt_secondary_index.h"
#include "table/write_mdt.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/threadpool.h"
#include "table/mdt_bloom_filters.h"
#include "table/index_defs.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_drop.h"
#include "table/mdt_reader.h"
#include "table/properties.h"
#include "table/write.h"

#define PARTITIONS_KEY "hoodie.table.metadata.partitions"
#define INFLIGHT_KEY "hoodie.table.metadata.partitions.inflight"

/* The MDT partitions hudi-c writes on every commit. */
static bool maintained(const char *name, size_t len) {
  return (len == 5 && !memcmp(name, "files", 5)) || (len == 12 && !memcmp(name, "record_index", 12));
}

/* secondary_index_*: hudi_si_defs_load accepted them all. */
static bool is_secondary(const char *name, size_t len) {
  return len > 16 && !memcmp(name, "secondary_index_", 16);
}

bool hudi_write_mdt_enabled(const hudi_table *t) {
  const char *v = hudi_props_get(&t->props, PARTITIONS_KEY);
  return v && *v;
}

bool hudi_write_mdt_has_record_index(const hudi_table *t) {
  return hudi_props_list_has(hudi_props_get(&t->props, PARTITIONS_KEY), "record_index");
}

/* HUDI_MDT_RLI_BASE_FILES_OPTION, of the call (opts) or else the table
 * handle: anything but "false" is true (hudi_write_mdt_check_options
 * refuses other values before the write begins). */
static bool rli_base_files(const hudi_table *t, const hudi_option *opts, size_t n) {
  const char *v = hudi_write_option(t, opts, n, HUDI_MDT_RLI_BASE_FILES_OPTION);
  return !v || strcmp(v, "false") != 0;
}

hudi_status hudi_write_mdt_check_options(const hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  const char *rb = hudi_write_option(t, opts, n, HUDI_MDT_RLI_BASE_FILES_OPTION);
  if (rb && strcmp(rb, "true") && strcmp(rb, "false"))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s must be true or false, not '%s'",
                        HUDI_MDT_RLI_BASE_FILES_OPTION, rb);
  return HUDI_OK;
}

hudi_status hudi_write_mdt_check(const hudi_table *t, const hudi_option *opts, size_t n_opts, hudi_error *err) {
  const char *parts = hudi_props_get(&t->props, PARTITIONS_KEY);
  const char *inflight = hudi_props_get(&t->props, INFLIGHT_KEY);
  if (inflight && *inflight)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has metadata-table partitions being built (%s=%s); hudi-c cannot write to it "
                        "until that indexing finishes",
                        t->base_uri, INFLIGHT_KEY, inflight);
  if (!parts || !*parts) return HUDI_OK;
  /* A secondary index hudi-c cannot keep: the reason, named. */
  hudi_si_defs defs;
  HUDI_TRY(hudi_si_defs_load(&defs, (hudi_table *)t, err));
  hudi_si_defs_free(&defs);
  char others[512] = "";
  size_t used = 0;
  bool has_files = false;
  for (const char *p = parts; p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 5 && !memcmp(p, "files", 5)) has_files = true;
    bool bloom = len == 13 && !memcmp(p, "bloom_filters", 13) && hudi_bf_maintains(t);
    /* (what the write's options drop first does not matter: mdt_drop.h) */
    if (len && !maintained(p, len) && !hudi_cs_maintains(t, p, len) && !is_secondary(p, len) && !bloom &&
        !hudi_mdt_index_dropped(t, opts, n_opts, p, len) && used < sizeof others) {
      int w = snprintf(others + used, sizeof others - used, "%s%.*s", used ? ", " : "", (int)len, p);
      if (w > 0) used += (size_t)w;
    }
    p = end ? end + 1 : NULL;
  }
  if (used)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has metadata-table indexes hudi-c does not maintain (%s; %s=%s): writing would "
                        "leave them stale and Spark would prune or look up records wrongly; hudi-c keeps files, "
                        "record_index, column_stats, partition_stats, bloom_filters and secondary indexes of "
                        "string, integer, date and timestamp columns current; hoodie.metadata.enable=false in the "
                        "write's options deletes the metadata table first, as Apache Hudi's writers do (an index's "
                        "own switch set to false, such as hoodie.metadata.index.column.stats.enable, drops that "
                        "index alone)",
                        t->base_uri, others, PARTITIONS_KEY, parts);
  if (!has_files)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "table %s has a metadata table without the files partition (%s=%s)",
                        t->base_uri, PARTITIONS_KEY, parts);
  return HUDI_OK;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The MDT writer's options for a commit of t with the write's options
 * opts (read on the caller's thread: the shared handle's MDT version is
 * the table's state). */
static hudi_mdt_write_options mdt_options(hudi_table *t, const hudi_option *opts, size_t n) {
  hudi_mdt_write_options o = HUDI_MDT_WRITE_OPTIONS_INIT;
  o.record_index_shards = hudi_write_mdt_has_record_index(t) ? 0 : -1;
  o.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(t);
  o.rli_base_files = rli_base_files(t, opts, n);
  /* Within a write that shares its metadata-table handle: the MDT's
   * version as the handle read it (one hoodie.properties GET per write). */
  int known = hudi_mdt_shared_version(t);
  if (known == 8 || known == 9) {
    o.table_version = known;
    o.table_version_known = true;
  }
  return o;
}

/* keys: the commit's instant and record-index changes (an array or a
 * key source); its files are filled in here. begun: the MDT commit as
 * hudi_mdt_begin began it from the same keys (or NULL). */
static hudi_status mdt_update(hudi_table *t, const hudi_option *opts, size_t n_opts, const hudi_commit_metadata *meta,
                              const hudi_mdt_file_change *deleted, size_t n_deleted,
                              const hudi_mdt_commit_input *keys, hudi_mdt_begun *begun, hudi_instant_gen *gen,
                              hudi_error *err) {
  const char *instant = keys->instant;
  HUDI_TRY(hudi_write_mdt_check(t, opts, n_opts, err));
  size_t n_stats = meta ? hudi_commit_metadata_n_stats(meta) : 0;
  size_t n_files = n_stats + n_deleted;
  hudi_mdt_file_change *files = hudi_calloc(n_files ? n_files : 1, sizeof *files);
  if (!files) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t k = 0, n_parts = 0;
  const hudi_partition_write_stats *parts = meta ? hudi_commit_metadata_partitions(meta, &n_parts) : NULL;
  hudi_status st = HUDI_OK;
  for (size_t p = 0; st == HUDI_OK && p < n_parts; p++) {
    size_t n;
    const hudi_write_stat *ws = hudi_partition_stats(&parts[p], &n);
    for (size_t i = 0; i < n; i++) {
      if (!ws[i].path || !*ws[i].path || ws[i].file_size_in_bytes.v <= 0) {
        st = hudi_err_set(err, HUDI_ERR_INTERNAL, "write stat %zu of partition '%s' has no path or size", i,
                          parts[p].key ? parts[p].key : "");
        break;
      }
      files[k].partition = parts[p].key ? parts[p].key : "";
      files[k].name = base_name(ws[i].path);
      files[k].size = ws[i].file_size_in_bytes.v;
      files[k].deleted = false;
      k++;
    }
  }
  for (size_t i = 0; i < n_deleted; i++) files[k++] = deleted[i];
  hudi_mdt_write_options o = mdt_options(t, opts, n_opts);
  o.begun = begun;
  hudi_cs_records csr = {0}; /* column_stats / partition_stats (mdt_column_stats.h) */
  if (st == HUDI_OK) st = hudi_cs_mdt_records(&csr, t, opts, n_opts, meta, files, k, err);
  if (st == HUDI_OK) st = hudi_bf_commit_records(&csr, t, instant, files, k, err); /* mdt_bloom_filters.h */
  o.index_records = csr.items;
  o.n_index_records = csr.n;
  hudi_si_defs sid = {0}; /* secondary indexes (mdt_secondary_index.h) */
  hudi_si_changes sic = {0};
  if (st == HUDI_OK) st = hudi_si_defs_load(&sid, t, err);
  if (st == HUDI_OK && sid.n) st = hudi_si_commit_changes(&sic, &sid, t, instant, meta, err);
  o.si_changes = &sic;
  hudi_mdt_commit_input in = *keys;
  in.files = files;
  in.n_files = k;
  if (o.record_index_shards < 0) in.n_keys = 0;
  hudi_mdt_commit_result res;
  memset(&res, 0, sizeof res);
  if (st == HUDI_OK) st = hudi_mdt_commit(t->storage, &o, &in, &res, err);
  if (st == HUDI_OK) hudi_mdt_shared_version_seen(t, res.table_version);
  hudi_mdt_share_invalidate(t); /* the MDT changed (or may have, on failure) */
  /* The columns the commit indexed, into the index definition (Hudi's
   * updateColsToIndex): the list readers see as indexed. */
  if (st == HUDI_OK && csr.cols_changed)
    st = hudi_index_defs_set_source_fields(t->storage, hudi_props_get(&t->props, "hoodie.table.index.defs.path"),
                                           "column_stats", (const char *const *)csr.cols, csr.n_cols, NULL, err);
  hudi_cs_records_free(&csr);
  hudi_si_changes_free(&sic);
  hudi_si_defs_free(&sid);
  hudi_free(files);
  HUDI_TRY(st);
  int64_t ms;
  HUDI_TRY(hudi_instant_time_to_millis(&ms, res.completion_time, strlen(res.completion_time), err));
  hudi_instant_gen_observe(gen, ms);
  return HUDI_OK;
}

hudi_status hudi_write_mdt_update(hudi_table *t, const hudi_option *opts, size_t n_opts, const char *instant,
                                  const hudi_commit_metadata *meta, const hudi_mdt_file_change *deleted,
                                  size_t n_deleted, const hudi_mdt_key_change *keys, size_t n_keys,
                                  hudi_instant_gen *gen, hudi_error *err) {
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  hudi_mdt_commit_input in = {instant, NULL, 0, keys, n_keys, NULL, NULL};
  return mdt_update(t, opts, n_opts, meta, deleted, n_deleted, &in, NULL, gen, err);
}

/* The keys a duplicate check reads: rows of one write, or a key list. */
typedef struct key_src {
  const hudi_write_rows *rows; /* else keys */
  const hudi_mdt_key_change *keys;
} key_src;

static const char *key_at(const key_src *s, size_t i, size_t *len) {
  if (s->rows) return hudi_write_rows_key(s->rows, i, len);
  *len = s->keys[i].key_len;
  return s->keys[i].key;
}

static const char *partition_at(const key_src *s, size_t i) {
  return s->rows ? hudi_write_rows_partition(s->rows, i) : s->keys[i].partition;
}

static hudi_status duplicate_key(const hudi_table *t, const key_src *s, size_t a, size_t b, hudi_error *err) {
  size_t len;
  const char *key = key_at(s, b, &len);
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "record key '%.*s' appears twice in the data (partitions '%s' and '%s'); table %s has a "
                      "record-level index, which maps each key to one file group: deduplicate the rows or use "
                      "upsert",
                      (int)(len < 200 ? len : 200), key, partition_at(s, a), partition_at(s, b), t->base_uri);
}

static bool same_key(const key_src *s, size_t i, size_t j) {
  size_t al, bl;
  const char *a = key_at(s, i, &al), *b = key_at(s, j, &bl);
  return al == bl && memcmp(a, b, al) == 0;
}

/* One partition: rows are sorted by key in Java order, so byte-equal keys
 * lie in one run of Java-equal neighbours (a run longer than one is rare:
 * duplicates, or invalid UTF-8 that decodes alike). */
static hudi_status check_sorted_keys(const hudi_table *t, const hudi_write_rows *rows, hudi_error *err) {
  key_src s = {rows, NULL};
  for (size_t i = 1; i < rows->n; i++) {
    if (hudi_write_rows_key_cmp(rows, i - 1, i) != 0) continue;
    size_t a = i - 1, b = i + 1;
    while (b < rows->n && hudi_write_rows_key_cmp(rows, a, b) == 0) b++;
    for (size_t x = a; x < b; x++)
      for (size_t y = x + 1; y < b; y++)
        if (same_key(&s, x, y)) return duplicate_key(t, &s, x, y, err);
    i = b - 1;
  }
  return HUDI_OK;
}

/* A key's hash (its top 32 bits) and row (the low 32): 8 bytes a key,
 * where a struct of both was 16 (at 10M keys, 160 MB less to fault in). */
typedef uint64_t key_hash;

#define HASH_MASK (~(uint64_t)UINT32_MAX)

static size_t kh_row(key_hash v) { return (size_t)(v & UINT32_MAX); }

#define RADIX_BITS 11
#define TOP_BITS (2 * RADIX_BITS)

#define BUCKETS ((size_t)1 << RADIX_BITS)

/* Stable counting sort of in[0, n) into out by bits [shift, shift + 11)
 * of the hash; with `starts` (BUCKETS + 1 entries), bucket b's range in
 * out is [starts[b], starts[b + 1]). */
static void radix_pass(const key_hash *in, key_hash *out, size_t n, unsigned shift, size_t *starts) {
  size_t start[BUCKETS + 1] = {0};
  for (size_t i = 0; i < n; i++) start[((in[i] >> shift) & (BUCKETS - 1)) + 1]++;
  for (size_t d = 0; d < BUCKETS; d++) start[d + 1] += start[d];
  if (starts) memcpy(starts, start, sizeof start);
  for (size_t i = 0; i < n; i++) out[start[(in[i] >> shift) & (BUCKETS - 1)]++] = in[i];
}

#define CHECK_GROUPS 64 /* bucket groups: tasks for the sort and scan */

/* The duplicate check's shared state: tasks hash a range of rows each, then
 * sort and scan a group of top-bit buckets each. */
typedef struct check_run {
  const key_src *s;
  key_hash *hs, *tmp;
  size_t n, per_task;
  size_t start[BUCKETS + 1];    /* top bucket b: tmp/hs[start[b], start[b + 1]) */
  size_t dup[CHECK_GROUPS][2];  /* per bucket group: the first duplicate pair (rows), or {n, n} */
} check_run;

#define CHECK_PARALLEL_MIN 65536

static hudi_status hash_task(void *ctx, size_t t, hudi_error *err) {
  (void)err;
  check_run *r = ctx;
  size_t a = t * r->per_task, b = a + r->per_task < r->n ? a + r->per_task : r->n;
  for (size_t i = a; i < b; i++) {
    size_t len;
    const char *key = key_at(r->s, i, &len);
    r->hs[i] = (hudi_xxh64(key, len, 0) & HASH_MASK) | (uint64_t)i;
  }
  return HUDI_OK;
}

/* Buckets of group g: sorted by the next RADIX_BITS of the hash (stable:
 * rows stay in order among equal bits) into hs, then runs of equal top
 * bits (~n / 4M long) compared pairwise, hash first, then key bytes. */
static hudi_status group_task(void *ctx, size_t g, hudi_error *err) {
  (void)err;
  check_run *r = ctx;
  const size_t per = BUCKETS / CHECK_GROUPS;
  r->dup[g][0] = r->dup[g][1] = r->n;
  for (size_t b = g * per; b < (g + 1) * per; b++) {
    size_t from = r->start[b], to = r->start[b + 1];
    if (to - from > 1) radix_pass(r->tmp + from, r->hs + from, to - from, 64 - TOP_BITS, NULL);
    else if (to > from) r->hs[from] = r->tmp[from];
    const key_hash *hs = r->hs;
    for (size_t x0 = from, x1; x0 < to; x0 = x1) {
      for (x1 = x0 + 1; x1 < to && hs[x1] >> (64 - TOP_BITS) == hs[x0] >> (64 - TOP_BITS);) x1++;
      for (size_t x = x0; x < x1; x++)
        for (size_t y = x + 1; y < x1; y++)
          if ((hs[x] & HASH_MASK) == (hs[y] & HASH_MASK) && same_key(r->s, kh_row(hs[x]), kh_row(hs[y]))) {
            r->dup[g][0] = kh_row(hs[x]);
            r->dup[g][1] = kh_row(hs[y]);
            return HUDI_OK;
          }
    }
  }
  return HUDI_OK;
}

/* Keys in any order: their 64-bit hashes, sorted by their top 22 bits
 * (a pass on the top 11 bits into 2048 buckets, then each bucket on the
 * next 11: cache-friendly), and equal hashes among neighbours compared by
 * key bytes. Linear, reading the keys once in row order (a comparison sort
 * of 10M unordered keys is a cache miss per comparison). Hashing and the
 * buckets' sort and scan run on every core; the duplicate reported is the
 * first in the sorted order whatever the thread count. */
static hudi_status check_any_keys(const hudi_table *t, const key_src *s, size_t n, hudi_error *err) {
  if (n > UINT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "%zu keys in one write: at most %" PRIu32, n, UINT32_MAX);
  check_run *r = hudi_calloc(1, sizeof *r);
  key_hash *hs = hudi_malloc(n * sizeof *hs), *tmp = hudi_malloc(n * sizeof *tmp);
  if (!r || !hs || !tmp) {
    hudi_free(r);
    hudi_free(hs);
    hudi_free(tmp);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory checking %zu keys", n);
  }
  *r = (check_run){.s = s, .hs = hs, .tmp = tmp, .n = n};
  hudi_threadpool *pool = NULL;
  int cores = hudi_cpu_count();
  if (cores > 1 && n >= CHECK_PARALLEL_MIN) {
    hudi_error ignored = HUDI_ERROR_INIT; /* no threads: the check runs on this one alone */
    if (hudi_threadpool_create(&pool, cores - 1, &ignored) != HUDI_OK) {
      hudi_error_clear(&ignored);
      pool = NULL;
    }
  }
  size_t tasks = pool ? (size_t)cores * 4 : 1;
  r->per_task = (n + tasks - 1) / tasks;
  hudi_status st = hudi_parallel_for(pool, tasks, hash_task, r, err);
  /* The top 11 bits: one stable pass into tmp, keeping the buckets' bounds. */
  if (st == HUDI_OK) radix_pass(hs, tmp, n, 64 - RADIX_BITS, r->start);
  if (st == HUDI_OK) st = hudi_parallel_for(pool, CHECK_GROUPS, group_task, r, err);
  hudi_threadpool_free(pool);
  for (size_t g = 0; st == HUDI_OK && g < CHECK_GROUPS; g++)
    if (r->dup[g][0] < n) st = duplicate_key(t, s, r->dup[g][0], r->dup[g][1], err);
  hudi_free(hs);
  hudi_free(tmp);
  hudi_free(r);
  return st;
}

hudi_status hudi_write_mdt_check_rows(const hudi_table *t, const hudi_write_rows *rows, hudi_error *err) {
  if (!hudi_write_mdt_has_record_index(t) || rows->n < 2) return HUDI_OK;
  if (rows->key_order && hudi_write_rows_same_partition(rows, 0, rows->n - 1)) return check_sorted_keys(t, rows, err);
  /* The same key in two partitions, or keys in input order. */
  key_src s = {rows, NULL};
  return check_any_keys(t, &s, rows->n, err);
}

hudi_status hudi_write_mdt_check_keys(const hudi_table *t, const hudi_mdt_key_change *keys, size_t n,
                                      hudi_error *err) {
  if (!hudi_write_mdt_has_record_index(t) || n < 2) return HUDI_OK;
  key_src s = {NULL, keys};
  return check_any_keys(t, &s, n, err);
}

hudi_status hudi_write_mdt_bulk_insert_keys(hudi_table *t, const hudi_option *opts, size_t n_opts,
                                            const char *instant, const hudi_commit_metadata *meta,
                                            const hudi_mdt_key_change *keys, size_t n, hudi_instant_gen *gen,
                                            hudi_error *err) {
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  return hudi_write_mdt_update(t, opts, n_opts, instant, meta, NULL, 0, keys,
                               hudi_write_mdt_has_record_index(t) ? n : 0, gen, err);
}

/* A bulk insert's rows as the record-index key source of its MDT
 * commit: row i -> the file group its span names. */
typedef struct span_keys {
  const hudi_write_rows *rows;
  const hudi_write_file_span *spans;
  size_t n_spans;
} span_keys;

static void span_key_at(const void *ctx, size_t row, hudi_mdt_key_change *out) {
  const span_keys *sk = ctx;
  size_t lo = 0, hi = sk->n_spans; /* the span holding row: spans cover the rows in order */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (sk->spans[mid].from <= row) lo = mid;
    else hi = mid;
  }
  out->key = hudi_write_rows_key(sk->rows, row, &out->key_len);
  out->partition = sk->spans[lo].partition;
  out->file_id = sk->spans[lo].file_id;
}

/* Splits the write stats into spans of rows, checking they cover the rows
 * in order and in their partitions. */
static hudi_status key_spans(const hudi_commit_metadata *meta, const hudi_write_rows *rows, hudi_write_file_span **out,
                             size_t *n_out, hudi_error *err) {
  size_t n_parts = 0, row = 0, n = 0, cap = 0;
  hudi_write_file_span *spans = NULL;
  const hudi_partition_write_stats *parts = hudi_commit_metadata_partitions(meta, &n_parts);
  hudi_status st = HUDI_OK;
  for (size_t p = 0; st == HUDI_OK && p < n_parts; p++) {
    const char *pp = parts[p].key ? parts[p].key : "";
    size_t nw;
    const hudi_write_stat *ws = hudi_partition_stats(&parts[p], &nw);
    for (size_t i = 0; st == HUDI_OK && i < nw; i++) {
      int64_t w = ws[i].num_writes.v;
      if (w < 0 || (uint64_t)w > rows->n - row || !ws[i].file_id) {
        st = hudi_err_set(err, HUDI_ERR_INTERNAL, "write stats do not match the %zu rows written", rows->n);
        break;
      }
      /* Rows are ordered by partition: the range's first and last rows
       * in pp put every row between them there. */
      for (int64_t e = 0; st == HUDI_OK && w > 0 && e < 2; e++) {
        size_t at = row + (e ? (size_t)w - 1 : 0);
        if (strcmp(hudi_write_rows_partition(rows, at), pp) != 0)
          st = hudi_err_set(err, HUDI_ERR_INTERNAL, "row %zu is in partition '%s', its write stat in '%s'", at,
                            hudi_write_rows_partition(rows, at), pp);
      }
      if (st != HUDI_OK || w == 0) continue;
      if (n == cap) {
        cap = cap ? cap * 2 : 16;
        hudi_write_file_span *g = hudi_realloc(spans, cap * sizeof *g);
        if (!g) {
          st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
          break;
        }
        spans = g;
      }
      spans[n++] = (hudi_write_file_span){row, pp, ws[i].file_id};
      row += (size_t)w;
    }
  }
  if (st == HUDI_OK && row != rows->n)
    st = hudi_err_set(err, HUDI_ERR_INTERNAL, "write stats cover %zu of the %zu rows written", row, rows->n);
  if (st != HUDI_OK) {
    hudi_free(spans);
    return st;
  }
  *out = spans;
  *n_out = n;
  return HUDI_OK;
}

/* ---- a bulk insert's record index, built while its files are written ---- */

struct hudi_write_mdt_bulk_rli {
  pthread_t thread;
  bool running; /* started, not joined */
  hudi_storage *s;
  hudi_mdt_write_options o;
  hudi_mdt_commit_input in;
  span_keys sk;
  hudi_write_file_span *spans; /* sk's, owned */
  char (*file_ids)[HUDI_WRITE_FILE_ID_BUF]; /* the spans' file ids, copied */
  char instant[HUDI_INSTANT_TIME_BUF];
  hudi_mdt_begun *begun;
  atomic_bool cancel; /* the files failed: write nothing more */
  hudi_status status;
  hudi_error error;
};

static void *bulk_rli_main(void *arg) {
  hudi_write_mdt_bulk_rli *b = arg;
  b->status = hudi_mdt_begin(&b->begun, b->s, &b->o, &b->in, &b->error);
  return NULL;
}

hudi_status hudi_write_mdt_bulk_rli_start(hudi_write_mdt_bulk_rli **out, hudi_table *t, const hudi_option *opts,
                                          size_t n_opts, const char *instant, const hudi_write_rows *rows,
                                          const hudi_write_file_span *spans, size_t n_spans, hudi_error *err) {
  *out = NULL;
  /* The append checked the table's MDT (hudi_write_check_table_mdt)
   * before reading its input. */
  if (!hudi_write_mdt_enabled(t) || !hudi_write_mdt_has_record_index(t) || rows->n == 0 || n_spans == 0)
    return HUDI_OK;
  hudi_write_mdt_bulk_rli *b = hudi_calloc(1, sizeof *b);
  if (b) b->spans = hudi_malloc(n_spans * sizeof *b->spans);
  if (b && b->spans) b->file_ids = hudi_malloc(n_spans * sizeof *b->file_ids);
  if (!b || !b->spans || !b->file_ids) {
    if (b) hudi_free(b->spans);
    hudi_free(b);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < n_spans; i++) {
    if (strlen(spans[i].file_id) >= HUDI_WRITE_FILE_ID_BUF) {
      hudi_write_mdt_bulk_rli_free(b);
      return hudi_err_set(err, HUDI_ERR_INTERNAL, "file id '%s' too long", spans[i].file_id);
    }
    snprintf(b->file_ids[i], sizeof b->file_ids[i], "%s", spans[i].file_id);
    b->spans[i] = (hudi_write_file_span){spans[i].from, spans[i].partition, b->file_ids[i]};
  }
  snprintf(b->instant, sizeof b->instant, "%s", instant);
  b->s = t->storage;
  b->o = mdt_options(t, opts, n_opts);
  atomic_init(&b->cancel, false);
  b->o.cancel = &b->cancel;
  b->sk = (span_keys){rows, b->spans, n_spans};
  b->in = (hudi_mdt_commit_input){b->instant, NULL, 0, NULL, rows->n, span_key_at, &b->sk};
  b->error = (hudi_error)HUDI_ERROR_INIT;
  /* No thread (a limit of the process): the commit builds the index itself. */
  b->running = pthread_create(&b->thread, NULL, bulk_rli_main, b) == 0;
  if (!b->running) {
    hudi_write_mdt_bulk_rli_free(b);
    return HUDI_OK;
  }
  *out = b;
  return HUDI_OK;
}

static void bulk_rli_join(hudi_write_mdt_bulk_rli *b) {
  if (!b->running) return;
  pthread_join(b->thread, NULL);
  b->running = false;
}

void hudi_write_mdt_bulk_rli_cancel(hudi_write_mdt_bulk_rli *b) {
  if (b) atomic_store(&b->cancel, true);
}

void hudi_write_mdt_bulk_rli_free(hudi_write_mdt_bulk_rli *b) {
  if (!b) return;
  bulk_rli_join(b);
  hudi_error_clear(&b->error);
  hudi_mdt_begun_free(b->begun);
  hudi_free(b->spans);
  hudi_free(b->file_ids);
  hudi_free(b);
}

/* The spans the written files' stats make must be those b was built for. */
static hudi_status same_spans(const hudi_write_mdt_bulk_rli *b, const hudi_write_file_span *spans, size_t n,
                              hudi_error *err) {
  bool same = n == b->sk.n_spans;
  for (size_t i = 0; same && i < n; i++)
    same = spans[i].from == b->spans[i].from && !strcmp(spans[i].partition, b->spans[i].partition) &&
           !strcmp(spans[i].file_id, b->spans[i].file_id);
  return same ? HUDI_OK
              : hudi_err_set(err, HUDI_ERR_INTERNAL, "the record index was built for other files than written");
}

hudi_status hudi_write_mdt_bulk_insert(hudi_table *t, const hudi_option *opts, size_t n_opts, const char *instant,
                                       const hudi_commit_metadata *meta, const hudi_write_rows *rows,
                                       hudi_write_mdt_bulk_rli *rli, hudi_instant_gen *gen, hudi_error *err) {
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  size_t n_keys = hudi_write_mdt_has_record_index(t) ? rows->n : 0;
  if (n_keys == 0) return hudi_write_mdt_update(t, opts, n_opts, instant, meta, NULL, 0, NULL, 0, gen, err);
  hudi_write_file_span *spans = NULL;
  size_t n_spans = 0;
  hudi_mdt_begun *begun = NULL;
  hudi_status st = HUDI_OK;
  if (rli) {
    bulk_rli_join(rli);
    st = rli->status;
    if (st != HUDI_OK && err) {
      *err = rli->error;
      rli->error = (hudi_error)HUDI_ERROR_INIT;
    }
    begun = rli->begun;
  }
  if (st == HUDI_OK) st = key_spans(meta, rows, &spans, &n_spans, err);
  if (st == HUDI_OK && rli) st = same_spans(rli, spans, n_spans, err);
  /* The MDT commit reads the keys from the rows: no array of changes. */
  span_keys sk = {rows, spans, n_spans};
  hudi_mdt_commit_input in = {instant, NULL, 0, NULL, n_keys, span_key_at, &sk};
  if (st == HUDI_OK) st = mdt_update(t, opts, n_opts, meta, NULL, 0, &in, begun, gen, err);
  hudi_free(spans);
  return st;
}

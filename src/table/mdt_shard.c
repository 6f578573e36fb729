/* Key-to-file-group mapping and sharded lookups of the metadata table. */
#include "table/mdt_shard.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/threadpool.h"

static const struct {
  const char *partition, *prefix;
} PREFIXES[] = {{"files", "files-"},
                {"column_stats", "col-stats-"},
                {"bloom_filters", "bloom-filters-"},
                {"record_index", "record-index-"},
                {"partition_stats", "partition-stats-"}};

const char *hudi_mdt_file_id_prefix(char *buf, size_t cap, const char *partition) {
  for (size_t i = 0; i < sizeof PREFIXES / sizeof PREFIXES[0]; i++)
    if (strcmp(partition, PREFIXES[i].partition) == 0) {
      if ((size_t)snprintf(buf, cap, "%s", PREFIXES[i].prefix) >= cap) return NULL;
      return buf;
    }
  static const char *const KINDS[] = {"secondary_index_", "expr_index_"};
  for (size_t k = 0; k < 2; k++) {
    size_t n = strlen(KINDS[k]);
    if (strncmp(partition, KINDS[k], n) != 0 || !partition[n]) continue;
    if ((size_t)snprintf(buf, cap, "%s-", partition) >= cap) return NULL;
    for (char *p = buf; *p; p++)
      if (*p == '_') *p = '-';
    return buf;
  }
  return NULL;
}

hudi_status hudi_mdt_file_id(hudi_buf *out, const char *partition, int32_t index, hudi_error *err) {
  char prefix[512];
  if (!hudi_mdt_file_id_prefix(prefix, sizeof prefix, partition) || index < 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "no metadata file group %d in partition '%s'", (int)index,
                        partition);
  return hudi_buf_printf(out, err, "%s%04d-0", prefix, (int)index);
}

hudi_status hudi_mdt_shard_of(int32_t *out, const char *key, size_t len, size_t n_groups, hudi_error *err) {
  if (n_groups < 1 || n_groups > INT32_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%zu metadata file groups", n_groups);
  return hudi_record_index_shard(out, key, len, (int32_t)n_groups, err);
}

/* A key's place in the batch: its shard, then its bytes. */
typedef struct keyed {
  int32_t shard;
  size_t index; /* into the caller's keys */
  const hudi_hfile_key *key;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
  size_t n = x->key->len < y->key->len ? x->key->len : y->key->len;
  int c = memcmp(x->key->data, y->key->data, n);
  if (c) return c;
  return x->key->len < y->key->len ? -1 : x->key->len > y->key->len;
}

/* One merged lookup of a shard's keys (sorted here, on the lane that looks
 * them up); a repeated key gets a copy. */
static hudi_status lookup_shard(hudi_mdt *m, const hudi_file_group *g, keyed *ks, size_t n,
                                hudi_mdt_records *out, hudi_mdt_read_stats *stats, hudi_error *err) {
  qsort(ks, n, sizeof *ks, cmp_keyed);
  /* Distinct keys of the shard, in order. */
  hudi_hfile_key *keys = hudi_calloc(n, sizeof *keys);
  size_t *first = hudi_calloc(n, sizeof *first); /* distinct key -> position in ks */
  if (!keys || !first) {
    hudi_free(keys);
    hudi_free(first);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  size_t d = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || cmp_keyed(&ks[i - 1], &ks[i]) != 0) {
      keys[d] = *ks[i].key;
      first[d++] = i;
    }
  hudi_mdt_records found = {0};
  hudi_status st = hudi_mdt_group_lookup(m, g, keys, d, &found, stats, err);
  for (size_t j = 0; st == HUDI_OK && j < d; j++) {
    if (!found.items[j].key) continue;
    size_t end = j + 1 < d ? first[j + 1] : n;
    out->items[ks[first[j]].index] = found.items[j];
    memset(&found.items[j], 0, sizeof found.items[j]);
    for (size_t r = first[j] + 1; r < end; r++) {
      const hudi_mdt_record *src = &out->items[ks[first[j]].index];
      hudi_mdt_record *dst = &out->items[ks[r].index];
      st = hudi_mdt_record_copy(dst, src, err);
      if (st != HUDI_OK) break;
    }
  }
  hudi_mdt_records_free(&found);
  hudi_free(keys);
  hudi_free(first);
  return st;
}

/* Keys from which the shards are looked up on every core: below, a
 * thread's start costs more than the lookups it would take over (a key
 * costs ~2.5 us: most of a shard's blocks inflated, its records decoded). */
#define PARALLEL_MIN_KEYS 4096

/* The shards of one lookup, each a run [start[s], start[s + 1]) of ks. */
typedef struct shard_runs {
  hudi_mdt *m;
  const hudi_file_group *groups;
  keyed *ks;
  const size_t *start;
  const int32_t *shard;
  size_t n;
  atomic_size_t next; /* the next shard a lane takes */
  hudi_mdt_records *out;
  hudi_mdt_read_stats *lane_stats; /* one per lane */
} shard_runs;

static void stats_add(hudi_mdt_read_stats *to, const hudi_mdt_read_stats *s) {
  to->base_files_opened += s->base_files_opened;
  to->base_data_blocks_read += s->base_data_blocks_read;
  to->base_bytes_read += s->base_bytes_read;
  to->log_files_opened += s->log_files_opened;
  to->log_blocks_merged += s->log_blocks_merged;
  to->log_blocks_skipped += s->log_blocks_skipped;
  to->log_bytes_read += s->log_bytes_read;
}

/* One lane: shards taken one at a time until none is left. The handle is
 * shared: the one part of it a lookup changes, the payload schema cache,
 * takes a lock (mdt_reader.c), and the records point into it, so they
 * live as long as the handle. Each shard writes only its own keys' items
 * of out. */
static hudi_status lookup_lane(void *ctx, size_t lane, hudi_error *err) {
  shard_runs *r = ctx;
  hudi_status st = HUDI_OK;
  for (size_t s; st == HUDI_OK && (s = atomic_fetch_add(&r->next, 1)) < r->n;)
    st = lookup_shard(r->m, &r->groups[r->shard[s]], &r->ks[r->start[s]], r->start[s + 1] - r->start[s], r->out,
                      &r->lane_stats[lane], err);
  return st;
}

/* The shards' lookups on every core (hudi_cpu_count lanes). */
static hudi_status lookup_parallel(hudi_mdt *m, const hudi_file_group *groups, keyed *ks, const size_t *start,
                                   const int32_t *shard, size_t n, hudi_mdt_records *out, hudi_mdt_read_stats *stats,
                                   hudi_error *err) {
  size_t lanes = (size_t)hudi_cpu_count();
  if (lanes > n) lanes = n;
  if (lanes > HUDI_THREADPOOL_MAX_THREADS) lanes = HUDI_THREADPOOL_MAX_THREADS;
  hudi_threadpool *pool = NULL;
  hudi_error ignored = HUDI_ERROR_INIT;
  if (hudi_threadpool_create(&pool, (int)lanes - 1, &ignored) != HUDI_OK) { /* no thread: one lane, here */
    hudi_error_clear(&ignored);
    pool = NULL;
    lanes = 1;
  }
  shard_runs r = {m, groups, ks, start, shard, n, 0, out, hudi_calloc(lanes, sizeof *r.lane_stats)};
  hudi_status st = r.lane_stats ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st == HUDI_OK) st = hudi_parallel_for(pool, lanes, lookup_lane, &r, err);
  hudi_threadpool_free(pool);
  for (size_t l = 0; stats && r.lane_stats && l < lanes; l++) stats_add(stats, &r.lane_stats[l]);
  hudi_free(r.lane_stats);
  return st;
}

/* The runs of ks (sorted by shard) that share a shard, and the lookups:
 * serial for few keys or one core, else parallel. */
static hudi_status lookup_shards(hudi_mdt *m, const hudi_file_group *groups, keyed *ks, size_t n_keys,
                                 hudi_mdt_records *out, hudi_mdt_read_stats *stats, hudi_error *err) {
  size_t n = 0;
  for (size_t i = 0; i < n_keys; i++) n += i == 0 || ks[i].shard != ks[i - 1].shard;
  size_t *start = hudi_calloc(n + 1, sizeof *start);
  int32_t *shard = hudi_calloc(n + 1, sizeof *shard);
  hudi_status st = start && shard ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0, s = 0; st == HUDI_OK && i < n_keys; i++)
    if (i == 0 || ks[i].shard != ks[i - 1].shard) {
      start[s] = i;
      shard[s++] = ks[i].shard;
    }
  if (st == HUDI_OK) start[n] = n_keys;
  if (st == HUDI_OK && n > 1 && n_keys >= PARALLEL_MIN_KEYS && hudi_cpu_count() > 1)
    st = lookup_parallel(m, groups, ks, start, shard, n, out, stats, err);
  else
    for (size_t s = 0; st == HUDI_OK && s < n; s++)
      st = lookup_shard(m, &groups[shard[s]], &ks[start[s]], start[s + 1] - start[s], out, stats, err);
  hudi_free(start);
  hudi_free(shard);
  return st;
}

hudi_status hudi_mdt_partition_lookup(hudi_mdt *m, const char *partition, const hudi_hfile_key *keys, size_t n_keys,
                                      hudi_mdt_records *out, hudi_mdt_read_stats *stats, hudi_error *err) {
  out->items = hudi_calloc(n_keys ? n_keys : 1, sizeof *out->items);
  out->count = 0;
  if (!out->items) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  out->count = n_keys;
  size_t n_groups;
  const hudi_file_group *groups = hudi_mdt_groups(m, partition, &n_groups);
  if (!n_groups || !n_keys) return HUDI_OK;
  keyed *ks = hudi_calloc(n_keys, sizeof *ks);
  if (!ks) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n_keys; i++) {
    ks[i].index = i;
    ks[i].key = &keys[i];
    st = hudi_mdt_shard_of(&ks[i].shard, (const char *)keys[i].data, keys[i].len, n_groups, err);
  }
  /* Grouped by shard (a counting sort: each shard's keys are sorted by
   * the lane that looks them up). */
  keyed *by_shard = st == HUDI_OK ? hudi_calloc(n_keys, sizeof *by_shard) : NULL;
  size_t *at = st == HUDI_OK ? hudi_calloc(n_groups + 1, sizeof *at) : NULL;
  if (st == HUDI_OK && (!by_shard || !at)) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st == HUDI_OK) {
    for (size_t i = 0; i < n_keys; i++) at[ks[i].shard + 1]++;
    for (size_t g = 0; g < n_groups; g++) at[g + 1] += at[g];
    for (size_t i = 0; i < n_keys; i++) by_shard[at[ks[i].shard]++] = ks[i];
  }
  if (st == HUDI_OK) st = lookup_shards(m, groups, by_shard, n_keys, out, stats, err);
  hudi_free(at);
  hudi_free(by_shard);
  hudi_free(ks);
  if (st != HUDI_OK) hudi_mdt_records_free(out);
  return st;
}

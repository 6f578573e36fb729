/* Planning statistics of a snapshot read (hudi_table_compute_stats in
 * hudi/read.h): hudi-rs's Table::compute_table_stats, computed the same way
 * so that engines planning with either library see the same numbers. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/error.h"
#include "hudi/read.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "table/commit_metadata.h"
#include "table/mdt_files.h"
#include "table/mdt_reader.h"
#include "table/schema_resolve.h"
#include "table/table.h"

static void not_available(hudi_table_stats *out, const char *fmt, ...) HUDI_PRINTF(2, 3);
static void not_available(hudi_table_stats *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->reason, sizeof out->reason, fmt, ap);
  va_end(ap);
  out->available = false;
}

/* Whether the comma-separated list has item. */
static bool list_has(const char *list, const char *item) {
  size_t k = strlen(item);
  for (const char *p = list; p && *p;) {
    const char *c = strchr(p, ',');
    size_t n = c ? (size_t)(c - p) : strlen(p);
    if (n == k && strncmp(p, item, k) == 0) return true;
    p = c ? c + 1 : NULL;
  }
  return false;
}

static bool ends_with_ci(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* hoodie.read.query.type from the read options only: hudi-rs keeps read
 * configs out of the table's options. */
static const char *query_type(const hudi_read_options *o) {
  const char *v = NULL;
  for (size_t i = 0; o && i < o->n_options; i++)
    if (o->options[i].key && strcmp(o->options[i].key, "hoodie.read.query.type") == 0) v = o->options[i].value;
  return v;
}

/* Keeps an error only when it is the caller's to see (out of memory);
 * anything else makes the stats unavailable, as in hudi-rs. */
static hudi_status soften(hudi_status st, hudi_table_stats *out, const char *what, hudi_error *err) {
  if (st == HUDI_ERR_NOMEM) return st;
  not_available(out, "%s: %s", what, err ? err->message : "failed");
  if (err) hudi_error_clear(err);
  return HUDI_OK;
}

/* Sum of the on-disk sizes of the live .parquet files of every partition
 * in the metadata table's files partition. */
static hudi_status mdt_parquet_bytes(uint64_t *total, hudi_mdt *m, hudi_error *err) {
  *total = 0;
  hudi_mdt_strings parts = {0};
  HUDI_TRY(hudi_mdt_list_partitions(m, &parts, NULL, err));
  hudi_mdt_partition_files *files = NULL;
  hudi_status st = HUDI_OK;
  if (parts.count) st = hudi_mdt_list_files(m, (const char *const *)parts.items, parts.count, &files, NULL, err);
  for (size_t i = 0; st == HUDI_OK && i < parts.count; i++)
    for (size_t j = 0; j < files[i].n_files; j++)
      if (ends_with_ci(files[i].files[j].name, ".parquet")) *total += files[i].files[j].size;
  if (files) hudi_mdt_partition_files_free(files, parts.count);
  hudi_mdt_strings_free(&parts);
  return st;
}

/* hudi-rs's HoodieCommitMetadata::iter_base_file_paths, smallest first:
 * a delta stat's baseFile joined to its partition; a stat without
 * logFiles, its path. */
static void min_base_file_path(char *out, size_t cap, const hudi_commit_metadata *m) {
  size_t np = 0;
  const hudi_partition_write_stats *parts = hudi_commit_metadata_partitions(m, &np);
  for (size_t i = 0; i < np; i++) {
    size_t ns = 0;
    const hudi_write_stat *stats = hudi_partition_stats(&parts[i], &ns);
    for (size_t j = 0; j < ns; j++) {
      const hudi_write_stat *s = &stats[j];
      char path[1024];
      if (s->base_file && *s->base_file) {
        const char *part = parts[i].key ? parts[i].key : "";
        if (*part) snprintf(path, sizeof path, "%s/%s", part, s->base_file);
        else snprintf(path, sizeof path, "%s", s->base_file);
      } else if (!s->log_files.has && s->path && *s->path) {
        snprintf(path, sizeof path, "%s", s->path);
      } else {
        continue;
      }
      if (!*out || strcmp(path, out) < 0) snprintf(out, cap, "%s", path);
    }
  }
}

/* The sample base file: from the latest completed write (in requested
 * time order) whose metadata names one. Metadata that cannot be read is
 * passed over, as hudi-rs does. */
static hudi_status sample_path(char *out, size_t cap, hudi_table *t, hudi_error *err) {
  *out = '\0';
  const hudi_timeline *tl = &t->timeline;
  for (size_t i = tl->count; i-- > 0 && !*out;) {
    const hudi_instant *in = &tl->items[i];
    if (!hudi_instant_is_write(in)) continue;
    hudi_commit_metadata *m = NULL;
    hudi_status st = hudi_table_instant_metadata(&m, t, in, err);
    if (st == HUDI_ERR_NOMEM) return st;
    if (st != HUDI_OK) {
      if (err) hudi_error_clear(err);
      continue;
    }
    min_base_file_path(out, cap, m);
    hudi_commit_metadata_free(m);
  }
  return HUDI_OK;
}

/* hudi-rs's FileStatsEstimator::from_parquet_footer and estimate(), in the
 * same double arithmetic. */
static void estimate(hudi_table_stats *out, const hudi_pq_file_meta *fm, uint64_t size) {
  int64_t on_disk = 0, uncompressed = 0;
  for (uint32_t g = 0; g < fm->num_row_groups; g++) {
    const hudi_pq_row_group *rg = &fm->row_groups[g];
    for (uint32_t c = 0; c < rg->num_columns; c++) on_disk += rg->columns[c].meta.total_compressed_size;
    uncompressed += rg->total_byte_size;
  }
  double ratio = on_disk > 0 ? (double)uncompressed / (double)on_disk : 1.0;
  double avg_row = fm->num_rows > 0 ? (double)on_disk / (double)fm->num_rows : 0.0;
  double bytes = (double)size * ratio;
  double rows = avg_row > 0.0 ? (double)size / avg_row : 0.0;
  /* Rust's `as i64` then max(0): saturating, negative to 0. */
  out->byte_size = bytes > 0.0 ? (bytes >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)bytes) : 0;
  out->num_rows = rows > 0.0 ? (rows >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)rows) : 0;
  out->available = true;
  out->reason[0] = '\0';
}

static hudi_status footer_estimate(hudi_table_stats *out, hudi_table *t, const char *path, uint64_t total,
                                   hudi_error *err) {
  hudi_pq_reader *r = NULL;
  hudi_status st = hudi_pq_reader_open(&r, t->storage, path, NULL, err);
  if (st != HUDI_OK) return soften(st, out, "reading the footer of the sample base file", err);
  estimate(out, hudi_pq_reader_meta(r), total);
  hudi_pq_reader_free(r);
  return HUDI_OK;
}

hudi_status hudi_table_compute_stats(hudi_table_stats *out, hudi_table *t, const hudi_read_options *opts,
                                     hudi_error *err) {
  if (!out || !t) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_compute_stats: NULL argument");
  memset(out, 0, sizeof *out);
  const char *qt = query_type(opts);
  if (qt && strcasecmp(qt, "incremental") == 0) {
    not_available(out, "incremental queries have no table stats (commit metadata lacks base file sizes)");
    return HUDI_OK;
  }
  if (qt && strcasecmp(qt, "snapshot") != 0) {
    not_available(out, "hoodie.read.query.type: '%s' is not a query type", qt);
    return HUDI_OK;
  }
  if (t->version < 8) {
    not_available(out, "table version %d: stats come from the metadata table, used from version 8", t->version);
    return HUDI_OK;
  }
  const char *fmt = hudi_props_get(&t->props, "hoodie.table.base.file.format");
  if (fmt && *fmt && strcasecmp(fmt, "parquet") != 0) {
    not_available(out, "base file format %s: stats are sampled from Parquet footers", fmt);
    return HUDI_OK;
  }
  const char *parts = hudi_props_get(&t->props, "hoodie.table.metadata.partitions");
  if (!parts || !list_has(parts, "files")) {
    not_available(out, "the table has no metadata table files partition");
    return HUDI_OK;
  }
  hudi_mdt *m = NULL;
  hudi_status st = hudi_mdt_open(&m, t, err);
  if (st != HUDI_OK) return soften(st, out, "opening the metadata table", err);
  uint64_t total = 0;
  st = mdt_parquet_bytes(&total, m, err);
  hudi_mdt_free(m);
  if (st != HUDI_OK) return soften(st, out, "reading the metadata table's files partition", err);
  if (total == 0) {
    not_available(out, "the metadata table lists no Parquet files");
    return HUDI_OK;
  }
  char path[1024];
  HUDI_TRY(sample_path(path, sizeof path, t, err));
  if (!*path || !ends_with_ci(path, ".parquet")) {
    not_available(out, "no completed write names a Parquet base file to sample");
    return HUDI_OK;
  }
  return footer_estimate(out, t, path, total, err);
}

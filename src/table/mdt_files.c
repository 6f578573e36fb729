/* Listing partitions and files from the metadata table. */
#include "table/mdt_files.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "table/mdt_shard.h"

#define FILES_PARTITION "files"

void hudi_mdt_strings_free(hudi_mdt_strings *s) {
  if (!s) return;
  for (size_t i = 0; i < s->count; i++) hudi_free(s->items[i]);
  hudi_free(s->items);
  s->items = NULL;
  s->count = 0;
}

void hudi_mdt_partition_files_free(hudi_mdt_partition_files *p, size_t n) {
  if (!p) return;
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < p[i].n_files; j++) hudi_free(p[i].files[j].name);
    hudi_free(p[i].files);
    hudi_free(p[i].partition);
  }
  hudi_free(p);
}

static hudi_status check_available(const hudi_mdt *m, hudi_error *err) {
  size_t n;
  if (!hudi_mdt_partition_available(m, FILES_PARTITION) || !hudi_mdt_groups(m, FILES_PARTITION, &n))
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "the metadata table has no files partition");
  return HUDI_OK;
}

static char *dup_n(const char *s, size_t n) {
  char *c = hudi_malloc(n + 1);
  if (c) {
    memcpy(c, s, n);
    c[n] = 0;
  }
  return c;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int cmp_file(const void *a, const void *b) {
  return strcmp(((const hudi_mdt_file *)a)->name, ((const hudi_mdt_file *)b)->name);
}

static size_t count_live(const hudi_mdt_record *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_files; i++) n += !r->files[i].is_deleted;
  return n;
}

hudi_status hudi_mdt_list_partitions(hudi_mdt *m, hudi_mdt_strings *out, hudi_mdt_read_stats *stats,
                                     hudi_error *err) {
  out->items = NULL;
  out->count = 0;
  HUDI_TRY(check_available(m, err));
  hudi_hfile_key k = {(const uint8_t *)HUDI_MDT_ALL_PARTITIONS_KEY, strlen(HUDI_MDT_ALL_PARTITIONS_KEY)};
  hudi_mdt_records recs;
  HUDI_TRY(hudi_mdt_partition_lookup(m, FILES_PARTITION, &k, 1, &recs, stats, err));
  const hudi_mdt_record *r = &recs.items[0];
  hudi_status st = HUDI_OK;
  if (r->key && r->type != HUDI_MDT_TYPE_PARTITION_LIST)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata record %s has type %d, not 1", HUDI_MDT_ALL_PARTITIONS_KEY,
                      (int)r->type);
  size_t live = r->key ? count_live(r) : 0;
  if (st == HUDI_OK && live) {
    out->items = hudi_calloc(live, sizeof *out->items);
    if (!out->items) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; st == HUDI_OK && r->key && i < r->n_files; i++) {
    const hudi_mdt_file_entry *e = &r->files[i];
    if (e->is_deleted) continue;
    bool dot = e->name_len == 1 && e->name[0] == '.';
    char *p = dot ? dup_n("", 0) : dup_n(e->name, e->name_len);
    if (!p) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    else out->items[out->count++] = p;
  }
  hudi_mdt_records_free(&recs);
  if (st != HUDI_OK) {
    hudi_mdt_strings_free(out);
    return st;
  }
  if (out->count > 1) qsort(out->items, out->count, sizeof *out->items, cmp_str);
  return HUDI_OK;
}

static hudi_status fill(hudi_mdt_partition_files *p, const hudi_mdt_record *r, hudi_error *err) {
  if (!r->key) return HUDI_OK;
  if (r->type != HUDI_MDT_TYPE_FILE_LIST)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata record '%s' has type %d, not 2", r->key, (int)r->type);
  p->found = 1;
  size_t live = count_live(r);
  if (!live) return HUDI_OK;
  p->files = hudi_calloc(live, sizeof *p->files);
  if (!p->files) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < r->n_files; i++) {
    const hudi_mdt_file_entry *e = &r->files[i];
    if (e->is_deleted) continue;
    if (e->size <= 0)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata record '%s': file %.*s has size %lld", r->key,
                          (int)e->name_len, e->name, (long long)e->size);
    char *nm = dup_n(e->name, e->name_len);
    if (!nm) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    p->files[p->n_files].name = nm;
    p->files[p->n_files++].size = (uint64_t)e->size;
  }
  qsort(p->files, p->n_files, sizeof *p->files, cmp_file);
  return HUDI_OK;
}

hudi_status hudi_mdt_list_files(hudi_mdt *m, const char *const *partitions, size_t n, hudi_mdt_partition_files **out,
                                hudi_mdt_read_stats *stats, hudi_error *err) {
  *out = NULL;
  HUDI_TRY(check_available(m, err));
  hudi_mdt_partition_files *res = hudi_calloc(n ? n : 1, sizeof *res);
  hudi_hfile_key *keys = hudi_calloc(n ? n : 1, sizeof *keys);
  hudi_status st = res && keys ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    res[i].partition = hudi_strdup(partitions[i]);
    if (!res[i].partition) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    const char *k = partitions[i][0] ? partitions[i] : HUDI_MDT_NON_PARTITIONED_NAME;
    keys[i].data = (const uint8_t *)k;
    keys[i].len = strlen(k);
  }
  hudi_mdt_records recs = {0};
  if (st == HUDI_OK) st = hudi_mdt_partition_lookup(m, FILES_PARTITION, keys, n, &recs, stats, err);
  for (size_t i = 0; st == HUDI_OK && i < n; i++) st = fill(&res[i], &recs.items[i], err);
  hudi_mdt_records_free(&recs);
  hudi_free(keys);
  if (st != HUDI_OK) {
    hudi_mdt_partition_files_free(res, res ? n : 0);
    return st;
  }
  *out = res;
  return HUDI_OK;
}

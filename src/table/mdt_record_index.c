/* Record-level index lookups. */
#include "table/mdt_record_index.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "table/mdt_shard.h"

bool hudi_mdt_has_record_index(const hudi_mdt *m) {
  size_t n;
  return hudi_mdt_partition_available(m, HUDI_MDT_RECORD_INDEX) && hudi_mdt_groups(m, HUDI_MDT_RECORD_INDEX, &n);
}

void hudi_rli_locations_free(hudi_rli_location *locs, size_t n) {
  if (!locs) return;
  for (size_t i = 0; i < n; i++) {
    hudi_free(locs[i].partition);
    hudi_free(locs[i].file_id);
  }
  hudi_free(locs);
}

static hudi_status to_location(hudi_rli_location *loc, const hudi_mdt_record *r, bool utc, hudi_error *err) {
  if (r->type != HUDI_MDT_TYPE_RECORD_INDEX || !r->has_rli)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "record index entry '%s' has type %d and no recordIndexMetadata",
                        r->key, (int)r->type);
  if (!r->rli.has_instant)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "record index entry '%s' has no instantTime", r->key);
  hudi_buf id;
  hudi_buf_init(&id, 1 << 20);
  hudi_status st = hudi_mdt_rli_file_id(&r->rli, &id, err);
  uint8_t *s = NULL;
  size_t len;
  if (st == HUDI_OK) st = hudi_buf_detach(&id, &s, &len, err);
  hudi_buf_free(&id);
  if (st != HUDI_OK) return hudi_err_context(err, st, "record index entry '%s'", r->key);
  loc->file_id = (char *)s;
  loc->partition = hudi_strdup(r->rli.partition ? r->rli.partition : "");
  if (!loc->partition) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  loc->instant_ms = r->rli.instant_ms;
  loc->found = true;
  return hudi_instant_time_format_zone(loc->instant, loc->instant_ms, utc, err);
}

hudi_status hudi_mdt_record_index_lookup(hudi_mdt *m, const char *const *keys, const size_t *key_lens, size_t n,
                                         hudi_rli_location **out, hudi_mdt_read_stats *stats, hudi_error *err) {
  *out = NULL;
  if (!hudi_mdt_has_record_index(m))
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "the metadata table has no record index");
  const char *tz = hudi_table_property(hudi_mdt_data_table(m), "hoodie.table.timeline.timezone");
  bool utc = tz && strcmp(tz, "UTC") == 0;
  hudi_hfile_key *hk = hudi_calloc(n ? n : 1, sizeof *hk);
  hudi_rli_location *locs = hudi_calloc(n ? n : 1, sizeof *locs);
  hudi_status st = hk && locs ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    hk[i].data = (const uint8_t *)keys[i];
    hk[i].len = key_lens ? key_lens[i] : strlen(keys[i]);
  }
  hudi_mdt_records recs = {0};
  if (st == HUDI_OK) st = hudi_mdt_partition_lookup(m, HUDI_MDT_RECORD_INDEX, hk, n, &recs, stats, err);
  for (size_t i = 0; st == HUDI_OK && i < n; i++)
    if (recs.items[i].key) st = to_location(&locs[i], &recs.items[i], utc, err);
  hudi_mdt_records_free(&recs);
  hudi_free(hk);
  if (st != HUDI_OK) {
    hudi_rli_locations_free(locs, locs ? n : 0);
    return st;
  }
  *out = locs;
  return HUDI_OK;
}

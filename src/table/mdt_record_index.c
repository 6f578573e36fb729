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

/* The last entry's file id and instant, formatted: a lookup's entries
 * mostly share a few of each (the file groups and commits that wrote
 * them), and formatting one (snprintf, localtime_r) cost more than the
 * rest of turning an entry into a location. */
typedef struct location_cache {
  bool has_id, has_instant;
  int32_t encoding, file_index;
  int64_t high, low, instant_ms;
  hudi_buf id;
  char instant[HUDI_INSTANT_TIME_BUF];
} location_cache;

static bool same_uuid_id(const location_cache *c, const hudi_mdt_rli *r) {
  return c->has_id && r->encoding == 0 && c->encoding == 0 && r->has_high && r->has_low && r->has_file_index &&
         c->high == r->high_bits && c->low == r->low_bits && c->file_index == r->file_index;
}

static hudi_status file_id_of(location_cache *c, const hudi_mdt_rli *r, hudi_error *err) {
  if (same_uuid_id(c, r)) return HUDI_OK;
  c->has_id = false;
  hudi_buf_reset(&c->id);
  HUDI_TRY(hudi_mdt_rli_file_id(r, &c->id, err));
  HUDI_TRY(hudi_buf_append_byte(&c->id, 0, err));
  c->has_id = true;
  c->encoding = r->encoding;
  c->high = r->high_bits;
  c->low = r->low_bits;
  c->file_index = r->file_index;
  return HUDI_OK;
}

static hudi_status to_location(hudi_rli_location *loc, const hudi_mdt_record *r, bool utc, location_cache *c,
                               hudi_error *err) {
  if (r->type != HUDI_MDT_TYPE_RECORD_INDEX || !r->has_rli)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "record index entry '%s' has type %d and no recordIndexMetadata",
                        r->key, (int)r->type);
  if (!r->rli.has_instant)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "record index entry '%s' has no instantTime", r->key);
  hudi_status st = file_id_of(c, &r->rli, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "record index entry '%s'", r->key);
  loc->file_id = hudi_strdup((const char *)c->id.data);
  loc->partition = hudi_strdup(r->rli.partition ? r->rli.partition : "");
  if (!loc->file_id || !loc->partition) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  loc->instant_ms = r->rli.instant_ms;
  loc->found = true;
  if (!c->has_instant || c->instant_ms != loc->instant_ms) {
    c->has_instant = false;
    HUDI_TRY(hudi_instant_time_format_zone(c->instant, loc->instant_ms, utc, err));
    c->has_instant = true;
    c->instant_ms = loc->instant_ms;
  }
  memcpy(loc->instant, c->instant, sizeof loc->instant);
  return HUDI_OK;
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
  location_cache cache = {0};
  hudi_buf_init(&cache.id, 1 << 20);
  for (size_t i = 0; st == HUDI_OK && i < n; i++)
    if (recs.items[i].key) st = to_location(&locs[i], &recs.items[i], utc, &cache, err);
  hudi_buf_free(&cache.id);
  hudi_mdt_records_free(&recs);
  hudi_free(hk);
  if (st != HUDI_OK) {
    hudi_rli_locations_free(locs, locs ? n : 0);
    return st;
  }
  *out = locs;
  return HUDI_OK;
}

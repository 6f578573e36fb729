#include "table/insert_dup.h"

#include <strings.h>

#include "base/alloc.h"
#include "table/index_rli.h"
#include "table/write.h"

hudi_status hudi_insert_dup_policy(const hudi_table *t, const hudi_option *opts, size_t n, hudi_dup_policy *out,
                                   hudi_error *err) {
  const char *v = hudi_write_option(t, opts, n, "hoodie.datasource.insert.dup.policy");
  *out = HUDI_DUP_NONE;
  if (!v || !strcasecmp(v, "none")) return HUDI_OK;
  if (!strcasecmp(v, "drop")) *out = HUDI_DUP_DROP;
  else if (!strcasecmp(v, "fail")) *out = HUDI_DUP_FAIL;
  else
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "hoodie.datasource.insert.dup.policy='%s': expected none, drop or fail", v);
  return HUDI_OK;
}

static hudi_status already_there(const hudi_table *t, const char *key, size_t len, const hudi_index_loc *loc,
                                 hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "record key '%.*s' is already in table %s (partition '%s', file group %s) and "
                      "hoodie.datasource.insert.dup.policy is fail: nothing written; upsert replaces it, "
                      "policy drop leaves such rows out",
                      (int)(len < 200 ? len : 200), key, t->base_uri, loc->partition, loc->file_id);
}

hudi_status hudi_insert_dup_apply(hudi_index **ix, hudi_table *t, hudi_write_rows *r, hudi_dup_policy policy,
                                  hudi_error *err) {
  if (policy == HUDI_DUP_NONE || r->n == 0) return HUDI_OK;
  if (!*ix) HUDI_TRY(hudi_index_for_write(ix, t, err));
  const char **keys = hudi_calloc(r->n, sizeof *keys);
  size_t *lens = hudi_calloc(r->n, sizeof *lens);
  hudi_index_loc *locs = hudi_calloc(r->n, sizeof *locs);
  hudi_status st = keys && lens && locs ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < r->n; i++) keys[i] = hudi_write_rows_key(r, i, &lens[i]);
  if (st == HUDI_OK) st = hudi_index_lookup(*ix, locs, keys, lens, r->n, err);
  size_t kept = 0;
  for (size_t i = 0; st == HUDI_OK && i < r->n; i++) {
    if (!locs[i].partition) {
      r->order[kept++] = r->order[i];
    } else if (policy == HUDI_DUP_FAIL) {
      st = already_there(t, keys[i], lens[i], &locs[i], err);
    }
  }
  if (st == HUDI_OK) r->n = kept;
  hudi_free(keys);
  hudi_free(lens);
  hudi_free(locs);
  return st;
}

/* The record-level index behind the write path's index interface. */
#include "table/index_rli.h"

#include "base/alloc.h"
#include "table/mdt_reader.h"
#include "table/mdt_record_index.h"

typedef struct rli_batch {
  hudi_rli_location *locs;
  size_t n;
  struct rli_batch *next;
} rli_batch;

typedef struct rli_index {
  hudi_index base; /* first: the hudi_index * is this */
  hudi_mdt *mdt; /* the write's shared handle (mdt_reader.h), or owned */
  bool owned;
  rli_batch *batches; /* every lookup's results: index.h lends them until free */
} rli_index;

static hudi_status rli_lookup(hudi_index *ix, hudi_index_loc *out, const char *const *keys, const size_t *lens,
                              size_t n, hudi_error *err) {
  rli_index *r = (rli_index *)ix;
  ix->files_considered = ix->files_read = ix->bloom_checks = 0;
  if (n == 0) return HUDI_OK;
  rli_batch *b = hudi_calloc(1, sizeof *b);
  if (!b) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_mdt_read_stats stats = {0};
  hudi_status st = hudi_mdt_record_index_lookup(r->mdt, keys, lens, n, &b->locs, &stats, err);
  if (st != HUDI_OK) {
    hudi_free(b);
    return st;
  }
  b->n = n;
  ix->files_read = ix->files_considered = (size_t)(stats.base_files_opened + stats.log_files_opened);
  b->next = r->batches;
  r->batches = b;
  for (size_t i = 0; i < n; i++) {
    out[i].partition = b->locs[i].found ? b->locs[i].partition : NULL;
    out[i].file_id = b->locs[i].found ? b->locs[i].file_id : NULL;
  }
  return HUDI_OK;
}

static void rli_free(hudi_index *ix) {
  rli_index *r = (rli_index *)ix;
  for (rli_batch *b = r->batches, *next; b; b = next) {
    next = b->next;
    hudi_rli_locations_free(b->locs, b->n);
    hudi_free(b);
  }
  if (r->owned) hudi_mdt_free(r->mdt);
  hudi_free(r);
}

static const hudi_index_ops RLI_OPS = {"RECORD_INDEX", rli_lookup, rli_free};

hudi_status hudi_index_rli_create(hudi_index **out, hudi_table *t, hudi_error *err) {
  *out = NULL;
  rli_index *r = hudi_calloc(1, sizeof *r);
  if (!r) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  r->base.ops = &RLI_OPS;
  /* Within a write, the handle its file slicing opened (looked up before
   * the write's own commit, so as fresh as an opening here). */
  hudi_status st = hudi_mdt_acquire(&r->mdt, t, err);
  r->owned = st == HUDI_OK && r->mdt != t->shared_mdt;
  if (st == HUDI_OK && !hudi_mdt_has_record_index(r->mdt))
    st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "table %s has no record-level index", t->base_uri);
  if (st != HUDI_OK) {
    if (r->owned) hudi_mdt_free(r->mdt);
    hudi_free(r);
    return st;
  }
  *out = &r->base;
  return HUDI_OK;
}

hudi_status hudi_index_for_write(hudi_index **out, hudi_table *t, hudi_error *err) {
  hudi_status st = hudi_index_rli_create(out, t, err);
  if (st != HUDI_ERR_NOT_FOUND) return st;
  hudi_error_clear(err);
  return hudi_index_bloom_create(out, t, err);
}

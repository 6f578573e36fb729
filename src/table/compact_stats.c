/* The reading side of a compaction (compact_stats.h). */
#include "table/compact_stats.h"

#include <stdio.h>
#include <string.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "base/alloc.h"
#include "parquet/reader.h"
#include "table/log_avro_block.h"
#include "table/log_command_block.h"
#include "table/log_delete_block.h"
#include "table/log_reader.h"
#include "table/read_plan.h"

/* Keys of the base file -> their _hoodie_commit_seqno (offset into seqs),
 * to tell unchanged, updated and deleted records apart. */
hudi_status hudi_compact_base_keys_load(hudi_compact_base_keys *bk, hudi_storage *s, const hudi_fs_base_file *base, hudi_error *err) {
  hudi_hashmap_init(&bk->map, 0);
  hudi_buf_init(&bk->seqs, (size_t)1 << 34);
  if (!base) return HUDI_OK;
  static const char *const cols[] = {"_hoodie_record_key", "_hoodie_commit_seqno"};
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.columns = cols;
  o.n_columns = 2;
  o.file_size = base->size;
  hudi_pq_reader *r = NULL;
  HUDI_TRY(hudi_pq_reader_open(&r, s, base->path, &o, err));
  struct ArrowSchema sch;
  memset(&sch, 0, sizeof sch);
  hudi_status st = hudi_arrow_field_export(&sch, hudi_pq_reader_schema(r), err);
  const hudi_arrow_field *fs = hudi_pq_reader_schema(r);
  int64_t kc = hudi_arrow_field_child_index(fs, cols[0]), sc = hudi_arrow_field_child_index(fs, cols[1]);
  while (st == HUDI_OK) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_pq_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    hudi_arrow_view v;
    st = hudi_arrow_view_init(&v, &sch, &a, err);
    for (int64_t i = 0; st == HUDI_OK && i < v.length; i++) {
      int64_t row = hudi_arrow_view_struct_row(&v, i), kl = 0, sl = 0;
      const uint8_t *k = hudi_arrow_view_is_null(&v.children[kc], row) ? NULL
                                                                         : hudi_arrow_view_bytes(&v.children[kc], row, &kl);
      const uint8_t *q = hudi_arrow_view_is_null(&v.children[sc], row) ? NULL
                                                                         : hudi_arrow_view_bytes(&v.children[sc], row, &sl);
      if (!k) continue;
      hudi_hashmap_value hv = {.u64 = bk->seqs.len};
      uint32_t len = (uint32_t)sl;
      st = hudi_buf_append(&bk->seqs, &len, sizeof len, err);
      if (st == HUDI_OK && sl) st = hudi_buf_append(&bk->seqs, q, (size_t)sl, err);
      if (st == HUDI_OK) st = hudi_hashmap_put(&bk->map, k, (size_t)kl, hv, NULL, NULL, err);
      bk->n++;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  if (sch.release) sch.release(&sch);
  hudi_pq_reader_free(r);
  return st;
}

void hudi_compact_base_keys_free(hudi_compact_base_keys *bk) {
  hudi_hashmap_free(&bk->map);
  hudi_buf_free(&bk->seqs);
}

void hudi_compact_log_deletes_free(hudi_compact_log_deletes *d) {
  hudi_hashmap_free(&d->map);
  hudi_free(d->instants);
  memset(d, 0, sizeof *d);
}

const char *hudi_compact_log_deletes_get(const hudi_compact_log_deletes *d, const void *key, size_t len) {
  hudi_hashmap_value v;
  if (!d->map.count || !hudi_hashmap_get(&d->map, key, len, &v)) return NULL;
  return d->instants[v.u64];
}

/* A delete block seen while counting, kept until every rollback command
 * block of the slice is known. */
typedef struct pending_delete {
  hudi_log_delete_list dl;
  char instant[HUDI_INSTANT_TIME_MAX];
} pending_delete;

typedef struct count_ctx {
  hudi_compact_log_counts *lc;
  hudi_compact_log_deletes *dels; /* NULL: counts only */
  pending_delete *pend;
  size_t n_pend, cap_pend;
  char (*rolled_back)[HUDI_INSTANT_TIME_MAX];
  size_t n_rb, cap_rb;
} count_ctx;

static hudi_status grow(void **p, size_t *cap, size_t n, size_t size, hudi_error *err) {
  if (n < *cap) return HUDI_OK;
  size_t c = *cap ? *cap * 2 : 8;
  void *q = hudi_realloc(*p, c * size);
  if (!q) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  *p = q;
  *cap = c;
  return HUDI_OK;
}

static hudi_status note_command(count_ctx *cc, const hudi_log_block *b, const char *path, hudi_error *err) {
  if (!cc->dels) return HUDI_OK;
  hudi_log_command cmd;
  HUDI_TRY(hudi_log_command_block_read(&cmd, b, path, err));
  HUDI_TRY(grow((void **)&cc->rolled_back, &cc->cap_rb, cc->n_rb, sizeof *cc->rolled_back, err));
  snprintf(cc->rolled_back[cc->n_rb++], HUDI_INSTANT_TIME_MAX, "%s", cmd.target_instant ? cmd.target_instant : "");
  return HUDI_OK;
}

/* Counts of the planned logs' blocks and records (the write stat's
 * totalLogBlocks, totalLogRecords, totalRollbackBlocks, totalCorruptLogBlock). */
static hudi_status count_block(count_ctx *cc, hudi_log_reader *r, const hudi_log_block *b, const char *path,
                               hudi_buf *content, hudi_error *err) {
  hudi_compact_log_counts *lc = cc->lc;
  if (b->type == HUDI_LOG_BLOCK_COMMAND) {
    lc->rollback_blocks++;
    return note_command(cc, b, path, err);
  }
  if (b->type == HUDI_LOG_BLOCK_CORRUPT) {
    lc->corrupt_blocks++;
    return HUDI_OK;
  }
  lc->blocks++;
  const uint8_t *data = b->content;
  size_t len = (size_t)b->content_len;
  if (!data) {
    hudi_buf_reset(content);
    HUDI_TRY(hudi_log_reader_content(r, b, content, err));
    data = content->data ? content->data : (const uint8_t *)"";
    len = content->len;
  }
  if (b->type == HUDI_LOG_BLOCK_AVRO_DATA) {
    hudi_log_avro_records it;
    HUDI_TRY(hudi_log_avro_records_open(&it, data, len, b->content_offset, path, err));
    lc->records += it.count;
  } else if (b->type == HUDI_LOG_BLOCK_DELETE) {
    hudi_log_delete_list dl;
    memset(&dl, 0, sizeof dl);
    HUDI_TRY(hudi_log_delete_block_decode(&dl, data, len, b->content_offset, path, err));
    lc->records += (int64_t)dl.count;
    const char *instant = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_INSTANT_TIME, NULL);
    if (!cc->dels || !instant) {
      hudi_log_delete_list_free(&dl);
      return HUDI_OK;
    }
    hudi_status st = grow((void **)&cc->pend, &cc->cap_pend, cc->n_pend, sizeof *cc->pend, err);
    if (st != HUDI_OK) {
      hudi_log_delete_list_free(&dl);
      return st;
    }
    pending_delete *pd = &cc->pend[cc->n_pend++];
    pd->dl = dl;
    snprintf(pd->instant, sizeof pd->instant, "%s", instant);
  } else if (b->type == HUDI_LOG_BLOCK_PARQUET_DATA) {
    hudi_pq_reader *pq = NULL;
    HUDI_TRY(hudi_pq_reader_open_memory(&pq, data, len, path, NULL, err));
    lc->records += hudi_pq_reader_meta(pq)->num_rows;
    hudi_pq_reader_free(pq);
  }
  return HUDI_OK;
}

/* The instant's index in d->instants (added when new). */
static hudi_status instant_index(hudi_compact_log_deletes *d, const char *instant, uint64_t *out, hudi_error *err) {
  for (size_t i = 0; i < d->n_instants; i++)
    if (!strcmp(d->instants[i], instant)) {
      *out = i;
      return HUDI_OK;
    }
  HUDI_TRY(grow((void **)&d->instants, &d->cap_instants, d->n_instants, sizeof *d->instants, err));
  snprintf(d->instants[d->n_instants], HUDI_INSTANT_TIME_MAX, "%s", instant);
  *out = d->n_instants++;
  return HUDI_OK;
}

/* Visible delete blocks into dels, each key keeping its latest instant
 * (the slice reader's rule for commit-time ordering). */
static hudi_status fold_deletes(count_ctx *cc, const hudi_read_plan *p, hudi_error *err) {
  hudi_compact_log_deletes *d = cc->dels;
  for (size_t i = 0; i < cc->n_pend; i++) {
    const pending_delete *pd = &cc->pend[i];
    bool visible = !p || hudi_read_instant_visible(p, pd->instant);
    for (size_t k = 0; visible && k < cc->n_rb; k++)
      if (!strcmp(cc->rolled_back[k], pd->instant)) visible = false;
    if (!visible) continue;
    uint64_t idx;
    HUDI_TRY(instant_index(d, pd->instant, &idx, err));
    for (size_t r = 0; r < pd->dl.count; r++) {
      const hudi_log_delete_record *rec = &pd->dl.records[r];
      if (!rec->record_key) continue;
      hudi_hashmap_value cur;
      if (hudi_hashmap_get(&d->map, rec->record_key, rec->record_key_len, &cur) &&
          strcmp(d->instants[cur.u64], pd->instant) >= 0)
        continue;
      HUDI_TRY(hudi_hashmap_put(&d->map, rec->record_key, rec->record_key_len, (hudi_hashmap_value){.u64 = idx}, NULL,
                                NULL, err));
    }
  }
  return HUDI_OK;
}

hudi_status hudi_compact_count_logs(hudi_compact_log_counts *lc, hudi_compact_log_deletes *dels,
                                    const hudi_read_plan *p, hudi_storage *s, const hudi_file_slice *sl,
                                    hudi_error *err) {
  memset(lc, 0, sizeof *lc);
  if (dels) {
    memset(dels, 0, sizeof *dels);
    hudi_hashmap_init(&dels->map, 0);
  }
  count_ctx cc;
  memset(&cc, 0, sizeof cc);
  cc.lc = lc;
  cc.dels = dels;
  hudi_buf content;
  hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = HUDI_OK;
  for (size_t l = 0; st == HUDI_OK && l < sl->n_logs; l++) {
    lc->bytes += (int64_t)sl->logs[l].size;
    hudi_log_reader *r = NULL;
    st = hudi_log_reader_open(&r, s, sl->logs[l].path, err);
    while (st == HUDI_OK) {
      hudi_log_block b;
      bool has = false;
      st = hudi_log_reader_next(r, &b, &has, err);
      if (st != HUDI_OK || !has) break;
      st = count_block(&cc, r, &b, sl->logs[l].path, &content, err);
      hudi_log_block_free(&b);
    }
    hudi_log_reader_free(r);
  }
  if (st == HUDI_OK && dels) st = fold_deletes(&cc, p, err);
  for (size_t i = 0; i < cc.n_pend; i++) hudi_log_delete_list_free(&cc.pend[i].dl);
  hudi_free(cc.pend);
  hudi_free(cc.rolled_back);
  hudi_buf_free(&content);
  return st;
}

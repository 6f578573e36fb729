/* Reading one file slice (see read_plan.h).
 *
 * Without log files (COW, read-optimized, or a slice with only a base
 * file) the base file is streamed one Parquet batch at a time, with
 * row-group pruning from its statistics. With log files, the log records
 * are read whole and the base file streams past them (run_merge_stream;
 * the whole slice is held only when base keys repeat), merging as
 * hudi-rs's RecordMerger does:
 *   - every record (base rows, then log data blocks in log order) competes
 *     per record key; the winner has the greatest ordering-field value
 *     (EVENT_TIME_ORDERING), ties broken by _hoodie_commit_seqno, later
 *     records winning full ties; without an ordering field the latest
 *     record wins (COMMIT_TIME_ORDERING);
 *   - a key's deletes (from delete blocks) remove its winner when their
 *     greatest ordering value is greater than the winner's, or equal with a
 *     later commit; a delete whose ordering value is 0 (or null) compares by
 *     commit time only, so a plain DELETE always wins over older writes;
 *   - log blocks are read only when their instant is visible to the query
 *     and not the target of a rollback command block (table version 6).
 * An incremental read of a slice whose base file predates the range reads
 * the logs alone, or with an ordering field the base's merge columns only
 * (base_out_of_range below). */
#include <string.h>

#include "arrow/builder.h"
#include "arrow/view.h"
#include "avro/arrow_decode.h"
#include "avro/schema.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "parquet/assemble.h"
#include "parquet/reader.h"
#include "table/log_command_block.h"
#include "table/log_delete_block.h"
#include "table/delete_ordering.h"
#include "table/log_reader.h"
#include "table/read_plan.h"
#include "table/read_take.h"

/* A batch of the read schema's shape, with its imported view. */
typedef struct src_batch {
  struct ArrowArray arr;
  hudi_arrow_view view;
  uint64_t *keep; /* rows that are still candidates; NULL before merging */
} src_batch;

typedef struct del_info {
  hudi_value ordering; /* ordering value as the column's class (bytes copied into key storage) */
  bool has_ordering;   /* false: compare commit times only */
  char commit[HUDI_INSTANT_TIME_MAX];
  uint8_t *bytes;      /* owned copy of a bytes ordering value */
} del_info;

struct hudi_slice_reader {
  const hudi_read_plan *p;
  const hudi_read_slice_ref *ref;
  struct ArrowSchema read_export; /* read_schema exported once, for views */
  /* streaming base file */
  hudi_pq_reader *pq;
  bool lean; /* hudi_slice_reader_open_ex */
  /* queued output batches */
  struct ArrowArray *queue;
  size_t n_queue, pos_queue, cap_queue;
  bool merged; /* the merge ran (or there was nothing to merge) */
};

/* ---- helpers ------------------------------------------------------- */

static hudi_status push_out(hudi_slice_reader *r, struct ArrowArray *a, hudi_error *err) {
  if (r->n_queue == r->cap_queue) {
    size_t c = r->cap_queue ? r->cap_queue * 2 : 8;
    void *q = hudi_realloc(r->queue, c * sizeof *r->queue);
    if (!q) {
      a->release(a);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    }
    r->queue = q;
    r->cap_queue = c;
  }
  r->queue[r->n_queue++] = *a;
  a->release = NULL;
  return HUDI_OK;
}

static const char *view_str(const hudi_arrow_view *v, int64_t i, int64_t *len) {
  if (hudi_arrow_view_is_null(v, i)) return NULL;
  return (const char *)hudi_arrow_view_bytes(v, i, len);
}

/* A value whose file type differs from the table schema's, cast the way
 * hudi-rs (arrow-rs cast) does for the cases Hudi tables produce: integers
 * to strings (a timestamp-based key generator's source field), integer and
 * float widening, string <-> bytes (schema evolution, write_schema.h).
 * Others are HUDI_ERR_UNSUPPORTED naming the column. */
static hudi_status append_cast(hudi_arrow_builder *b, const hudi_arrow_field *to, const hudi_arrow_view *v, int64_t i,
                               hudi_error *err) {
  if (hudi_arrow_view_is_null(v, i)) return hudi_arrow_builder_append_null(b, err);
  hudi_value x;
  hudi_value_from_view(&x, v, i);
  hudi_vclass tc = hudi_vclass_of(&to->type);
  bool to_string = to->type.id == HUDI_ARROW_STRING || to->type.id == HUDI_ARROW_LARGE_STRING;
  char buf[64];
  if (to_string && x.cls == HUDI_VC_INT) {
    snprintf(buf, sizeof buf, "%lld", (long long)x.v.i);
    return hudi_arrow_builder_append_str(b, buf, err);
  }
  if (to_string && x.cls == HUDI_VC_UINT) {
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)x.v.u);
    return hudi_arrow_builder_append_str(b, buf, err);
  }
  /* Avro string <-> bytes (a column evolved between the two). */
  bool to_bytes = to_string || to->type.id == HUDI_ARROW_BINARY || to->type.id == HUDI_ARROW_LARGE_BINARY;
  bool from_bytes = v->type.id == HUDI_ARROW_STRING || v->type.id == HUDI_ARROW_LARGE_STRING ||
                    v->type.id == HUDI_ARROW_BINARY || v->type.id == HUDI_ARROW_LARGE_BINARY;
  if (to_bytes && from_bytes) {
    int64_t len;
    const uint8_t *p = hudi_arrow_view_bytes(v, i, &len);
    return hudi_arrow_builder_append_bytes(b, p, len, err);
  }
  if (tc == HUDI_VC_INT && x.cls == HUDI_VC_INT) return hudi_arrow_builder_append_int(b, x.v.i, err);
  if (tc == HUDI_VC_DOUBLE && x.cls == HUDI_VC_INT) return hudi_arrow_builder_append_double(b, (double)x.v.i, err);
  if (tc == HUDI_VC_DOUBLE && x.cls == HUDI_VC_DOUBLE) return hudi_arrow_builder_append_double(b, x.v.d, err);
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "column '%s': cannot read %s values as %s", to->name ? to->name : "",
                      hudi_arrow_type_name(v->type.id), hudi_arrow_type_name(to->type.id));
}

/* When the batch has every read column with the read schema's type (the
 * common case), moves those columns into dst, in the read schema's order,
 * and releases the rest of *src: no copy, and no per-batch schema export
 * (which carries the footer's bloom filter, ~1 MB). False: conform copies. */
static bool conform_move(const hudi_read_plan *p, const hudi_arrow_field *src_field, struct ArrowArray *src,
                         struct ArrowArray *dst, hudi_status *st, hudi_error *err) {
  const hudi_arrow_field *target = &p->read_schema;
  int64_t n = target->n_children;
  if (src->offset != 0 || src->null_count != 0 || src->n_children != src_field->n_children) return false;
  int64_t stack[64], *map = n <= 64 ? stack : hudi_calloc((size_t)n, sizeof *map);
  if (!map) return false;
  bool ok = true;
  for (int64_t k = 0; ok && k < n; k++) {
    map[k] = hudi_arrow_field_child_index(src_field, target->children[k].name);
    ok = map[k] >= 0 && strcmp(src_field->children[map[k]].format, target->children[k].format) == 0;
    if (ok) {
      const struct ArrowArray *c = src->children[map[k]];
      ok = c->release && c->length == src->length;
    }
    for (int64_t j = 0; ok && j < k; j++) ok = map[j] != map[k];
  }
  struct ArrowArray *kids = ok ? hudi_calloc((size_t)n + 1, sizeof *kids) : NULL;
  if (kids) {
    /* The C data interface lets a consumer move children out of a parent:
     * the parent's release skips those whose release is NULL. */
    for (int64_t k = 0; k < n; k++) {
      kids[k] = *src->children[map[k]];
      src->children[map[k]]->release = NULL;
    }
    int64_t len = src->length;
    src->release(src);
    *st = hudi_pq_struct_array(dst, kids, n, len, err);
    hudi_free(kids);
  }
  if (map != stack) hudi_free(map);
  return kids != NULL;
}

/* Rebuilds a batch of src_field's shape as one of the read schema's
 * (columns by name; absent ones null). Releases *src. */
static hudi_status conform(const hudi_read_plan *p, const hudi_arrow_field *src_field, struct ArrowArray *src,
                           struct ArrowArray *dst, hudi_error *err) {
  hudi_status moved = HUDI_OK;
  if (conform_move(p, src_field, src, dst, &moved, err)) return moved;
  const hudi_arrow_field *target = &p->read_schema;
  struct ArrowSchema ss;
  memset(&ss, 0, sizeof ss);
  hudi_arrow_view v;
  memset(&v, 0, sizeof v);
  hudi_arrow_batch_builder *bb = NULL;
  int64_t *map = NULL;
  hudi_status st = hudi_arrow_field_export(&ss, src_field, err);
  if (st == HUDI_OK) st = hudi_arrow_view_init(&v, &ss, src, err);
  if (st == HUDI_OK) st = hudi_arrow_batch_builder_create(&bb, target, err);
  if (st == HUDI_OK && !(map = hudi_calloc((size_t)target->n_children + 1, sizeof *map)))
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  bool all = true;
  for (int64_t k = 0; st == HUDI_OK && k < target->n_children; k++) {
    map[k] = hudi_arrow_field_child_index(src_field, target->children[k].name);
    if (map[k] < 0 || strcmp(src_field->children[map[k]].format, target->children[k].format) != 0) all = false;
  }
  if (st == HUDI_OK && all) {
    /* Every column is there: copy whole columns through a reordered view. */
    hudi_arrow_view *kids = hudi_calloc((size_t)target->n_children + 1, sizeof *kids);
    if (!kids) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    if (st == HUDI_OK) {
      hudi_arrow_view pv = v;
      for (int64_t k = 0; k < target->n_children; k++) kids[k] = v.children[map[k]];
      pv.children = kids;
      pv.n_children = target->n_children;
      st = hudi_arrow_batch_builder_append_rows(bb, &pv, 0, v.length, err);
    }
    hudi_free(kids);
  } else {
    for (int64_t i = 0; st == HUDI_OK && i < v.length; i++) {
      for (int64_t k = 0; st == HUDI_OK && k < target->n_children; k++) {
        hudi_arrow_builder *b = hudi_arrow_batch_builder_column(bb, k);
        if (map[k] < 0) st = hudi_arrow_builder_append_null(b, err);
        else if (strcmp(src_field->children[map[k]].format, target->children[k].format) != 0)
          st = append_cast(b, &target->children[k], &v.children[map[k]], hudi_arrow_view_struct_row(&v, i), err);
        else st = hudi_arrow_builder_append_view(b, &v.children[map[k]], hudi_arrow_view_struct_row(&v, i), err);
      }
      if (st == HUDI_OK) st = hudi_arrow_batch_builder_end_row(bb, err);
    }
  }
  if (st == HUDI_OK) st = hudi_arrow_batch_builder_finish(bb, dst, err);
  hudi_free(map);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_view_clear(&v);
  if (ss.release) ss.release(&ss);
  if (src->release) src->release(src);
  return st;
}

/* Streaming reads without a filter or commit range keep every row: the
 * output columns are moved out of the read-schema batch *a (released)
 * into *out, without a copy. */
static hudi_status project_move(const hudi_read_plan *p, struct ArrowArray *a, struct ArrowArray *out,
                                hudi_error *err) {
  int64_t n = p->out_schema.n_children;
  struct ArrowArray *kids = hudi_calloc((size_t)n + 1, sizeof *kids);
  if (!kids) {
    a->release(a);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  for (int64_t k = 0; k < n; k++) {
    struct ArrowArray *c = a->children[p->out_cols[k]];
    kids[k] = *c;
    c->release = NULL;
  }
  int64_t len = a->length;
  a->release(a);
  hudi_status st = hudi_pq_struct_array(out, kids, n, len, err);
  hudi_free(kids);
  return st;
}

/* Whether project_move applies: every row is kept and each output column
 * is a distinct column of the batch, which holds them all whole. */
static bool can_project_move(const hudi_read_plan *p, const struct ArrowArray *a) {
  if (p->pred || p->incremental || a->length == 0 || a->offset != 0 || a->null_count != 0) return false;
  int64_t n = p->out_schema.n_children;
  for (int64_t k = 0; k < n; k++) {
    int64_t c = p->out_cols[k];
    if (c < 0 || c >= a->n_children || !a->children[c]->release || a->children[c]->length != a->length) return false;
    for (int64_t j = 0; j < k; j++)
      if (p->out_cols[j] == c) return false;
  }
  return true;
}

/* emit for flat columns: the selected rows copied into exactly sized
 * buffers (read_take.h). */
static hudi_status emit_take(hudi_slice_reader *r, const hudi_arrow_view *v, const uint64_t *keep,
                             const hudi_selection *sel, hudi_error *err) {
  int64_t n = v->length, k = 0;
  int64_t *rows = hudi_calloc((size_t)n + 1, sizeof *rows);
  if (!rows) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++)
    if ((!keep || ((keep[i >> 6] >> (i & 63)) & 1)) && (!sel || hudi_selection_get(sel, i))) rows[k++] = i;
  hudi_status st = HUDI_OK;
  if (k > 0) {
    struct ArrowArray out;
    st = hudi_read_take(&out, v, r->p->out_cols, r->p->out_schema.n_children, rows, k, err);
    if (st == HUDI_OK) st = push_out(r, &out, err);
  }
  hudi_free(rows);
  return st;
}

/* Output rows of v (read-schema shape) that are in keep (NULL: all), pass
 * the filter, and (incremental, base rows) lie in the commit range. */
static hudi_status emit(hudi_slice_reader *r, const hudi_arrow_view *v, const uint64_t *keep, hudi_error *err) {
  const hudi_read_plan *p = r->p;
  int64_t n = v->length;
  if (n == 0) return HUDI_OK;
  hudi_selection sel = {0};
  if (p->pred) HUDI_TRY(hudi_pred_eval(&sel, p->pred, v, err));
  bool flat = !v->validity;
  for (int64_t k = 0; flat && k < p->out_schema.n_children; k++)
    flat = hudi_read_take_supports(&v->children[p->out_cols[k]]);
  if (flat) {
    hudi_status st = emit_take(r, v, keep, p->pred ? &sel : NULL, err);
    if (p->pred) hudi_selection_free(&sel);
    return st;
  }
  hudi_arrow_batch_builder *bb = NULL;
  hudi_arrow_view *kids = hudi_calloc((size_t)p->out_schema.n_children + 1, sizeof *kids);
  hudi_status st = kids ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st == HUDI_OK) st = hudi_arrow_batch_builder_create(&bb, &p->out_schema, err);
  hudi_arrow_view pv = *v;
  if (st == HUDI_OK) {
    for (int64_t k = 0; k < p->out_schema.n_children; k++) kids[k] = v->children[p->out_cols[k]];
    pv.children = kids;
    pv.n_children = p->out_schema.n_children;
  }
  int64_t i = 0;
  while (st == HUDI_OK && i < n) {
#define ROW_OK(j) ((!keep || ((keep[(j) >> 6] >> ((j) & 63)) & 1)) && (!p->pred || hudi_selection_get(&sel, (j))))
    if (!ROW_OK(i)) {
      i++;
      continue;
    }
    int64_t j = i + 1;
    while (j < n && ROW_OK(j)) j++;
#undef ROW_OK
    st = hudi_arrow_batch_builder_append_rows(bb, &pv, i, j - i, err);
    i = j;
  }
  if (st == HUDI_OK && hudi_arrow_batch_builder_n_rows(bb) > 0) {
    struct ArrowArray out;
    st = hudi_arrow_batch_builder_finish(bb, &out, err);
    if (st == HUDI_OK) st = push_out(r, &out, err);
  }
  hudi_arrow_batch_builder_free(bb);
  hudi_free(kids);
  if (p->pred) hudi_selection_free(&sel);
  return st;
}

/* Incremental reads keep the rows whose commit time is that of an instant
 * in the range (hudi_read_commit_selected). With keep NULL a new mask is
 * made (*keep stays NULL for other reads); otherwise rows are cleared from
 * the given one. */
static hudi_status commit_range_mask(const hudi_read_plan *p, const hudi_arrow_view *v, uint64_t **keep,
                                     hudi_error *err) {
  if (!p->incremental) return HUDI_OK;
  uint64_t *k = *keep;
  if (!k) {
    size_t words = (size_t)(v->length + 63) / 64 + 1;
    if (!(k = hudi_calloc(words, sizeof *k))) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < v->length; i++) k[i >> 6] |= (uint64_t)1 << (i & 63);
    *keep = k;
  }
  /* Without _hoodie_commit_time nothing tells the range's rows apart. */
  const hudi_arrow_view *c = p->commit_col >= 0 ? &v->children[p->commit_col] : NULL;
  for (int64_t i = 0; i < v->length; i++) {
    int64_t len = 0;
    const char *s = c ? view_str(c, hudi_arrow_view_struct_row(v, i), &len) : NULL;
    if (!hudi_read_commit_selected(p, s, s ? (size_t)len : 0)) k[i >> 6] &= ~((uint64_t)1 << (i & 63));
  }
  return HUDI_OK;
}

/* ---- row-group pruning --------------------------------------------- */

static bool rg_filter(void *ctx, const hudi_pq_reader *r, uint32_t rg) {
  const hudi_read_plan *p = ctx;
  size_t n = hudi_pred_n_columns(p->pred);
  hudi_col_stats stats[64];
  if (n > 64) return true;
  for (size_t k = 0; k < n; k++) {
    hudi_col_stats s = HUDI_COL_STATS_UNKNOWN;
    int64_t leaf = hudi_pq_reader_find_leaf(r, hudi_pred_column_name(p->pred, k));
    hudi_vclass cls = hudi_vclass_of(&hudi_pred_column_field(p->pred, k)->type);
    if (leaf >= 0) {
      hudi_pq_col_stats ps;
      hudi_pq_reader_stats(&ps, r, rg, (uint32_t)leaf);
      static const hudi_vclass kind_cls[] = {HUDI_VC_NONE, HUDI_VC_BOOL,    HUDI_VC_INT,  HUDI_VC_UINT,
                                             HUDI_VC_DOUBLE, HUDI_VC_DECIMAL, HUDI_VC_BYTES};
      if (ps.kind != HUDI_PQ_STAT_NONE && kind_cls[ps.kind] == cls) {
        s.has_min = ps.has_min;
        s.has_max = ps.has_max;
        s.min.cls = s.max.cls = cls;
        memcpy(&s.min.v, &ps.min.v, sizeof s.min.v < sizeof ps.min.v ? sizeof s.min.v : sizeof ps.min.v);
        memcpy(&s.max.v, &ps.max.v, sizeof s.max.v < sizeof ps.max.v ? sizeof s.max.v : sizeof ps.max.v);
        if (cls == HUDI_VC_BYTES) {
          s.min.v.bytes.data = ps.min.v.bytes.data;
          s.min.v.bytes.len = ps.min.v.bytes.len;
          s.max.v.bytes.data = ps.max.v.bytes.data;
          s.max.v.bytes.len = ps.max.v.bytes.len;
        }
        s.null_count = ps.null_count;
        s.nan_count = ps.nan_count;
      }
    }
    stats[k] = s;
  }
  bool might = true;
  hudi_pred_prune(&might, p->pred, stats, -1);
  return might;
}

/* ---- log scanning ------------------------------------------------------ */

typedef struct log_state {
  hudi_log_reader **readers;
  size_t n_readers;
  hudi_log_block *blocks;
  size_t *block_reader;
  size_t n_blocks, cap_blocks;
  char (*rolled_back)[HUDI_INSTANT_TIME_MAX];
  size_t n_rolled_back;
} log_state;

static void log_state_free(log_state *ls) {
  for (size_t i = 0; i < ls->n_blocks; i++) hudi_log_block_free(&ls->blocks[i]);
  for (size_t i = 0; i < ls->n_readers; i++) hudi_log_reader_free(ls->readers[i]);
  hudi_free(ls->readers);
  hudi_free(ls->blocks);
  hudi_free(ls->block_reader);
  hudi_free(ls->rolled_back);
}

static hudi_status log_state_load(log_state *ls, const hudi_read_plan *p, const hudi_file_slice *s,
                                  hudi_error *err) {
  memset(ls, 0, sizeof *ls);
  ls->readers = hudi_calloc(s->n_logs + 1, sizeof *ls->readers);
  ls->rolled_back = hudi_calloc(64, sizeof *ls->rolled_back);
  if (!ls->readers || !ls->rolled_back) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t cap_rb = 64;
  for (size_t l = 0; l < s->n_logs; l++) {
    HUDI_TRY(hudi_log_reader_open(&ls->readers[l], p->t->storage, s->logs[l].path, err));
    ls->n_readers++;
    for (;;) {
      if (ls->n_blocks == ls->cap_blocks) {
        size_t c = ls->cap_blocks ? ls->cap_blocks * 2 : 16;
        void *b = hudi_realloc(ls->blocks, c * sizeof *ls->blocks);
        if (!b) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
        ls->blocks = b;
        void *br = hudi_realloc(ls->block_reader, c * sizeof *ls->block_reader);
        if (!br) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
        ls->block_reader = br;
        ls->cap_blocks = c;
      }
      bool has = false;
      hudi_log_block *b = &ls->blocks[ls->n_blocks];
      HUDI_TRY(hudi_log_reader_next(ls->readers[l], b, &has, err));
      if (!has) break;
      ls->block_reader[ls->n_blocks++] = l;
      if (b->type == HUDI_LOG_BLOCK_COMMAND) {
        hudi_log_command cmd;
        HUDI_TRY(hudi_log_command_block_read(&cmd, b, s->logs[l].path, err));
        /* The target never completed (that is why it was rolled back):
         * its blocks are invisible whenever the query is planned. */
        {
          if (ls->n_rolled_back == cap_rb) {
            void *q = hudi_realloc(ls->rolled_back, cap_rb * 2 * sizeof *ls->rolled_back);
            if (!q) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
            ls->rolled_back = q;
            cap_rb *= 2;
          }
          snprintf(ls->rolled_back[ls->n_rolled_back++], HUDI_INSTANT_TIME_MAX, "%s", cmd.target_instant);
        }
      }
    }
  }
  return HUDI_OK;
}

static bool block_visible(const hudi_read_plan *p, const log_state *ls, const hudi_log_block *b) {
  const char *instant = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_INSTANT_TIME, NULL);
  if (!instant) return false;
  for (size_t i = 0; i < ls->n_rolled_back; i++)
    if (strcmp(ls->rolled_back[i], instant) == 0) return false;
  return hudi_read_instant_visible(p, instant);
}

/* ---- merging ------------------------------------------------------------ */

typedef struct merge_state {
  src_batch *batches;
  size_t n, cap;
  hudi_hashmap winners; /* key -> (batch << 32 | row) + 1 */
  hudi_hashmap deletes; /* key -> del_info * */
} merge_state;

static hudi_status add_batch(merge_state *m, const hudi_slice_reader *r, struct ArrowArray *a, hudi_error *err) {
  if (m->n == m->cap) {
    size_t c = m->cap ? m->cap * 2 : 8;
    void *b = hudi_realloc(m->batches, c * sizeof *m->batches);
    if (!b) {
      a->release(a);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    }
    m->batches = b;
    m->cap = c;
  }
  src_batch *sb = &m->batches[m->n];
  memset(sb, 0, sizeof *sb);
  sb->arr = *a;
  a->release = NULL;
  m->n++;
  return hudi_arrow_view_init(&sb->view, &r->read_export, &sb->arr, err);
}

/* > 0 when row (bi, i) beats row (bj, j). */
static int compare_rows(const hudi_read_plan *p, const hudi_arrow_view *a, int64_t i, const hudi_arrow_view *b,
                        int64_t j) {
  int64_t ra = hudi_arrow_view_struct_row(a, i), rb = hudi_arrow_view_struct_row(b, j);
  if (p->ordering_col >= 0) {
    hudi_value x, y;
    hudi_value_from_view(&x, &a->children[p->ordering_col], ra);
    hudi_value_from_view(&y, &b->children[p->ordering_col], rb);
    if (x.is_null != y.is_null) return x.is_null ? -1 : 1;
    if (!x.is_null && x.cls != HUDI_VC_NONE) {
      int c = hudi_value_cmp(&x, &y);
      if (c) return c;
    }
    if (p->seqno_col >= 0) {
      int64_t la, lb;
      const char *sa = view_str(&a->children[p->seqno_col], ra, &la);
      const char *sb = view_str(&b->children[p->seqno_col], rb, &lb);
      if (sa && sb) {
        int c = memcmp(sa, sb, (size_t)(la < lb ? la : lb));
        if (c) return c;
        if (la != lb) return la < lb ? -1 : 1;
      }
    }
  }
  /* Equal, or commit-time ordering: the later record wins. */
  return 1;
}

static hudi_status merge_rows(const hudi_read_plan *p, merge_state *m, size_t bi, hudi_error *err) {
  src_batch *sb = &m->batches[bi];
  const hudi_arrow_view *v = &sb->view;
  size_t words = (size_t)(v->length + 63) / 64 + 1;
  if (!sb->keep) {
    sb->keep = hudi_calloc(words, sizeof *sb->keep);
    if (!sb->keep) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < v->length; i++) sb->keep[i >> 6] |= (uint64_t)1 << (i & 63);
  }
  for (int64_t i = 0; i < v->length; i++) {
    if (!((sb->keep[i >> 6] >> (i & 63)) & 1)) continue;
    int64_t len;
    const char *key = view_str(&v->children[p->key_col], hudi_arrow_view_struct_row(v, i), &len);
    if (!key) continue; /* no key: kept as it is */
    hudi_hashmap_value cur;
    uint64_t packed = (((uint64_t)bi << 32) | (uint64_t)i) + 1;
    if (hudi_hashmap_get(&m->winners, key, (size_t)len, &cur)) {
      size_t cb = (size_t)((cur.u64 - 1) >> 32);
      int64_t ci = (int64_t)((cur.u64 - 1) & 0xffffffffu);
      if (compare_rows(p, &m->batches[bi].view, i, &m->batches[cb].view, ci) > 0) {
        m->batches[cb].keep[ci >> 6] &= ~((uint64_t)1 << (ci & 63));
      } else {
        sb->keep[i >> 6] &= ~((uint64_t)1 << (i & 63));
        continue;
      }
    }
    hudi_hashmap_value nv = {.u64 = packed};
    HUDI_TRY(hudi_hashmap_put(&m->winners, key, (size_t)len, nv, NULL, NULL, err));
  }
  return HUDI_OK;
}

/* The delete's ordering value as the ordering column's class; false when
 * it is absent, zero, or not comparable (then commit times decide). */
static bool delete_ordering(hudi_value *out, const hudi_log_ordering_val *o, hudi_vclass cls, int32_t scale) {
  memset(out, 0, sizeof *out);
  out->cls = cls;
  switch (o->kind) {
    case HUDI_LOG_ORDERING_INT:
    case HUDI_LOG_ORDERING_DATE:
      if (o->v.i == 0) return false;
      if (cls == HUDI_VC_INT) { out->v.i = o->v.i; return true; }
      if (cls == HUDI_VC_DOUBLE) { out->v.d = o->v.i; return true; }
      return false;
    case HUDI_LOG_ORDERING_LONG:
    case HUDI_LOG_ORDERING_TIME_MICROS:
    case HUDI_LOG_ORDERING_TIMESTAMP_MICROS:
      if (o->v.l == 0) return false;
      if (cls == HUDI_VC_INT) { out->v.i = o->v.l; return true; }
      if (cls == HUDI_VC_DOUBLE) { out->v.d = (double)o->v.l; return true; }
      return false;
    case HUDI_LOG_ORDERING_FLOAT:
    case HUDI_LOG_ORDERING_DOUBLE: {
      double d = o->kind == HUDI_LOG_ORDERING_FLOAT ? o->v.f : o->v.d;
      if (cls != HUDI_VC_DOUBLE) return false;
      out->v.d = d;
      return true;
    }
    case HUDI_LOG_ORDERING_DECIMAL: /* at the column's scale (delete_ordering.h) */
      return cls == HUDI_VC_DECIMAL && hudi_delete_decimal_at_scale(&out->v.dec, o->v.bytes.p, o->v.bytes.len, scale);
    case HUDI_LOG_ORDERING_STRING:
    case HUDI_LOG_ORDERING_BYTES:
      if (cls != HUDI_VC_BYTES) return false;
      out->v.bytes.data = o->v.bytes.p;
      out->v.bytes.len = o->v.bytes.len;
      return true;
    default: return false;
  }
}

static void free_deletes(hudi_hashmap *dm) {
  size_t pos = 0;
  const uint8_t *k;
  size_t kl;
  hudi_hashmap_value v;
  while (hudi_hashmap_next(dm, &pos, &k, &kl, &v)) {
    del_info *d = v.ptr;
    if (d) hudi_free(d->bytes);
    hudi_free(d);
  }
  hudi_hashmap_free(dm);
}

static hudi_status add_deletes(const hudi_read_plan *p, merge_state *m, const hudi_log_delete_list *dl,
                               const char *instant, hudi_error *err) {
  hudi_vclass cls = p->ordering_col >= 0 ? hudi_vclass_of(&p->read_schema.children[p->ordering_col].type)
                                         : HUDI_VC_NONE;
  for (size_t i = 0; i < dl->count; i++) {
    const hudi_log_delete_record *d = &dl->records[i];
    if (!d->record_key) continue;
    del_info nd;
    memset(&nd, 0, sizeof nd);
    nd.has_ordering = p->ordering_col >= 0 &&
                      delete_ordering(&nd.ordering, &d->ordering, cls, p->read_schema.children[p->ordering_col].type.scale);
    snprintf(nd.commit, sizeof nd.commit, "%s", instant);
    hudi_hashmap_value cur;
    del_info *di;
    if (hudi_hashmap_get(&m->deletes, d->record_key, d->record_key_len, &cur)) {
      di = cur.ptr;
      /* Keep the greatest ordering value and the latest commit (hudi-rs). */
      if (nd.has_ordering && (!di->has_ordering || hudi_value_cmp(&nd.ordering, &di->ordering) > 0)) {
        hudi_free(di->bytes);
        di->bytes = NULL;
        di->ordering = nd.ordering;
        di->has_ordering = true;
      }
      if (strcmp(nd.commit, di->commit) > 0) memcpy(di->commit, nd.commit, sizeof di->commit);
    } else {
      di = hudi_malloc(sizeof *di);
      if (!di) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      *di = nd;
      hudi_hashmap_value nv = {.ptr = di};
      hudi_status st = hudi_hashmap_put(&m->deletes, d->record_key, d->record_key_len, nv, NULL, NULL, err);
      if (st != HUDI_OK) {
        hudi_free(di);
        return st;
      }
    }
    if (di->has_ordering && di->ordering.cls == HUDI_VC_BYTES && !di->bytes) {
      size_t l = di->ordering.v.bytes.len;
      di->bytes = hudi_malloc(l + 1);
      if (!di->bytes) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      if (l) memcpy(di->bytes, di->ordering.v.bytes.data, l);
      di->ordering.v.bytes.data = di->bytes;
    }
  }
  return HUDI_OK;
}

/* Whether the delete removes record (b, i). */
static bool delete_wins(const hudi_read_plan *p, const del_info *d, const hudi_arrow_view *v, int64_t i) {
  int64_t row = hudi_arrow_view_struct_row(v, i);
  int c_commit = 1;
  if (p->commit_col >= 0) {
    int64_t len;
    const char *ct = view_str(&v->children[p->commit_col], row, &len);
    if (ct) {
      char t[HUDI_INSTANT_TIME_MAX] = {0};
      memcpy(t, ct, (size_t)(len < HUDI_INSTANT_TIME_MAX - 1 ? len : HUDI_INSTANT_TIME_MAX - 1));
      c_commit = strcmp(d->commit, t);
    }
  }
  if (!d->has_ordering) return c_commit > 0;
  hudi_value rv;
  hudi_value_from_view(&rv, &v->children[p->ordering_col], row);
  if (rv.is_null) return true;
  int c = hudi_value_cmp(&d->ordering, &rv);
  return c > 0 || (c == 0 && c_commit > 0);
}

static hudi_status decode_avro_block(const hudi_slice_reader *r, merge_state *m, const hudi_log_block *b,
                                     const uint8_t *content, size_t len, const char *where, hudi_error *err) {
  size_t slen;
  const char *schema = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_SCHEMA, &slen);
  if (!schema) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: data block at offset %llu has no schema", where,
                                   (unsigned long long)b->offset);
  hudi_avro_schema *s = NULL;
  HUDI_TRY(hudi_avro_schema_parse(&s, schema, slen, err));
  hudi_avro_decoder *d = NULL;
  hudi_status st = hudi_avro_decoder_create(&d, s->root, NULL, &r->p->read_schema, err);
  if (st == HUDI_OK) st = hudi_avro_decoder_decode_data_block(d, content, len, b->content_offset, NULL, err);
  struct ArrowArray a;
  memset(&a, 0, sizeof a);
  if (st == HUDI_OK) st = hudi_avro_decoder_finish(d, &a, err);
  if (st == HUDI_OK) st = add_batch(m, r, &a, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "%s: block at offset %llu", where, (unsigned long long)b->offset);
  hudi_avro_decoder_free(d);
  hudi_avro_schema_free(s);
  return st;
}

static hudi_status decode_parquet_block(const hudi_slice_reader *r, merge_state *m, const hudi_log_block *b,
                                        const uint8_t *content, size_t len, const char *where, hudi_error *err) {
  hudi_pq_reader *pq = NULL;
  HUDI_TRY(hudi_pq_reader_open_memory(&pq, content, len, where, NULL, err));
  hudi_status st = HUDI_OK;
  for (;;) {
    struct ArrowArray a, c;
    bool eof = false;
    st = hudi_pq_reader_next(pq, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    st = conform(r->p, hudi_pq_reader_schema(pq), &a, &c, err);
    if (st == HUDI_OK) st = add_batch(m, r, &c, err);
    if (st != HUDI_OK) break;
  }
  if (st != HUDI_OK) hudi_err_context(err, st, "%s: block at offset %llu", where, (unsigned long long)b->offset);
  hudi_pq_reader_free(pq);
  return st;
}

static hudi_status read_base_into(const hudi_slice_reader *r, merge_state *m, hudi_error *err) {
  const hudi_file_slice *s = r->ref->slice;
  if (!s->base) return HUDI_OK;
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.skip_kv_metadata = true; /* conform reads columns only */
  o.batch_size = r->p->batch_size;
  hudi_pq_reader *pq = NULL;
  HUDI_TRY(hudi_pq_reader_open(&pq, r->p->t->storage, s->base->path, &o, err));
  hudi_status st = HUDI_OK;
  for (;;) {
    struct ArrowArray a, c;
    bool eof = false;
    st = hudi_pq_reader_next(pq, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    st = conform(r->p, hudi_pq_reader_schema(pq), &a, &c, err);
    if (st == HUDI_OK) st = add_batch(m, r, &c, err);
    if (st != HUDI_OK) break;
  }
  hudi_pq_reader_free(pq);
  return st;
}

/* Decodes the slice's visible log blocks into m (data) and its deletes. */
static hudi_status read_logs_into(const hudi_slice_reader *r, merge_state *m, log_state *ls, hudi_error *err) {
  const hudi_read_plan *p = r->p;
  hudi_buf content;
  hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = log_state_load(ls, p, r->ref->slice, err);
  for (size_t bi = 0; st == HUDI_OK && bi < ls->n_blocks; bi++) {
    const hudi_log_block *b = &ls->blocks[bi];
    if (b->type == HUDI_LOG_BLOCK_CORRUPT || b->type == HUDI_LOG_BLOCK_COMMAND) continue;
    if (!block_visible(p, ls, b)) continue;
    const char *where = r->ref->slice->logs[ls->block_reader[bi]].path;
    hudi_buf_reset(&content);
    const uint8_t *data = b->content;
    size_t len = (size_t)b->content_len;
    if (!data) {
      st = hudi_log_reader_content(ls->readers[ls->block_reader[bi]], b, &content, err);
      if (st != HUDI_OK) break;
      data = content.data ? content.data : (const uint8_t *)"";
      len = content.len;
    }
    switch (b->type) {
      case HUDI_LOG_BLOCK_AVRO_DATA: st = decode_avro_block(r, m, b, data, len, where, err); break;
      case HUDI_LOG_BLOCK_PARQUET_DATA: st = decode_parquet_block(r, m, b, data, len, where, err); break;
      case HUDI_LOG_BLOCK_DELETE: {
        hudi_log_delete_list dl;
        memset(&dl, 0, sizeof dl);
        st = hudi_log_delete_block_decode(&dl, data, len, b->content_offset, where, err);
        if (st == HUDI_OK)
          st = add_deletes(p, m, &dl, hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_INSTANT_TIME, NULL), err);
        hudi_log_delete_list_free(&dl);
        break;
      }
      default:
        st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: %s blocks are not supported yet", where,
                          hudi_log_block_type_name(b->type));
    }
  }
  hudi_buf_free(&content);
  return st;
}

static void merge_state_free(merge_state *m) {
  for (size_t bi = 0; bi < m->n; bi++) {
    hudi_arrow_view_clear(&m->batches[bi].view);
    if (m->batches[bi].arr.release) m->batches[bi].arr.release(&m->batches[bi].arr);
    hudi_free(m->batches[bi].keep);
  }
  hudi_free(m->batches);
  hudi_hashmap_free(&m->winners);
  free_deletes(&m->deletes);
}

/* Incremental masks, then the batches' kept rows out (each batch released
 * once emitted: peak memory holds the slice once, not input and output). */
static hudi_status emit_batches(hudi_slice_reader *r, merge_state *m, hudi_error *err) {
  hudi_status st = HUDI_OK;
  for (size_t bi = 0; st == HUDI_OK && bi < m->n; bi++)
    st = commit_range_mask(r->p, &m->batches[bi].view, &m->batches[bi].keep, err);
  for (size_t bi = 0; st == HUDI_OK && bi < m->n; bi++) {
    st = emit(r, &m->batches[bi].view, m->batches[bi].keep, err);
    hudi_arrow_view_clear(&m->batches[bi].view);
    if (m->batches[bi].arr.release) m->batches[bi].arr.release(&m->batches[bi].arr);
  }
  return st;
}

/* The whole slice in memory: base rows and log records compete per key in
 * order (see the top of this file). */
static hudi_status run_merge(hudi_slice_reader *r, hudi_error *err) {
  const hudi_read_plan *p = r->p;
  merge_state m;
  memset(&m, 0, sizeof m);
  hudi_hashmap_init(&m.winners, 0);
  hudi_hashmap_init(&m.deletes, 0);
  log_state ls;
  memset(&ls, 0, sizeof ls);
  hudi_status st = read_base_into(r, &m, err);
  if (st == HUDI_OK) st = read_logs_into(r, &m, &ls, err);
  /* Compete per key, in order: base rows first, then log blocks. */
  if (st == HUDI_OK && p->key_col < 0 && m.n)
    st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "merging log files needs the _hoodie_record_key column");
  if (st == HUDI_OK && m.n) { /* one allocation of the key table, no rehashing */
    size_t rows = 0;
    for (size_t bi = 0; bi < m.n; bi++) rows += (size_t)m.batches[bi].view.length;
    st = hudi_hashmap_reserve(&m.winners, rows, err);
  }
  for (size_t bi = 0; st == HUDI_OK && bi < m.n; bi++) st = merge_rows(p, &m, bi, err);
  /* Deletes remove winners they beat. */
  if (st == HUDI_OK && m.deletes.count) {
    size_t pos = 0;
    const uint8_t *k;
    size_t kl;
    hudi_hashmap_value v;
    while (hudi_hashmap_next(&m.winners, &pos, &k, &kl, &v)) {
      hudi_hashmap_value dv;
      if (!hudi_hashmap_get(&m.deletes, k, kl, &dv)) continue;
      size_t cb = (size_t)((v.u64 - 1) >> 32);
      int64_t ci = (int64_t)((v.u64 - 1) & 0xffffffffu);
      if (delete_wins(p, dv.ptr, &m.batches[cb].view, ci))
        m.batches[cb].keep[ci >> 6] &= ~((uint64_t)1 << (ci & 63));
    }
  }
  if (st == HUDI_OK) st = emit_batches(r, &m, err);
  merge_state_free(&m);
  log_state_free(&ls);
  return st;
}

/* ---- streaming the base file past the log records ----------------------
 *
 * The same merge with only the log records held: they are read first and
 * indexed by key (each key's occurrences chained in log order); then the
 * base file streams a batch at a time, each base row competing with its
 * key's log records in the same order as above (base first), and leaves
 * as soon as its batch is decided. The log records left are decided last.
 * So the output (base rows in file order, then log rows in log order) is
 * the in-memory merge's, without holding the base file whole. A base file
 * whose keys repeat (a key hash seen twice) falls back to run_merge, which
 * lets its rows compete among themselves too. */

typedef struct log_index {
  hudi_hashmap latest; /* key -> g + 1 of its latest log record */
  uint64_t *rows;      /* g -> batch << 32 | row */
  int64_t *prev;       /* g -> the key's previous record, -1 none */
  uint8_t *decided;    /* by latest g: the key met a base row */
  size_t n;
  /* Two bits of each log and delete key's hash (base_hash), ~16 bits a
   * key: most base rows meet no log record, and this answers them from
   * the cache, where the two maps' lookups cost a hash of the key and a
   * cache miss each (a fifth of a MOR read's CPU). */
  uint64_t *filter;
  uint64_t filter_mask; /* bits - 1 */
} log_index;

static void log_index_free(log_index *x) {
  hudi_hashmap_free(&x->latest);
  hudi_free(x->rows);
  hudi_free(x->prev);
  hudi_free(x->decided);
  hudi_free(x->filter);
}

/* The hash a base row's key is looked up by (never 0: 0 marks an empty
 * slot of the duplicate check's table). */
static uint64_t base_hash(const char *key, size_t len) {
  uint64_t h = hudi_xxh64(key, len, 0);
  return h ? h : 1;
}

static void filter_add(log_index *x, uint64_t h) {
  uint64_t a = h & x->filter_mask, b = (h >> 32) & x->filter_mask;
  x->filter[a >> 6] |= (uint64_t)1 << (a & 63);
  x->filter[b >> 6] |= (uint64_t)1 << (b & 63);
}

/* False: no log record and no delete has the key of hash h. */
static bool filter_may_have(const log_index *x, uint64_t h) {
  uint64_t a = h & x->filter_mask, b = (h >> 32) & x->filter_mask;
  return (x->filter[a >> 6] >> (a & 63) & 1) && (x->filter[b >> 6] >> (b & 63) & 1);
}

static hudi_status filter_build(log_index *x, const merge_state *m, hudi_error *err) {
  size_t keys = x->latest.count + m->deletes.count, bits = 4096;
  while (bits < 16 * keys && bits < ((size_t)1 << 34)) bits *= 2;
  x->filter = hudi_calloc(bits / 64, sizeof *x->filter);
  if (!x->filter) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  x->filter_mask = bits - 1;
  const hudi_hashmap *maps[2] = {&x->latest, &m->deletes};
  for (int i = 0; i < 2; i++) {
    size_t pos = 0, kl;
    const uint8_t *k;
    hudi_hashmap_value v;
    while (hudi_hashmap_next(maps[i], &pos, &k, &kl, &v)) filter_add(x, base_hash((const char *)k, kl));
  }
  return HUDI_OK;
}

/* Indexes the keyed log rows of m; keyless rows are kept as they are. */
static hudi_status log_index_build(log_index *x, const hudi_read_plan *p, merge_state *m, hudi_error *err) {
  size_t total = 0;
  for (size_t bi = 0; bi < m->n; bi++) total += (size_t)m->batches[bi].view.length;
  hudi_hashmap_init(&x->latest, 0);
  x->rows = hudi_calloc(total + 1, sizeof *x->rows);
  x->prev = hudi_calloc(total + 1, sizeof *x->prev);
  x->decided = hudi_calloc(total + 1, 1);
  if (!x->rows || !x->prev || !x->decided) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  HUDI_TRY(hudi_hashmap_reserve(&x->latest, total, err));
  for (size_t bi = 0; bi < m->n; bi++) {
    src_batch *sb = &m->batches[bi];
    const hudi_arrow_view *v = &sb->view;
    sb->keep = hudi_calloc((size_t)(v->length + 63) / 64 + 1, sizeof *sb->keep);
    if (!sb->keep) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < v->length; i++) {
      int64_t len;
      const char *key = view_str(&v->children[p->key_col], hudi_arrow_view_struct_row(v, i), &len);
      if (!key) {
        sb->keep[i >> 6] |= (uint64_t)1 << (i & 63);
        continue;
      }
      size_t g = x->n++;
      x->rows[g] = ((uint64_t)bi << 32) | (uint64_t)i;
      hudi_hashmap_value cur, nv = {.u64 = (uint64_t)g + 1};
      x->prev[g] = hudi_hashmap_get(&x->latest, key, (size_t)len, &cur) ? (int64_t)cur.u64 - 1 : -1;
      HUDI_TRY(hudi_hashmap_put(&x->latest, key, (size_t)len, nv, NULL, NULL, err));
    }
  }
  return filter_build(x, m, err);
}

static const hudi_arrow_view *log_row(const merge_state *m, const log_index *x, int64_t g, int64_t *row) {
  *row = (int64_t)(x->rows[g] & 0xffffffffu);
  return &m->batches[x->rows[g] >> 32].view;
}

/* The winner among the base row (bv, bi; none when bv is NULL) and the
 * key's log records from its latest g, compared in order: *win is -1 for
 * the base row, else the winning g. */
static hudi_status fold_key(int64_t *win, const hudi_read_plan *p, const merge_state *m, const log_index *x,
                            int64_t latest, const hudi_arrow_view *bv, int64_t bi, hudi_error *err) {
  int64_t stack[16], *order = stack;
  size_t n = 0;
  for (int64_t g = latest; g >= 0; g = x->prev[g]) n++;
  if (n > 16 && !(order = hudi_calloc(n, sizeof *order))) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t k = n;
  for (int64_t g = latest; g >= 0; g = x->prev[g]) order[--k] = g;
  const hudi_arrow_view *wv = bv;
  int64_t wr = bi, w = bv ? -1 : order[0];
  if (!bv) wv = log_row(m, x, order[0], &wr);
  for (k = bv ? 0 : 1; k < n; k++) {
    int64_t row;
    const hudi_arrow_view *v = log_row(m, x, order[k], &row);
    if (compare_rows(p, v, row, wv, wr) > 0) {
      w = order[k];
      wv = v;
      wr = row;
    }
  }
  if (order != stack) hudi_free(order);
  *win = w;
  return HUDI_OK;
}

/* How far ahead of its check a row's slot of the duplicate check's table
 * (two 8-byte slots per base row: far larger than the caches) is fetched. */
#define SEEN_AHEAD 16

/* Drops base rows that lose, or that a delete removes; marks the log
 * winners of the keys met. *dup: a base key hash repeated. hs: room for
 * the batch's key hashes (0: no key), computed first so that each row's
 * slot in seen can be fetched SEEN_AHEAD rows before it is probed. */
static hudi_status stream_decide(const hudi_read_plan *p, merge_state *m, log_index *x, const hudi_arrow_view *v,
                                 uint64_t *keep, uint64_t *seen, size_t seen_mask, uint64_t *hs, bool *dup,
                                 hudi_error *err) {
  for (int64_t i = 0; i < v->length; i++) {
    int64_t len;
    const char *key = view_str(&v->children[p->key_col], hudi_arrow_view_struct_row(v, i), &len);
    hs[i] = key ? base_hash(key, (size_t)len) : 0;
  }
  for (int64_t i = 0; i < v->length && i < SEEN_AHEAD; i++) __builtin_prefetch(&seen[hs[i] & seen_mask]);
  for (int64_t i = 0; i < v->length; i++) {
    if (i + SEEN_AHEAD < v->length) __builtin_prefetch(&seen[hs[i + SEEN_AHEAD] & seen_mask]);
    uint64_t h = hs[i];
    if (!h) continue;
    size_t at = (size_t)h & seen_mask;
    while (seen[at] && seen[at] != h) at = (at + 1) & seen_mask;
    if (seen[at]) {
      *dup = true;
      return HUDI_OK;
    }
    seen[at] = h;
    if (!filter_may_have(x, h)) continue; /* neither updated nor deleted: kept */
    int64_t len;
    const char *key = view_str(&v->children[p->key_col], hudi_arrow_view_struct_row(v, i), &len);
    hudi_hashmap_value lv, dv;
    const hudi_arrow_view *wv = v;
    int64_t wr = i, win = -1;
    if (hudi_hashmap_get(&x->latest, key, (size_t)len, &lv)) {
      int64_t latest = (int64_t)lv.u64 - 1;
      if (x->decided[latest]) { /* a second base row of the key */
        *dup = true;
        return HUDI_OK;
      }
      x->decided[latest] = 1;
      HUDI_TRY(fold_key(&win, p, m, x, latest, v, i, err));
      if (win >= 0) wv = log_row(m, x, win, &wr);
    }
    if (hudi_hashmap_get(&m->deletes, key, (size_t)len, &dv) && delete_wins(p, dv.ptr, wv, wr)) win = -2;
    if (win != -1) keep[i >> 6] &= ~((uint64_t)1 << (i & 63));
    if (win >= 0) m->batches[x->rows[win] >> 32].keep[wr >> 6] |= (uint64_t)1 << (wr & 63);
  }
  return HUDI_OK;
}

/* The log keys no base row met: their own winner, unless deleted. */
static hudi_status decide_log_only(const hudi_read_plan *p, merge_state *m, log_index *x, hudi_error *err) {
  size_t pos = 0;
  const uint8_t *k;
  size_t kl;
  hudi_hashmap_value v;
  while (hudi_hashmap_next(&x->latest, &pos, &k, &kl, &v)) {
    int64_t latest = (int64_t)v.u64 - 1;
    if (x->decided[latest]) continue;
    int64_t win, row;
    HUDI_TRY(fold_key(&win, p, m, x, latest, NULL, 0, err));
    const hudi_arrow_view *wv = log_row(m, x, win, &row);
    hudi_hashmap_value dv;
    if (hudi_hashmap_get(&m->deletes, k, kl, &dv) && delete_wins(p, dv.ptr, wv, row)) continue;
    m->batches[x->rows[win] >> 32].keep[row >> 6] |= (uint64_t)1 << (row & 63);
  }
  return HUDI_OK;
}

/* Emits a decided base batch: moved whole when every row stays. */
static hudi_status emit_base(hudi_slice_reader *r, struct ArrowArray *c, hudi_arrow_view *v, uint64_t *keep,
                             hudi_error *err) {
  bool all = true;
  for (int64_t i = 0; all && i < v->length; i++) all = (keep[i >> 6] >> (i & 63)) & 1;
  hudi_status st = HUDI_OK;
  if (all && can_project_move(r->p, c)) {
    hudi_arrow_view_clear(v);
    struct ArrowArray o;
    st = project_move(r->p, c, &o, err);
    if (st == HUDI_OK) st = push_out(r, &o, err);
    return st;
  }
  st = commit_range_mask(r->p, v, &keep, err);
  if (st == HUDI_OK) st = emit(r, v, keep, err);
  hudi_arrow_view_clear(v);
  c->release(c);
  return st;
}

/* The duplicate check's table for a base file of `rows` rows: a power of
 * two, at least twice the rows. */
static size_t seen_slots(int64_t rows) {
  size_t slots = 64;
  while (rows > 0 && slots < (size_t)rows * 2 && slots < ((size_t)1 << 40)) slots *= 2;
  return slots;
}

/* *fallback: the base file's keys repeat; nothing was emitted. */
static hudi_status stream_base(hudi_slice_reader *r, merge_state *m, log_index *x, bool *fallback, hudi_error *err) {
  const hudi_read_plan *p = r->p;
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.skip_kv_metadata = true; /* conform reads columns only */
  o.lean = r->lean;
  o.batch_size = p->batch_size;
  hudi_pq_reader *pq = NULL;
  HUDI_TRY(hudi_pq_reader_open(&pq, p->t->storage, r->ref->slice->base->path, &o, err));
  size_t slots = seen_slots(hudi_pq_reader_meta(pq)->num_rows);
  uint64_t *seen = hudi_calloc(slots, sizeof *seen);
  uint64_t *keep = NULL, *hs = NULL;
  size_t hs_cap = 0;
  hudi_status st = seen ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  while (st == HUDI_OK && !*fallback) {
    struct ArrowArray a, c;
    bool eof = false;
    st = hudi_pq_reader_next(pq, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    st = conform(p, hudi_pq_reader_schema(pq), &a, &c, err);
    if (st != HUDI_OK) break;
    hudi_arrow_view v;
    st = hudi_arrow_view_init(&v, &r->read_export, &c, err);
    size_t words = (size_t)(c.length + 63) / 64 + 1;
    hudi_free(keep);
    keep = st == HUDI_OK ? hudi_calloc(words, sizeof *keep) : NULL;
    if (st == HUDI_OK && !keep) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; st == HUDI_OK && i < c.length; i++) keep[i >> 6] |= (uint64_t)1 << (i & 63);
    if (st == HUDI_OK && hs_cap < (size_t)c.length) {
      hudi_free(hs);
      hs_cap = (size_t)c.length;
      hs = hudi_malloc(hs_cap * sizeof *hs);
      if (!hs) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    }
    if (st == HUDI_OK) st = stream_decide(p, m, x, &v, keep, seen, slots - 1, hs, fallback, err);
    if (st == HUDI_OK && !*fallback) {
      st = emit_base(r, &c, &v, keep, err);
      continue;
    }
    hudi_arrow_view_clear(&v);
    c.release(&c);
  }
  hudi_free(keep);
  hudi_free(hs);
  hudi_free(seen);
  hudi_pq_reader_free(pq);
  return st;
}

static void drop_queue(hudi_slice_reader *r) {
  for (size_t i = r->pos_queue; i < r->n_queue; i++)
    if (r->queue[i].release) r->queue[i].release(&r->queue[i]);
  r->n_queue = r->pos_queue = 0;
}

/* An incremental read needs no row of a slice's base file when that file
 * was written before the range's first instant (incr_times[0], requested
 * times): every row of a base file carries the commit time of the instant
 * that wrote the file or of an older one (rewrites and compactions keep
 * the rows' times), so none of its rows lies in the range. Its rows then
 * matter only where they outrank the log records of their key (the key's
 * image is then the base row, out of the range, and the key is left out):
 *   - without an ordering field (COMMIT_TIME_ORDERING) a log record beats
 *     the base row of its key and a delete in the logs removes it, so the
 *     log records are merged among themselves and the base is not opened;
 *   - with one, the base file's key, sequence number, commit time and
 *     ordering columns alone are read, to decide the log keys they meet.
 * A MOR table's incremental read then costs the changed rows (and, with an
 * ordering field, four columns of the file group), not the file group. */
static bool base_out_of_range(const hudi_read_plan *p, const hudi_file_slice *s) {
  /* Under scan_all the range also covers archived writes, which
   * incr_times does not list: compare with the range's start instead. */
  if (p->scan_all)
    return p->incremental && s->base && s->n_logs > 0 && p->start[0] && strcmp(s->base->name.instant, p->start) <= 0;
  return p->incremental && s->base && s->n_logs > 0 && p->n_incr_times > 0 &&
         strcmp(s->base->name.instant, p->incr_times[0]) < 0;
}

/* What a streaming merge left to a fuller one (nothing emitted then). */
typedef enum merge_fallback {
  MERGE_DONE,      /* read */
  MERGE_ROWS,      /* a merge column missing or of another type: the base's rows, conformed */
  MERGE_IN_MEMORY, /* a base key repeats: run_merge */
} merge_fallback;

/* The base file's merge columns, each batch seen as the read schema's
 * shape (the other columns absent: nothing here reads them), decided
 * against the log records as stream_base decides whole rows, with no base
 * row emitted. *fb: see merge_fallback. */
static hudi_status decide_base_keys(hudi_slice_reader *r, merge_state *m, log_index *x, merge_fallback *fb,
                                    hudi_error *err) {
  const hudi_read_plan *p = r->p;
  const int64_t want[4] = {p->key_col, p->seqno_col, p->commit_col, p->ordering_col};
  const char *names[4];
  size_t nn = 0;
  for (size_t k = 0; k < 4; k++)
    if (want[k] >= 0) names[nn++] = p->read_schema.children[want[k]].name;
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.skip_kv_metadata = true;
  o.lean = r->lean;
  o.batch_size = p->batch_size;
  o.columns = names;
  o.n_columns = nn;
  hudi_pq_reader *pq = NULL;
  hudi_status st = hudi_pq_reader_open(&pq, p->t->storage, r->ref->slice->base->path, &o, err);
  if (st == HUDI_ERR_INVALID_ARG) { /* a merge column the file lacks */
    hudi_error_clear(err);
    *fb = MERGE_ROWS;
    return HUDI_OK;
  }
  HUDI_TRY(st);
  const hudi_arrow_field *fs = hudi_pq_reader_schema(pq);
  int64_t at[4] = {-1, -1, -1, -1};
  bool retyped = false;
  for (size_t k = 0; k < 4 && !retyped; k++) {
    if (want[k] < 0) continue;
    const hudi_arrow_field *rf = &p->read_schema.children[want[k]];
    at[k] = hudi_arrow_field_child_index(fs, rf->name);
    retyped = at[k] < 0 || strcmp(fs->children[at[k]].format, rf->format) != 0;
  }
  if (retyped) *fb = MERGE_ROWS;
  bool dup = false; /* a base key repeats */
  struct ArrowSchema ss;
  memset(&ss, 0, sizeof ss);
  size_t slots = seen_slots(hudi_pq_reader_meta(pq)->num_rows);
  uint64_t *seen = retyped ? NULL : hudi_calloc(slots, sizeof *seen);
  hudi_arrow_view *kids = retyped ? NULL : hudi_calloc((size_t)p->read_schema.n_children + 1, sizeof *kids);
  uint64_t *keep = NULL, *hs = NULL;
  size_t cap = 0;
  if (!retyped && (!seen || !kids)) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st == HUDI_OK && !retyped) st = hudi_arrow_field_export(&ss, fs, err);
  while (st == HUDI_OK && !retyped && !dup) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_pq_reader_next(pq, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    hudi_arrow_view raw;
    memset(&raw, 0, sizeof raw);
    st = hudi_arrow_view_init(&raw, &ss, &a, err);
    if (st == HUDI_OK && cap < (size_t)a.length) {
      hudi_free(keep);
      hudi_free(hs);
      cap = (size_t)a.length;
      keep = hudi_calloc(cap / 64 + 2, sizeof *keep);
      hs = hudi_malloc(cap * sizeof *hs);
      if (!keep || !hs) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    }
    if (st == HUDI_OK) {
      hudi_arrow_view v = raw; /* the read schema's shape over the four columns */
      for (size_t k = 0; k < 4; k++)
        if (want[k] >= 0) kids[want[k]] = raw.children[at[k]];
      v.children = kids;
      v.n_children = p->read_schema.n_children;
      st = stream_decide(p, m, x, &v, keep, seen, slots - 1, hs, &dup, err);
    }
    hudi_arrow_view_clear(&raw);
    a.release(&a);
  }
  if (dup) *fb = MERGE_IN_MEMORY;
  if (ss.release) ss.release(&ss);
  hudi_free(keep);
  hudi_free(hs);
  hudi_free(kids);
  hudi_free(seen);
  hudi_pq_reader_free(pq);
  return st;
}

/* How a slice's base file meets its indexed log records. */
typedef enum base_pass {
  BASE_ROWS,          /* streamed whole (stream_base) */
  BASE_MERGE_COLUMNS, /* its merge columns only (decide_base_keys) */
  BASE_NONE,          /* not opened */
} base_pass;

/* The log records read and indexed, the base file passed as `how` says,
 * the log keys no base row met decided, and the winners emitted. */
static hudi_status merge_indexed(hudi_slice_reader *r, base_pass how, merge_fallback *fb, hudi_error *err) {
  const hudi_read_plan *p = r->p;
  merge_state m;
  memset(&m, 0, sizeof m);
  hudi_hashmap_init(&m.winners, 0);
  hudi_hashmap_init(&m.deletes, 0);
  log_state ls;
  memset(&ls, 0, sizeof ls);
  log_index x;
  memset(&x, 0, sizeof x);
  hudi_status st = read_logs_into(r, &m, &ls, err);
  log_state_free(&ls);
  if (st == HUDI_OK) st = log_index_build(&x, p, &m, err);
  if (st == HUDI_OK && how == BASE_ROWS) {
    bool dup = false;
    st = stream_base(r, &m, &x, &dup, err);
    if (dup) *fb = MERGE_IN_MEMORY;
  }
  if (st == HUDI_OK && how == BASE_MERGE_COLUMNS) st = decide_base_keys(r, &m, &x, fb, err);
  if (st == HUDI_OK && *fb == MERGE_DONE) st = decide_log_only(p, &m, &x, err);
  if (st == HUDI_OK && *fb == MERGE_DONE) st = emit_batches(r, &m, err);
  log_index_free(&x);
  merge_state_free(&m);
  return st;
}

/* A slice with a base file: its base rows streamed past the log records,
 * or fewer of them for an incremental read (base_out_of_range); the whole
 * slice in memory when base keys repeat. */
static hudi_status run_merge_stream(hudi_slice_reader *r, hudi_error *err) {
  base_pass how = !base_out_of_range(r->p, r->ref->slice) ? BASE_ROWS
                  : r->p->ordering_col >= 0               ? BASE_MERGE_COLUMNS
                                                          : BASE_NONE;
  merge_fallback fb = MERGE_DONE;
  hudi_status st = merge_indexed(r, how, &fb, err);
  if (st == HUDI_OK && fb == MERGE_ROWS) {
    drop_queue(r);
    fb = MERGE_DONE;
    st = merge_indexed(r, BASE_ROWS, &fb, err);
  }
  if (st == HUDI_OK && fb == MERGE_IN_MEMORY) {
    drop_queue(r);
    st = run_merge(r, err);
  }
  return st;
}

/* ---- the reader --------------------------------------------------------- */

hudi_status hudi_slice_reader_open(hudi_slice_reader **out, const hudi_read_plan *p, const hudi_read_slice_ref *ref,
                                   hudi_error *err) {
  return hudi_slice_reader_open_ex(out, p, ref, false, err);
}

hudi_status hudi_slice_reader_open_ex(hudi_slice_reader **out, const hudi_read_plan *p,
                                      const hudi_read_slice_ref *ref, bool lean, hudi_error *err) {
  hudi_slice_reader *r = hudi_calloc(1, sizeof *r);
  if (!r) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  r->p = p;
  r->ref = ref;
  r->lean = lean;
  hudi_status st = hudi_arrow_field_export(&r->read_export, &p->read_schema, err);
  bool base_only = p->read_optimized || ref->slice->n_logs == 0;
  if (st == HUDI_OK && base_only && ref->slice->base) {
    hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
    o.skip_kv_metadata = true; /* conform reads columns only */
    o.lean = lean;
    o.batch_size = p->batch_size;
    /* Statistics describe the base file only: prune by them only when no
     * log can change its rows. */
    if (p->pred) {
      o.filter = rg_filter;
      o.filter_ctx = (void *)p;
    }
    st = hudi_pq_reader_open(&r->pq, p->t->storage, ref->slice->base->path, &o, err);
    r->merged = true;
  } else if (base_only) {
    r->merged = true; /* read-optimized slice without a base file: nothing */
  }
  if (st != HUDI_OK) {
    hudi_slice_reader_free(r);
    return st;
  }
  *out = r;
  return HUDI_OK;
}

hudi_status hudi_slice_reader_next(hudi_slice_reader *r, struct ArrowArray *out, bool *eof, hudi_error *err) {
  *eof = false;
  for (;;) {
    if (r->pos_queue < r->n_queue) {
      *out = r->queue[r->pos_queue];
      r->queue[r->pos_queue++].release = NULL;
      return HUDI_OK;
    }
    r->pos_queue = r->n_queue = 0;
    if (r->pq) {
      struct ArrowArray a, c;
      bool done = false;
      HUDI_TRY(hudi_pq_reader_next(r->pq, &a, &done, err));
      if (done) {
        hudi_pq_reader_free(r->pq);
        r->pq = NULL;
        continue;
      }
      HUDI_TRY(conform(r->p, hudi_pq_reader_schema(r->pq), &a, &c, err));
      if (can_project_move(r->p, &c)) {
        struct ArrowArray o;
        HUDI_TRY(project_move(r->p, &c, &o, err));
        HUDI_TRY(push_out(r, &o, err));
        continue;
      }
      hudi_arrow_view v;
      hudi_status st = hudi_arrow_view_init(&v, &r->read_export, &c, err);
      uint64_t *keep = NULL;
      if (st == HUDI_OK) st = commit_range_mask(r->p, &v, &keep, err);
      if (st == HUDI_OK) st = emit(r, &v, keep, err);
      hudi_free(keep);
      hudi_arrow_view_clear(&v);
      c.release(&c);
      if (st != HUDI_OK) return st;
      continue;
    }
    if (!r->merged) {
      r->merged = true;
      /* Streaming needs a base file and the record key to meet it by. */
      bool stream = r->ref->slice->base && r->p->key_col >= 0;
      hudi_status st = stream ? run_merge_stream(r, err) : run_merge(r, err);
      if (st != HUDI_OK)
        return hudi_err_context(err, st, "reading file group %s in partition '%s'", r->ref->group->file_id,
                                r->ref->group->partition);
      continue;
    }
    *eof = true;
    return HUDI_OK;
  }
}

void hudi_slice_reader_free(hudi_slice_reader *r) {
  if (!r) return;
  hudi_pq_reader_free(r->pq);
  for (size_t i = r->pos_queue; i < r->n_queue; i++)
    if (r->queue[i].release) r->queue[i].release(&r->queue[i]);
  hudi_free(r->queue);
  if (r->read_export.release) r->read_export.release(&r->read_export);
  hudi_free(r);
}

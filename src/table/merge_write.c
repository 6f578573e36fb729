/* The keyed write engine (merge_write.h). Steps:
 *   schemas (evolved, write_schema.h) -> dedupe incoming keys -> index
 *   lookup -> plan per file slice -> new keys into small files ->
 *   T.<action>.requested, inflight -> touched file groups (COW, and MOR
 *   small files: rewrite the base file; MOR: one log file) and new base
 *   files for the other new keys ->
 *   the MDT deltacommit T (write_mdt.h; a no-op without an MDT) ->
 *   T_C.<action> -> markers removed. The index is the record index when
 *   the table has one, else the BLOOM index. Nothing is written before the plan is
 *   complete, so bad input leaves no trace. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/builder.h"
#include "arrow/field.h"
#include "arrow/stream.h"
#include "arrow/stream_readahead.h"
#include "arrow/view.h"
#include "avro/arrow_encode.h"
#include "avro/arrow_schema.h"
#include "avro/schema.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/hashmap.h"
#include "base/instant.h"
#include "base/threadpool.h"
#include "expr/value.h"
#include "hudi/read.h"
#include "parquet/writer.h"
#include "parquet/writer_feed.h"
#include "table/base_file.h"
#include "table/base_footer.h"
#include "table/bloom.h"
#include "table/clustering_pending.h"
#include "table/commit_metadata.h"
#include "table/index.h"
#include "table/index_rli.h"
#include "table/log_avro_block.h"
#include "table/log_delete_block.h"
#include "table/read_plan.h"
#include "table/log_file_name.h"
#include "table/log_format.h"
#include "table/log_parquet_block.h"
#include "table/log_writer.h"
#include "table/mdt_reader.h"
#include "table/merge_write.h"

#include "table/clustering_pending.h"
#include "table/services.h"
#include "table/requested_replace.h"
#include "table/schema_resolve.h"
#include "table/write.h"
#include "table/write_convert.h"
#include "table/write_gather.h"
#include "table/write_mdt.h"
#include "table/write_schema.h"

#define N_META HUDI_AVRO_N_META_FIELDS

/* What happens to one incoming key. */
typedef enum inc_kind { INC_NOOP, INC_INSERT, INC_UPDATE, INC_DELETE, INC_MOVE } inc_kind;

typedef struct inc {
  const char *key;
  size_t klen;
  const char *part;  /* the row's partition (upserts), else NULL */
  int64_t row;       /* index into rows->order, -1 for a delete */
  hudi_index_loc loc;
  int64_t slice;     /* the touched slice in `full`, or -1 */
  inc_kind kind;
  const char *new_fid; /* inserts and moves: the new file group (in meta's arena) */
} inc;

typedef struct mw {
  hudi_table *t;
  const hudi_option *opts;
  size_t n_opts;
  hudi_write_rows *rows;
  hudi_write_result *res;
  inc *incs;
  size_t n_incs;
  hudi_hashmap keys; /* key -> inc index */
  hudi_arrow_field data_schema; /* stored data columns */
  hudi_arrow_field out_schema;  /* meta + data */
  bool *same_in;                /* per data column: incoming values copy as they are */
  char *schema_json, *avro_with_meta;
  char root_name[600];
  /* The ordering field's column in the input data (-1: none), and its
   * name (NULL: the table has none), looked up in each stored slice's own
   * columns (files written before the column was added lack it). */
  int64_t ordering_in;
  const char *ordering_name;
  char ordering_buf[256];
  int64_t max_file_size;
  hudi_pq_writer_options pq;
  hudi_bloom_cfg bloom; /* footer bloom filter and key range */
  int32_t log_block_type; /* MOR data blocks: AVRO_DATA or PARQUET_DATA */
  hudi_pq_codec log_codec; /* PARQUET_DATA blocks' codec */
  hudi_file_slice_list *full; /* latest slices, every column */
  hudi_hashmap slice_ids;     /* "partition\0file_id" -> slice index */
  size_t *by_slice;           /* inc indices grouped by slice */
  size_t *slice_start;        /* n_slices + 1 offsets into by_slice */
  char instant[HUDI_INSTANT_TIME_BUF];
  hudi_commit_metadata *meta;
  int task;
  hudi_avro_schema *avro;
  hudi_avro_encoder *enc;
  hudi_index *index;
  int mode;            /* HUDI_MERGE_* */
  const char *action;  /* commit, deltacommit or replacecommit */
  /* Keys of replaced file groups not written again (overwrites of a table
   * with a record index): offset/length pairs into gone_keys. */
  hudi_buf gone_keys;
  size_t *gone, n_gone, cap_gone;
  /* The data files' write group (write_data_files), joined by the feed
   * threads that close files. */
  hudi_storage_group *group;
  /* A file whose close runs on its feed's thread while this thread merges
   * the next one (bw_close_begin); NULL when none. */
  struct bw *closing;
} mw;

/* ---- options and schemas ---------------------------------------------- */

static hudi_status pq_options(mw *c, hudi_error *err) {
  bool codec_set;
  HUDI_TRY(hudi_write_int_option(c->t, c->opts, c->n_opts, "hoodie.parquet.max.file.size",
                                 HUDI_WRITE_DEFAULT_MAX_FILE_SIZE, 1, &c->max_file_size, err));
  HUDI_TRY(hudi_write_pq_options(&c->pq, c->t, c->opts, c->n_opts, c->root_name, &codec_set, err));
  /* Parquet data blocks use hoodie.parquet.compression.codec, as Java's;
   * unset, zstd: gzip's blocks are 4% larger (uuid keys) and cost 2-3x the
   * CPU of the whole upsert on embeddings (docs/benchmarks.md). */
  c->log_codec = codec_set ? c->pq.codec : HUDI_PQ_CODEC_ZSTD;
  HUDI_TRY(hudi_bloom_cfg_read(&c->bloom, c->t, c->opts, c->n_opts, err));
  /* Our default is Parquet data blocks (log_parquet_block.h): Hudi's
   * default, Avro, is uncompressed and 3-4x the bytes (docs/status.md). */
  return hudi_log_data_block_format_parse(&c->log_block_type,
                                          hudi_write_option(c->t, c->opts, c->n_opts, HUDI_LOG_DATA_BLOCK_FORMAT_KEY),
                                          HUDI_LOG_BLOCK_PARQUET_DATA, err);
}

/* data_schema from the rows or the table; the JSON schemas; out_schema. */
static hudi_status build_schemas(mw *c, bool *empty_table, hudi_error *err) {
  char *cur = NULL;
  HUDI_TRY(hudi_write_current_schema(&cur, c->t, err));
  *empty_table = cur == NULL;
  hudi_status st = HUDI_OK;
  if (c->rows) {
    /* Schema evolution (write_schema.h): the rows then carry the writer
     * schema, in the table's column order, column for column. Spark SQL
     * moves partition columns last; a DataFrame may have any order. */
    st = hudi_write_rows_evolve(c->rows, c->t, c->opts, c->n_opts, NULL, err);
    if (st == HUDI_OK) st = hudi_arrow_field_copy(&c->data_schema, &c->rows->stored, false, err);
  } else if (cur) {
    struct ArrowSchema s;
    memset(&s, 0, sizeof s);
    st = hudi_table_get_schema(&s, c->t, false, err);
    if (st == HUDI_OK) st = hudi_arrow_field_from_schema(&c->data_schema, &s, true, err);
    if (s.release) s.release(&s);
  }
  if (st != HUDI_OK || (!c->rows && !cur)) {
    hudi_free(cur);
    return st;
  }
  const char *name = c->t->name;
  hudi_buf b;
  hudi_buf_init(&b, HUDI_BUF_DEFAULT_MAX);
  st = hudi_avro_schema_from_arrow(&b, &c->data_schema, name, false, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&b, 0, err);
  if (st == HUDI_OK) {
    c->schema_json = hudi_strdup((const char *)b.data);
    hudi_buf_reset(&b);
    st = hudi_avro_schema_from_arrow(&b, &c->data_schema, name, true, err);
  }
  if (st == HUDI_OK) st = hudi_buf_append_byte(&b, 0, err);
  if (st == HUDI_OK) c->avro_with_meta = hudi_strdup((const char *)b.data);
  hudi_buf_free(&b);
  if (st == HUDI_OK && (!c->schema_json || !c->avro_with_meta)) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  /* A delete keeps the table's own schema text. */
  if (st == HUDI_OK && cur && !c->rows) {
    hudi_free(c->schema_json);
    c->schema_json = cur;
    cur = NULL;
  }
  hudi_free(cur);
  HUDI_TRY(st);
  snprintf(c->root_name, sizeof c->root_name, "hoodie.%s.%s_record", name, name);

  const hudi_arrow_field *d = &c->data_schema;
  HUDI_TRY(hudi_arrow_field_init(&c->out_schema, "", "+s", 0, err));
  HUDI_TRY(hudi_arrow_field_alloc_children(&c->out_schema, N_META + d->n_children, err));
  for (int i = 0; i < N_META; i++)
    HUDI_TRY(hudi_arrow_field_init(&c->out_schema.children[i], hudi_avro_meta_field_names[i], "u",
                                   ARROW_FLAG_NULLABLE, err));
  for (int64_t i = 0; i < d->n_children; i++)
    HUDI_TRY(hudi_arrow_field_copy(&c->out_schema.children[N_META + i], &d->children[i], false, err));
  c->same_in = hudi_calloc((size_t)d->n_children + 1, sizeof *c->same_in);
  if (!c->same_in) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (c->rows)
    for (int64_t i = 0; i < d->n_children; i++)
      c->same_in[i] = hudi_write_same_storage(&d->children[i], &c->rows->input.children[i]);
  const char *of = hudi_table_ordering_field(c->t, c->ordering_buf, sizeof c->ordering_buf);
  c->ordering_in = -1;
  c->ordering_name = of;
  if (of && c->rows) {
    c->ordering_in = hudi_arrow_field_child_index(&c->rows->input, of);
    if (c->ordering_in < 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the data has no column '%s' (the table's ordering field)", of);
  }
  return HUDI_OK;
}

/* The ordering field's column among a stored slice's columns (schema:
 * as read, meta columns first), -1 when the table has none or the slice
 * lacks it. */
static int64_t stored_ordering_col(const mw *c, const struct ArrowSchema *schema) {
  if (!c->ordering_name) return -1;
  for (int64_t k = N_META; k < schema->n_children; k++)
    if (schema->children[k]->name && !strcmp(schema->children[k]->name, c->ordering_name)) return k;
  return -1;
}

/* The stored record's ordering value: row `row` of column ord of v, or
 * null when the slice lacks the column (as a stored null compares). */
static void stored_ordering(hudi_value *out, const hudi_arrow_view *v, int64_t ord, int64_t row) {
  if (ord < 0) {
    memset(out, 0, sizeof *out);
    out->is_null = true;
    return;
  }
  hudi_value_from_view(out, &v->children[ord], row);
}

static bool as_double(const hudi_value *v, double *out) {
  switch (v->cls) {
    case HUDI_VC_INT: *out = (double)v->v.i; return true;
    case HUDI_VC_UINT: *out = (double)v->v.u; return true;
    case HUDI_VC_DOUBLE: *out = v->v.d; return true;
    default: return false;
  }
}

/* Whether an incoming record loses to the stored one of its key by their
 * ordering values, as the reader merges them (read_slice.c compare_rows)
 * and Java's DefaultHoodieRecordPayload: a null never beats a value (a
 * stored null, or a slice without the column, loses to any incoming
 * value; an incoming null loses to a stored value); values the schema
 * promoted since the file was written (a stored int, an incoming double)
 * compare as numbers; a tie goes to the incoming record. */
static bool incoming_loses(const hudi_value *in, const hudi_value *stored) {
  if (stored->is_null) return false;
  if (in->is_null) return true;
  if (in->cls != stored->cls) {
    double a, b;
    return as_double(in, &a) && as_double(stored, &b) && a < b;
  }
  return hudi_value_cmp(in, stored) < 0;
}

/* ---- incoming records ----------------------------------------------- */

static int64_t arrival_cmp(const hudi_write_rows *r, int64_t a, int64_t b) {
  const hudi_write_row *x = &r->order[a], *y = &r->order[b];
  if (x->batch != y->batch) return x->batch < y->batch ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* Whether row b (arriving after or before a) replaces row a of the same key. */
static bool row_wins(const mw *c, int64_t a, int64_t b) {
  const hudi_write_rows *r = c->rows;
  bool later = arrival_cmp(r, b, a) > 0;
  if (c->ordering_in < 0) return later;
  const hudi_write_row *x = &r->order[a], *y = &r->order[b];
  const hudi_arrow_view *vx = &r->batches[x->batch].view, *vy = &r->batches[y->batch].view;
  hudi_value ox, oy;
  hudi_value_from_view(&ox, &vx->children[c->ordering_in], hudi_arrow_view_struct_row(vx, x->row));
  hudi_value_from_view(&oy, &vy->children[c->ordering_in], hudi_arrow_view_struct_row(vy, y->row));
  int cmp = hudi_value_cmp(&oy, &ox);
  return cmp > 0 || (cmp == 0 && later);
}

static hudi_status add_inc(mw *c, const char *key, size_t klen, const char *part, int64_t row, hudi_error *err) {
  hudi_hashmap_value v;
  if (hudi_hashmap_get(&c->keys, key, klen, &v)) {
    inc *e = &c->incs[v.u64];
    if (row >= 0 && e->row >= 0 && row_wins(c, e->row, row)) {
      e->row = row;
      e->part = part;
    }
    return HUDI_OK;
  }
  HUDI_TRY(hudi_hashmap_put(&c->keys, key, klen, (hudi_hashmap_value){.u64 = c->n_incs}, NULL, NULL, err));
  c->incs[c->n_incs++] = (inc){key, klen, part, row, {NULL, NULL}, -1, INC_NOOP, NULL};
  return HUDI_OK;
}

static hudi_status collect(mw *c, const hudi_merge_input *in, hudi_error *err) {
  size_t n = (c->rows ? c->rows->n : 0) + in->n_del;
  c->incs = hudi_calloc(n ? n : 1, sizeof *c->incs);
  if (!c->incs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for %zu keys", n);
  for (size_t i = 0; c->rows && i < c->rows->n; i++) {
    size_t kl;
    const char *k = hudi_write_rows_key(c->rows, i, &kl);
    HUDI_TRY(add_inc(c, k, kl, hudi_write_rows_partition(c->rows, i), (int64_t)i, err));
  }
  for (size_t i = 0; i < in->n_del; i++) {
    if (!in->del_keys[i] || !in->del_lens[i])
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "record key %zu to delete is null or empty", i);
    HUDI_TRY(add_inc(c, in->del_keys[i], in->del_lens[i], NULL, -1, err));
  }
  return HUDI_OK;
}

/* ---- planning --------------------------------------------------------- */

static hudi_status slice_of(mw *c, const hudi_index_loc *loc, int64_t *out, hudi_error *err) {
  hudi_buf k;
  hudi_buf_init(&k, 1 << 16);
  hudi_status st = hudi_buf_printf(&k, err, "%s%c%s", loc->partition, '\0', loc->file_id);
  hudi_hashmap_value v;
  if (st == HUDI_OK && !hudi_hashmap_get(&c->slice_ids, k.data, k.len, &v))
    st = hudi_err_set(err, HUDI_ERR_INTERNAL, "the index named file group %s of partition '%s', not in the view",
                      loc->file_id, loc->partition);
  if (st == HUDI_OK) *out = (int64_t)v.u64;
  hudi_buf_free(&k);
  return st;
}

static hudi_status plan(mw *c, hudi_index *ix, hudi_error *err) {
  size_t ns = hudi_file_slice_list_count(c->full);
  for (size_t s = 0; s < ns; s++) {
    hudi_file_slice_info info;
    hudi_file_slice_list_at(c->full, s, &info);
    hudi_buf k;
    hudi_buf_init(&k, 1 << 16);
    hudi_status st = hudi_buf_printf(&k, err, "%s%c%s", info.partition, '\0', info.file_id);
    if (st == HUDI_OK) st = hudi_hashmap_put(&c->slice_ids, k.data, k.len, (hudi_hashmap_value){.u64 = s}, NULL, NULL, err);
    hudi_buf_free(&k);
    HUDI_TRY(st);
  }
  const char **keys = hudi_calloc(c->n_incs + 1, sizeof *keys);
  size_t *lens = hudi_calloc(c->n_incs + 1, sizeof *lens);
  hudi_index_loc *locs = hudi_calloc(c->n_incs + 1, sizeof *locs);
  hudi_status st = keys && lens && locs ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < c->n_incs; i++) keys[i] = c->incs[i].key, lens[i] = c->incs[i].klen;
  if (st == HUDI_OK && ix) st = hudi_index_lookup(ix, locs, keys, lens, c->n_incs, err);
  for (size_t i = 0; st == HUDI_OK && i < c->n_incs; i++) {
    inc *e = &c->incs[i];
    e->loc = locs[i];
    bool present = locs[i].partition != NULL;
    if (present) st = slice_of(c, &locs[i], &e->slice, err);
    if (e->row < 0) e->kind = present ? INC_DELETE : INC_NOOP;
    else if (!present) e->kind = INC_INSERT;
    else e->kind = strcmp(locs[i].partition, e->part) == 0 ? INC_UPDATE : INC_MOVE;
  }
  hudi_free(keys);
  hudi_free(lens);
  hudi_free(locs);
  return st;
}

/* The stored record of moving key rows[from..to) (incs of slice s, by
 * key in `mine`) wins over the incoming one when its ordering value is
 * higher: the key then stays where it is, unchanged (INC_NOOP). Java
 * merges the incoming record with the stored one before it routes a
 * partition change (HoodieIndexUtils.mergeForPartitionUpdatesIfNeeded)
 * and moves only the merged result, which is the stored record then; an
 * update within the partition is settled the same way where the slice
 * is merged. */
static hudi_status stale_moves_in_slice(mw *c, size_t s, const hudi_hashmap *mine, hudi_error *err) {
  hudi_file_slice_info info;
  hudi_file_slice_list_at(c->full, s, &info);
  struct ArrowArrayStream in;
  memset(&in, 0, sizeof in);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  hudi_status st = hudi_table_read_file_slice(&in, c->t, c->full, s, err);
  if (st == HUDI_OK && in.get_schema(&in, &schema) != 0)
    st = hudi_err_set(err, HUDI_ERR_IO, "reading the schema of file group %s", info.file_id);
  int64_t ord = st == HUDI_OK ? stored_ordering_col(c, &schema) : -1;
  while (st == HUDI_OK) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    int rc = in.get_next(&in, &a);
    if (rc != 0) {
      const char *m = in.get_last_error ? in.get_last_error(&in) : NULL;
      st = hudi_err_set(err, hudi_arrow_stored_read_status(rc), "reading file group %s: %s", info.file_id,
                        m ? m : "error");
      break;
    }
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    st = hudi_arrow_view_init(&v, &schema, &a, err);
    for (int64_t i = 0; st == HUDI_OK && i < v.length; i++) {
      int64_t row = hudi_arrow_view_struct_row(&v, i), kl;
      const uint8_t *k = hudi_arrow_view_bytes(&v.children[2], row, &kl);
      hudi_hashmap_value hv;
      if (!k || !hudi_hashmap_get(mine, k, (size_t)kl, &hv)) continue;
      inc *e = &c->incs[hv.u64];
      const hudi_write_row *wr = &c->rows->order[e->row];
      const hudi_arrow_view *bv = &c->rows->batches[wr->batch].view;
      hudi_value inv, sv;
      hudi_value_from_view(&inv, &bv->children[c->ordering_in], hudi_arrow_view_struct_row(bv, wr->row));
      stored_ordering(&sv, &v, ord, row);
      if (incoming_loses(&inv, &sv)) {
        e->kind = INC_NOOP;
        e->slice = -1; /* its slice is not written for it */
      }
    }
    hudi_arrow_view_clear(&v);
    if (a.release) a.release(&a);
  }
  if (in.release) in.release(&in);
  if (schema.release) schema.release(&schema);
  return st;
}

/* Drops the moves whose incoming ordering value is below the stored
 * record's (stale_moves_in_slice), reading only the slices such keys are
 * in. Tables without an ordering field move every key. */
static hudi_status drop_stale_moves(mw *c, hudi_error *err) {
  if (c->ordering_in < 0) return HUDI_OK;
  hudi_hashmap by_slice; /* slice -> its moving keys' hashmap index */
  hudi_hashmap_init(&by_slice, 0);
  hudi_hashmap *maps = NULL;
  size_t n_maps = 0, cap = 0;
  int64_t *slices = NULL;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < c->n_incs; i++) {
    inc *e = &c->incs[i];
    if (e->kind != INC_MOVE) continue;
    hudi_hashmap_value hv;
    if (!hudi_hashmap_get(&by_slice, &e->slice, sizeof e->slice, &hv)) {
      if (n_maps == cap) {
        size_t nc = cap ? cap * 2 : 8;
        hudi_hashmap *nm = hudi_realloc(maps, nc * sizeof *nm);
        int64_t *ns = nm ? hudi_realloc(slices, nc * sizeof *ns) : NULL;
        if (nm) maps = nm;
        if (ns) slices = ns;
        if (!nm || !ns) {
          st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
          break;
        }
        cap = nc;
      }
      hudi_hashmap_init(&maps[n_maps], 0);
      slices[n_maps] = e->slice;
      hv.u64 = n_maps++;
      st = hudi_hashmap_put(&by_slice, &e->slice, sizeof e->slice, hv, NULL, NULL, err);
    }
    if (st == HUDI_OK)
      st = hudi_hashmap_put(&maps[hv.u64], e->key, e->klen, (hudi_hashmap_value){.u64 = i}, NULL, NULL, err);
  }
  for (size_t m = 0; st == HUDI_OK && m < n_maps; m++) st = stale_moves_in_slice(c, (size_t)slices[m], &maps[m], err);
  for (size_t m = 0; m < n_maps; m++) hudi_hashmap_free(&maps[m]);
  hudi_free(maps);
  hudi_free(slices);
  hudi_hashmap_free(&by_slice);
  return st;
}

/* Groups the touched keys by slice (counting sort, keeps key order). */
static hudi_status group_by_slice(mw *c, hudi_error *err) {
  size_t ns = hudi_file_slice_list_count(c->full);
  c->slice_start = hudi_calloc(ns + 2, sizeof *c->slice_start);
  c->by_slice = hudi_calloc(c->n_incs + 1, sizeof *c->by_slice);
  if (!c->slice_start || !c->by_slice) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < c->n_incs; i++)
    if (c->incs[i].slice >= 0) c->slice_start[c->incs[i].slice + 1]++;
  for (size_t s = 0; s < ns; s++) c->slice_start[s + 1] += c->slice_start[s];
  size_t *fill = hudi_calloc(ns + 1, sizeof *fill);
  if (!fill) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < c->n_incs; i++) {
    int64_t s = c->incs[i].slice;
    if (s >= 0) c->by_slice[c->slice_start[s] + fill[s]++] = i;
  }
  hudi_free(fill);
  return HUDI_OK;
}

/* ---- base files ------------------------------------------------------- */

typedef struct bw {
  mw *c;
  const char *partition;
  char file_id[HUDI_FILE_ID_MAX];
  char file_name[256];
  int task;
  hudi_buf path;
  hudi_arrow_batch_builder *bb;
  hudi_pq_writer *w;
  /* On 2+ cores w is written by a feed thread (and its helper), so this
   * thread merges and builds the next batch meanwhile (bw_feed). NULL:
   * written here. */
  hudi_pq_feed *feed;
  hudi_bloom bloom;
  /* The filter holds the stored rows' keys already (resume_bloom): only
   * new keys are added. */
  bool bloom_has_stored;
  hudi_buf seq, min_key, max_key;
  int64_t n, n_new;
  /* Per data column: its column in the stored rows (-1: absent, written as
   * null; the rows were written before the column was added) and whether
   * its values copy as they are. NULL until the first stored row. */
  int64_t *stored_col;
  bool *same_stored;
  /* The ordering field's column in the stored rows (stored_ordering_col). */
  int64_t ord;
  /* Direct copy (COW rewrites): unchanged stored rows go to the writer as
   * runs of the stored batch, with only the file-name column replaced by
   * `name` (this file's name, name_rows times), instead of row by row
   * through bb. 1 when the stored columns match out_schema exactly, 0
   * when not, -1 before the first stored batch. */
  int direct;
  hudi_buf name_offs, name_data;
  int64_t name_rows;
  /* Direct: the current stored batch's runs, in file order; a run whose
   * view is NULL is rows of bb (the batch's updated rows), any other the
   * stored batch's. */
  hudi_pq_run *runs;
  size_t n_runs, cap_runs;
  struct ArrowSchema bb_schema; /* bb's, for views of its batches */
  char *stat_fid; /* after bw_close_begin: the file id in meta's arena */
  /* What bw_close_begin was told, and the close's summary (written by the
   * feed's thread, read after hudi_pq_feed_finish). */
  const char *prev_commit;
  int64_t inserts, updates, deletes;
  hudi_pq_write_summary sum;
} bw;

static void bw_free(bw *b) {
  /* A file given up on: its feed is stopped, its writer freed below. */
  hudi_error ignored = HUDI_ERROR_INIT;
  hudi_status unused = hudi_pq_feed_finish(b->feed, &ignored);
  (void)unused;
  hudi_pq_writer_free(b->w);
  hudi_arrow_batch_builder_free(b->bb);
  hudi_bloom_free(&b->bloom);
  hudi_buf_free(&b->seq);
  hudi_buf_free(&b->min_key);
  hudi_buf_free(&b->max_key);
  hudi_buf_free(&b->path);
  hudi_free(b->same_stored);
  hudi_free(b->stored_col);
  hudi_buf_free(&b->name_offs);
  hudi_buf_free(&b->name_data);
  hudi_free(b->runs);
  if (b->bb_schema.release) b->bb_schema.release(&b->bb_schema);
  hudi_pq_write_summary_free(&b->sum);
  memset(b, 0, sizeof *b);
}

static void bw_destroy(bw *b) {
  if (!b) return;
  bw_free(b);
  hudi_free(b);
}

/* file_id NULL: a new file group. */
static hudi_status bw_open(bw *b, mw *c, const char *partition, const char *file_id, const char *marker,
                           hudi_error *err) {
  memset(b, 0, sizeof *b);
  b->c = c;
  b->partition = partition;
  b->task = c->task++;
  hudi_buf_init(&b->path, 1 << 16);
  hudi_buf_init(&b->seq, 256);
  hudi_buf_init(&b->min_key, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&b->max_key, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&b->name_offs, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&b->name_data, HUDI_BUF_DEFAULT_MAX);
  b->direct = -1;
  if (file_id) snprintf(b->file_id, sizeof b->file_id, "%s", file_id);
  else HUDI_TRY(hudi_write_new_file_id(b->file_id, err));
  char token[64];
  snprintf(token, sizeof token, "%d-1-%d", b->task, b->task);
  if (hudi_base_file_name_format(b->file_name, sizeof b->file_name, b->file_id, token, c->instant, "parquet") < 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "base file name too long");
  HUDI_TRY(hudi_buf_printf(&b->path, err, "%s%s%s%c", partition, *partition ? "/" : "", b->file_name, '\0'));
  HUDI_TRY(hudi_write_marker(c->t->storage, c->instant, partition, b->file_name, marker, err));
  HUDI_TRY(hudi_write_partition_metadata(c->t->storage, partition, c->instant, err));
  if (c->bloom.on)
    HUDI_TRY(hudi_bloom_init_for(&b->bloom, &c->bloom, err));
  HUDI_TRY(hudi_arrow_batch_builder_create(&b->bb, &c->out_schema, err));
  struct ArrowSchema pq_schema;
  memset(&pq_schema, 0, sizeof pq_schema);
  hudi_status st = hudi_arrow_batch_builder_export_schema(b->bb, &pq_schema, err);
  /* Files are rewritten one at a time, by this thread alone: their
   * columns are encoded on the other cores too (writer.h encode_threads). */
  hudi_pq_writer_options o = c->pq;
  o.encode_threads = hudi_pq_encode_threads_share(1);
  if (st == HUDI_OK)
    st = hudi_pq_writer_open_storage(&b->w, &pq_schema, &o, c->t->storage, (const char *)b->path.data, err);
  if (pq_schema.release) pq_schema.release(&pq_schema);
  return st;
}

/* The feed, started once a file has more than one batch to write (a
 * file of one batch is written here, without a thread); NULL on one
 * core. */
static hudi_status bw_feed(bw *b, hudi_error *err) {
  if (!b->feed && hudi_cpu_count() > 1) return hudi_pq_feed_start(&b->feed, b->w, err);
  return HUDI_OK;
}

/* Writes bb's rows once there are enough of them, or with `force` all of
 * them; `last`: bw_close's flush, no rows follow. */
static hudi_status bw_write_built(bw *b, bool force, bool last, hudi_error *err) {
  int64_t n = hudi_arrow_batch_builder_n_rows(b->bb);
  if (n == 0 || (!force && n < 8192)) return HUDI_OK;
  struct ArrowArray arr;
  HUDI_TRY(hudi_arrow_batch_builder_finish(b->bb, &arr, err));
  unsigned flags = last ? HUDI_PQ_WRITE_LAST : 0;
  hudi_status st = last ? HUDI_OK : bw_feed(b, err);
  if (st == HUDI_OK && b->feed) return hudi_pq_feed_push(b->feed, &arr, flags, err);
  if (st == HUDI_OK) st = hudi_pq_writer_write_batch(b->w, &arr, flags, err);
  arr.release(&arr);
  return st;
}

static hudi_status bw_flush(bw *b, bool force, hudi_error *err) { return bw_write_built(b, force, force, err); }

/* A key of the new file, in file order; `stored`: a stored row's (kept or
 * updated). */
static hudi_status bw_key(bw *b, const char *key, size_t klen, bool stored, hudi_error *err) {
  if (!b->c->bloom.on) {
    b->n++;
    return HUDI_OK;
  }
  if (!stored || !b->bloom_has_stored) HUDI_TRY(hudi_bloom_add(&b->bloom, key, klen, err));
  if (b->n == 0 || hudi_java_string_cmp(key, klen, (const char *)b->min_key.data, b->min_key.len) < 0) {
    hudi_buf_reset(&b->min_key);
    HUDI_TRY(hudi_buf_append(&b->min_key, key, klen, err));
  }
  if (b->n == 0 || hudi_java_string_cmp(key, klen, (const char *)b->max_key.data, b->max_key.len) > 0) {
    hudi_buf_reset(&b->max_key);
    HUDI_TRY(hudi_buf_append(&b->max_key, key, klen, err));
  }
  b->n++;
  return HUDI_OK;
}

/* Appends row i of the incoming rows to bb (out_schema) with the meta
 * values metas/lens. */
static hudi_status append_incoming(mw *c, hudi_arrow_batch_builder *bb, size_t i, const char *const metas[N_META],
                                   const size_t lens[N_META], hudi_error *err) {
  const hudi_write_rows *r = c->rows;
  const hudi_write_row *row = &r->order[i];
  const hudi_arrow_view *batch = &r->batches[row->batch].view;
  for (int k = 0; k < N_META; k++)
    HUDI_TRY(hudi_arrow_builder_append_bytes(hudi_arrow_batch_builder_column(bb, k), metas[k], (int64_t)lens[k], err));
  int64_t srow = hudi_arrow_view_struct_row(batch, row->row);
  for (int64_t k = 0; k < c->data_schema.n_children; k++) {
    hudi_arrow_builder *cb = hudi_arrow_batch_builder_column(bb, N_META + k);
    const hudi_arrow_view *col = &batch->children[k];
    HUDI_TRY(c->same_in[k] ? hudi_arrow_builder_append_view(cb, col, srow, err)
                           : hudi_write_append_converted(cb, col, srow, err));
  }
  return hudi_arrow_batch_builder_end_row(bb, err);
}

/* Appends row i of the incoming rows to bb with this commit's meta
 * values (bb is written by bw_flush; see bw_add_incoming). */
static hudi_status bw_append_incoming(bw *b, size_t i, bool update, hudi_error *err) {
  mw *c = b->c;
  size_t klen;
  const char *key = hudi_write_rows_key(c->rows, i, &klen);
  hudi_buf_reset(&b->seq);
  HUDI_TRY(hudi_buf_printf(&b->seq, err, "%s_%d_%" PRId64, c->instant, b->task, b->n_new++));
  const char *metas[N_META] = {c->instant, (const char *)b->seq.data, key, b->partition, b->file_name};
  size_t lens[N_META] = {strlen(c->instant), b->seq.len, klen, strlen(b->partition), strlen(b->file_name)};
  HUDI_TRY(append_incoming(c, b->bb, i, metas, lens, err));
  return bw_key(b, key, klen, update, err);
}

/* Appends row i of the incoming rows (`update`: in place of a stored row
 * of its key), writing bb once it is full. */
static hudi_status bw_add_incoming(bw *b, size_t i, bool update, hudi_error *err) {
  HUDI_TRY(bw_append_incoming(b, i, update, err));
  return bw_flush(b, false, err);
}

/* Appends incoming rows idx[0, n) as new rows of the file (keys it does
 * not hold), as n bw_add_incoming calls would, but a chunk at a time and
 * one column at a time (write_gather.h): row by row, every value of the
 * key-ordered rows missed the cache. Chunks fill bb up to
 * HUDI_GATHER_ROWS rows, so each but the last is written at once (a chunk
 * may lend the input's buffers, which bb must not take more rows after);
 * bw_close_begin follows. */
static hudi_status bw_add_inserts(bw *b, const size_t *idx, size_t n, hudi_error *err) {
  if (n == 0) return HUDI_OK;
  mw *c = b->c;
  hudi_gather g;
  HUDI_TRY(hudi_gather_init(&g, err));
  hudi_gather_file gf = {.rows = c->rows, .same = c->same_in, .n_cols = c->data_schema.n_children,
                         .instant = c->instant, .task = b->task, .partition = b->partition,
                         .file_name = b->file_name};
  hudi_status st = HUDI_OK;
  for (size_t a = 0; st == HUDI_OK && a < n;) {
    size_t room = HUDI_GATHER_ROWS - (size_t)hudi_arrow_batch_builder_n_rows(b->bb) % HUDI_GATHER_ROWS;
    size_t m = n - a < room ? n - a : room;
    st = hudi_gather_rows(&g, b->bb, &gf, idx + a, 0, m, (uint64_t)b->n_new, err);
    if (st == HUDI_OK) b->n_new += (int64_t)m;
    for (size_t j = 0; st == HUDI_OK && j < m; j++) st = bw_key(b, g.keys[j], g.key_lens[j], false, err);
    if (st == HUDI_OK) st = bw_flush(b, false, err);
    a += m;
  }
  hudi_gather_free(&g);
  return st;
}

/* Appends a stored row (a view of the table schema with meta columns),
 * keeping its commit time and sequence number. */
static hudi_status bw_add_stored(bw *b, const hudi_arrow_view *v, const hudi_arrow_field *vf, int64_t i,
                                 hudi_error *err) {
  mw *c = b->c;
  int64_t nd = c->data_schema.n_children;
  if (v->n_children < N_META)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "stored rows have %" PRId64 " columns, without meta columns",
                        v->n_children);
  if (!b->same_stored) {
    /* The stored rows have the table's schema before this write: columns
     * by name (an evolved schema adds or widens some). */
    b->same_stored = hudi_calloc((size_t)nd + 1, sizeof *b->same_stored);
    b->stored_col = hudi_calloc((size_t)nd + 1, sizeof *b->stored_col);
    if (!b->same_stored || !b->stored_col) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t k = 0; k < nd; k++) {
      b->stored_col[k] = -1;
      for (int64_t j = N_META; j < vf->n_children; j++)
        if (vf->children[j].name && !strcmp(vf->children[j].name, c->data_schema.children[k].name)) b->stored_col[k] = j;
      if (b->stored_col[k] >= 0)
        b->same_stored[k] = hudi_write_same_storage(&c->data_schema.children[k], &vf->children[b->stored_col[k]]);
    }
  }
  int64_t row = hudi_arrow_view_struct_row(v, i);
  int64_t klen = 0;
  const char *key = NULL;
  for (int k = 0; k < N_META; k++) {
    hudi_arrow_builder *cb = hudi_arrow_batch_builder_column(b->bb, k);
    if (k == 4) {
      HUDI_TRY(hudi_arrow_builder_append_bytes(cb, b->file_name, (int64_t)strlen(b->file_name), err));
      continue;
    }
    if (k == 2) key = (const char *)hudi_arrow_view_bytes(&v->children[k], row, &klen);
    HUDI_TRY(hudi_arrow_builder_append_view(cb, &v->children[k], row, err));
  }
  for (int64_t k = 0; k < nd; k++) {
    hudi_arrow_builder *cb = hudi_arrow_batch_builder_column(b->bb, N_META + k);
    if (b->stored_col[k] < 0) {
      HUDI_TRY(hudi_arrow_builder_append_null(cb, err));
      continue;
    }
    const hudi_arrow_view *col = &v->children[b->stored_col[k]];
    HUDI_TRY(b->same_stored[k] ? hudi_arrow_builder_append_view(cb, col, row, err)
                               : hudi_write_append_converted(cb, col, row, err));
  }
  HUDI_TRY(hudi_arrow_batch_builder_end_row(b->bb, err));
  HUDI_TRY(bw_key(b, key ? key : "", (size_t)klen, true, err));
  return bw_flush(b, false, err);
}

/* The same Arrow layout: formats, nullability and children, recursively
 * (names aside). What the Parquet writer needs to take a stored column
 * for one of out_schema's. */
static bool same_layout(const hudi_arrow_field *a, const hudi_arrow_field *b) {
  if (strcmp(a->format, b->format) != 0 || a->n_children != b->n_children || a->dictionary || b->dictionary ||
      (a->flags & ARROW_FLAG_NULLABLE) != (b->flags & ARROW_FLAG_NULLABLE))
    return false;
  for (int64_t i = 0; i < a->n_children; i++)
    if (!same_layout(&a->children[i], &b->children[i])) return false;
  return true;
}

/* Decides b->direct at the first stored batch (vf: its schema). */
static hudi_status bw_direct_check(bw *b, const hudi_arrow_field *vf, hudi_error *err) {
  if (b->direct >= 0) return HUDI_OK;
  const hudi_arrow_field *o = &b->c->out_schema;
  bool ok = vf->n_children == o->n_children;
  for (int64_t k = 0; ok && k < o->n_children; k++) ok = same_layout(&vf->children[k], &o->children[k]);
  b->direct = ok;
  if (ok) HUDI_TRY(hudi_arrow_batch_builder_export_schema(b->bb, &b->bb_schema, err));
  return HUDI_OK;
}

/* The file-name column: at least `rows` copies of this file's name. Its
 * buffers only grow once the feed has written every job that points to
 * them. */
static hudi_status bw_name_rows(bw *b, int64_t rows, hudi_error *err) {
  size_t len = strlen(b->file_name);
  if (rows <= b->name_rows) return HUDI_OK;
  if ((uint64_t)rows * len > INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "stored batch of %" PRId64 " rows", rows);
  if (b->feed) HUDI_TRY(hudi_pq_feed_sync(b->feed, err));
  if (b->name_offs.len == 0) {
    int32_t zero = 0;
    HUDI_TRY(hudi_buf_append(&b->name_offs, &zero, sizeof zero, err));
  }
  HUDI_TRY(hudi_buf_reserve(&b->name_offs, (size_t)(rows - b->name_rows) * sizeof(int32_t), err));
  HUDI_TRY(hudi_buf_reserve(&b->name_data, (size_t)(rows - b->name_rows) * len, err));
  for (int64_t i = b->name_rows; i < rows; i++) {
    int32_t end = (int32_t)((uint64_t)(i + 1) * len);
    HUDI_TRY(hudi_buf_append(&b->name_data, b->file_name, len, err));
    HUDI_TRY(hudi_buf_append(&b->name_offs, &end, sizeof end, err));
  }
  b->name_rows = rows;
  return HUDI_OK;
}

/* Adds rows [start, start + n) of `view` (NULL: of bb) to the batch's
 * runs, joining the previous run when they follow on from it. */
static hudi_status bw_add_run(bw *b, const hudi_arrow_view *view, int64_t start, int64_t n, hudi_error *err) {
  if (n <= 0) return HUDI_OK;
  if (b->n_runs) {
    hudi_pq_run *r = &b->runs[b->n_runs - 1];
    if (r->view == view && r->row + r->n == start) {
      r->n += n;
      return HUDI_OK;
    }
  }
  if (b->n_runs == b->cap_runs) {
    size_t cap = b->cap_runs ? b->cap_runs * 2 : 64;
    hudi_pq_run *p = hudi_realloc(b->runs, hudi_mul_size(cap, sizeof *p));
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    b->runs = p;
    b->cap_runs = cap;
  }
  b->runs[b->n_runs++] = (hudi_pq_run){view, start, n};
  return HUDI_OK;
}

/* Stored rows [start, start + n) of v (unchanged, or kept against a
 * losing update) as a run, and their keys into the filter. */
static hudi_status bw_stored_run(bw *b, const hudi_arrow_view *v, int64_t start, int64_t n, hudi_error *err) {
  if (n <= 0) return HUDI_OK;
  HUDI_TRY(bw_add_run(b, v, start, n, err));
  for (int64_t i = start; i < start + n; i++) {
    int64_t kl = 0;
    const char *key = (const char *)hudi_arrow_view_bytes(&v->children[2], hudi_arrow_view_struct_row(v, i), &kl);
    HUDI_TRY(bw_key(b, key ? key : "", (size_t)kl, true, err));
  }
  return HUDI_OK;
}

/* One stored batch's rows in the new file: the stored array (its view's
 * file-name column replaced), the batch of its updated rows and the runs
 * through both, owned by whichever thread writes them. */
typedef struct rw_job {
  struct ArrowArray stored, upd;
  hudi_arrow_view v;      /* of stored, as read */
  hudi_arrow_view sv, uv; /* sv: v with children `kids`; uv: of upd */
  hudi_arrow_view *kids;
  hudi_pq_run *runs;
  size_t n_runs;
} rw_job;

static void rw_job_free(rw_job *j) {
  hudi_arrow_view_clear(&j->uv);
  hudi_arrow_view_clear(&j->v);
  if (j->upd.release) j->upd.release(&j->upd);
  if (j->stored.release) j->stored.release(&j->stored);
  hudi_free(j->kids);
  hudi_free(j->runs);
  hudi_free(j);
}

static hudi_status rw_job_write(void *ctx, hudi_pq_writer *w, bool failed, hudi_error *err) {
  rw_job *j = ctx;
  hudi_status st = failed ? HUDI_OK : hudi_pq_writer_write_runs(w, j->runs, j->n_runs, err);
  rw_job_free(j);
  return st;
}

/* Makes the job of stored batch *a (viewed by *v; both move into it) from
 * b's runs and bb's rows, and has it written: by the feed's thread while
 * this one merges the next batch, or here. */
static hudi_status bw_push_runs(bw *b, struct ArrowArray *a, hudi_arrow_view *v, hudi_error *err) {
  rw_job *j = hudi_calloc(1, sizeof *j);
  if (!j) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  j->stored = *a;
  j->v = *v;
  memset(a, 0, sizeof *a);
  memset(v, 0, sizeof *v);
  hudi_status st = HUDI_OK;
  j->kids = hudi_calloc((size_t)j->v.n_children, sizeof *j->kids);
  j->runs = hudi_calloc(b->n_runs + 1, sizeof *j->runs);
  if (!j->kids || !j->runs) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  int64_t rows = j->v.offset + j->v.length;
  if (st == HUDI_OK) st = bw_name_rows(b, rows, err);
  if (st == HUDI_OK && hudi_arrow_batch_builder_n_rows(b->bb) > 0) {
    st = hudi_arrow_batch_builder_finish(b->bb, &j->upd, err);
    if (st == HUDI_OK) st = hudi_arrow_view_init(&j->uv, &b->bb_schema, &j->upd, err);
  }
  if (st != HUDI_OK) {
    rw_job_free(j);
    return st;
  }
  for (int64_t k = 0; k < j->v.n_children; k++) j->kids[k] = j->v.children[k];
  hudi_arrow_view *name = &j->kids[4];
  name->length = rows;
  name->offset = 0;
  name->null_count = 0;
  name->validity = NULL;
  name->values = b->name_offs.data;
  name->data = b->name_data.data;
  j->sv = j->v;
  j->sv.children = j->kids;
  for (size_t r = 0; r < b->n_runs; r++)
    j->runs[r] = (hudi_pq_run){b->runs[r].view ? &j->sv : &j->uv, b->runs[r].row, b->runs[r].n};
  j->n_runs = b->n_runs;
  b->n_runs = 0;
  st = bw_feed(b, err);
  if (st == HUDI_OK && b->feed) return hudi_pq_feed_push_task(b->feed, rw_job_write, j, err);
  if (st != HUDI_OK) {
    rw_job_free(j);
    return st;
  }
  return rw_job_write(j, b->w, false, err);
}

/* ---- closing a file --------------------------------------------------
 * A file's last row group, bloom filter and footer are written on its
 * feed's thread (when it has one) while this thread merges the next file:
 * bw_close_begin queues them, bw_settle waits and records the write stat.
 * One file closes at a time, so the stats keep the files' order. */

static hudi_status bw_finish_file(bw *b, hudi_error *err) {
  mw *c = b->c;
  HUDI_TRY(hudi_base_footer_write(b->w, c->bloom.on ? &b->bloom : NULL, b->n ? (const char *)b->min_key.data : NULL,
                                  b->min_key.len, (const char *)b->max_key.data, b->max_key.len, c->avro_with_meta,
                                  err));
  return hudi_pq_writer_close(b->w, &b->sum, err);
}

/* The feed thread's last task: the file is published into the caller's
 * write group (its sync makes it durable with the others). */
static hudi_status close_task(void *ctx, hudi_pq_writer *w, bool failed, hudi_error *err) {
  (void)w;
  bw *b = ctx;
  if (failed) return HUDI_OK; /* b stays with c->closing: freed there */
  bool joined = hudi_storage_group_join(b->c->group);
  hudi_status st = bw_finish_file(b, err);
  hudi_storage_group_leave(b->c->group, joined);
  return st;
}

/* Waits for the closing file, if any, records its write stat and frees it. */
static hudi_status bw_settle(mw *c, hudi_error *err) {
  bw *b = c->closing;
  if (!b) return HUDI_OK;
  c->closing = NULL;
  hudi_pq_feed *feed = b->feed;
  b->feed = NULL;
  hudi_status st = hudi_pq_feed_finish(feed, err);
  hudi_write_stat *ws = NULL;
  if (st == HUDI_OK) st = hudi_commit_metadata_add_stat(c->meta, b->partition, &ws, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, (const char *)b->path.data, &ws->path, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, b->prev_commit, &ws->prev_commit, err);
  if (st == HUDI_OK) {
    ws->file_id = b->stat_fid;
    ws->num_writes = (hudi_tl_long){b->n, 1};
    ws->num_inserts = (hudi_tl_long){b->inserts, 1};
    ws->num_update_writes = (hudi_tl_long){b->updates, 1};
    ws->num_deletes = (hudi_tl_long){b->deletes, 1};
    ws->total_write_bytes = (hudi_tl_long){b->sum.file_size, 1};
    ws->file_size_in_bytes = (hudi_tl_long){b->sum.file_size, 1};
    hudi_write_stat_zero_unset(ws);
    c->res->files_written++;
    c->res->bytes_written += b->sum.file_size;
  }
  bw_destroy(b);
  return st;
}

/* Finishes the file: closing on its feed's thread, or here. b moves to
 * c->closing in every case (freed by bw_settle or the write's end); the
 * file before it is settled first. */
static hudi_status bw_close_begin(bw *b, const char *prev_commit, int64_t inserts, int64_t updates,
                                  int64_t deletes, hudi_error *err) {
  mw *c = b->c;
  hudi_status st = bw_settle(c, err);
  c->closing = b;
  b->prev_commit = prev_commit;
  b->inserts = inserts;
  b->updates = updates;
  b->deletes = deletes;
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, b->file_id, &b->stat_fid, err);
  if (st == HUDI_OK && b->bloom_has_stored && !hudi_bloom_counted(&b->bloom, b->n))
    st = hudi_err_set(err, HUDI_ERR_INTERNAL, "%s: the resumed bloom filter does not hold the file's %" PRId64 " keys",
                      b->file_name, b->n);
  if (st == HUDI_OK) st = bw_flush(b, true, err);
  if (st != HUDI_OK) return st;
  if (b->feed) return hudi_pq_feed_push_task(b->feed, close_task, b, err);
  return bw_finish_file(b, err);
}

/* ---- COPY_ON_WRITE: rewriting a touched file group --------------------- */

/* Rows ahead whose key's slot rewrite_slice prefetches. */
#define KEY_AHEAD 8

/* What becomes of a stored row. */
typedef enum { ROW_KEEP, ROW_DELETE, ROW_UPDATE } row_fate;

/* Row i of stored batch v against the slice's incoming keys `mine`: kept
 * (no incoming record, or one with a lower ordering value, which loses),
 * deleted, or updated by incoming record *e. */
static row_fate stored_row_fate(mw *c, const hudi_hashmap *mine, const hudi_arrow_view *v, int64_t ord, int64_t i,
                                inc **e) {
  if (i + KEY_AHEAD < v->length) { /* most rows' keys are not in `mine`: misses, overlapped */
    int64_t al;
    const uint8_t *ak = hudi_arrow_view_bytes(&v->children[2], hudi_arrow_view_struct_row(v, i + KEY_AHEAD), &al);
    if (ak) hudi_hashmap_prefetch(mine, ak, (size_t)al);
  }
  int64_t row = hudi_arrow_view_struct_row(v, i), kl;
  const uint8_t *k = hudi_arrow_view_bytes(&v->children[2], row, &kl);
  hudi_hashmap_value hv;
  if (!k || !hudi_hashmap_get(mine, k, (size_t)kl, &hv)) return ROW_KEEP;
  *e = &c->incs[hv.u64];
  if ((*e)->kind == INC_DELETE || (*e)->kind == INC_MOVE) return ROW_DELETE;
  if (c->ordering_in >= 0) {
    const hudi_write_row *wr = &c->rows->order[(*e)->row];
    const hudi_arrow_view *bv = &c->rows->batches[wr->batch].view;
    hudi_value inv, sv;
    hudi_value_from_view(&inv, &bv->children[c->ordering_in], hudi_arrow_view_struct_row(bv, wr->row));
    stored_ordering(&sv, v, ord, row);
    if (incoming_loses(&inv, &sv)) return ROW_KEEP;
  }
  return ROW_UPDATE;
}

/* Merges stored batch v row by row through bb: stored rows whose columns
 * need converting (an evolved schema). */
static hudi_status merge_batch_rows(mw *c, bw *b, const hudi_hashmap *mine, const hudi_arrow_view *v,
                                    const hudi_arrow_field *vf, int64_t *updates, int64_t *deletes, hudi_error *err) {
  for (int64_t i = 0; i < v->length; i++) {
    inc *e = NULL;
    switch (stored_row_fate(c, mine, v, b->ord, i, &e)) {
      case ROW_KEEP: HUDI_TRY(bw_add_stored(b, v, vf, i, err)); break;
      case ROW_DELETE: (*deletes)++; break;
      case ROW_UPDATE:
        HUDI_TRY(bw_add_incoming(b, (size_t)e->row, true, err));
        (*updates)++;
        break;
    }
  }
  return HUDI_OK;
}

/* Merges stored batch *v (array *a, both moved on) as runs: unchanged rows
 * stay where they are in the stored array (only the file-name column is
 * new), updated rows are built in bb (not written on their own: they are
 * the job's), and one job writes them all in file order (bw_push_runs). */
static hudi_status merge_batch_runs(mw *c, bw *b, const hudi_hashmap *mine, struct ArrowArray *a, hudi_arrow_view *v,
                                    int64_t *updates, int64_t *deletes, hudi_error *err) {
  int64_t run = -1; /* start of the kept rows not yet in a run */
  hudi_status st = HUDI_OK;
  for (int64_t i = 0; st == HUDI_OK && i < v->length; i++) {
    inc *e = NULL;
    row_fate f = stored_row_fate(c, mine, v, b->ord, i, &e);
    if (f == ROW_KEEP) {
      if (run < 0) run = i;
      continue;
    }
    if (run >= 0) st = bw_stored_run(b, v, run, i - run, err);
    run = -1;
    if (st != HUDI_OK) break;
    if (f == ROW_DELETE) {
      (*deletes)++;
      continue;
    }
    int64_t at = hudi_arrow_batch_builder_n_rows(b->bb);
    st = bw_append_incoming(b, (size_t)e->row, true, err);
    if (st == HUDI_OK) st = bw_add_run(b, NULL, at, 1, err);
    (*updates)++;
  }
  if (st == HUDI_OK && run >= 0) st = bw_stored_run(b, v, run, v->length - run, err);
  if (st == HUDI_OK) st = bw_push_runs(b, a, v, err);
  return st;
}

/* Starts the new file's filter from the stored file's footer filter
 * (hudi_bloom_resume) when the rewrite keeps every stored key in file
 * order and only appends new ones: no key of the slice is deleted or moves
 * away, and the slice is its base file alone (log files change the stored
 * keys). The stored keys are then not hashed again (30 chained hashes a
 * key, ~9% of a rewrite's CPU). Anything else, or a footer filter that
 * does not fit (another writer's sizes, not the file's row count): the
 * filter is built from the keys, as before. */
static void resume_bloom(mw *c, bw *b, const hudi_file_slice_info *info, size_t s) {
  if (!c->bloom.on || !info->base_file || info->n_log_files) return;
  for (size_t j = c->slice_start[s]; j < c->slice_start[s + 1]; j++) {
    inc_kind k = c->incs[c->by_slice[j]].kind;
    if (k == INC_DELETE || k == INC_MOVE) return;
  }
  hudi_base_footer f;
  if (!hudi_base_footer_open(&f, c->t->storage, info->base_file)) return; /* the read that follows reports it */
  hudi_bloom resumed;
  if (f.bloom_type && f.bloom_type_len == 10 && !memcmp(f.bloom_type, "DYNAMIC_V0", 10) && f.bloom &&
      hudi_bloom_resume(&resumed, f.bloom, f.bloom_len, &c->bloom, f.num_rows)) {
    hudi_bloom_free(&b->bloom);
    b->bloom = resumed;
    b->bloom_has_stored = true;
  }
  hudi_base_footer_close(&f);
}

static hudi_status rewrite_slice(mw *c, size_t s, hudi_error *err) {
  hudi_file_slice_info info;
  hudi_file_slice_list_at(c->full, s, &info);
  /* This slice's incoming keys, by key. */
  hudi_hashmap mine;
  hudi_hashmap_init(&mine, 0);
  hudi_status st = HUDI_OK;
  for (size_t j = c->slice_start[s]; st == HUDI_OK && j < c->slice_start[s + 1]; j++) {
    const inc *e = &c->incs[c->by_slice[j]];
    st = hudi_hashmap_put(&mine, e->key, e->klen, (hudi_hashmap_value){.u64 = c->by_slice[j]}, NULL, NULL, err);
  }
  bw *b = hudi_calloc(1, sizeof *b);
  if (!b) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st == HUDI_OK) st = bw_open(b, c, info.partition, info.file_id, "MERGE", err);
  if (st == HUDI_OK) resume_bloom(c, b, &info, s);
  struct ArrowArrayStream in;
  memset(&in, 0, sizeof in);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  hudi_arrow_field vf;
  memset(&vf, 0, sizeof vf);
  if (st == HUDI_OK) st = hudi_table_read_file_slice(&in, c->t, c->full, s, err);
  /* This thread merges and builds the new file's batches, and its columns
   * are encoded here and on one helper: the slice is decoded on a thread
   * of its own, two batches ahead (on one core: in turn, as before). */
  if (st == HUDI_OK && hudi_cpu_count() > 1) {
    struct ArrowArrayStream direct = in;
    memset(&in, 0, sizeof in);
    st = hudi_arrow_stream_readahead(&in, &direct, 2, err);
  }
  if (st == HUDI_OK && in.get_schema(&in, &schema) != 0)
    st = hudi_err_set(err, HUDI_ERR_IO, "reading the schema of file group %s", info.file_id);
  if (st == HUDI_OK) st = hudi_arrow_field_from_schema(&vf, &schema, true, err);
  if (st == HUDI_OK) b->ord = stored_ordering_col(c, &schema);
  int64_t updates = 0, deletes = 0, inserts = 0;
  while (st == HUDI_OK) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    int rc = in.get_next(&in, &a);
    if (rc != 0) {
      const char *m = in.get_last_error ? in.get_last_error(&in) : NULL;
      st = hudi_err_set(err, hudi_arrow_stored_read_status(rc), "reading file group %s: %s", info.file_id,
                        m ? m : "error");
      break;
    }
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    st = hudi_arrow_view_init(&v, &schema, &a, err);
    if (st == HUDI_OK) st = bw_direct_check(b, &vf, err);
    if (st == HUDI_OK && b->direct) st = merge_batch_runs(c, b, &mine, &a, &v, &updates, &deletes, err);
    else if (st == HUDI_OK) st = merge_batch_rows(c, b, &mine, &v, &vf, &updates, &deletes, err);
    hudi_arrow_view_clear(&v);
    if (a.release) a.release(&a);
  }
  if (in.release) in.release(&in);
  if (schema.release) schema.release(&schema);
  hudi_arrow_field_clear(&vf);
  hudi_hashmap_free(&mine);
  /* New keys this small file takes (assign_small_files), after its rows. */
  size_t *ins = NULL;
  if (st == HUDI_OK) {
    ins = hudi_calloc(c->slice_start[s + 1] - c->slice_start[s] + 1, sizeof *ins);
    if (!ins) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  for (size_t j = c->slice_start[s]; st == HUDI_OK && j < c->slice_start[s + 1]; j++) {
    const inc *e = &c->incs[c->by_slice[j]];
    if (e->kind == INC_INSERT) ins[inserts++] = (size_t)e->row;
  }
  if (st == HUDI_OK) st = bw_add_inserts(b, ins, (size_t)inserts, err);
  hudi_free(ins);
  if (st == HUDI_OK) {
    st = bw_close_begin(b, info.base_instant ? info.base_instant : "null", inserts, updates, deletes, err);
    b = NULL; /* c->closing's now */
  }
  for (size_t j = c->slice_start[s]; st == HUDI_OK && j < c->slice_start[s + 1]; j++)
    if (c->incs[c->by_slice[j]].kind == INC_INSERT) c->incs[c->by_slice[j]].new_fid = c->closing->stat_fid;
  bw_destroy(b);
  if (st == HUDI_OK) {
    c->res->num_updates += updates;
    c->res->num_deletes += deletes;
    c->res->num_inserts += inserts;
  }
  return st;
}

/* ---- MERGE_ON_READ: one log file per touched file group ---------------- */

static hudi_status log_header(hudi_log_meta *h, mw *c, hudi_error *err) {
  HUDI_TRY(hudi_log_meta_set_str(h, HUDI_LOG_HEADER_INSTANT_TIME, c->instant, err));
  return hudi_log_meta_set_str(h, HUDI_LOG_HEADER_SCHEMA, c->avro_with_meta, err);
}

/* Rows per Arrow batch handed to the Parquet writer of a data block. */
#define LOG_PARQUET_BATCH_ROWS 65536

/* The slice's updates as one PARQUET_DATA block (log_parquet_block.h):
 * the rows with this commit's meta values, _hoodie_file_name = file id,
 * written with the base files' Parquet options and c->log_codec. */
static hudi_status parquet_data_block(mw *c, size_t s, const char *file_id, hudi_buf *file, int64_t *n_rows,
                                      hudi_error *err) {
  int64_t total = 0;
  for (size_t j = c->slice_start[s]; j < c->slice_start[s + 1]; j++)
    if (c->incs[c->by_slice[j]].kind == INC_UPDATE) total++;
  if (total == 0) return HUDI_OK;
  hudi_arrow_batch_builder *bb = NULL;
  HUDI_TRY(hudi_arrow_batch_builder_create(&bb, &c->out_schema, err));
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  hudi_buf content, seq;
  hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&seq, 256);
  hudi_log_parquet_writer w;
  memset(&w, 0, sizeof w);
  hudi_pq_writer_options pq = c->pq;
  pq.codec = c->log_codec;
  hudi_status st = hudi_arrow_batch_builder_export_schema(bb, &schema, err);
  if (st == HUDI_OK) st = hudi_log_parquet_begin(&w, &content, &schema, &pq, err);
  int task = c->task++;
  int64_t done = 0;
  size_t flen = strlen(file_id), ilen = strlen(c->instant);
  for (size_t j = c->slice_start[s]; st == HUDI_OK && j < c->slice_start[s + 1]; j++) {
    const inc *e = &c->incs[c->by_slice[j]];
    if (e->kind != INC_UPDATE) continue;
    hudi_buf_reset(&seq);
    st = hudi_buf_printf(&seq, err, "%s_%d_%" PRId64, c->instant, task, *n_rows);
    const char *metas[N_META] = {c->instant, (const char *)seq.data, e->key, e->part, file_id};
    size_t lens[N_META] = {ilen, seq.len, e->klen, strlen(e->part), flen};
    if (st == HUDI_OK) st = append_incoming(c, bb, (size_t)e->row, metas, lens, err);
    (*n_rows)++;
    done++;
    if (st == HUDI_OK && (hudi_arrow_batch_builder_n_rows(bb) >= LOG_PARQUET_BATCH_ROWS || done == total)) {
      struct ArrowArray arr;
      st = hudi_arrow_batch_builder_finish(bb, &arr, err);
      if (st == HUDI_OK) {
        st = hudi_log_parquet_write(&w, &arr, done == total, err);
        arr.release(&arr);
      }
    }
  }
  if (st == HUDI_OK) st = hudi_log_parquet_finish(&w, c->avro_with_meta, err);
  hudi_log_meta h = HUDI_LOG_META_INIT;
  if (st == HUDI_OK) st = log_header(&h, c, err);
  if (st == HUDI_OK)
    st = hudi_log_block_encode(file, HUDI_LOG_BLOCK_PARQUET_DATA, &h, NULL, content.data, content.len, err);
  hudi_log_meta_free(&h);
  hudi_log_parquet_writer_free(&w);
  if (schema.release) schema.release(&schema);
  hudi_arrow_batch_builder_free(bb);
  hudi_buf_free(&seq);
  hudi_buf_free(&content);
  return st;
}

static hudi_status data_block(mw *c, size_t s, const char *file_id, hudi_buf *file, int64_t *n_rows,
                              hudi_error *err) {
  if (c->log_block_type == HUDI_LOG_BLOCK_PARQUET_DATA) return parquet_data_block(c, s, file_id, file, n_rows, err);
  hudi_buf content;
  hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
  hudi_log_avro_records_writer w;
  hudi_buf seq;
  hudi_buf_init(&seq, 256);
  hudi_status st = hudi_log_avro_records_begin(&w, &content, err);
  int task = c->task++;
  for (size_t j = c->slice_start[s]; st == HUDI_OK && j < c->slice_start[s + 1]; j++) {
    const inc *e = &c->incs[c->by_slice[j]];
    if (e->kind != INC_UPDATE) continue;
    const hudi_write_row *row = &c->rows->order[e->row];
    const hudi_arrow_view *bv = &c->rows->batches[row->batch].view;
    hudi_buf_reset(&seq);
    st = hudi_buf_printf(&seq, err, "%s_%d_%" PRId64, c->instant, task, *n_rows);
    hudi_avro_meta_values mv;
    const char *vals[5] = {c->instant, (const char *)seq.data, e->key, e->part, file_id};
    size_t lens[5] = {strlen(c->instant), seq.len, e->klen, strlen(e->part), strlen(file_id)};
    for (int k = 0; k < N_META; k++) mv.value[k] = vals[k], mv.len[k] = lens[k];
    if (st == HUDI_OK) st = hudi_log_avro_records_record_begin(&w, err);
    if (st == HUDI_OK) st = hudi_avro_encoder_encode_rows(c->enc, &content, bv, row->row, 1, &mv, false, err);
    if (st == HUDI_OK) st = hudi_log_avro_records_record_end(&w, err);
    (*n_rows)++;
  }
  if (st == HUDI_OK) st = hudi_log_avro_records_finish(&w, err);
  hudi_log_meta h = HUDI_LOG_META_INIT;
  if (st == HUDI_OK) st = log_header(&h, c, err);
  if (st == HUDI_OK && *n_rows)
    st = hudi_log_block_encode(file, HUDI_LOG_BLOCK_AVRO_DATA, &h, NULL, content.data, content.len, err);
  hudi_log_meta_free(&h);
  hudi_buf_free(&seq);
  hudi_buf_free(&content);
  return st;
}

static hudi_status delete_block(mw *c, size_t s, hudi_buf *file, int64_t *n_del, hudi_error *err) {
  size_t n = c->slice_start[s + 1] - c->slice_start[s];
  hudi_log_delete_record *recs = hudi_calloc(n + 1, sizeof *recs);
  if (!recs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t j = c->slice_start[s]; j < c->slice_start[s + 1]; j++) {
    const inc *e = &c->incs[c->by_slice[j]];
    if (e->kind != INC_DELETE && e->kind != INC_MOVE) continue;
    hudi_log_delete_record *d = &recs[(*n_del)++];
    d->record_key = e->key;
    d->record_key_len = e->klen;
    d->partition_path = e->loc.partition;
    d->partition_path_len = strlen(e->loc.partition);
    /* What Java's DeleteRecord carries by default: the Integer 0. */
    d->ordering.kind = HUDI_LOG_ORDERING_INT;
    d->ordering.v.i = 0;
  }
  hudi_status st = HUDI_OK;
  if (*n_del) {
    hudi_buf content;
    hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
    hudi_log_meta h = HUDI_LOG_META_INIT;
    st = hudi_log_delete_block_encode(&content, recs, (size_t)*n_del, err);
    if (st == HUDI_OK) st = log_header(&h, c, err);
    if (st == HUDI_OK) st = hudi_log_block_encode(file, HUDI_LOG_BLOCK_DELETE, &h, NULL, content.data, content.len, err);
    hudi_log_meta_free(&h);
    hudi_buf_free(&content);
  }
  hudi_free(recs);
  return st;
}

/* Whether log file name (".<fileId>_<instant>.log.<version>...") names
 * base instant `instant`. */
static bool log_named_by(const char *name, const char *instant) {
  size_t n = strlen(instant);
  const char *p = strstr(name, ".log.");
  return p && (size_t)(p - name) > n && p[-(ptrdiff_t)n - 1] == '_' && !memcmp(p - n, instant, n);
}

static hudi_status append_slice(mw *c, size_t s, hudi_error *err) {
  hudi_file_slice_info info;
  hudi_file_slice_list_at(c->full, s, &info);
  hudi_buf file, token, name, rel;
  hudi_buf_init(&file, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&token, 64);
  hudi_buf_init(&name, 4096);
  hudi_buf_init(&rel, 1 << 16);
  int64_t n_rows = 0, n_del = 0;
  hudi_status st = data_block(c, s, info.file_id, &file, &n_rows, err);
  if (st == HUDI_OK) st = delete_block(c, s, &file, &n_del, err);
  int task = c->task++;
  if (st == HUDI_OK) st = hudi_log_write_token_format(&token, task, 1, task, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&token, 0, err);
  /* Table version 6 names a log by its slice's base instant, at the next
   * version (log_writer.h); 8 and 9 by the delta commit. */
  /* Under a pending compaction C the slice a write appends to is C's (a
   * slice without a base file, fsview.h), not the merged slice it reads:
   * a log named by the previous base instant is left behind once C
   * completes (Java's HoodieAppendHandle takes getLatestFileSlice's base
   * instant, which is C). */
  const char *pending = c->t->version == 6 ? hudi_file_slice_list_pending_compaction(c->full, s) : NULL;
  const char *log_instant =
      pending ? pending : c->t->version == 6 && info.base_instant ? info.base_instant : c->instant;
  int32_t first = 1;
  if (st == HUDI_OK && log_instant != c->instant)
    st = hudi_log_file_next_version(c->t->storage, info.partition, info.file_id, log_instant, &first, err);
  /* The marker names the first version; a taken name moves the version up. */
  if (st == HUDI_OK)
    st = hudi_log_file_name_format(&name, info.file_id, log_instant, NULL, first, (const char *)token.data, NULL, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&name, 0, err);
  if (st == HUDI_OK) st = hudi_write_marker(c->t->storage, c->instant, info.partition, (const char *)name.data,
                                            "APPEND", err);
  if (st == HUDI_OK) st = hudi_write_partition_metadata(c->t->storage, info.partition, c->instant, err);
  int32_t version = 1;
  if (st == HUDI_OK)
    st = hudi_log_file_create(c->t->storage, info.partition, info.file_id, log_instant, first, (const char *)token.data,
                              file.data, file.len, &version, &rel, err);
  if (st == HUDI_OK && (rel.len == 0 || rel.data[rel.len - 1] != 0)) st = hudi_buf_append_byte(&rel, 0, err);
  hudi_write_stat *ws = NULL;
  if (st == HUDI_OK) st = hudi_commit_metadata_add_stat(c->meta, info.partition, &ws, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, info.file_id, &ws->file_id, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, (const char *)rel.data, &ws->path, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, log_instant, &ws->prev_commit, err);
  const char *slash = st == HUDI_OK ? strrchr((const char *)rel.data, '/') : NULL;
  const char *log_name = slash ? slash + 1 : (const char *)rel.data;
  /* Spark 1.x (table version 8) leaves baseFile empty and totalLogBlocks
   * 0 in a log file's stat (fixture mor/avro/v8_trips_8i3u1d): a log is
   * no longer tied to a base file; readers use neither. */
  /* Version 6 (0.x) names the slice's base file and all its log files. */
  bool v6 = c->t->version == 6 && info.base_file && !pending;
  const char *bf = v6 ? strrchr(info.base_file, '/') : NULL;
  if (st == HUDI_OK)
    st = hudi_commit_metadata_strdup(c->meta, v6 ? (bf ? bf + 1 : info.base_file) : "", &ws->base_file, err);
  if (st == HUDI_OK) {
    ws->log_files.has = 1;
    for (size_t k = 0; c->t->version == 6 && st == HUDI_OK && k < info.n_log_files; k++) {
      const char *ls = strrchr(info.log_files[k], '/');
      /* Under a pending compaction: C's slice's logs only. */
      if (pending ? !log_named_by(ls ? ls + 1 : info.log_files[k], pending) : !v6) continue;
      st = hudi_tl_strs_push(&ws->log_files, &c->meta->doc.arena, ls ? ls + 1 : info.log_files[k], err);
    }
    if (st == HUDI_OK) st = hudi_tl_strs_push(&ws->log_files, &c->meta->doc.arena, log_name, err);
  }
  if (st == HUDI_OK) {
    ws->num_writes = (hudi_tl_long){n_rows, 1};
    ws->num_update_writes = (hudi_tl_long){n_rows, 1};
    ws->num_inserts = (hudi_tl_long){0, 1};
    ws->num_deletes = (hudi_tl_long){n_del, 1};
    ws->total_write_bytes = (hudi_tl_long){(int64_t)file.len, 1};
    ws->file_size_in_bytes = (hudi_tl_long){(int64_t)file.len, 1};
    ws->total_log_blocks = (hudi_tl_long){0, 1};
    ws->log_version = (hudi_tl_int){version, 1};
    ws->log_offset = (hudi_tl_long){0, 1};
    hudi_write_stat_zero_unset(ws);
    c->res->files_written++;
    c->res->bytes_written += (int64_t)file.len;
    c->res->num_updates += n_rows;
    c->res->num_deletes += n_del;
  }
  hudi_buf_free(&file);
  hudi_buf_free(&token);
  hudi_buf_free(&name);
  hudi_buf_free(&rel);
  return st;
}

/* ---- small files (hudi-write-semantics.md §4) ----------------------- */

/* Whether slice s takes new keys of this write (a small file). */
static bool slice_takes_inserts(const mw *c, size_t s) {
  for (size_t j = c->slice_start[s]; j < c->slice_start[s + 1]; j++)
    if (c->incs[c->by_slice[j]].kind == INC_INSERT) return true;
  return false;
}

/* AverageRecordSizeUtils: the newest completed write whose base files
 * hold more than threshold * small.file.limit bytes gives
 * ceil(bytes / records) (a deltacommit counts its base files only; *known
 * when one does, may be NULL); else hoodie.copyonwrite.record.size.estimate. */
static hudi_status average_record_size(mw *c, int64_t limit, int64_t *out, bool *known, hudi_error *err) {
  if (known) *known = false;
  HUDI_TRY(hudi_write_int_option(c->t, c->opts, c->n_opts, "hoodie.copyonwrite.record.size.estimate", 1024, 1, out,
                                 err));
  const char *tv = hudi_write_option(c->t, c->opts, c->n_opts, "hoodie.record.size.estimation.threshold");
  double threshold = tv ? strtod(tv, NULL) : 1.0;
  const hudi_timeline *tl = &c->t->timeline;
  for (size_t i = tl->count; i-- > 0;) {
    const hudi_instant *in = &tl->items[i];
    if (!hudi_instant_is_write(in)) continue;
    hudi_commit_metadata *m = NULL;
    HUDI_TRY(hudi_table_instant_metadata(&m, c->t, in, err));
    bool delta = !strcmp(in->action, "deltacommit");
    int64_t bytes = 0, records = 0;
    size_t np;
    const hudi_partition_write_stats *ps = hudi_commit_metadata_partitions(m, &np);
    for (size_t p = 0; p < np; p++) {
      size_t ns;
      const hudi_write_stat *ws = hudi_partition_stats(&ps[p], &ns);
      for (size_t k = 0; k < ns; k++) {
        size_t pl = ws[k].path ? strlen(ws[k].path) : 0;
        if (delta && !(pl > 8 && !strcmp(ws[k].path + pl - 8, ".parquet"))) continue;
        bytes += ws[k].total_write_bytes.v;
        records += ws[k].num_writes.v;
      }
    }
    hudi_commit_metadata_free(m);
    if (records > 0 && (double)bytes > threshold * (double)limit) {
      *out = (bytes + records - 1) / records;
      if (known) *known = true;
      return HUDI_OK;
    }
  }
  return HUDI_OK;
}

/* A pending clustering (or other replace) may rewrite any file group:
 * leave small files alone while one is pending (§4.3, §7.4). */
static bool pending_replace(const hudi_table *t) {
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (in->state == HUDI_INSTANT_COMPLETED) continue;
    if (!strcmp(in->requested_action, "clustering") || !strcmp(in->action, "clustering") ||
        !strcmp(in->action, "replacecommit"))
      return true;
  }
  return false;
}

typedef struct small_file {
  size_t slice;
  int64_t size;
} small_file;

static int small_cmp(const void *a, const void *b) {
  const small_file *x = a, *y = b;
  if (x->size != y->size) return x->size < y->size ? -1 : 1;
  return x->slice < y->slice ? -1 : x->slice > y->slice;
}

/* The small files of a partition: latest slices with a base file smaller
 * than limit (MERGE_ON_READ: and no log files, the index cannot see
 * inserts in logs), smallest first, at most max_n. */
static hudi_status small_files(mw *c, const char *part, int64_t limit, size_t max_n, small_file **out, size_t *n,
                               hudi_error *err) {
  size_t ns = hudi_file_slice_list_count(c->full), cap = 0;
  *out = NULL;
  *n = 0;
  for (size_t s = 0; s < ns; s++) {
    hudi_file_slice_info info;
    hudi_file_slice_list_at(c->full, s, &info);
    if (!info.base_file || strcmp(info.partition, part) != 0) continue;
    if (c->t->type == HUDI_MERGE_ON_READ && info.n_log_files > 0) continue;
    hudi_file_stat fs;
    HUDI_TRY(hudi_storage_stat(c->t->storage, info.base_file, &fs, err));
    if ((int64_t)fs.size >= limit) continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 16;
      small_file *g = hudi_realloc(*out, cap * sizeof *g);
      if (!g) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      *out = g;
    }
    (*out)[(*n)++] = (small_file){s, (int64_t)fs.size};
  }
  if (*n > 1) qsort(*out, *n, sizeof **out, small_cmp);
  if (*n > max_n) *n = max_n;
  return HUDI_OK;
}

/* UpsertPartitioner (COPY_ON_WRITE) and SparkUpsertDeltaCommitPartitioner
 * with an index that cannot index log files (MERGE_ON_READ): new keys of
 * a partition first fill its small files, each up to
 * (max.file.size - size) / average record size; the small file's slice is
 * then rewritten with its rows and the new ones. The rest go to new file
 * groups (write_inserts). */
static hudi_status assign_small_files(mw *c, hudi_error *err) {
  int64_t limit, avg, max_n;
  HUDI_TRY(hudi_write_int_option(c->t, c->opts, c->n_opts, "hoodie.parquet.small.file.limit",
                                 HUDI_WRITE_DEFAULT_SMALL_FILE_LIMIT, INT64_MIN, &limit, err));
  if (limit <= 0 || !c->rows || pending_replace(c->t)) return HUDI_OK;
  HUDI_TRY(hudi_write_int_option(c->t, c->opts, c->n_opts, "hoodie.merge.small.file.group.candidates.limit", 1, 0,
                                 &max_n, err));
  bool have = false;
  for (size_t i = 0; i < c->n_incs && !have; i++) have = c->incs[i].kind == INC_INSERT;
  if (!have) return HUDI_OK;
  HUDI_TRY(average_record_size(c, limit, &avg, NULL, err));
  hudi_status st = HUDI_OK;
  size_t i = 0;
  while (st == HUDI_OK && i < c->n_incs) {
    /* incs follow the rows' (partition, key) order, deletes last. */
    if (c->incs[i].kind != INC_INSERT) {
      i++;
      continue;
    }
    const char *part = c->incs[i].part;
    size_t end = i;
    while (end < c->n_incs && c->incs[end].part && !strcmp(c->incs[end].part, part)) end++;
    small_file *sf = NULL;
    size_t n_sf = 0;
    size_t limit_n = c->t->type == HUDI_MERGE_ON_READ ? (size_t)max_n : (size_t)-1;
    st = small_files(c, part, limit, limit_n, &sf, &n_sf, err);
    size_t k = i;
    for (size_t f = 0; st == HUDI_OK && f < n_sf; f++) {
      int64_t room = (c->max_file_size - sf[f].size) / avg;
      for (; room > 0 && k < end; k++) {
        if (c->incs[k].kind != INC_INSERT) continue;
        c->incs[k].slice = (int64_t)sf[f].slice;
        room--;
      }
    }
    hudi_free(sf);
    i = end;
  }
  return st;
}

/* ---- new keys --------------------------------------------------------- */

/* Bytes a new key's row takes in a new file group: the table's average
 * record size from its write history, as UpsertPartitioner sizes insert
 * buckets (max.file.size / averageRecordSize); without such history the
 * rows' own uncompressed estimate (Java would take
 * hoodie.copyonwrite.record.size.estimate, 1024). */
static hudi_status insert_row_bytes(mw *c, int64_t *out, hudi_error *err) {
  *out = c->rows ? hudi_write_rows_bytes_per_row(c->rows) : 1;
  int64_t limit, avg;
  bool known;
  HUDI_TRY(hudi_write_int_option(c->t, c->opts, c->n_opts, "hoodie.parquet.small.file.limit",
                                 HUDI_WRITE_DEFAULT_SMALL_FILE_LIMIT, INT64_MIN, &limit, err));
  HUDI_TRY(average_record_size(c, limit > 0 ? limit : 0, &avg, &known, err));
  if (known && avg > 0) *out = avg;
  return HUDI_OK;
}

static hudi_status write_inserts(mw *c, hudi_error *err) {
  /* incs follow the rows' (partition, key) order; inserts are a subset. */
  size_t *ins = hudi_calloc(c->n_incs + 1, sizeof *ins);
  size_t *rows = hudi_calloc(c->n_incs + 1, sizeof *rows); /* one file's rows */
  if (!ins || !rows) {
    hudi_free(ins);
    hudi_free(rows);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < c->n_incs; i++)
    if ((c->incs[i].kind == INC_INSERT && c->incs[i].slice < 0) || c->incs[i].kind == INC_MOVE) ins[n++] = i;
  int64_t per_row = 1;
  hudi_status st = n ? insert_row_bytes(c, &per_row, err) : HUDI_OK;
  if (st != HUDI_OK) {
    hudi_free(ins);
    hudi_free(rows);
    return st;
  }
  int64_t rows_per_file = c->max_file_size / (per_row > 0 ? per_row : 1);
  if (rows_per_file < 1) rows_per_file = 1;
  size_t i = 0;
  while (st == HUDI_OK && i < n) {
    const char *part = c->incs[ins[i]].part;
    size_t end = i + 1;
    while (end < n && !strcmp(c->incs[ins[end]].part, part)) end++;
    size_t cnt = end - i, files = (cnt + (size_t)rows_per_file - 1) / (size_t)rows_per_file;
    for (size_t f = 0; st == HUDI_OK && f < files; f++) {
      size_t a = i + cnt * f / files, z = i + cnt * (f + 1) / files;
      bw *b = hudi_calloc(1, sizeof *b);
      if (!b) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      if (st == HUDI_OK) st = bw_open(b, c, part, NULL, "CREATE", err);
      for (size_t k = a; k < z; k++) rows[k - a] = (size_t)c->incs[ins[k]].row;
      if (st == HUDI_OK) st = bw_add_inserts(b, rows, z - a, err);
      if (st == HUDI_OK) {
        st = bw_close_begin(b, "null", (int64_t)(z - a), 0, 0, err);
        b = NULL; /* c->closing's now */
      }
      for (size_t k = a; st == HUDI_OK && k < z; k++) c->incs[ins[k]].new_fid = c->closing->stat_fid;
      bw_destroy(b);
    }
    c->res->num_inserts += (int64_t)cnt;
    i = end;
  }
  hudi_free(ins);
  hudi_free(rows);
  return st;
}

/* ---- commit ----------------------------------------------------------- */

static hudi_status write_instant(mw *c, const char *completion, hudi_instant_state state, const void *data,
                                 size_t len, hudi_error *err) {
  return hudi_write_instant_file(c->t, c->instant, c->action, completion, state, data, len, err);
}

/* T.replacecommit.requested: HoodieRequestedReplaceMetadata naming the
 * operation, without a clustering plan (what Spark writes for overwrites). */
static hudi_status write_requested_replace(mw *c, const char *operation, hudi_error *err) {
  hudi_requested_replace *r = NULL;
  HUDI_TRY(hudi_requested_replace_new(&r, err));
  hudi_buf out;
  hudi_buf_init(&out, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_tl_strdup(&r->doc.arena, operation, &r->operation_type, err);
  r->extra_metadata.has = 1;
  r->version = (hudi_tl_int){1, 1};
  if (st == HUDI_OK) st = hudi_requested_replace_to_avro(r, NULL, &out, err);
  if (st == HUDI_OK) st = write_instant(c, "", HUDI_INSTANT_REQUESTED, out.data, out.len, err);
  hudi_buf_free(&out);
  hudi_requested_replace_free(r);
  return st;
}

/* Remembers the keys of replaced slice s that this overwrite does not
 * write again: the record index drops them (hudi-metadata-table.md §5,
 * "keys deleted (or replaced away)"). */
static hudi_status gone_add(mw *c, const uint8_t *k, size_t kl, hudi_error *err) {
  if (hudi_hashmap_get(&c->keys, k, kl, NULL)) return HUDI_OK; /* re-inserted: the insert wins */
  if (c->n_gone + 2 > c->cap_gone) {
    size_t cap = c->cap_gone ? 2 * c->cap_gone : 512;
    size_t *g = hudi_realloc(c->gone, cap * sizeof *g);
    if (!g) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    c->gone = g;
    c->cap_gone = cap;
  }
  c->gone[c->n_gone++] = c->gone_keys.len;
  c->gone[c->n_gone++] = kl;
  return hudi_buf_append(&c->gone_keys, k, kl, err);
}

static hudi_status replaced_keys(mw *c, size_t s, hudi_error *err) {
  struct ArrowArrayStream in;
  memset(&in, 0, sizeof in);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  hudi_file_slice_info info;
  hudi_file_slice_list_at(c->full, s, &info);
  hudi_status st = hudi_table_read_file_slice(&in, c->t, c->full, s, err);
  if (st == HUDI_OK && in.get_schema(&in, &schema) != 0)
    st = hudi_err_set(err, HUDI_ERR_IO, "reading the schema of file group %s", info.file_id);
  while (st == HUDI_OK) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    int rc = in.get_next(&in, &a);
    if (rc != 0) {
      const char *m = in.get_last_error ? in.get_last_error(&in) : NULL;
      st = hudi_err_set(err, hudi_arrow_stored_read_status(rc), "reading file group %s: %s", info.file_id,
                        m ? m : "error");
      break;
    }
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    st = hudi_arrow_view_init(&v, &schema, &a, err);
    if (st == HUDI_OK && v.n_children <= 2)
      st = hudi_err_set(err, HUDI_ERR_INTERNAL, "file group %s read without meta columns", info.file_id);
    for (int64_t i = 0; st == HUDI_OK && i < v.length; i++) {
      int64_t row = hudi_arrow_view_struct_row(&v, i), kl;
      const uint8_t *k = hudi_arrow_view_bytes(&v.children[2], row, &kl);
      if (k && kl > 0) st = gone_add(c, k, (size_t)kl, err);
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  if (in.release) in.release(&in);
  if (schema.release) schema.release(&schema);
  return st;
}

/* partitionToReplaceFileIds: every latest file group of the overwritten
 * partitions (all of them for a table overwrite). */
static hudi_status add_replaced(mw *c, hudi_error *err) {
  hudi_hashmap parts;
  hudi_hashmap_init(&parts, 0);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < c->n_incs; i++)
    if (c->incs[i].part)
      st = hudi_hashmap_put(&parts, c->incs[i].part, strlen(c->incs[i].part), (hudi_hashmap_value){.u64 = 1}, NULL,
                            NULL, err);
  size_t ns = c->full ? hudi_file_slice_list_count(c->full) : 0;
  for (size_t s = 0; st == HUDI_OK && s < ns; s++) {
    hudi_file_slice_info info;
    hudi_file_slice_list_at(c->full, s, &info);
    if (c->mode == HUDI_MERGE_OVERWRITE_PARTITIONS && !hudi_hashmap_get(&parts, info.partition, strlen(info.partition), NULL))
      continue;
    st = hudi_commit_metadata_add_replaced(c->meta, info.partition, info.file_id, err);
    if (st == HUDI_OK && hudi_write_mdt_has_record_index(c->t)) st = replaced_keys(c, s, err);
  }
  hudi_hashmap_free(&parts);
  return st;
}

/* The MDT deltacommit of this write (write_mdt.h): files from the write
 * stats; nothing is deleted (a COW rewrite's old base file and replaced
 * file groups stay until cleaned, hudi-metadata-table.md §5); the record
 * index gets new and moved keys -> their new file group, deleted and
 * replaced-away keys -> NULL. Updates in place are not passed. */
static hudi_status update_mdt(mw *c, hudi_instant_gen *gen, hudi_error *err) {
  if (!hudi_write_mdt_enabled(c->t)) return HUDI_OK;
  size_t n = c->n_incs + c->n_gone / 2;
  hudi_mdt_key_change *kc = hudi_calloc(n + 1, sizeof *kc);
  if (!kc) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for %zu key changes", n);
  size_t m = 0;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < c->n_incs; i++) {
    const inc *e = &c->incs[i];
    if (e->kind == INC_INSERT || e->kind == INC_MOVE) {
      if (!e->new_fid) st = hudi_err_set(err, HUDI_ERR_INTERNAL, "key %.*s was not written", (int)e->klen, e->key);
      else kc[m++] = (hudi_mdt_key_change){e->key, e->klen, e->part, e->new_fid};
    } else if (e->kind == INC_DELETE) {
      kc[m++] = (hudi_mdt_key_change){e->key, e->klen, e->loc.partition, NULL};
    }
  }
  for (size_t g = 0; g + 1 < c->n_gone; g += 2)
    kc[m++] = (hudi_mdt_key_change){(const char *)c->gone_keys.data + c->gone[g], c->gone[g + 1], "", NULL};
  if (st == HUDI_OK) st = hudi_write_mdt_update(c->t, c->opts, c->n_opts, c->instant, c->meta, NULL, 0, kc, m, gen, err);
  hudi_free(kc);
  return st;
}

static hudi_status write_slices(mw *c, hudi_error *err) {
  size_t ns = hudi_file_slice_list_count(c->full);
  hudi_status st = HUDI_OK;
  for (size_t s = 0; st == HUDI_OK && s < ns; s++) {
    if (c->slice_start[s] == c->slice_start[s + 1]) continue;
    bool cow = c->t->type != HUDI_MERGE_ON_READ || slice_takes_inserts(c, s);
    st = cow ? rewrite_slice(c, s, err) : append_slice(c, s, err);
  }
  if (st == HUDI_OK) st = write_inserts(c, err);
  if (st == HUDI_OK) return bw_settle(c, err);
  /* A file still closing is waited for (its thread may be in the write
   * group) and dropped: the instant never completes. */
  bw_destroy(c->closing);
  c->closing = NULL;
  return st;
}

/* The commit's markers and data files, in one write group (io/storage.h):
 * the markers and log files (one of each per file group touched) are made
 * durable together once all are written, before the metadata table lists
 * them and the instant completes, rather than with two fsyncs each. A crash
 * before that sync can lose only files of this never-completed instant. */
static hudi_status write_data_files(mw *c, hudi_error *err) {
  hudi_storage_group *g;
  HUDI_TRY(hudi_storage_group_begin(c->t->storage, &g, err));
  c->group = g;
  hudi_status st = write_slices(c, err);
  c->group = NULL;
  if (st == HUDI_OK) st = hudi_storage_group_sync(g, err);
  hudi_storage_group_end(g);
  return st;
}

static hudi_status commit(mw *c, const char *operation, hudi_error *err) {
  hudi_instant_gen gen;
  HUDI_TRY(hudi_write_pick_instant(&gen, c->t, c->instant, err));
  snprintf(c->res->requested_time, sizeof c->res->requested_time, "%s", c->instant);
  bool replace = c->mode != HUDI_MERGE_UPSERT;
  HUDI_TRY(hudi_commit_metadata_new(&c->meta, replace, err));
  HUDI_TRY(hudi_commit_metadata_set_schema(c->meta, c->schema_json, err));
  HUDI_TRY(hudi_commit_metadata_set_operation(c->meta, operation, err));
  c->meta->compacted = (hudi_tl_bool){0, 1};
  if (replace) HUDI_TRY(write_requested_replace(c, operation, err));
  else HUDI_TRY(write_instant(c, "", HUDI_INSTANT_REQUESTED, "", 0, err));
  HUDI_TRY(write_instant(c, "", HUDI_INSTANT_INFLIGHT, "", 0, err));

  HUDI_TRY(write_data_files(c, err));
  if (replace) HUDI_TRY(add_replaced(c, err));
  size_t np;
  (void)hudi_commit_metadata_partitions(c->meta, &np);
  c->res->partitions_written = (int64_t)np;
  c->res->num_writes = c->res->num_inserts + c->res->num_updates;

  HUDI_TRY(update_mdt(c, &gen, err));

  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_commit_metadata_to_avro(c->meta, NULL, &avro, err);
  char done[HUDI_INSTANT_TIME_BUF];
  if (st == HUDI_OK) st = hudi_instant_gen_next(&gen, done, NULL, err);
  if (st == HUDI_OK) st = write_instant(c, done, HUDI_INSTANT_COMPLETED, avro.data, avro.len, err);
  hudi_buf_free(&avro);
  HUDI_TRY(st);
  snprintf(c->res->completion_time, sizeof c->res->completion_time, "%s", done);
  char temp[64];
  snprintf(temp, sizeof temp, ".hoodie/.temp/%s", c->instant);
  hudi_error ignored = HUDI_ERROR_INIT;
  hudi_status del = hudi_storage_delete(c->t->storage, temp, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, &ignored);
  (void)del;
  /* T is committed: a failed reload must not report the write as failed
   * (a retry would apply it twice); the next write reloads anyway. */
  if (hudi_write_reload_timeline(c->t, &ignored) != HUDI_OK) hudi_error_clear(&ignored);
  return HUDI_OK;
}

static bool has_changes(const mw *c) {
  for (size_t i = 0; i < c->n_incs; i++)
    if (c->incs[i].kind != INC_NOOP) return true;
  return false;
}

/* Updates and deletes to a file group a pending clustering reads are
 * refused (clustering_pending.h), before anything is written. */
static hudi_status refuse_clustered_updates(mw *c, hudi_error *err) {
  hudi_clustering_fgs *f = NULL;
  HUDI_TRY(hudi_clustering_fgs_load(&f, c->t, err));
  size_t ns = hudi_file_slice_list_count(c->full);
  hudi_status st = HUDI_OK;
  for (size_t s = 0; st == HUDI_OK && s < ns; s++) {
    if (c->slice_start[s] == c->slice_start[s + 1]) continue;
    hudi_file_slice_info info;
    hudi_file_slice_list_at(c->full, s, &info);
    st = hudi_clustering_fgs_check(f, info.partition, info.file_id, c->t->base_uri, err);
  }
  hudi_clustering_fgs_free(f);
  return st;
}

static hudi_status run(mw *c, const hudi_merge_input *in, hudi_error *err) {
  bool empty_table;
  HUDI_TRY(pq_options(c, err));
  HUDI_TRY(build_schemas(c, &empty_table, err));
  if (!c->rows && empty_table) return HUDI_OK; /* nothing to delete */
  HUDI_TRY(collect(c, in, err));
  if (c->n_incs == 0 && c->mode != HUDI_MERGE_OVERWRITE_TABLE) return HUDI_OK;
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.options = hudi_write_snapshot_options;
  ro.n_options = hudi_write_n_snapshot_options;
  HUDI_TRY(hudi_table_file_slices(&c->full, c->t, &ro, err));
  if (c->mode == HUDI_MERGE_UPSERT) {
    /* The index owns the location strings: it lives until the write ends. */
    HUDI_TRY(hudi_index_for_write(&c->index, c->t, err));
    HUDI_TRY(plan(c, c->index, err));
    HUDI_TRY(drop_stale_moves(c, err));
    if (!has_changes(c)) return HUDI_OK;
    HUDI_TRY(assign_small_files(c, err));
    HUDI_TRY(group_by_slice(c, err));
    HUDI_TRY(refuse_clustered_updates(c, err));
  } else {
    HUDI_TRY(plan(c, NULL, err)); /* every key absent: all inserts */
    HUDI_TRY(group_by_slice(c, err));
    if (!has_changes(c) && (c->mode != HUDI_MERGE_OVERWRITE_TABLE || hudi_file_slice_list_count(c->full) == 0))
      return HUDI_OK;
  }
  if (c->t->type == HUDI_MERGE_ON_READ && c->rows) {
    HUDI_TRY(hudi_avro_schema_parse(&c->avro, c->avro_with_meta, strlen(c->avro_with_meta), err));
    HUDI_TRY(hudi_avro_encoder_create(&c->enc, &c->rows->input, c->avro->root, err));
  }
  return commit(c, in->operation, err);
}

hudi_status hudi_merge_write(hudi_write_result *res, hudi_table *t, const hudi_merge_input *in,
                             const hudi_option *opts, size_t n_opts, hudi_error *err) {
  mw c;
  memset(&c, 0, sizeof c);
  c.t = t;
  c.opts = opts;
  c.n_opts = opts ? n_opts : 0;
  c.rows = in->rows;
  c.res = res;
  hudi_hashmap_init(&c.keys, 0);
  hudi_hashmap_init(&c.slice_ids, 0);
  hudi_buf_init(&c.gone_keys, HUDI_BUF_DEFAULT_MAX);
  c.mode = in->mode;
  c.action = in->mode != HUDI_MERGE_UPSERT ? "replacecommit"
             : t->type == HUDI_MERGE_ON_READ ? "deltacommit"
                                             : "commit";
  snprintf(res->action, sizeof res->action, "%s", c.action);
  snprintf(res->operation, sizeof res->operation, "%s", in->operation);
  hudi_table_lock lock = {0};
  hudi_status st = hudi_write_begin(&lock, t, c.opts, c.n_opts, err);
  /* One metadata-table handle for the file slicing, the index, the MDT
   * writer and the services, refreshed when the MDT or timeline moves
   * (mdt_reader.h): opened at most once per write. */
  bool sharing = st == HUDI_OK;
  if (sharing) hudi_mdt_share_begin(t);
  if (st == HUDI_OK) st = run(&c, in, err);
  if (st != HUDI_OK) res->completion_time[0] = '\0';
  /* The commit is visible from here on, whatever the services report. */
  else if (res->completion_time[0]) st = hudi_services_after_commit(t, c.opts, c.n_opts, res, err);
  if (sharing) hudi_mdt_share_end(t);
  hudi_write_end(&lock, t);
  hudi_avro_encoder_free(c.enc);
  hudi_index_free(c.index);
  if (c.avro) hudi_avro_schema_free(c.avro);
  hudi_commit_metadata_free(c.meta);
  hudi_file_slice_list_free(c.full);
  hudi_hashmap_free(&c.keys);
  hudi_hashmap_free(&c.slice_ids);
  hudi_free(c.incs);
  hudi_buf_free(&c.gone_keys);
  hudi_free(c.gone);
  hudi_free(c.by_slice);
  hudi_free(c.slice_start);
  hudi_arrow_field_clear(&c.data_schema);
  hudi_arrow_field_clear(&c.out_schema);
  hudi_free(c.same_in);
  hudi_free(c.schema_json);
  hudi_free(c.avro_with_meta);
  return st;
}

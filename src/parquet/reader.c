/* The Parquet reader (see reader.h). */
#include "parquet/reader.h"

#include <pthread.h>
#include <string.h>

#include "arrow/metadata.h"
#include "arrow/stream.h"
#include "base/alloc.h"
#include "parquet/assemble.h"
#include "parquet/encoding.h"
#include "parquet/schema_arrow.h"

#define TAIL_READ ((size_t)64 << 10)
#define DEFAULT_BATCH 65536

struct hudi_pq_reader {
  hudi_storage *storage; /* NULL: memory */
  char *path;
  const uint8_t *mem;
  size_t size;
  hudi_pq_reader_options opts;
  hudi_pq_arena arena;
  hudi_buf footer;
  hudi_pq_file_meta meta;
  hudi_pq_arrow_schema schema;
  const hudi_pq_node **leaf_nodes; /* by leaf */
  bool *selected;                  /* by leaf */
  hudi_arrow_field field;          /* projected */
  /* Iteration. */
  uint32_t rg;          /* next row group to load */
  bool loaded;
  int64_t rows_left;    /* in the loaded row group */
  uint32_t skipped;
  hudi_pq_column_data *data; /* by leaf */
  hudi_buf *raw;             /* by leaf: chunk bytes (storage only) */
  hudi_pq_chunk_decoder *dec; /* by leaf: decodes data[] a page at a time */
  bool *dec_done;            /* by leaf: the chunk's pages are all decoded */
  hudi_pq_leaf_cursor *cur;  /* by leaf */
};

/* ---- byte access ---- */

/* Reads [off, off+len) into b (storage) or points *p at it (memory). */
static hudi_status read_range(hudi_pq_reader *r, size_t off, size_t len, hudi_buf *b, const uint8_t **p,
                              hudi_error *err) {
  if (off > r->size || len > r->size - off)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "byte range %zu+%zu lies outside the file of %zu bytes", off, len,
                        r->size);
  if (!r->storage) {
    *p = r->mem + off;
    return HUDI_OK;
  }
  hudi_buf_reset(b);
  HUDI_TRY(hudi_storage_read_buf(r->storage, r->path, off, len, b, NULL, err));
  *p = b->data;
  return HUDI_OK;
}

/* ---- opening ---- */

static void collect_leaf_nodes(const hudi_pq_node *n, const hudi_pq_node **out) {
  if (n->kind == HUDI_PQ_NODE_LEAF) {
    out[n->leaf_begin] = n;
    return;
  }
  for (uint32_t i = 0; i < n->n_children; i++) collect_leaf_nodes(&n->children[i], out);
}

/* A map is read whole when any of its leaves is selected. */
static void expand_maps(const hudi_pq_node *n, bool *sel) {
  if (n->kind == HUDI_PQ_NODE_MAP && hudi_pq_node_has_selected(n, sel)) {
    for (uint32_t i = n->leaf_begin; i < n->leaf_end; i++) sel[i] = true;
    return;
  }
  for (uint32_t i = 0; i < n->n_children; i++) expand_maps(&n->children[i], sel);
}

static hudi_status select_columns(hudi_pq_reader *r, hudi_error *err) {
  uint32_t nl = r->schema.num_leaves;
  for (uint32_t i = 0; i < nl; i++) r->selected[i] = r->opts.columns == NULL;
  if (!r->opts.columns) return HUDI_OK;
  for (size_t c = 0; c < r->opts.n_columns; c++) {
    const char *want = r->opts.columns[c];
    size_t wl = strlen(want);
    bool found = false;
    for (uint32_t i = 0; i < nl; i++) {
      const char *p = r->schema.leaves[i].path;
      if (strncmp(p, want, wl) == 0 && (p[wl] == '\0' || p[wl] == '.')) {
        r->selected[i] = true;
        found = true;
      }
    }
    if (!found) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "no column '%s' in the parquet file", want);
  }
  expand_maps(&r->schema.root, r->selected);
  return HUDI_OK;
}

/* The projected struct field, carrying the footer key/values. */
static hudi_status make_field(hudi_pq_reader *r, hudi_error *err) {
  HUDI_TRY(hudi_pq_node_field(&r->field, &r->schema.root, r->selected, err));
  uint32_t n = r->meta.num_key_value;
  if (n == 0 || r->opts.skip_kv_metadata) return HUDI_OK;
  hudi_arrow_kv *kv = hudi_calloc(n, sizeof *kv);
  if (!kv) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  int32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const hudi_pq_key_value *p = &r->meta.key_value[i];
    if (strcmp(p->key, "ARROW:schema") == 0 || strlen(p->key) > INT32_MAX / 2 || p->value_len > INT32_MAX / 2) continue;
    kv[k++] = (hudi_arrow_kv){p->key, (int32_t)strlen(p->key), p->value ? p->value : "", (int32_t)p->value_len};
  }
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_status st = k ? hudi_arrow_metadata_encode(&b, kv, k, err) : HUDI_OK;
  if (st == HUDI_OK && k) st = hudi_arrow_field_set_metadata(&r->field, (const char *)b.data, err);
  hudi_buf_free(&b);
  hudi_free(kv);
  return st;
}

static hudi_status read_footer(hudi_pq_reader *r, hudi_error *err) {
  size_t tail_len = r->size < TAIL_READ ? r->size : TAIL_READ;
  if (r->size < 12) return hudi_err_set(err, HUDI_ERR_CORRUPT, "file of %zu bytes is too small for parquet", r->size);
  const uint8_t *tail = NULL;
  HUDI_TRY(read_range(r, r->size - tail_len, tail_len, &r->footer, &tail, err));
  size_t foff = 0, flen = 0;
  HUDI_TRY(hudi_pq_footer_locate(&foff, &flen, tail, tail_len, r->size, err));
  if (flen > r->opts.max_footer)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "footer of %zu bytes at byte offset %zu exceeds the cap of %zu", flen,
                        foff, r->opts.max_footer);
  const uint8_t *f = NULL;
  if (foff >= r->size - tail_len) {
    f = tail + (foff - (r->size - tail_len));
  } else if (!r->storage) {
    HUDI_TRY(read_range(r, foff, flen, &r->footer, &f, err));
  } else {
    /* Only the footer's bytes before the tail are missing: read those and
     * put the tail's share after them. That read ends where the tail
     * starts, so the object cache keeps both as one tail (io/objcache.h):
     * the next open of the file (a merge opens its base file's footer up
     * to three times) sends no request. */
    size_t head = r->size - tail_len - foff;
    hudi_buf whole;
    hudi_buf_init(&whole, (size_t)1 << 31);
    hudi_status st = hudi_storage_read_buf(r->storage, r->path, foff, head, &whole, NULL, err);
    if (st == HUDI_OK) st = hudi_buf_append(&whole, tail, flen - head, err);
    if (st != HUDI_OK) {
      hudi_buf_free(&whole);
      return st;
    }
    hudi_buf_free(&r->footer);
    r->footer = whole;
    f = r->footer.data;
  }
  if (r->size == tail_len && memcmp(tail, "PAR1", 4) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "no PAR1 magic at byte offset 0");
  hudi_status st = hudi_pq_file_meta_decode(&r->meta, &r->arena, f, flen, foff, err);
  /* The decoded footer copies what it keeps into the arena. */
  hudi_buf_free(&r->footer);
  return st;
}

/* ---- per-thread spare buffers ----
 *
 * A table read opens one reader per file, on the same few threads. Each
 * reader's per-leaf buffers (chunk bytes, decoder, decoded window) grow to
 * megabytes; freeing them at every file and growing them again costs page
 * faults and leaves fragmented heaps behind. So a freed reader leaves its
 * buffers to the next reader opened on the same thread with as many
 * leaves (up to SPARE_MAX bytes; they stay held until then, until the
 * thread exits, or until hudi_pq_reader_release_spare). */

#define SPARE_MAX ((size_t)64 << 20)

typedef struct spare_set {
  uint32_t n;
  hudi_pq_column_data *data;
  hudi_buf *raw;
  hudi_pq_chunk_decoder *dec;
} spare_set;

static _Thread_local spare_set *tl_spare;
static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

static void spare_free(void *p) {
  spare_set *s = p;
  if (!s) return;
  for (uint32_t i = 0; i < s->n; i++) {
    hudi_pq_column_data_free(&s->data[i]);
    hudi_buf_free(&s->raw[i]);
    hudi_pq_chunk_decoder_free(&s->dec[i]);
  }
  hudi_free(s->data);
  hudi_free(s->raw);
  hudi_free(s->dec);
  hudi_free(s);
}

/* The key only frees a pool thread's spare when the thread exits. */
static void spare_key_make(void) { (void)pthread_key_create(&spare_key, spare_free); }

/* Takes this thread's spare buffers for a reader of nl leaves, if any. */
static bool spare_take(hudi_pq_reader *r, uint32_t nl) {
  spare_set *s = tl_spare;
  if (!s || s->n != nl) return false;
  tl_spare = NULL;
  pthread_setspecific(spare_key, NULL);
  r->data = s->data;
  r->raw = s->raw;
  r->dec = s->dec;
  hudi_free(s);
  return true;
}

/* Leaves r's buffers to the thread (a previous spare is freed). */
static bool spare_give(hudi_pq_reader *r) {
  uint32_t nl = r->schema.num_leaves;
  if (r->opts.lean || !r->data || !r->raw || !r->dec || nl == 0) return false;
  size_t bytes = 0;
  for (uint32_t i = 0; i < nl; i++) {
    const hudi_pq_column_data *d = &r->data[i];
    const hudi_pq_chunk_decoder *c = &r->dec[i];
    bytes += d->def_levels.cap + d->rep_levels.cap + d->values.cap + d->offsets.cap + d->page_offsets.cap +
             r->raw[i].cap + c->dict_values.cap + c->dict_offsets.cap + c->page.cap + c->scratch.cap;
  }
  if (bytes > SPARE_MAX) return false;
  spare_set *s = hudi_malloc(sizeof *s);
  if (!s) return false;
  pthread_once(&spare_once, spare_key_make);
  spare_free(tl_spare);
  *s = (spare_set){nl, r->data, r->raw, r->dec};
  tl_spare = s;
  pthread_setspecific(spare_key, s);
  r->data = NULL;
  r->raw = NULL;
  r->dec = NULL;
  return true;
}

void hudi_pq_reader_release_spare(void) {
  spare_set *s = tl_spare;
  if (!s) return;
  /* A spare exists only after spare_give, which made the key. */
  tl_spare = NULL;
  pthread_setspecific(spare_key, NULL);
  spare_free(s);
}

static hudi_status reader_init(hudi_pq_reader *r, hudi_error *err) {
  HUDI_TRY(read_footer(r, err));
  HUDI_TRY(hudi_pq_arrow_schema_make(&r->schema, &r->meta, &r->arena, err));
  uint32_t nl = r->schema.num_leaves;
  r->leaf_nodes = hudi_calloc(nl ? nl : 1, sizeof *r->leaf_nodes);
  r->selected = hudi_calloc(nl ? nl : 1, sizeof *r->selected);
  r->cur = hudi_calloc(nl ? nl : 1, sizeof *r->cur);
  r->dec_done = hudi_calloc(nl ? nl : 1, sizeof *r->dec_done);
  if (!r->leaf_nodes || !r->selected || !r->cur || !r->dec_done)
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening parquet");
  if (!spare_take(r, nl)) {
    r->data = hudi_calloc(nl ? nl : 1, sizeof *r->data);
    r->raw = hudi_calloc(nl ? nl : 1, sizeof *r->raw);
    r->dec = hudi_calloc(nl ? nl : 1, sizeof *r->dec);
    if (!r->data || !r->raw || !r->dec) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening parquet");
    for (uint32_t i = 0; i < nl; i++) {
      hudi_pq_column_data_init(&r->data[i]);
      hudi_buf_init(&r->raw[i], (size_t)1 << 31);
      hudi_pq_chunk_decoder_init(&r->dec[i]);
    }
  }
  collect_leaf_nodes(&r->schema.root, r->leaf_nodes);
  for (uint32_t g = 0; g < r->meta.num_row_groups; g++) {
    const hudi_pq_row_group *rg = &r->meta.row_groups[g];
    if (rg->num_columns != nl || rg->num_rows < 0)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "row group %u has %u columns and %lld rows; the schema has %u leaves",
                          g, rg->num_columns, (long long)rg->num_rows, nl);
  }
  HUDI_TRY(select_columns(r, err));
  return make_field(r, err);
}

static hudi_status open_common(hudi_pq_reader **out, hudi_pq_reader *r, const hudi_pq_reader_options *opts,
                               hudi_error *err) {
  static const hudi_pq_reader_options defaults = HUDI_PQ_READER_OPTIONS_INIT;
  r->opts = opts ? *opts : defaults;
  if (r->opts.batch_size <= 0) r->opts.batch_size = DEFAULT_BATCH;
  if (r->opts.max_footer == 0) r->opts.max_footer = defaults.max_footer;
  if (r->opts.limits.max_levels == 0) r->opts.limits = defaults.limits;
  hudi_pq_arena_init(&r->arena, HUDI_PQ_ARENA_DEFAULT_MAX);
  hudi_buf_init(&r->footer, (size_t)1 << 31);
  hudi_status st = reader_init(r, err);
  if (st != HUDI_OK) {
    st = hudi_err_context(err, st, "parquet file %s", r->path);
    hudi_pq_reader_free(r);
    return st;
  }
  *out = r;
  return HUDI_OK;
}

hudi_status hudi_pq_reader_open(hudi_pq_reader **out, hudi_storage *s, const char *path,
                                const hudi_pq_reader_options *opts, hudi_error *err) {
  *out = NULL;
  hudi_file_stat fs = {0};
  if (opts && opts->file_size) fs.size = opts->file_size;
  else HUDI_TRY(hudi_storage_stat(s, path, &fs, err));
  if (fs.size > SIZE_MAX / 2) return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: file too large", path);
  hudi_pq_reader *r = hudi_calloc(1, sizeof *r);
  if (!r || !(r->path = hudi_strdup(path))) {
    hudi_free(r);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening %s", path);
  }
  r->storage = s;
  r->size = (size_t)fs.size;
  return open_common(out, r, opts, err);
}

hudi_status hudi_pq_reader_open_memory(hudi_pq_reader **out, const uint8_t *data, size_t len, const char *name,
                                       const hudi_pq_reader_options *opts, hudi_error *err) {
  *out = NULL;
  hudi_pq_reader *r = hudi_calloc(1, sizeof *r);
  if (!r || !(r->path = hudi_strdup(name ? name : "<memory>"))) {
    hudi_free(r);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening parquet");
  }
  r->mem = data;
  r->size = len;
  return open_common(out, r, opts, err);
}

/* Forgets the loaded row group. The buffers keep their memory for the
 * next one (so are freed only by hudi_pq_reader_free): large allocations
 * would otherwise be returned to the kernel and faulted in again for
 * every row group. */
static void unload(hudi_pq_reader *r) {
  if (!r->data || !r->raw || !r->cur || !r->dec_done) return;
  for (uint32_t i = 0; i < r->schema.num_leaves; i++) {
    hudi_pq_column_data *d = &r->data[i];
    hudi_buf_reset(&d->def_levels);
    hudi_buf_reset(&d->rep_levels);
    hudi_buf_reset(&d->values);
    hudi_buf_reset(&d->offsets);
    hudi_buf_reset(&d->page_offsets);
    d->num_levels = d->num_values = d->num_data_pages = d->num_dictionary_pages = 0;
    d->dict_ids = false;
    hudi_buf_reset(&r->raw[i]);
    r->dec_done[i] = false;
    r->cur[i] = (hudi_pq_leaf_cursor){0};
  }
  r->loaded = false;
}

static void release_buffers(hudi_pq_reader *r) {
  if (!r->data || !r->raw || !r->dec) return;
  for (uint32_t i = 0; i < r->schema.num_leaves; i++) {
    hudi_pq_column_data_free(&r->data[i]);
    hudi_buf_free(&r->raw[i]);
    hudi_pq_chunk_decoder_free(&r->dec[i]);
  }
}

void hudi_pq_reader_free(hudi_pq_reader *r) {
  if (!r) return;
  unload(r);
  if (!spare_give(r)) release_buffers(r);
  hudi_free(r->data);
  hudi_free(r->raw);
  hudi_free(r->dec);
  hudi_free(r->dec_done);
  hudi_free(r->cur);
  hudi_free(r->leaf_nodes);
  hudi_free(r->selected);
  hudi_arrow_field_clear(&r->field);
  hudi_pq_arrow_schema_free(&r->schema);
  hudi_buf_free(&r->footer);
  hudi_pq_arena_free(&r->arena);
  hudi_free(r->path);
  hudi_free(r);
}

/* ---- accessors ---- */

const hudi_pq_file_meta *hudi_pq_reader_meta(const hudi_pq_reader *r) { return &r->meta; }
const hudi_arrow_field *hudi_pq_reader_schema(const hudi_pq_reader *r) { return &r->field; }
uint32_t hudi_pq_reader_num_leaves(const hudi_pq_reader *r) { return r->schema.num_leaves; }
const hudi_pq_leaf *hudi_pq_reader_leaf(const hudi_pq_reader *r, uint32_t i) { return &r->schema.leaves[i]; }
bool hudi_pq_reader_leaf_selected(const hudi_pq_reader *r, uint32_t i) { return r->selected[i]; }
uint32_t hudi_pq_reader_row_groups_skipped(const hudi_pq_reader *r) { return r->skipped; }

const char *hudi_pq_reader_kv(const hudi_pq_reader *r, const char *key, size_t *len) {
  for (uint32_t i = 0; i < r->meta.num_key_value; i++) {
    const hudi_pq_key_value *p = &r->meta.key_value[i];
    if (strcmp(p->key, key) == 0 && p->value) {
      if (len) *len = p->value_len;
      return p->value;
    }
  }
  return NULL;
}

int64_t hudi_pq_reader_find_leaf(const hudi_pq_reader *r, const char *path) {
  for (uint32_t i = 0; i < r->schema.num_leaves; i++)
    if (strcmp(r->schema.leaves[i].path, path) == 0) return i;
  return -1;
}

void hudi_pq_reader_stats(hudi_pq_col_stats *out, const hudi_pq_reader *r, uint32_t rg, uint32_t i) {
  hudi_pq_col_stats_decode(out, &r->meta, i, &r->schema.leaves[i], r->leaf_nodes[i],
                           &r->meta.row_groups[rg].columns[i]);
}

/* ---- row groups ---- */

typedef struct load_ctx {
  hudi_pq_reader *r;
  const hudi_pq_row_group *rg;
  uint32_t *leaves; /* selected leaf numbers */
} load_ctx;

/* Whether assembly reads this leaf straight from dictionary indices
 * (assemble.c: strings/binary, and fixed-width values copied as stored);
 * a window of indices is a fraction of the expanded values. */
static bool dict_ids_ok(const hudi_pq_node *n, const hudi_pq_leaf *leaf) {
  if (n->conv == HUDI_PQ_RCONV_BYTES) return leaf->type == HUDI_PQ_BYTE_ARRAY;
  return n->conv == HUDI_PQ_RCONV_COPY && leaf->type != HUDI_PQ_BOOLEAN && leaf->type != HUDI_PQ_BYTE_ARRAY &&
         (size_t)n->out_width == hudi_pq_value_size(leaf->type, leaf->type_length);
}

static hudi_status load_leaf(void *arg, size_t k, hudi_error *err) {
  load_ctx *c = arg;
  hudi_pq_reader *r = c->r;
  uint32_t i = c->leaves[k];
  const hudi_pq_column_chunk *cc = &c->rg->columns[i];
  size_t off, len;
  HUDI_TRY(hudi_pq_column_chunk_range(&off, &len, cc, r->size, err));
  const uint8_t *p = NULL;
  if (len) HUDI_TRY(read_range(r, off, len, &r->raw[i], &p, err));
  /* Pages are decoded as batches need them (fill_window), dictionary
   * pages to indices where assembly can gather from the dictionary. */
  r->dec[i].keep_dict_ids = dict_ids_ok(r->leaf_nodes[i], &r->schema.leaves[i]);
  HUDI_TRY(hudi_pq_chunk_decoder_start(&r->dec[i], &r->schema.leaves[i], &cc->meta, p, len, off, &r->opts.limits,
                                       err));
  r->cur[i].data = &r->data[i];
  return HUDI_OK;
}

/* Row starts in entries [from, to) of a leaf's decoded window. */
static size_t count_row_starts(const hudi_pq_leaf *leaf, const hudi_pq_column_data *d, size_t from, size_t to) {
  if (leaf->max_rep == 0) return to - from;
  const int16_t *rep = (const int16_t *)(const void *)d->rep_levels.data;
  size_t k = 0;
  for (size_t i = from; i < to; i++) k += rep[i] == 0;
  return k;
}

/* Lean readers: leaf i's pages are all decoded (what is left of the chunk
 * is the entry count check, which reads no bytes), so its chunk bytes and
 * page buffer go now rather than at the row group's end. */
static void lean_release(hudi_pq_reader *r, uint32_t i) {
  if (r->storage) hudi_buf_free(&r->raw[i]);
  hudi_buf_free(&r->dec[i].page);
}

/* Makes leaf i's window of decoded entries hold n_rows whole rows from its
 * cursor (or everything left of the chunk). Before decoding another page
 * the entries already assembled are dropped, so the window holds at most
 * a batch's rows plus a page, and what moves is less than a batch. */
static hudi_status fill_window(hudi_pq_reader *r, uint32_t i, int64_t n_rows, hudi_error *err) {
  hudi_pq_column_data *d = &r->data[i];
  hudi_pq_leaf_cursor *cur = &r->cur[i];
  const hudi_pq_leaf *leaf = &r->schema.leaves[i];
  /* Nested leaves: the row after the last one must have started too, so
   * the last row's entries are all there. */
  size_t want = (size_t)n_rows + (leaf->max_rep > 0);
  size_t rows = count_row_starts(leaf, d, cur->level, d->num_levels);
  while (rows < want && !r->dec_done[i]) {
    if (cur->level > 0) {
      HUDI_TRY(hudi_pq_column_data_drop(d, leaf, cur->level, cur->value, err));
      cur->level = cur->value = 0;
    }
    size_t before = d->num_levels;
    HUDI_TRY(hudi_pq_chunk_decoder_next(&r->dec[i], d, &r->dec_done[i], err));
    rows += count_row_starts(leaf, d, before, d->num_levels);
    if (r->opts.lean && r->dec[i].pos >= r->dec[i].len) lean_release(r, i);
  }
  return HUDI_OK;
}

static hudi_status load_row_group(hudi_pq_reader *r, uint32_t g, hudi_error *err) {
  uint32_t nl = r->schema.num_leaves;
  uint32_t *leaves = hudi_calloc(nl ? nl : 1, sizeof *leaves);
  if (!leaves) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t n = 0;
  for (uint32_t i = 0; i < nl; i++)
    if (r->selected[i]) leaves[n++] = i;
  load_ctx c = {r, &r->meta.row_groups[g], leaves};
  hudi_status st = hudi_parallel_for(r->opts.pool, n, load_leaf, &c, err);
  hudi_free(leaves);
  r->loaded = true;
  r->rows_left = r->meta.row_groups[g].num_rows;
  if (st != HUDI_OK) st = hudi_err_context(err, st, "row group %u", g);
  return st;
}

/* Loads the next row group with rows to read; false at the end. */
static hudi_status advance(hudi_pq_reader *r, bool *have, hudi_error *err) {
  while (!r->loaded || r->rows_left == 0) {
    unload(r);
    if (r->rg >= r->meta.num_row_groups) {
      *have = false;
      return HUDI_OK;
    }
    uint32_t g = r->rg++;
    if (r->meta.row_groups[g].num_rows == 0) continue;
    if (r->opts.filter && !r->opts.filter(r->opts.filter_ctx, r, g)) {
      r->skipped++;
      continue;
    }
    HUDI_TRY(load_row_group(r, g, err));
  }
  *have = true;
  return HUDI_OK;
}

typedef struct batch_ctx {
  hudi_pq_reader *r;
  const hudi_pq_node **cols; /* selected top-level columns */
  struct ArrowArray *out;
  int64_t n_rows;
} batch_ctx;

/* Columns touch only their own leaves' cursors: they decode and assemble
 * in parallel. */
static hudi_status assemble_column(void *arg, size_t i, hudi_error *err) {
  batch_ctx *c = arg;
  for (uint32_t l = c->cols[i]->leaf_begin; l < c->cols[i]->leaf_end; l++)
    if (c->r->selected[l]) HUDI_TRY(fill_window(c->r, l, c->n_rows, err));
  return hudi_pq_assemble(&c->out[i], c->cols[i], c->r->selected, c->r->cur, c->r->schema.leaves, c->n_rows, err);
}

/* At a row group's end every chunk must be used up: more entries than
 * the group's rows is corrupt. On failure *out is released. */
static hudi_status check_consumed(hudi_pq_reader *r, struct ArrowArray *out, hudi_error *err) {
  for (uint32_t i = 0; i < r->schema.num_leaves; i++) {
    if (!r->selected[i]) continue;
    /* The pages not decoded yet must hold no further entries. */
    hudi_status st = HUDI_OK;
    while (st == HUDI_OK && !r->dec_done[i] && r->cur[i].level == r->data[i].num_levels)
      st = hudi_pq_chunk_decoder_next(&r->dec[i], &r->data[i], &r->dec_done[i], err);
    if (st != HUDI_OK) {
      out->release(out);
      return st;
    }
    if (r->cur[i].level == r->data[i].num_levels) continue;
    out->release(out);
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet column %s holds more rows than its row group (%lld)",
                        r->schema.leaves[i].path, (long long)r->meta.row_groups[r->rg - 1].num_rows);
  }
  return HUDI_OK;
}

static hudi_status next_batch(hudi_pq_reader *r, struct ArrowArray *out, bool *eof, hudi_error *err) {
  bool have;
  HUDI_TRY(advance(r, &have, err));
  if (!have) {
    *eof = true;
    return HUDI_OK;
  }
  int64_t n = r->rows_left < r->opts.batch_size ? r->rows_left : r->opts.batch_size;
  const hudi_pq_node *root = &r->schema.root;
  size_t k = 0;
  struct ArrowArray *arrays = hudi_calloc(root->n_children ? root->n_children : 1, sizeof *arrays);
  const hudi_pq_node **cols = hudi_calloc(root->n_children ? root->n_children : 1, sizeof *cols);
  hudi_status st = HUDI_OK;
  if (!arrays || !cols) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (uint32_t i = 0; st == HUDI_OK && i < root->n_children; i++)
    if (hudi_pq_node_has_selected(&root->children[i], r->selected)) cols[k++] = &root->children[i];
  batch_ctx c = {r, cols, arrays, n};
  if (st == HUDI_OK) {
    st = hudi_parallel_for(k > 1 ? r->opts.pool : NULL, k, assemble_column, &c, err);
    if (st != HUDI_OK) st = hudi_err_context(err, st, "row group %u", r->rg - 1);
  }
  if (st == HUDI_OK) {
    st = hudi_pq_struct_array(out, arrays, (int64_t)k, n, err);
  } else {
    for (size_t j = 0; arrays && j < k; j++)
      if (arrays[j].release) arrays[j].release(&arrays[j]);
  }
  hudi_free(arrays);
  hudi_free(cols);
  if (st == HUDI_OK) {
    r->rows_left -= n;
    *eof = false;
  }
  if (st == HUDI_OK && r->rows_left == 0) st = check_consumed(r, out, err);
  return st;
}

hudi_status hudi_pq_reader_next(hudi_pq_reader *r, struct ArrowArray *out, bool *eof, hudi_error *err) {
  hudi_status st = next_batch(r, out, eof, err);
  if (st != HUDI_OK) {
    unload(r);
    r->rg = r->meta.num_row_groups; /* a failed reader reads no further */
    st = hudi_err_context(err, st, "parquet file %s", r->path);
  }
  return st;
}

/* ---- stream ---- */

typedef struct stream_priv {
  hudi_pq_reader *r;
  hudi_error err;
} stream_priv;

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  stream_priv *p = s->private_data;
  hudi_status st = hudi_arrow_field_export(out, &p->r->field, &p->err);
  return hudi_arrow_status_errno(st);
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  stream_priv *p = s->private_data;
  bool eof = false;
  hudi_error_clear(&p->err);
  hudi_status st = hudi_pq_reader_next(p->r, out, &eof, &p->err);
  if (st == HUDI_OK && eof) out->release = NULL;
  return hudi_arrow_status_errno(st);
}

static const char *stream_get_last_error(struct ArrowArrayStream *s) {
  stream_priv *p = s->private_data;
  return p->err.code == HUDI_OK ? NULL : p->err.message;
}

static void stream_release(struct ArrowArrayStream *s) {
  if (!s || !s->release) return;
  stream_priv *p = s->private_data;
  hudi_pq_reader_free(p->r);
  hudi_free(p);
  s->release = NULL;
}

hudi_status hudi_pq_reader_stream(struct ArrowArrayStream *out, hudi_pq_reader *r, hudi_error *err) {
  stream_priv *p = hudi_calloc(1, sizeof *p);
  if (!p) {
    hudi_pq_reader_free(r);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  p->r = r;
  memset(out, 0, sizeof *out);
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_get_last_error;
  out->release = stream_release;
  out->private_data = p;
  return HUDI_OK;
}

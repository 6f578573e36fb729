/* Parquet file writer: row groups of column chunks, footer, output sinks. */
#include "parquet/writer.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arrow/view.h"
#include "base/alloc.h"
#include "base/threadpool.h"
#include "hudi/common.h"
#include "parquet/page_writer.h"
#include "parquet/writer_column.h"

typedef struct kv_entry {
  char *key;
  char *value; /* NULL: no value */
  size_t len;
} kv_entry;

struct hudi_pq_writer {
  hudi_pq_writer_options opts;
  hudi_arrow_field field;      /* our copy of the schema */
  struct ArrowSchema schema;   /* exported from field, for views */
  hudi_pq_wschema ws;
  hudi_pq_colw *cols;
  /* output */
  hudi_buf *mem;               /* open_buf: the caller's buffer */
  hudi_buf own;                /* non-local storage: the whole file */
  int fd;                      /* local storage: the temporary file */
  char *tmp_path, *tmp_rel;    /* absolute and storage-relative temporary path */
  hudi_storage *storage;
  char *path;
  uint64_t pos;                /* bytes written so far */
  bool writeback;              /* fd's bytes are started to disk by steps (WRITEBACK_STEP) */
  uint64_t wb_pos;             /* ... up to here so far */
  size_t mem_start;
  /* row groups */
  hudi_pq_arena arena;         /* footer metadata */
  hudi_pq_row_group *rgs;
  uint32_t n_rgs, cap_rgs;
  int64_t rg_rows;             /* rows in the open row group */
  int64_t rg_start_pos;
  uint32_t n_flushed;          /* columns of the open row group already written out */
  hudi_pq_column_chunk *open_chunks;
  int64_t total_rows;
  kv_entry *kv;
  uint32_t n_kv;
  bool failed, closed;
  hudi_threadpool *pool; /* encode_threads > 1: helpers encoding columns */
  int32_t *twin_of;      /* per leaf: the leaf whose pages it copies (hudi_pq_writer_twin), or -1 */
};

/* A local file whose bytes will be fsynced has its writeback started every
 * this many bytes (hudi_local_start_writeback): the disk writes while the
 * cores encode, where the sync after the last file waited for all of it. */
#define WRITEBACK_STEP ((uint64_t)8 << 20)
#define WRITEBACK_ALIGN ((uint64_t)64 << 10)

static hudi_status sink_write(hudi_pq_writer *w, const void *p, size_t n, hudi_error *err) {
  if (n == 0) return HUDI_OK;
  if (w->fd >= 0) {
    const uint8_t *b = p;
    size_t left = n;
    while (left) {
      ssize_t k = write(w->fd, b, left);
      if (k < 0) {
        if (errno == EINTR) continue;
        return hudi_err_set(err, HUDI_ERR_IO, "writing %s: %s", w->tmp_path, strerror(errno));
      }
      b += k;
      left -= (size_t)k;
    }
  } else {
    HUDI_TRY(hudi_buf_append(w->mem, p, n, err));
  }
  w->pos += n;
  /* Whole pages only: a write into a page under writeback waits for it. */
  uint64_t end = w->pos & ~(WRITEBACK_ALIGN - 1);
  if (w->writeback && end - w->wb_pos >= WRITEBACK_STEP) {
    hudi_local_start_writeback(w->fd, w->wb_pos, end - w->wb_pos);
    w->wb_pos = end;
  }
  return HUDI_OK;
}

static hudi_status nomem(hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory in the Parquet writer");
}

static hudi_status common_open(hudi_pq_writer **out, const struct ArrowSchema *schema,
                               const hudi_pq_writer_options *opts, hudi_error *err) {
  *out = NULL;
  hudi_pq_writer *w = hudi_calloc(1, sizeof *w);
  if (!w) return nomem(err);
  static const hudi_pq_writer_options defaults = HUDI_PQ_WRITER_OPTIONS_INIT;
  w->opts = opts ? *opts : defaults;
  w->fd = -1;
  hudi_buf_init(&w->own, 0);
  hudi_pq_arena_init(&w->arena, 0);
  *out = w;
  if (w->opts.row_group_rows <= 0) w->opts.row_group_rows = defaults.row_group_rows;
  if (w->opts.page_bytes <= 0) w->opts.page_bytes = defaults.page_bytes;
  hudi_codec c;
  HUDI_TRY(hudi_pq_codec_map(&c, w->opts.codec, err));
  if (w->opts.codec_level < 0 || w->opts.codec_level > 22)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "compression level %d: 0 (the codec's default) to 22 allowed",
                        w->opts.codec_level);
  HUDI_TRY(hudi_arrow_field_from_schema(&w->field, schema, false, err));
  HUDI_TRY(hudi_pq_wschema_build(&w->ws, &w->field, &w->opts.schema, err));
  HUDI_TRY(hudi_arrow_field_export(&w->schema, &w->field, err));
  w->cols = hudi_calloc(w->ws.n_leaves ? w->ws.n_leaves : 1, sizeof *w->cols);
  w->open_chunks = hudi_calloc(w->ws.n_leaves ? w->ws.n_leaves : 1, sizeof *w->open_chunks);
  w->twin_of = hudi_malloc((w->ws.n_leaves ? w->ws.n_leaves : 1) * sizeof *w->twin_of);
  if (!w->cols || !w->open_chunks || !w->twin_of) return nomem(err);
  for (uint32_t i = 0; i < w->ws.n_leaves; i++) w->twin_of[i] = -1;
  for (uint32_t i = 0; i < w->ws.n_leaves; i++) HUDI_TRY(hudi_pq_colw_init(&w->cols[i], &w->ws.leaves[i], &w->opts, err));
  if (w->opts.encode_threads < 0 || w->opts.encode_threads > 16)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "encode_threads %d: 0 to 16 allowed", w->opts.encode_threads);
  if (w->opts.encode_threads > 1 && w->ws.n_leaves > 1)
    HUDI_TRY(hudi_threadpool_create(&w->pool, w->opts.encode_threads - 1, err));
  return HUDI_OK;
}

int hudi_pq_encode_threads_share(int files) {
  if (files < 1) files = 1;
  int share = 1 + (hudi_cpu_count() - files) / files;
  return share < 1 ? 1 : share > 4 ? 4 : share;
}

static hudi_status start_file(hudi_pq_writer *w, hudi_error *err) { return sink_write(w, "PAR1", 4, err); }

hudi_status hudi_pq_writer_open_buf(hudi_pq_writer **out, const struct ArrowSchema *schema,
                                    const hudi_pq_writer_options *opts, hudi_buf *buf, hudi_error *err) {
  hudi_status st = common_open(out, schema, opts, err);
  if (st == HUDI_OK) {
    (*out)->mem = buf;
    (*out)->mem_start = buf->len;
    st = start_file(*out, err);
  }
  if (st != HUDI_OK) {
    hudi_pq_writer_free(*out);
    *out = NULL;
  }
  return st;
}

/* Local backend: a temporary file beside the target, named the way the
 * storage layer names (and hides) its own temporaries. */
static hudi_status open_temp(hudi_pq_writer *w, hudi_error *err) {
  static unsigned counter;
  const char *base = hudi_storage_base(w->storage);
  const char *slash = strrchr(w->path, '/');
  size_t dirlen = slash ? (size_t)(slash - w->path) + 1 : 0;
  const char *name = w->path + dirlen;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_status st = hudi_buf_printf(&b, err, "%.*s.%s.%ld-%u.hudi-tmp", (int)dirlen, w->path, name, (long)getpid(),
                                   __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
  if (st == HUDI_OK) {
    w->tmp_rel = hudi_strndup((const char *)b.data, b.len);
    hudi_buf_reset(&b);
    st = hudi_buf_printf(&b, err, "%s/%s", base, w->tmp_rel ? w->tmp_rel : "");
  }
  if (st == HUDI_OK) {
    w->tmp_path = hudi_strndup((const char *)b.data, b.len);
    if (!w->tmp_path || !w->tmp_rel) st = nomem(err);
  }
  hudi_buf_free(&b);
  /* Through the storage: a new directory's name is made durable there. */
  if (st == HUDI_OK) st = hudi_storage_make_parents(w->storage, w->tmp_rel, err);
  if (st == HUDI_OK) {
    w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (w->fd < 0) st = hudi_err_set(err, HUDI_ERR_IO, "creating %s: %s", w->tmp_path, strerror(errno));
  }
  w->writeback = st == HUDI_OK && hudi_local_storage_syncs(w->storage);
  return st;
}

hudi_status hudi_pq_writer_open_storage(hudi_pq_writer **out, const struct ArrowSchema *schema,
                                        const hudi_pq_writer_options *opts, hudi_storage *storage, const char *path,
                                        hudi_error *err) {
  hudi_status st = common_open(out, schema, opts, err);
  hudi_pq_writer *w = *out;
  if (st == HUDI_OK) {
    w->storage = storage;
    w->path = hudi_strdup(path);
    if (!w->path) st = nomem(err);
  }
  if (st == HUDI_OK && path[0] == '/') st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%s' is not relative", path);
  if (st == HUDI_OK) {
    if (strcmp(hudi_storage_backend_name(storage), "local") == 0) {
      st = open_temp(w, err);
    } else {
      w->mem = &w->own;
    }
  }
  if (st == HUDI_OK) st = start_file(w, err);
  if (st != HUDI_OK) {
    hudi_pq_writer_free(w);
    *out = NULL;
  }
  return st;
}

const hudi_pq_wschema *hudi_pq_writer_schema(const hudi_pq_writer *w) { return &w->ws; }

static hudi_status column_sink(void *ctx, const void *p, size_t n, hudi_error *err) {
  return sink_write(ctx, p, n, err);
}

/* Writes column i's finished chunk to the output. `offset`: where a
 * column streaming into the output (hudi_pq_colw_set_sink) started; -1
 * for a held chunk, written now. */
static hudi_status flush_column(hudi_pq_writer *w, uint32_t i, int64_t offset, bool finished, hudi_error *err) {
  hudi_pq_colw *c = &w->cols[i];
  if (w->twin_of[i] >= 0 && c->rows == 0) {
    /* A twin whose rows all went by (write_rows): its source's pages,
     * again (finishing the source is once per chunk, whichever asks). */
    hudi_pq_colw *src = &w->cols[w->twin_of[i]];
    HUDI_TRY(hudi_pq_colw_finish(src, err));
    offset = (int64_t)w->pos;
    HUDI_TRY(sink_write(w, src->dict_page.data, src->dict_page.len, err));
    HUDI_TRY(sink_write(w, src->chunk.data, src->chunk.len, err));
    /* The page-size estimate outlives the row group: should a later one
     * encode the twin itself (column by column), it starts where the
     * source's stands, as if it had been encoded all along. */
    c->bytes_per_row = src->bytes_per_row;
    c->seen_bytes = src->seen_bytes;
    c->seen_rows = src->seen_rows;
    return hudi_pq_colw_meta_as(src, c->plan, &w->open_chunks[i], offset, &w->arena, err);
  }
  bool direct = c->sink != NULL;
  if (!finished) HUDI_TRY(hudi_pq_colw_finish(c, err));
  if (!direct) {
    offset = (int64_t)w->pos;
    HUDI_TRY(sink_write(w, c->dict_page.data, c->dict_page.len, err));
    HUDI_TRY(sink_write(w, c->chunk.data, c->chunk.len, err));
  }
  return hudi_pq_colw_meta(c, &w->open_chunks[i], offset, &w->arena, err);
}

static hudi_status finish_task(void *ctx, size_t i, hudi_error *err) {
  hudi_pq_writer *w = ctx;
  hudi_pq_colw *c = &w->cols[w->n_flushed + i];
  if (w->twin_of[w->n_flushed + i] >= 0 && c->rows == 0) return HUDI_OK; /* nothing of its own */
  return hudi_pq_colw_finish(c, err);
}

/* The open row group's remaining columns: finished (last pages encoded and
 * compressed, on the helpers too), then written out in column order. */
static hudi_status close_row_group(hudi_pq_writer *w, hudi_error *err) {
  if (w->rg_rows == 0) return HUDI_OK;
  bool finished = w->pool && w->ws.n_leaves - w->n_flushed > 1;
  if (finished) HUDI_TRY(hudi_parallel_for(w->pool, w->ws.n_leaves - w->n_flushed, finish_task, w, err));
  for (uint32_t i = w->n_flushed; i < w->ws.n_leaves; i++) HUDI_TRY(flush_column(w, i, -1, finished, err));
  if (w->n_rgs == w->cap_rgs) {
    uint32_t cap = w->cap_rgs ? w->cap_rgs * 2 : 8;
    hudi_pq_row_group *p = hudi_realloc(w->rgs, hudi_mul_size(cap, sizeof *p));
    if (!p) return nomem(err);
    w->rgs = p;
    w->cap_rgs = cap;
  }
  hudi_pq_row_group *rg = &w->rgs[w->n_rgs];
  memset(rg, 0, sizeof *rg);
  rg->columns = hudi_pq_arena_alloc(&w->arena, sizeof *rg->columns * w->ws.n_leaves);
  if (!rg->columns) return nomem(err);
  memcpy(rg->columns, w->open_chunks, sizeof *rg->columns * w->ws.n_leaves);
  rg->num_columns = w->ws.n_leaves;
  rg->num_rows = w->rg_rows;
  int64_t unc = 0, comp = 0;
  for (uint32_t i = 0; i < w->ws.n_leaves; i++) {
    unc += rg->columns[i].meta.total_uncompressed_size;
    comp += rg->columns[i].meta.total_compressed_size;
  }
  rg->total_byte_size = unc;
  rg->has_file_offset = rg->has_total_compressed_size = rg->has_ordinal = true;
  rg->file_offset = rg->columns[0].file_offset;
  rg->total_compressed_size = comp;
  rg->ordinal = (int16_t)w->n_rgs;
  w->n_rgs++;
  w->total_rows += w->rg_rows;
  w->rg_rows = 0;
  w->n_flushed = 0;
  return HUDI_OK;
}

static int64_t buffered(const hudi_pq_writer *w) {
  int64_t b = 0;
  for (uint32_t i = 0; i < w->ws.n_leaves; i++) {
    const hudi_pq_colw *c = &w->cols[i];
    /* A twin's chunk will be as large as its source's. */
    b += hudi_pq_colw_buffered(w->twin_of[i] >= 0 && c->rows == 0 ? &w->cols[w->twin_of[i]] : c);
  }
  return b;
}

/* Rows of runs[0..n_runs) into the open row group, in turn. With
 * `closes`, these rows end the row group and nothing is pending: each
 * column streams its pages to the output as it encodes them (only pages
 * behind a still-open dictionary are held), so the file is written in one
 * pass without holding a whole column chunk. */
typedef struct columns_run {
  hudi_pq_writer *w;
  const hudi_pq_run *runs;
  size_t n_runs;
} columns_run;

static bool is_byte_array(const hudi_arrow_view *v) {
  switch (v->type.id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY_VIEW: return !v->dictionary;
    default: return false;
  }
}

/* Whether elements [row, row + n) of string/binary views a and b are equal
 * (nulls in the same places, the same bytes elsewhere); else *bad is the
 * first that differs. Plain arrays without nulls are compared in two
 * passes over their offsets and bytes. */
static bool same_bytes(const hudi_arrow_view *a, const hudi_arrow_view *b, int64_t row, int64_t n, int64_t *bad) {
  *bad = 0;
  if (!is_byte_array(a) || !is_byte_array(b)) return false;
  bool plain = (a->type.id == HUDI_ARROW_STRING || a->type.id == HUDI_ARROW_BINARY) &&
               (b->type.id == HUDI_ARROW_STRING || b->type.id == HUDI_ARROW_BINARY) && !a->validity && !b->validity;
  if (plain && n > 0) {
    const int32_t *oa = (const int32_t *)(const void *)a->values + a->offset + row;
    const int32_t *ob = (const int32_t *)(const void *)b->values + b->offset + row;
    int32_t da = oa[0] - ob[0];
    int64_t i = 1;
    while (i <= n && oa[i] - ob[i] == da) i++;
    int64_t len = oa[n] - oa[0];
    if (i > n && (len == 0 || memcmp(a->data + oa[0], b->data + ob[0], (size_t)len) == 0)) return true;
  }
  for (int64_t i = 0; i < n; i++) {
    bool na = hudi_arrow_view_is_null(a, row + i), nb = hudi_arrow_view_is_null(b, row + i);
    int64_t la = 0, lb = 0;
    const uint8_t *pa = na ? NULL : hudi_arrow_view_bytes(a, row + i, &la);
    const uint8_t *pb = nb ? NULL : hudi_arrow_view_bytes(b, row + i, &lb);
    if (na != nb || la != lb || (la && memcmp(pa, pb, (size_t)la) != 0)) {
      *bad = i;
      return false;
    }
  }
  return true;
}

bool hudi_pq_writer_twin(hudi_pq_writer *w, uint32_t column, uint32_t source) {
  if (w->failed || w->closed || w->total_rows || w->rg_rows || column >= source) return false;
  int64_t a = -1, b = -1;
  for (uint32_t i = 0; i < w->ws.n_leaves; i++) {
    const hudi_pq_leaf_plan *p = &w->ws.leaves[i];
    if (p->top == column) a = a == -1 ? (int64_t)i : -2; /* one leaf each, or no twin */
    if (p->top == source) b = b == -1 ? (int64_t)i : -2;
  }
  if (a < 0 || b < 0 || w->twin_of[a] >= 0 || w->twin_of[b] >= 0) return false;
  for (uint32_t i = 0; i < w->ws.n_leaves; i++)
    if (w->twin_of[i] == a) return false; /* a source itself: its pages are written once */
  const hudi_pq_leaf_plan *p = &w->ws.leaves[a], *q = &w->ws.leaves[b];
  /* Pages equal when the values are: the same physical column in all but
   * its name (encodings, levels, statistics' order). */
  if (p->type != HUDI_PQ_BYTE_ARRAY || q->type != p->type || p->n_steps != 1 || q->n_steps != 1 ||
      p->max_def != q->max_def || p->max_rep != q->max_rep || p->conv != q->conv || p->sort != q->sort ||
      p->dictionary_ok != q->dictionary_ok)
    return false;
  w->twin_of[a] = (int32_t)b;
  return true;
}

/* A twin's rows are not encoded, only checked against its source's. */
/* `before`: rows of the open row group ahead of run's, for the message. */
static hudi_status twin_check(const hudi_pq_writer *w, uint32_t i, const hudi_pq_run *run, int64_t before,
                              hudi_error *err) {
  const hudi_pq_leaf_plan *p = &w->ws.leaves[i], *q = &w->ws.leaves[w->twin_of[i]];
  const hudi_arrow_view *bv = run->view;
  int64_t row = hudi_arrow_view_struct_row(bv, run->row), bad;
  if (same_bytes(&bv->children[p->top], &bv->children[q->top], row, run->n, &bad)) return HUDI_OK;
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "column '%s' was declared equal to column '%s' but differs from it in row %" PRId64, p->name,
                      q->name, w->total_rows + w->rg_rows + before + bad);
}

/* Leaf i's values of every run (a twin: only checked). */
static hudi_status column_runs(hudi_pq_writer *w, uint32_t i, const hudi_pq_run *runs, size_t n_runs, bool check_only,
                               hudi_error *err) {
  const hudi_pq_leaf_plan *p = &w->ws.leaves[i];
  int64_t before = 0;
  for (size_t j = 0; j < n_runs; before += runs[j].n, j++) {
    const hudi_arrow_view *bv = runs[j].view;
    if (check_only) {
      HUDI_TRY(twin_check(w, i, &runs[j], before, err));
      continue;
    }
    HUDI_TRY(hudi_pq_colw_write(&w->cols[i], &bv->children[p->top], hudi_arrow_view_struct_row(bv, runs[j].row),
                                runs[j].n, err));
  }
  return HUDI_OK;
}

static hudi_status column_task(void *ctx, size_t i, hudi_error *err) {
  const columns_run *cr = ctx;
  return column_runs(cr->w, (uint32_t)i, cr->runs, cr->n_runs, cr->w->twin_of[i] >= 0, err);
}

/* n: the runs' rows together. */
static hudi_status write_rows(hudi_pq_writer *w, const hudi_pq_run *runs, size_t n_runs, int64_t n, bool closes,
                              hudi_error *err) {
  /* Each column writer is on its own until the row group closes: with
   * helpers, the columns go to whichever thread is free, each taking all
   * the runs (one hand-off per call, however short the runs). (A closing
   * batch streams each column to the file as it is encoded: in order,
   * here.) */
  if (w->pool && !closes) {
    columns_run cr = {w, runs, n_runs};
    HUDI_TRY(hudi_parallel_for(w->pool, w->ws.n_leaves, column_task, &cr, err));
    w->rg_rows += n;
    return HUDI_OK;
  }
  for (uint32_t i = 0; i < w->ws.n_leaves; i++) {
    /* A row group written column by column streams each column's pages
     * out as they come, so a twin is encoded like any column there
     * (and still checked). */
    if (w->twin_of[i] >= 0) {
      HUDI_TRY(column_runs(w, i, runs, n_runs, true, err));
      if (!closes) continue;
    }
    int64_t offset = (int64_t)w->pos;
    if (closes) hudi_pq_colw_set_sink(&w->cols[i], column_sink, w);
    HUDI_TRY(column_runs(w, i, runs, n_runs, false, err));
    if (closes) {
      HUDI_TRY(flush_column(w, i, offset, false, err));
      w->n_flushed = i + 1;
    }
  }
  w->rg_rows += n;
  return HUDI_OK;
}

/* The next `take` rows of runs from (*i, *done) into win (room for every
 * run); returns how many runs win got. */
static size_t window(const hudi_pq_run *runs, size_t *i, int64_t *done, int64_t take, hudi_pq_run *win) {
  size_t m = 0;
  while (take > 0) {
    const hudi_pq_run *r = &runs[*i];
    int64_t k = r->n - *done < take ? r->n - *done : take;
    if (k > 0) win[m++] = (hudi_pq_run){r->view, r->row + *done, k};
    take -= k;
    *done += k;
    if (*done == r->n) {
      (*i)++;
      *done = 0;
    }
  }
  return m;
}

/* Every run's rows in turn, in row groups; `last`: no rows follow. */
static hudi_status write_runs(hudi_pq_writer *w, const hudi_pq_run *runs, size_t n_runs, bool last, hudi_error *err) {
  int64_t left = 0;
  for (size_t j = 0; j < n_runs; j++) left += runs[j].n;
  hudi_pq_run one[4], *win = one;
  if (n_runs > 4 && !(win = hudi_malloc(hudi_mul_size(n_runs, sizeof *win)))) return nomem(err);
  int64_t rg = w->opts.row_group_rows;
  /* With a byte limit, rows go in steps small enough to notice it. */
  int64_t step = w->opts.row_group_bytes > 0 ? 16384 : rg;
  size_t i = 0;
  int64_t done = 0;
  hudi_status st = HUDI_OK;
  while (st == HUDI_OK && left > 0) {
    int64_t room = rg - w->rg_rows;
    int64_t take = left < room ? left : room;
    bool whole = w->rg_rows == 0 && (take == rg || (last && take == left)) && w->opts.row_group_bytes <= 0;
    if (!whole && take > step) take = step;
    size_t m = window(runs, &i, &done, take, win);
    st = write_rows(w, win, m, take, whole, err);
    left -= take;
    if (st == HUDI_OK &&
        (w->rg_rows >= rg || whole || (w->opts.row_group_bytes > 0 && buffered(w) >= w->opts.row_group_bytes)))
      st = close_row_group(w, err);
  }
  if (win != one) hudi_free(win);
  return st;
}

static hudi_status usable(hudi_pq_writer *w, hudi_error *err) {
  if (w->failed) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the Parquet writer failed earlier");
  if (w->closed) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the Parquet writer is closed");
  return HUDI_OK;
}

hudi_status hudi_pq_writer_write_batch(hudi_pq_writer *w, const struct ArrowArray *batch, unsigned flags,
                                       hudi_error *err) {
  HUDI_TRY(usable(w, err));
  hudi_arrow_view bv;
  hudi_status st = hudi_arrow_view_init(&bv, &w->schema, batch, err);
  if (st == HUDI_OK) {
    hudi_pq_run run = {&bv, 0, bv.length};
    st = write_runs(w, &run, 1, (flags & HUDI_PQ_WRITE_LAST) != 0, err);
    hudi_arrow_view_clear(&bv);
  }
  if (st != HUDI_OK) w->failed = true;
  return st;
}

hudi_status hudi_pq_writer_write_runs(hudi_pq_writer *w, const hudi_pq_run *runs, size_t n, hudi_error *err) {
  HUDI_TRY(usable(w, err));
  for (size_t j = 0; j < n; j++) {
    const hudi_arrow_view *bv = runs[j].view;
    if (bv->n_children != w->field.n_children || runs[j].row < 0 || runs[j].n < 0 ||
        runs[j].row > bv->length - runs[j].n)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "run %zu: rows [%" PRId64 ", +%" PRId64 ") of a view of %" PRId64 " rows and %" PRId64
                          " columns (the writer's schema has %" PRId64 ")",
                          j, runs[j].row, runs[j].n, bv->length, bv->n_children, w->field.n_children);
  }
  hudi_status st = write_runs(w, runs, n, false, err);
  if (st != HUDI_OK) w->failed = true;
  return st;
}

/* The stream's schema must be the writer's: same formats, names and
 * nullability all the way down. */
static bool same_field(const hudi_arrow_field *a, const hudi_arrow_field *b) {
  if (strcmp(a->format, b->format) != 0) return false;
  if ((a->name == NULL) != (b->name == NULL) || (a->name && strcmp(a->name, b->name) != 0)) return false;
  if ((a->flags & ARROW_FLAG_NULLABLE) != (b->flags & ARROW_FLAG_NULLABLE)) return false;
  if (a->n_children != b->n_children || (a->dictionary == NULL) != (b->dictionary == NULL)) return false;
  for (int64_t i = 0; i < a->n_children; i++)
    if (!same_field(&a->children[i], &b->children[i])) return false;
  return !a->dictionary || same_field(a->dictionary, b->dictionary);
}

/* The stream's next batch into *a (a->release NULL at the end). */
static hudi_status next_batch(struct ArrowArrayStream *stream, struct ArrowArray *a, hudi_error *err) {
  memset(a, 0, sizeof *a);
  if (stream->get_next(stream, a) == 0) return HUDI_OK;
  const char *m = stream->get_last_error(stream);
  return hudi_err_set(err, HUDI_ERR_IO, "Arrow stream: %s", m ? m : "get_next failed");
}

hudi_status hudi_pq_writer_write_stream(hudi_pq_writer *w, struct ArrowArrayStream *stream, hudi_error *err) {
  hudi_status st = usable(w, err);
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  if (st == HUDI_OK && stream->get_schema(stream, &s) != 0) {
    const char *m = stream->get_last_error(stream);
    st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Arrow stream: %s", m ? m : "get_schema failed");
  }
  if (st == HUDI_OK) {
    hudi_arrow_field f;
    memset(&f, 0, sizeof f);
    st = hudi_arrow_field_from_schema(&f, &s, false, err);
    if (st == HUDI_OK && !same_field(&f, &w->field))
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the Arrow stream's schema differs from the writer's");
    hudi_arrow_field_clear(&f);
  }
  if (s.release) s.release(&s);
  /* One batch of lookahead: the last batch is written with
   * HUDI_PQ_WRITE_LAST, so a stream of one batch (a pyarrow Table of one
   * chunk) is written column by column, streaming each column's pages to
   * the output instead of holding every column chunk of the row group. */
  struct ArrowArray cur, next;
  memset(&cur, 0, sizeof cur);
  memset(&next, 0, sizeof next);
  if (st == HUDI_OK) st = next_batch(stream, &cur, err);
  while (st == HUDI_OK && cur.release) {
    st = next_batch(stream, &next, err);
    if (st == HUDI_OK) st = hudi_pq_writer_write_batch(w, &cur, next.release ? 0 : HUDI_PQ_WRITE_LAST, err);
    cur.release(&cur);
    cur = next;
    memset(&next, 0, sizeof next);
  }
  if (cur.release) cur.release(&cur);
  if (next.release) next.release(&next);
  if (stream->release) stream->release(stream);
  if (st != HUDI_OK) w->failed = true;
  return st;
}

hudi_status hudi_pq_writer_add_metadata(hudi_pq_writer *w, const char *key, const void *value, size_t value_len,
                                        hudi_error *err) {
  HUDI_TRY(usable(w, err));
  char *v = NULL;
  if (value) {
    v = hudi_malloc(value_len + 1);
    if (!v) return nomem(err);
    memcpy(v, value, value_len);
    v[value_len] = 0;
  }
  for (uint32_t i = 0; i < w->n_kv; i++) {
    if (strcmp(w->kv[i].key, key) == 0) {
      hudi_free(w->kv[i].value);
      w->kv[i].value = v;
      w->kv[i].len = value_len;
      return HUDI_OK;
    }
  }
  kv_entry *p = hudi_realloc(w->kv, hudi_mul_size(w->n_kv + 1, sizeof *p));
  char *k = hudi_strdup(key);
  if (!p || !k) {
    if (p) w->kv = p;
    hudi_free(v);
    hudi_free(k);
    return nomem(err);
  }
  w->kv = p;
  w->kv[w->n_kv++] = (kv_entry){k, v, value_len};
  return HUDI_OK;
}

static hudi_status build_summary(hudi_pq_writer *w, hudi_pq_write_summary *s, const hudi_pq_file_meta *fm,
                                 hudi_error *err) {
  memset(s, 0, sizeof *s);
  hudi_pq_arena_init(&s->arena, 0);
  s->num_rows = fm->num_rows;
  s->file_size = (int64_t)w->pos;
  s->num_row_groups = fm->num_row_groups;
  s->num_columns = w->ws.n_leaves;
  /* The footer, re-read into the summary's own arena. */
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_status st = hudi_pq_file_meta_encode(&b, fm, err);
  if (st == HUDI_OK) st = hudi_pq_file_meta_decode(&s->meta, &s->arena, b.data, b.len, 0, err);
  hudi_buf_free(&b);
  if (st != HUDI_OK) return st;
  s->columns = hudi_pq_arena_alloc(&s->arena, sizeof *s->columns * (s->num_columns ? s->num_columns : 1));
  if (!s->columns) return nomem(err);
  for (uint32_t i = 0; i < s->num_columns; i++) {
    hudi_pq_column_summary *c = &s->columns[i];
    const hudi_pq_leaf_plan *p = &w->ws.leaves[i];
    size_t len = 0;
    for (uint32_t k = 0; k < p->path_len; k++) len += strlen(p->path[k]) + 1;
    char *path = hudi_pq_arena_alloc(&s->arena, len + 1);
    if (!path) return nomem(err);
    for (uint32_t k = 0; k < p->path_len; k++) {
      if (k) strcat(path, ".");
      strcat(path, p->path[k]);
    }
    c->path = path;
    c->type = p->type;
    hudi_pq_stats_acc acc;
    hudi_pq_stats_init(&acc, p->sort, p->type, p->type_length);
    bool all = true;
    for (uint32_t g = 0; g < s->meta.num_row_groups && st == HUDI_OK; g++) {
      const hudi_pq_column_meta *m = &s->meta.row_groups[g].columns[i].meta;
      c->num_values += m->num_values;
      c->uncompressed_size += m->total_uncompressed_size;
      c->compressed_size += m->total_compressed_size;
      const hudi_pq_statistics *ps = &m->statistics;
      if (m->has_statistics) c->null_count += ps->null_count;
      if (!m->has_statistics || !ps->has_min_value) {
        /* A chunk of nulls only has no bounds but does not spoil others. */
        if (!m->has_statistics || ps->null_count != m->num_values) all = false;
        continue;
      }
      hudi_pq_stats_acc one;
      hudi_pq_stats_init(&one, p->sort, p->type, p->type_length);
      int32_t offs[2] = {0, (int32_t)ps->min_value.len};
      st = hudi_pq_stats_update(&one, ps->min_value.data, offs, 1, err);
      offs[1] = (int32_t)ps->max_value.len;
      if (st == HUDI_OK) st = hudi_pq_stats_update(&one, ps->max_value.data, offs, 1, err);
      if (st == HUDI_OK) st = hudi_pq_stats_merge(&acc, &one, err);
      hudi_pq_stats_free(&one);
    }
    if (st == HUDI_OK && all && acc.has) {
      hudi_pq_statistics t;
      acc.null_count = 0;
      st = hudi_pq_stats_to_thrift(&t, &acc, &s->arena, err);
      if (st == HUDI_OK && t.has_min_value) {
        c->has_min_max = true;
        c->min = t.min_value;
        c->max = t.max_value;
      }
    }
    hudi_pq_stats_free(&acc);
    if (st != HUDI_OK) return st;
  }
  return HUDI_OK;
}

hudi_status hudi_pq_writer_close(hudi_pq_writer *w, hudi_pq_write_summary *summary, hudi_error *err) {
  if (summary) memset(summary, 0, sizeof *summary);
  HUDI_TRY(usable(w, err));
  hudi_status st = close_row_group(w, err);
  hudi_pq_key_value *kv = NULL;
  int32_t *orders = NULL;
  hudi_pq_file_meta fm;
  memset(&fm, 0, sizeof fm);
  if (st == HUDI_OK) {
    kv = hudi_pq_arena_alloc(&w->arena, sizeof *kv * (w->n_kv ? w->n_kv : 1));
    orders = hudi_pq_arena_alloc(&w->arena, sizeof *orders * (w->ws.n_leaves ? w->ws.n_leaves : 1));
    if (!kv || !orders) st = nomem(err);
  }
  char created[64];
  snprintf(created, sizeof created, "hudi-c version %s", HUDI_VERSION_STRING);
  if (st == HUDI_OK) {
    for (uint32_t i = 0; i < w->n_kv; i++) kv[i] = (hudi_pq_key_value){w->kv[i].key, w->kv[i].value, w->kv[i].len};
    for (uint32_t i = 0; i < w->ws.n_leaves; i++) orders[i] = 1; /* TYPE_ORDER */
    fm.version = 2;
    fm.schema = w->ws.elements;
    fm.num_schema = w->ws.n_elements;
    fm.num_rows = w->total_rows;
    fm.row_groups = w->rgs;
    fm.num_row_groups = w->n_rgs;
    fm.has_key_value = w->n_kv > 0;
    fm.key_value = kv;
    fm.num_key_value = w->n_kv;
    fm.created_by = (char *)(w->opts.created_by ? w->opts.created_by : created);
    fm.has_column_orders = true;
    fm.column_orders = orders;
    fm.num_column_orders = w->ws.n_leaves;
    hudi_buf foot;
    hudi_buf_init(&foot, 0);
    st = hudi_pq_file_meta_encode(&foot, &fm, err);
    if (st == HUDI_OK && foot.len > UINT32_MAX) st = hudi_err_set(err, HUDI_ERR_LIMIT, "footer too large");
    if (st == HUDI_OK) {
      uint32_t n = (uint32_t)foot.len;
      uint8_t tail[8] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24), 'P', 'A', 'R', '1'};
      st = sink_write(w, foot.data, foot.len, err);
      if (st == HUDI_OK) st = sink_write(w, tail, 8, err);
    }
    hudi_buf_free(&foot);
  }
  /* Publish. */
  if (st == HUDI_OK && w->storage) {
    if (w->fd >= 0) {
      if (w->writeback && w->pos > w->wb_pos) hudi_local_start_writeback(w->fd, w->wb_pos, w->pos - w->wb_pos);
      int r = close(w->fd);
      w->fd = -1;
      if (r != 0) st = hudi_err_set(err, HUDI_ERR_IO, "closing %s: %s", w->tmp_path, strerror(errno));
      /* fsynced before it takes its name (or at the open write group's sync). */
      if (st == HUDI_OK) st = hudi_storage_publish(w->storage, w->tmp_rel, w->path, err);
      if (st == HUDI_OK) {
        hudi_free(w->tmp_path);
        w->tmp_path = NULL;
      }
    } else {
      st = hudi_storage_write(w->storage, w->path, w->own.data, w->own.len, 0, err);
    }
  }
  if (st == HUDI_OK && summary) st = build_summary(w, summary, &fm, err);
  if (st != HUDI_OK) {
    w->failed = true;
    if (summary) hudi_pq_write_summary_free(summary);
    return st;
  }
  w->closed = true;
  return HUDI_OK;
}

void hudi_pq_write_summary_free(hudi_pq_write_summary *s) {
  if (!s) return;
  hudi_pq_arena_free(&s->arena);
  memset(s, 0, sizeof *s);
}

void hudi_pq_writer_free(hudi_pq_writer *w) {
  if (!w) return;
  hudi_threadpool_free(w->pool);
  if (w->fd >= 0) close(w->fd);
  if (w->tmp_path) unlink(w->tmp_path);
  hudi_free(w->tmp_path);
  hudi_free(w->tmp_rel);
  hudi_free(w->path);
  if (w->cols)
    for (uint32_t i = 0; i < w->ws.n_leaves; i++) hudi_pq_colw_free(&w->cols[i]);
  hudi_free(w->cols);
  hudi_free(w->open_chunks);
  hudi_free(w->twin_of);
  if (w->schema.release) w->schema.release(&w->schema);
  hudi_pq_wschema_free(&w->ws);
  hudi_arrow_field_clear(&w->field);
  hudi_buf_free(&w->own);
  hudi_pq_arena_free(&w->arena);
  hudi_free(w->rgs);
  for (uint32_t i = 0; i < w->n_kv; i++) {
    hudi_free(w->kv[i].key);
    hudi_free(w->kv[i].value);
  }
  hudi_free(w->kv);
  hudi_free(w);
}

/* Walking MDT log blocks by ranged reads (see mdt_reader_log.h). */
#include "table/mdt_reader_log.h"

#include <string.h>

#include "base/alloc.h"
#include "table/log_reader.h"

/* First read at a block: its magic, size and head. Our MDT blocks and
 * Spark's carry the ~8 KB HoodieMetadataRecord schema in their header. */
#define HEAD_FIRST ((size_t)12 << 10)

/* The object-store backends, by name (the policy of mdt_reader_log.h). */
static bool remote(const hudi_storage *s) {
  const char *b = hudi_storage_backend_name(s);
  return strcmp(b, "s3") == 0 || strcmp(b, "gcs") == 0 || strcmp(b, "azure") == 0;
}

void hudi_mdt_log_walk_free(hudi_mdt_log_walk *w) {
  for (size_t i = 0; i < w->n; i++) {
    hudi_log_block_free(&w->blocks[i]);
    hudi_free(w->owned[i]);
    hudi_free(w->tails[i]);
  }
  hudi_free(w->blocks);
  hudi_free(w->owned);
  hudi_free(w->tails);
  hudi_free(w->tail_lens);
  memset(w, 0, sizeof *w);
}

/* Reads [off, off + len) into buf (reset first); *ok false on a short read
 * (the file changed under us: the caller falls back). */
static hudi_status read_at(hudi_mdt_log_walk *w, hudi_storage *s, const char *path, uint64_t off, size_t len,
                           hudi_buf *buf, bool *ok, hudi_error *err) {
  size_t n = 0;
  hudi_buf_reset(buf);
  HUDI_TRY(hudi_storage_read_buf(s, path, off, len, buf, &n, err));
  w->bytes_read += n;
  *ok = n == len;
  return HUDI_OK;
}

/* A parsed block, the copy its content points into and its tail copy;
 * on success the walk owns them. */
typedef struct walked {
  hudi_log_block b;
  uint8_t *owned, *tail;
  size_t tail_len;
} walked;

static hudi_status push(hudi_mdt_log_walk *w, walked *k, hudi_error *err) {
  if (w->n == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 4;
    hudi_log_block *p = hudi_realloc(w->blocks, cap * sizeof *p);
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory walking a log file");
    w->blocks = p;
    uint8_t **o = hudi_realloc(w->owned, cap * sizeof *o);
    if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory walking a log file");
    w->owned = o;
    o = hudi_realloc(w->tails, cap * sizeof *o);
    if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory walking a log file");
    w->tails = o;
    size_t *l = hudi_realloc(w->tail_lens, cap * sizeof *l);
    if (!l) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory walking a log file");
    w->tail_lens = l;
    w->cap = cap;
  }
  w->owned[w->n] = k->owned;
  w->tails[w->n] = k->tail;
  w->tail_lens[w->n] = k->tail_len;
  w->blocks[w->n++] = k->b;
  return HUDI_OK;
}

/* Java's checks after a block: the trailing length, then the next magic
 * unless fewer than 6 bytes remain. after points at the trailer. */
static bool trailer_sound(const uint8_t *trailer, uint64_t size, bool magic_follows) {
  return hudi_log_be64(trailer) == size + HUDI_LOG_MAGIC_LEN &&
         (!magic_follows || memcmp(trailer + 8, HUDI_LOG_MAGIC, HUDI_LOG_MAGIC_LEN) == 0);
}

/* A small block, read whole: parsed from a copy the walk owns. */
static hudi_status small_block(hudi_mdt_log_walk *w, hudi_storage *s, const char *path, uint64_t pos, uint64_t size,
                               uint64_t stop, hudi_buf *buf, hudi_log_block *b, uint8_t **owned, bool *ok,
                               hudi_error *err) {
  size_t len = (size_t)(14 + size), need = (size_t)(stop - pos);
  *ok = false;
  if (buf->len < need) {
    /* The rest of the block after what the first read brought. */
    size_t have = buf->len, n = 0;
    HUDI_TRY(hudi_storage_read_buf(s, path, pos + have, need - have, buf, &n, err));
    w->bytes_read += n;
    if (n != need - have) return HUDI_OK;
  }
  if (!trailer_sound(buf->data + len - 8, size, need > len)) return HUDI_OK;
  uint8_t *copy = hudi_malloc(len);
  if (!copy) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory reading %s", path);
  memcpy(copy, buf->data, len);
  if (hudi_log_block_parse(b, copy, len, pos, path, err) != HUDI_OK) {
    if (err) hudi_error_clear(err);
    hudi_log_block_free(b);
    hudi_free(copy);
    return HUDI_OK;
  }
  *owned = copy;
  *ok = true;
  return HUDI_OK;
}

/* One block at pos: *ok false when it is not sound (or does not parse);
 * else *b parsed without content and *next past it. */
static hudi_status walk_block(hudi_mdt_log_walk *w, hudi_storage *s, const char *path, uint64_t pos, hudi_buf *buf,
                              walked *k, uint64_t *next, bool *ok, hudi_error *err) {
  hudi_log_block *b = &k->b;
  uint8_t **owned = &k->owned;
  uint64_t left = w->file_size - pos;
  size_t ask = left < HEAD_FIRST ? (size_t)left : HEAD_FIRST;
  HUDI_TRY(read_at(w, s, path, pos, ask, buf, ok, err));
  if (!*ok) return HUDI_OK;
  *ok = false;
  if (ask < 14 || memcmp(buf->data, HUDI_LOG_MAGIC, HUDI_LOG_MAGIC_LEN) != 0) return HUDI_OK;
  uint64_t size = hudi_log_be64(buf->data + HUDI_LOG_MAGIC_LEN);
  if (size > HUDI_LOG_BLOCK_MAX || size < HUDI_LOG_BLOCK_MIN - 14 || size > left - 14) return HUDI_OK;
  uint64_t len = 14 + size, end = pos + len;
  uint64_t stop = w->file_size - end >= HUDI_LOG_MAGIC_LEN ? end + HUDI_LOG_MAGIC_LEN : end;
  memset(b, 0, sizeof *b);
  *owned = NULL;
  if (len <= HUDI_MDT_LOG_WHOLE_MAX) {
    HUDI_TRY(small_block(w, s, path, pos, size, stop, buf, b, owned, ok, err));
    if (*ok) *next = end;
    return HUDI_OK;
  }
  b->offset = pos;
  b->length = len;
  for (;;) {
    bool more = false;
    hudi_log_meta_free(&b->header);
    size_t avail = buf->len < len ? buf->len : (size_t)len;
    hudi_status st = hudi_log_block_parse_head(b, buf->data, avail, pos, path, &more, err);
    if (st == HUDI_OK) break;
    if (err) hudi_error_clear(err);
    if (!more || buf->len >= len || buf->len > HUDI_LOG_HEAD_MAX / 2) {
      hudi_log_block_free(b);
      return HUDI_OK;
    }
    size_t want = buf->len * 2 < len ? buf->len * 2 : (size_t)len;
    HUDI_TRY(read_at(w, s, path, pos, want, buf, ok, err));
    if (!*ok) {
      hudi_log_block_free(b);
      return HUDI_OK;
    }
    *ok = false;
  }
  /* The footer, the trailing length and the next block's magic. */
  uint64_t tail_off = b->content_offset + b->content_len;
  const uint8_t *tail;
  hudi_status st = HUDI_OK;
  if (tail_off < pos || tail_off + 8 > end || stop - tail_off > HUDI_LOG_HEAD_MAX) {
    hudi_log_block_free(b);
    return HUDI_OK;
  }
  if (stop <= pos + buf->len) {
    tail = buf->data + (tail_off - pos); /* a small block: the first read had it */
  } else {
    /* On object stores, with the end of the content before it. */
    size_t pre = 0;
    if (remote(s)) pre = tail_off - b->content_offset < HUDI_MDT_LOG_TAIL_PREFETCH ? (size_t)(tail_off - b->content_offset)
                                                                                : HUDI_MDT_LOG_TAIL_PREFETCH;
    st = read_at(w, s, path, tail_off - pre, (size_t)(stop - tail_off) + pre, buf, ok, err);
    if (st != HUDI_OK || !*ok) {
      hudi_log_block_free(b);
      return st;
    }
    tail = buf->data + pre;
    if (pre && (k->tail = hudi_malloc(pre)) != NULL) { /* no memory: the HFile reader reads it */
      memcpy(k->tail, buf->data, pre);
      k->tail_len = pre;
    }
  }
  size_t tail_len = (size_t)(end - tail_off);
  bool sound = trailer_sound(tail + tail_len - 8, size, stop > end);
  if (sound && hudi_log_block_parse_tail(b, tail, tail_len, path, err) != HUDI_OK) {
    if (err) hudi_error_clear(err);
    sound = false;
  }
  if (!sound) {
    hudi_log_block_free(b);
    hudi_free(k->tail);
    k->tail = NULL;
    k->tail_len = 0;
    return HUDI_OK;
  }
  *next = end;
  *ok = true;
  return HUDI_OK;
}

hudi_status hudi_mdt_log_walk_file(hudi_mdt_log_walk *w, hudi_storage *s, const char *path, bool *sound,
                                   hudi_error *err) {
  memset(w, 0, sizeof *w);
  *sound = false;
  hudi_file_stat fst;
  HUDI_TRY(hudi_storage_stat(s, path, &fst, err));
  if (fst.is_dir) return HUDI_OK;
  w->file_size = fst.size;
  hudi_buf buf;
  hudi_buf_init(&buf, HUDI_LOG_HEAD_MAX + HEAD_FIRST + HUDI_MDT_LOG_TAIL_PREFETCH);
  hudi_status st = HUDI_OK;
  uint64_t pos = 0;
  bool ok = true;
  /* Fewer than 6 bytes left end the file (a torn tail), as in Java. */
  while (st == HUDI_OK && ok && w->file_size - pos >= HUDI_LOG_MAGIC_LEN) {
    walked k = {0};
    uint64_t next = pos;
    st = walk_block(w, s, path, pos, &buf, &k, &next, &ok, err);
    if (st == HUDI_OK && ok) {
      st = push(w, &k, err);
      if (st != HUDI_OK) {
        hudi_log_block_free(&k.b);
        hudi_free(k.owned);
        hudi_free(k.tail);
      }
    }
    pos = next;
  }
  hudi_buf_free(&buf);
  if (st != HUDI_OK || !ok) {
    uint64_t bytes = w->bytes_read;
    hudi_mdt_log_walk_free(w);
    w->bytes_read = bytes;
    return st;
  }
  *sound = true;
  return HUDI_OK;
}

static int read_range(void *ctx, uint64_t off, size_t len, uint8_t *dst) {
  hudi_mdt_log_range *x = ctx;
  if (x->tail && off <= x->size && len <= x->size - off && off >= x->size - x->tail_len) {
    memcpy(dst, x->tail + (off - (x->size - x->tail_len)), len);
    return 0;
  }
  /* Held open from the first read to hudi_mdt_log_range_close: one
   * descriptor for all of a lookup's block reads on local storage. */
  if (!x->f && hudi_storage_file_open(x->s, x->path, &x->f, NULL) != HUDI_OK) return 1;
  if (hudi_storage_file_read_exact(x->f, x->base + off, dst, len, NULL) != HUDI_OK) return 1;
  x->bytes += len;
  return 0;
}

void hudi_mdt_log_range_close(hudi_mdt_log_range *ctx) {
  hudi_storage_file_close(ctx->f);
  ctx->f = NULL;
}

void hudi_mdt_log_hfile_source(hudi_hfile_source *src, hudi_mdt_log_range *ctx, hudi_storage *s, const char *path,
                               const hudi_log_block *b) {
  ctx->s = s;
  ctx->path = path;
  ctx->base = b->content_offset;
  ctx->bytes = 0;
  ctx->size = b->content_len;
  ctx->tail = NULL;
  ctx->tail_len = 0;
  ctx->f = NULL;
  src->read_range = read_range;
  src->ctx = ctx;
  src->size = b->content_len;
  src->name = path;
}

void hudi_mdt_log_range_tail(hudi_mdt_log_range *ctx, const uint8_t *tail, size_t len) {
  ctx->tail = len <= ctx->size ? tail : NULL;
  ctx->tail_len = ctx->tail ? len : 0;
}

void hudi_mdt_hfile_coalesce(hudi_hfile_reader *r, const hudi_storage *s) {
  /* Anything but an object store (local, test and wrapping backends)
   * keeps the reader's default. */
  if (remote(s))
    hudi_hfile_reader_set_coalesce(r, HUDI_MDT_REMOTE_COALESCE_GAP, HUDI_MDT_REMOTE_COALESCE_MAX);
}

/* Block iteration and corrupt-block recovery (see log_reader.h). All reads
 * go through fetch(), which serves a memory range directly and a storage
 * file through one window buffer, so a block's frame costs one or two
 * storage reads whatever its header holds. */
#include "table/log_reader.h"

#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"

#define WINDOW ((size_t)64 << 10)
#define SCAN_CHUNK ((size_t)1 << 20)

struct hudi_log_reader {
  const uint8_t *mem; /* memory source, or NULL */
  hudi_storage *storage;
  char *name; /* path (storage) or caller's name (memory) */
  uint64_t size;
  uint64_t pos; /* where the next block's magic is expected */
  hudi_buf win; /* storage: bytes [win_off, win_off + win.len) */
  uint64_t win_off;
};

static hudi_status reader_new(hudi_log_reader **out, const char *name, hudi_error *err) {
  hudi_log_reader *r = hudi_calloc(1, sizeof *r);
  if (!r) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory (log reader)");
  r->name = hudi_strdup(name ? name : "<memory>");
  if (!r->name) {
    hudi_free(r);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory (log reader)");
  }
  hudi_buf_init(&r->win, HUDI_LOG_HEAD_MAX + WINDOW);
  *out = r;
  return HUDI_OK;
}

hudi_status hudi_log_reader_open_memory(hudi_log_reader **out, const uint8_t *data, size_t len,
                                        const char *name, hudi_error *err) {
  if (!data && len) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log reader: data is NULL");
  hudi_log_reader *r = NULL;
  HUDI_TRY(reader_new(&r, name, err));
  static const uint8_t empty[1] = {0};
  r->mem = data ? data : empty;
  r->size = len;
  *out = r;
  return HUDI_OK;
}

hudi_status hudi_log_reader_open(hudi_log_reader **out, hudi_storage *s, const char *path,
                                 hudi_error *err) {
  if (!s || !path) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log reader: no storage or path");
  hudi_file_stat st;
  HUDI_TRY(hudi_storage_stat(s, path, &st, err));
  if (st.is_dir) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log file %s is a directory", path);
  hudi_log_reader *r = NULL;
  HUDI_TRY(reader_new(&r, path, err));
  r->storage = s;
  r->size = st.size;
  *out = r;
  return HUDI_OK;
}

void hudi_log_reader_free(hudi_log_reader *r) {
  if (!r) return;
  hudi_buf_free(&r->win);
  hudi_free(r->name);
  hudi_free(r);
}

uint64_t hudi_log_reader_size(const hudi_log_reader *r) { return r->size; }

/* Points *p at the bytes [off, off + len) clipped to the file; *got says
 * how many there are. For storage the pointer lives until the next fetch. */
static hudi_status fetch(hudi_log_reader *r, uint64_t off, size_t len, const uint8_t **p,
                         size_t *got, hudi_error *err) {
  if (off >= r->size) {
    *p = r->mem ? r->mem : (const uint8_t *)"";
    *got = 0;
    return HUDI_OK;
  }
  uint64_t left = r->size - off;
  size_t want = left < len ? (size_t)left : len;
  if (r->mem) {
    *p = r->mem + off;
    *got = want;
    return HUDI_OK;
  }
  if (off < r->win_off || off + want > r->win_off + r->win.len) {
    if (want > HUDI_LOG_HEAD_MAX)
      return hudi_err_set(err, HUDI_ERR_LIMIT,
                          "log file %s: %zu bytes needed at byte %" PRIu64 " exceed the cap",
                          r->name, want, off);
    size_t ask = want < WINDOW ? WINDOW : want;
    if (ask > left) ask = (size_t)left;
    hudi_buf_reset(&r->win);
    r->win_off = off;
    size_t n = 0;
    hudi_status st = hudi_storage_read_buf(r->storage, r->name, off, ask, &r->win, &n, err);
    if (st != HUDI_OK) {
      hudi_buf_reset(&r->win);
      return hudi_err_context(err, st, "log file %s at byte %" PRIu64, r->name, off);
    }
    if (n < want) want = n; /* the file shrank under us: what is there */
  }
  *p = r->win.data + (off - r->win_off);
  *got = want;
  return HUDI_OK;
}

/* Java's scanForNextAvailableBlockOffset: the offset of the first magic at
 * or after `from`, or the file size. */
static hudi_status scan_for_magic(hudi_log_reader *r, uint64_t from, uint64_t *next,
                                  hudi_error *err) {
  uint64_t off = from;
  while (off < r->size) {
    const uint8_t *p;
    size_t n;
    HUDI_TRY(fetch(r, off, SCAN_CHUNK, &p, &n, err));
    if (n < HUDI_LOG_MAGIC_LEN) break;
    for (size_t i = 0; i + HUDI_LOG_MAGIC_LEN <= n; i++) {
      const uint8_t *hit = memchr(p + i, '#', n - HUDI_LOG_MAGIC_LEN + 1 - i);
      if (!hit) break;
      i = (size_t)(hit - p);
      if (memcmp(hit, HUDI_LOG_MAGIC, HUDI_LOG_MAGIC_LEN) == 0) {
        *next = off + i;
        return HUDI_OK;
      }
    }
    if (off + n >= r->size) break;
    off += n - (HUDI_LOG_MAGIC_LEN - 1); /* a magic may straddle chunks */
  }
  *next = r->size;
  return HUDI_OK;
}

static hudi_status corrupt_block(hudi_log_reader *r, uint64_t magic_at, const char *why,
                                 hudi_log_block *out, hudi_error *err) {
  uint64_t start = magic_at + HUDI_LOG_MAGIC_LEN; /* Java's blockStartPos */
  uint64_t next;
  HUDI_TRY(scan_for_magic(r, start, &next, err));
  memset(out, 0, sizeof *out);
  out->type = HUDI_LOG_BLOCK_CORRUPT;
  out->offset = magic_at;
  out->length = next - magic_at;
  out->content_offset = start;
  out->content_len = next - start;
  out->content = r->mem ? r->mem + start : NULL;
  out->corrupt_reason = why;
  r->pos = next;
  return HUDI_OK;
}

static hudi_status read_be64(hudi_log_reader *r, uint64_t off, uint64_t *v, bool *ok,
                             hudi_error *err) {
  const uint8_t *p;
  size_t n;
  HUDI_TRY(fetch(r, off, 8, &p, &n, err));
  *ok = n == 8;
  if (*ok) *v = hudi_log_be64(p);
  return HUDI_OK;
}

/* Java's isBlockCorrupted, for the block whose magic is at magic_at.
 * Returns NULL when the block is sound, else why not. */
static hudi_status check_block(hudi_log_reader *r, uint64_t magic_at, uint64_t *block_len,
                               const char **why, hudi_error *err) {
  uint64_t size_at = magic_at + HUDI_LOG_MAGIC_LEN;
  uint64_t size, trailer;
  bool ok;
  *why = NULL;
  HUDI_TRY(read_be64(r, size_at, &size, &ok, err));
  if (!ok) {
    *why = "block size cut off by the end of the file";
    return HUDI_OK;
  }
  uint64_t body = size_at + 8; /* Java's currentPos */
  /* Java reads the size into an int; a negative or tiny one cannot match
   * the trailer it then reads, and one past the file hits EOF. */
  if (size > HUDI_LOG_BLOCK_MAX || size < HUDI_LOG_BLOCK_MIN - 14) {
    *why = "block size out of range";
    return HUDI_OK;
  }
  if (size > r->size - body) {
    *why = "block runs past the end of the file";
    return HUDI_OK;
  }
  HUDI_TRY(read_be64(r, body + size - 8, &trailer, &ok, err));
  if (!ok || trailer != size + HUDI_LOG_MAGIC_LEN) {
    *why = "trailing block length does not match the block size";
    return HUDI_OK;
  }
  uint64_t end = body + size;
  if (r->size - end >= HUDI_LOG_MAGIC_LEN) {
    const uint8_t *p;
    size_t n;
    HUDI_TRY(fetch(r, end, HUDI_LOG_MAGIC_LEN, &p, &n, err));
    if (n < HUDI_LOG_MAGIC_LEN || memcmp(p, HUDI_LOG_MAGIC, HUDI_LOG_MAGIC_LEN) != 0) {
      *why = "no magic after the block";
      return HUDI_OK;
    }
  }
  *block_len = end - magic_at;
  return HUDI_OK;
}

/* Parses a sound block from storage: the head through a window that grows
 * until the header fits, then the footer and trailer after the content. */
static hudi_status parse_from_storage(hudi_log_reader *r, uint64_t magic_at, uint64_t len,
                                      hudi_log_block *b, hudi_error *err) {
  size_t want = WINDOW;
  for (;;) {
    if (want > len) want = (size_t)len;
    const uint8_t *p;
    size_t n;
    HUDI_TRY(fetch(r, magic_at, want, &p, &n, err));
    bool more = false;
    hudi_log_meta_free(&b->header);
    hudi_status st = hudi_log_block_parse_head(b, p, n, magic_at, r->name, &more, err);
    if (st == HUDI_OK) {
      if (err && want > WINDOW) hudi_error_clear(err); /* forget the short tries */
      break;
    }
    if (!more || n < want || want == len) return st;
    if (want > HUDI_LOG_HEAD_MAX / 2)
      return hudi_err_set(err, HUDI_ERR_LIMIT,
                          "log file %s: block at byte %" PRIu64 ": header larger than %zu bytes",
                          r->name, magic_at, HUDI_LOG_HEAD_MAX);
    want *= 2;
  }
  uint64_t tail_off = b->content_offset + b->content_len;
  uint64_t tail_len = magic_at + len - tail_off;
  if (tail_len > HUDI_LOG_HEAD_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "log file %s: block at byte %" PRIu64
                        ": footer larger than %zu bytes", r->name, magic_at, HUDI_LOG_HEAD_MAX);
  const uint8_t *p;
  size_t n;
  HUDI_TRY(fetch(r, tail_off, (size_t)tail_len, &p, &n, err));
  if (n != tail_len)
    return hudi_err_set(err, HUDI_ERR_IO, "log file %s: short read at byte %" PRIu64, r->name,
                        tail_off);
  return hudi_log_block_parse_tail(b, p, n, r->name, err);
}

hudi_status hudi_log_reader_next(hudi_log_reader *r, hudi_log_block *out, bool *has_block,
                                 hudi_error *err) {
  *has_block = false;
  if (r->pos >= r->size || r->size - r->pos < HUDI_LOG_MAGIC_LEN) {
    r->pos = r->size;
    return HUDI_OK; /* Java: EOF while reading the magic ends the file */
  }
  uint64_t at = r->pos;
  const uint8_t *p;
  size_t n;
  HUDI_TRY(fetch(r, at, HUDI_LOG_MAGIC_LEN, &p, &n, err));
  if (n < HUDI_LOG_MAGIC_LEN || memcmp(p, HUDI_LOG_MAGIC, HUDI_LOG_MAGIC_LEN) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "log file %s: no block magic \"#HUDI#\" at byte %" PRIu64, r->name, at);
  uint64_t len = 0;
  const char *why;
  HUDI_TRY(check_block(r, at, &len, &why, err));
  if (why) {
    HUDI_TRY(corrupt_block(r, at, why, out, err));
    *has_block = true;
    return HUDI_OK;
  }
  hudi_log_block b;
  memset(&b, 0, sizeof b);
  hudi_status st;
  if (r->mem) {
    st = hudi_log_block_parse(&b, r->mem + at, (size_t)len, at, r->name, err);
  } else {
    b.offset = at;
    b.length = len;
    st = parse_from_storage(r, at, len, &b, err);
  }
  if (st != HUDI_OK) {
    hudi_log_block_free(&b);
    return st;
  }
  r->pos = at + len;
  *out = b;
  *has_block = true;
  return HUDI_OK;
}

hudi_status hudi_log_reader_content(hudi_log_reader *r, const hudi_log_block *b, hudi_buf *out,
                                    hudi_error *err) {
  if (b->content_offset > r->size || b->content_len > r->size - b->content_offset)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log file %s: block content past the file",
                        r->name);
  if (r->mem) return hudi_buf_append(out, r->mem + b->content_offset, (size_t)b->content_len, err);
  hudi_status st = hudi_storage_read_buf(r->storage, r->name, b->content_offset,
                                         (size_t)b->content_len, out, NULL, err);
  if (st != HUDI_OK)
    return hudi_err_context(err, st, "log file %s: content of block at byte %" PRIu64, r->name,
                            b->offset);
  return HUDI_OK;
}

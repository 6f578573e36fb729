/* Log block framing: names of the enums, header/footer maps, and the
 * encoding and parsing of one block held in memory. The reader (file
 * iteration, corrupt-block recovery) is log_reader.c. */
#include "table/log_format.h"

#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"

static const char *const block_type_names[HUDI_LOG_BLOCK_TYPE_COUNT] = {
    "COMMAND_BLOCK",    "DELETE_BLOCK",       "CORRUPT_BLOCK", "AVRO_DATA_BLOCK",
    "HFILE_DATA_BLOCK", "PARQUET_DATA_BLOCK", "CDC_DATA_BLOCK"};

static const char *const header_key_names[HUDI_LOG_HEADER_KEY_COUNT] = {
    "INSTANT_TIME",       "TARGET_INSTANT_TIME", "SCHEMA",
    "COMMAND_BLOCK_TYPE", "COMPACTED_BLOCK_TIMES", "RECORD_POSITIONS",
    "BLOCK_IDENTIFIER",   "IS_PARTIAL",          "BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS"};

const char *hudi_log_block_type_name(int32_t type) {
  return type >= 0 && type < HUDI_LOG_BLOCK_TYPE_COUNT ? block_type_names[type] : NULL;
}

const char *hudi_log_header_key_name(int32_t key) {
  return key >= 0 && key < HUDI_LOG_HEADER_KEY_COUNT ? header_key_names[key] : NULL;
}

bool hudi_log_block_type_is_data(int32_t type) {
  return type == HUDI_LOG_BLOCK_AVRO_DATA || type == HUDI_LOG_BLOCK_HFILE_DATA ||
         type == HUDI_LOG_BLOCK_PARQUET_DATA || type == HUDI_LOG_BLOCK_CDC_DATA;
}

/* ---- maps ----------------------------------------------------------- */

void hudi_log_meta_free(hudi_log_meta *m) {
  if (!m) return;
  for (size_t i = 0; i < m->count; i++) hudi_free(m->items[i].value);
  hudi_free(m->items);
  m->items = NULL;
  m->count = m->cap = 0;
}

hudi_status hudi_log_meta_append(hudi_log_meta *m, int32_t key, const char *value, size_t len,
                                 hudi_error *err) {
  if (key < 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log block metadata key %d", key);
  if (len > INT32_MAX || (len > 0 && !value))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log block metadata value too long");
  if (m->count >= HUDI_LOG_META_MAX_ENTRIES)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "more than %d log block metadata entries",
                        HUDI_LOG_META_MAX_ENTRIES);
  if (m->count == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 4;
    hudi_log_meta_entry *p = hudi_realloc(m->items, hudi_mul_size(cap, sizeof *p));
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory (log block metadata)");
    m->items = p;
    m->cap = cap;
  }
  char *v = hudi_malloc(len + 1);
  if (!v) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory (log block metadata)");
  if (len) memcpy(v, value, len);
  v[len] = '\0';
  m->items[m->count++] = (hudi_log_meta_entry){key, v, len};
  return HUDI_OK;
}

hudi_status hudi_log_meta_set(hudi_log_meta *m, int32_t key, const char *value, size_t len,
                              hudi_error *err) {
  for (size_t i = m->count; i-- > 0;) {
    if (m->items[i].key != key) continue;
    if (len > INT32_MAX || (len > 0 && !value))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log block metadata value too long");
    char *v = hudi_malloc(len + 1);
    if (!v) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory (log block metadata)");
    if (len) memcpy(v, value, len);
    v[len] = '\0';
    hudi_free(m->items[i].value);
    m->items[i].value = v;
    m->items[i].len = len;
    return HUDI_OK;
  }
  return hudi_log_meta_append(m, key, value, len, err);
}

hudi_status hudi_log_meta_set_str(hudi_log_meta *m, int32_t key, const char *value,
                                  hudi_error *err) {
  if (!value) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log block metadata value is NULL");
  return hudi_log_meta_set(m, key, value, strlen(value), err);
}

const char *hudi_log_meta_get(const hudi_log_meta *m, int32_t key, size_t *len) {
  for (size_t i = m->count; i-- > 0;) {
    if (m->items[i].key == key) {
      if (len) *len = m->items[i].len;
      return m->items[i].value;
    }
  }
  if (len) *len = 0;
  return NULL;
}

uint64_t hudi_log_meta_encoded_size(const hudi_log_meta *m) {
  uint64_t n = 4;
  if (m)
    for (size_t i = 0; i < m->count; i++) n += 8 + (uint64_t)m->items[i].len;
  return n;
}

/* ---- encoding ------------------------------------------------------- */

hudi_status hudi_log_put_be32(hudi_buf *b, uint32_t v, hudi_error *err) {
  uint8_t p[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
  return hudi_buf_append(b, p, 4, err);
}

hudi_status hudi_log_put_be64(hudi_buf *b, uint64_t v, hudi_error *err) {
  HUDI_TRY(hudi_log_put_be32(b, (uint32_t)(v >> 32), err));
  return hudi_log_put_be32(b, (uint32_t)v, err);
}

static hudi_status put_meta(hudi_buf *b, const hudi_log_meta *m, hudi_error *err) {
  size_t n = m ? m->count : 0;
  HUDI_TRY(hudi_log_put_be32(b, (uint32_t)n, err));
  for (size_t i = 0; i < n; i++) {
    HUDI_TRY(hudi_log_put_be32(b, (uint32_t)m->items[i].key, err));
    HUDI_TRY(hudi_log_put_be32(b, (uint32_t)m->items[i].len, err));
    HUDI_TRY(hudi_buf_append(b, m->items[i].value, m->items[i].len, err));
  }
  return HUDI_OK;
}

/* The block's size in all, after checking type and size. */
static hudi_status block_total(int32_t type, const hudi_log_meta *header, const hudi_log_meta *footer,
                               size_t content_len, uint64_t *total, hudi_error *err) {
  if (type < 0 || type >= HUDI_LOG_BLOCK_TYPE_COUNT || type == HUDI_LOG_BLOCK_CORRUPT)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot write a log block of type %d", type);
  *total = HUDI_LOG_BLOCK_FIXED + hudi_log_meta_encoded_size(header) + hudi_log_meta_encoded_size(footer) +
           (uint64_t)content_len;
  if (*total > HUDI_LOG_BLOCK_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "log block of %" PRIu64 " bytes exceeds 2 GiB", *total);
  return HUDI_OK;
}

/* Magic, size, version, type, header and content length: what precedes
 * the content. */
static hudi_status put_head(hudi_buf *out, int32_t type, const hudi_log_meta *header, size_t content_len,
                            uint64_t total, hudi_error *err) {
  HUDI_TRY(hudi_buf_append(out, HUDI_LOG_MAGIC, HUDI_LOG_MAGIC_LEN, err));
  HUDI_TRY(hudi_log_put_be64(out, total - 14, err));
  HUDI_TRY(hudi_log_put_be32(out, HUDI_LOG_FORMAT_VERSION, err));
  HUDI_TRY(hudi_log_put_be32(out, (uint32_t)type, err));
  HUDI_TRY(put_meta(out, header, err));
  return hudi_log_put_be64(out, content_len, err);
}

/* Footer and the block's size again: what follows the content. */
static hudi_status put_tail(hudi_buf *out, const hudi_log_meta *footer, uint64_t total, hudi_error *err) {
  HUDI_TRY(put_meta(out, footer, err));
  return hudi_log_put_be64(out, total - 8, err);
}

hudi_status hudi_log_block_encode(hudi_buf *out, int32_t type, const hudi_log_meta *header,
                                  const hudi_log_meta *footer, const uint8_t *content,
                                  size_t content_len, hudi_error *err) {
  uint64_t total;
  HUDI_TRY(block_total(type, header, footer, content_len, &total, err));
  if (content_len > 0 && !content)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log block content is NULL");
  size_t mark = out->len;
  hudi_status st = hudi_buf_reserve(out, (size_t)total, err);
  if (st == HUDI_OK) st = put_head(out, type, header, content_len, total, err);
  if (st == HUDI_OK && content_len) st = hudi_buf_append(out, content, content_len, err);
  if (st == HUDI_OK) st = put_tail(out, footer, total, err);
  if (st != HUDI_OK) out->len = mark;
  return st;
}

hudi_status hudi_log_block_wrap(hudi_buf *buf, int32_t type, const hudi_log_meta *header,
                                const hudi_log_meta *footer, hudi_error *err) {
  size_t content_len = buf->len;
  uint64_t total;
  HUDI_TRY(block_total(type, header, footer, content_len, &total, err));
  hudi_buf head;
  hudi_buf_init(&head, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = put_head(&head, type, header, content_len, total, err);
  if (st == HUDI_OK) st = hudi_buf_reserve(buf, (size_t)total - content_len, err);
  if (st == HUDI_OK) {
    memmove(buf->data + head.len, buf->data, content_len);
    memcpy(buf->data, head.data, head.len);
    buf->len += head.len;
    st = put_tail(buf, footer, total, err); /* cannot fail: the room is reserved */
  }
  hudi_buf_free(&head);
  return st;
}

/* ---- parsing -------------------------------------------------------- */

/* A cursor over the first `avail` bytes of a block of `len` bytes. Running
 * past len is corruption; running past avail only means the caller must
 * supply more of the block (need_more). */
typedef struct pcur {
  const uint8_t *d;
  size_t avail, pos;
  uint64_t len;  /* bytes of the block from d[0] on */
  uint64_t base; /* file offset of d[0] */
  uint64_t block; /* file offset of the block's magic */
  const char *where;
  bool *need_more;
} pcur;

static hudi_status pfail(const pcur *c, hudi_error *err, hudi_status code, const char *what) {
  return hudi_err_set(err, code, "log file %s: block at byte %" PRIu64 ": %s at byte %" PRIu64,
                      c->where ? c->where : "?", c->block, what, c->base + c->pos);
}

static hudi_status need(const pcur *c, uint64_t n, const char *what, hudi_error *err) {
  if (c->len - c->pos < n) return pfail(c, err, HUDI_ERR_CORRUPT, what);
  if (c->avail - c->pos < n) {
    if (c->need_more) *c->need_more = true;
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: block at byte %" PRIu64 " read short",
                        c->where ? c->where : "?", c->block);
  }
  return HUDI_OK;
}

static hudi_status parse_meta(pcur *c, hudi_log_meta *m, const char *which, hudi_error *err) {
  HUDI_TRY(need(c, 4, which, err));
  int32_t n = (int32_t)hudi_log_be32(c->d + c->pos);
  if (n < 0 || n > HUDI_LOG_META_MAX_ENTRIES) return pfail(c, err, HUDI_ERR_CORRUPT, which);
  c->pos += 4;
  for (int32_t i = 0; i < n; i++) {
    HUDI_TRY(need(c, 8, which, err));
    int32_t key = (int32_t)hudi_log_be32(c->d + c->pos);
    int32_t vlen = (int32_t)hudi_log_be32(c->d + c->pos + 4);
    if (key < 0 || vlen < 0) return pfail(c, err, HUDI_ERR_CORRUPT, which);
    c->pos += 8;
    HUDI_TRY(need(c, (uint64_t)vlen, which, err));
    HUDI_TRY(hudi_log_meta_append(m, key, (const char *)c->d + c->pos, (size_t)vlen, err));
    c->pos += (size_t)vlen;
  }
  return HUDI_OK;
}

hudi_status hudi_log_block_parse_head(hudi_log_block *b, const uint8_t *data, size_t avail,
                                      uint64_t base, const char *where, bool *need_more,
                                      hudi_error *err) {
  if (need_more) *need_more = false;
  pcur c = {data, avail, 0, b->length, base, base, where, need_more};
  if (b->length < HUDI_LOG_BLOCK_MIN)
    return pfail(&c, err, HUDI_ERR_CORRUPT, "block shorter than its fixed fields");
  HUDI_TRY(need(&c, 22, "block shorter than its fixed fields", err));
  if (memcmp(data, HUDI_LOG_MAGIC, HUDI_LOG_MAGIC_LEN) != 0)
    return pfail(&c, err, HUDI_ERR_CORRUPT, "no magic");
  if (hudi_log_be64(data + 6) != b->length - 14)
    return pfail(&c, err, HUDI_ERR_CORRUPT, "block size field disagrees with the block");
  b->format_version = (int32_t)hudi_log_be32(data + 14);
  if (b->format_version != HUDI_LOG_FORMAT_VERSION)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "log file %s: block at byte %" PRIu64 ": log format version %" PRId32
                        " (only 1 is supported)",
                        where ? where : "?", base, b->format_version);
  b->type = (int32_t)hudi_log_be32(data + 18);
  if (b->type < 0 || b->type >= HUDI_LOG_BLOCK_TYPE_COUNT || b->type == HUDI_LOG_BLOCK_CORRUPT)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "log file %s: block at byte %" PRIu64 ": unsupported block type %" PRId32,
                        where ? where : "?", base, b->type);
  c.pos = 22;
  HUDI_TRY(parse_meta(&c, &b->header, "header runs past the block", err));
  HUDI_TRY(need(&c, 8, "content length runs past the block", err));
  uint64_t clen = hudi_log_be64(data + c.pos);
  c.pos += 8;
  /* The footer count (4) and the trailer (8) still follow the content. */
  if (c.len - c.pos < 12 || clen > c.len - c.pos - 12)
    return pfail(&c, err, HUDI_ERR_CORRUPT, "content length runs past the block");
  b->content_offset = base + c.pos;
  b->content_len = clen;
  return HUDI_OK;
}

hudi_status hudi_log_block_parse_tail(hudi_log_block *b, const uint8_t *tail, size_t len,
                                      const char *where, hudi_error *err) {
  uint64_t tail_off = b->content_offset + b->content_len;
  pcur c = {tail, len, 0, len, tail_off, b->offset, where, NULL};
  if (tail_off + len != b->offset + b->length)
    return pfail(&c, err, HUDI_ERR_INTERNAL, "footer range does not end the block");
  HUDI_TRY(parse_meta(&c, &b->footer, "footer runs past the block", err));
  HUDI_TRY(need(&c, 8, "trailer runs past the block", err));
  uint64_t trailer = hudi_log_be64(tail + c.pos);
  if (trailer != b->length - 8)
    return pfail(&c, err, HUDI_ERR_CORRUPT, "trailing block length disagrees with the block");
  c.pos += 8;
  if (c.pos != len) return pfail(&c, err, HUDI_ERR_CORRUPT, "footer ends before the trailer");
  return HUDI_OK;
}

hudi_status hudi_log_block_parse(hudi_log_block *out, const uint8_t *data, size_t len,
                                 uint64_t base, const char *where, hudi_error *err) {
  hudi_log_block b;
  memset(&b, 0, sizeof b);
  b.offset = base;
  b.length = len;
  hudi_status st = hudi_log_block_parse_head(&b, data, len, base, where, NULL, err);
  if (st == HUDI_OK) {
    size_t tail = (size_t)(b.content_offset - base + b.content_len);
    st = hudi_log_block_parse_tail(&b, data + tail, len - tail, where, err);
  }
  if (st != HUDI_OK) {
    hudi_log_block_free(&b);
    return st;
  }
  b.content = data + (b.content_offset - base);
  *out = b;
  return HUDI_OK;
}

void hudi_log_block_free(hudi_log_block *b) {
  if (!b) return;
  hudi_log_meta_free(&b->header);
  hudi_log_meta_free(&b->footer);
  memset(b, 0, sizeof *b);
}

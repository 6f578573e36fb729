/* Schema -> JSON: "as given" (the parsed document re-serialised, compact,
 * keys in their original order) and the spec's Parsing Canonical Form. */
#include <string.h>

#include "avro/schema.h"
#include "base/alloc.h"

typedef struct dump_ctx {
  hudi_buf *out;
  hudi_error *err;
  hudi_status st;
} dump_ctx;

static int dump_cb(const char *buffer, size_t size, void *data) {
  dump_ctx *d = data;
  d->st = hudi_buf_append(d->out, buffer, size, d->err);
  return d->st == HUDI_OK ? 0 : -1;
}

hudi_status hudi_avro_schema_to_json(const hudi_avro_schema *s, hudi_buf *out, hudi_error *err) {
  dump_ctx d = {out, err, HUDI_OK};
  /* Java's Jackson writes UTF-8 unescaped and "/" plain, like this. */
  if (json_dump_callback(s->doc, dump_cb, &d, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER) != 0)
    return d.st != HUDI_OK ? d.st : hudi_err_set(err, HUDI_ERR_INTERNAL, "cannot serialise Avro schema");
  return HUDI_OK;
}

/* A JSON string literal: only '"', '\\' and control characters escaped,
 * other characters literal UTF-8, as the canonical form asks. */
static hudi_status put_str(hudi_buf *b, const char *s, hudi_error *err) {
  HUDI_TRY(hudi_buf_append_byte(b, '"', err));
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      HUDI_TRY(hudi_buf_append_byte(b, '\\', err));
      HUDI_TRY(hudi_buf_append_byte(b, *p, err));
    } else if (*p < 0x20) {
      HUDI_TRY(hudi_buf_printf(b, err, "\\u%04x", *p));
    } else {
      HUDI_TRY(hudi_buf_append_byte(b, *p, err));
    }
  }
  return hudi_buf_append_byte(b, '"', err);
}

typedef struct canon_ctx {
  hudi_buf *out;
  hudi_error *err;
  const hudi_avro_node **seen;
  size_t n_seen, cap_seen;
} canon_ctx;

static int was_seen(canon_ctx *c, const hudi_avro_node *n) {
  for (size_t i = 0; i < c->n_seen; i++)
    if (c->seen[i] == n) return 1;
  return 0;
}

static hudi_status mark_seen(canon_ctx *c, const hudi_avro_node *n) {
  if (c->n_seen == c->cap_seen) {
    size_t cap = c->cap_seen ? c->cap_seen * 2 : 16;
    const hudi_avro_node **p = hudi_realloc(c->seen, cap * sizeof *p);
    if (!p) return hudi_err_set(c->err, HUDI_ERR_NOMEM, "out of memory");
    c->seen = p;
    c->cap_seen = cap;
  }
  c->seen[c->n_seen++] = n;
  return HUDI_OK;
}

static hudi_status canon(canon_ctx *c, const hudi_avro_node *n) {
  hudi_buf *b = c->out;
  hudi_error *err = c->err;
  if (n->name) {
    if (was_seen(c, n)) return put_str(b, n->name, err);
    HUDI_TRY(mark_seen(c, n));
    HUDI_TRY(hudi_buf_append_str(b, "{\"name\":", err));
    HUDI_TRY(put_str(b, n->name, err));
    HUDI_TRY(hudi_buf_printf(b, err, ",\"type\":\"%s\"", hudi_avro_type_name(n->type)));
  }
  switch (n->type) {
    case HUDI_AVRO_RECORD:
      HUDI_TRY(hudi_buf_append_str(b, ",\"fields\":[", err));
      for (uint32_t i = 0; i < n->n_fields; i++) {
        HUDI_TRY(hudi_buf_append_str(b, i ? ",{\"name\":" : "{\"name\":", err));
        HUDI_TRY(put_str(b, n->fields[i].name, err));
        HUDI_TRY(hudi_buf_append_str(b, ",\"type\":", err));
        HUDI_TRY(canon(c, n->fields[i].type));
        HUDI_TRY(hudi_buf_append_byte(b, '}', err));
      }
      return hudi_buf_append_str(b, "]}", err);
    case HUDI_AVRO_ENUM:
      HUDI_TRY(hudi_buf_append_str(b, ",\"symbols\":[", err));
      for (uint32_t i = 0; i < n->n_symbols; i++) {
        if (i) HUDI_TRY(hudi_buf_append_byte(b, ',', err));
        HUDI_TRY(put_str(b, n->symbols[i], err));
      }
      return hudi_buf_append_str(b, "]}", err);
    case HUDI_AVRO_FIXED:
      return hudi_buf_printf(b, err, ",\"size\":%u}", n->size);
    case HUDI_AVRO_ARRAY:
    case HUDI_AVRO_MAP:
      HUDI_TRY(hudi_buf_printf(b, err, "{\"type\":\"%s\",\"%s\":", hudi_avro_type_name(n->type),
                               n->type == HUDI_AVRO_ARRAY ? "items" : "values"));
      HUDI_TRY(canon(c, n->items));
      return hudi_buf_append_byte(b, '}', err);
    case HUDI_AVRO_UNION:
      HUDI_TRY(hudi_buf_append_byte(b, '[', err));
      for (uint32_t i = 0; i < n->n_branches; i++) {
        if (i) HUDI_TRY(hudi_buf_append_byte(b, ',', err));
        HUDI_TRY(canon(c, n->branches[i]));
      }
      return hudi_buf_append_byte(b, ']', err);
    default:
      return hudi_buf_printf(b, err, "\"%s\"", hudi_avro_type_name(n->type));
  }
}

hudi_status hudi_avro_schema_canonical(const hudi_avro_node *root, hudi_buf *out, hudi_error *err) {
  canon_ctx c = {out, err, NULL, 0, 0};
  hudi_status st = canon(&c, root);
  hudi_free(c.seen);
  return st;
}

#define CRC64_AVRO_EMPTY 0xc15d213aa4d7a795ULL

uint64_t hudi_avro_crc64(const uint8_t *data, size_t len) {
  /* Bit at a time: fingerprints are rare, and no shared table to race on. */
  uint64_t fp = CRC64_AVRO_EMPTY;
  for (size_t i = 0; i < len; i++) {
    fp ^= data[i];
    for (int j = 0; j < 8; j++) fp = (fp >> 1) ^ (CRC64_AVRO_EMPTY & (0 - (fp & 1)));
  }
  return fp;
}

hudi_status hudi_avro_schema_fingerprint(const hudi_avro_node *root, uint64_t *out, hudi_error *err) {
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_status st = hudi_avro_schema_canonical(root, &b, err);
  if (st == HUDI_OK) *out = hudi_avro_crc64(b.data, b.len);
  hudi_buf_free(&b);
  return st;
}

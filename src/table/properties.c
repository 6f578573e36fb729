#include "table/properties.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/utf8.h"

void hudi_props_init(hudi_props *p) { memset(p, 0, sizeof *p); }

void hudi_props_free(hudi_props *p) {
  for (size_t i = 0; i < p->len; i++) {
    hudi_free(p->entries[i].key);
    hudi_free(p->entries[i].value);
  }
  hudi_free(p->entries);
  memset(p, 0, sizeof *p);
}

const char *hudi_props_get(const hudi_props *p, const char *key) {
  for (size_t i = 0; i < p->len; i++)
    if (strcmp(p->entries[i].key, key) == 0) return p->entries[i].value;
  return NULL;
}

static hudi_status props_put(hudi_props *p, char *key, char *value, hudi_error *err) {
  for (size_t i = 0; i < p->len; i++) {
    if (strcmp(p->entries[i].key, key) == 0) {
      hudi_free(key);
      hudi_free(p->entries[i].value);
      p->entries[i].value = value;
      return HUDI_OK;
    }
  }
  if (p->len == p->cap) {
    if (p->cap >= HUDI_PROPS_MAX_ENTRIES) {
      hudi_free(key);
      hudi_free(value);
      return hudi_err_set(err, HUDI_ERR_LIMIT, "more than %d properties", HUDI_PROPS_MAX_ENTRIES);
    }
    size_t cap = p->cap ? p->cap * 2 : 32;
    hudi_props_entry *e = hudi_realloc(p->entries, cap * sizeof *e);
    if (!e) {
      hudi_free(key);
      hudi_free(value);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory reading properties");
    }
    p->entries = e;
    p->cap = cap;
  }
  p->entries[p->len].key = key;
  p->entries[p->len].value = value;
  p->len++;
  return HUDI_OK;
}

hudi_status hudi_props_set(hudi_props *p, const char *key, const char *value, hudi_error *err) {
  char *k = hudi_strdup(key), *v = hudi_strdup(value);
  if (!k || !v) {
    hudi_free(k);
    hudi_free(v);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory setting property %s", key);
  }
  return props_put(p, k, v, err);
}

/* Appends a code point as UTF-8. */
static hudi_status put_utf8(hudi_buf *b, uint32_t cp, hudi_error *err) {
  uint8_t u[4];
  size_t n;
  if (cp < 0x80) { u[0] = (uint8_t)cp; n = 1; }
  else if (cp < 0x800) { u[0] = (uint8_t)(0xC0 | (cp >> 6)); u[1] = (uint8_t)(0x80 | (cp & 0x3F)); n = 2; }
  else if (cp < 0x10000) {
    u[0] = (uint8_t)(0xE0 | (cp >> 12)); u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (uint8_t)(0x80 | (cp & 0x3F)); n = 3;
  } else {
    u[0] = (uint8_t)(0xF0 | (cp >> 18)); u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F)); u[3] = (uint8_t)(0x80 | (cp & 0x3F)); n = 4;
  }
  return hudi_buf_append(b, u, n, err);
}

/* A logical line: physical lines joined where a line ends in an odd number
 * of backslashes, leading whitespace of continuation lines dropped. */
typedef struct line_reader {
  const char *s;
  size_t len, pos, lineno;
  const char *source;
} line_reader;

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\f'; }

static hudi_status next_logical_line(line_reader *r, hudi_buf *line, int *have, hudi_error *err) {
  hudi_buf_reset(line);
  *have = 0;
  int continuing = 0;
  while (r->pos < r->len) {
    size_t start = r->pos, end = start;
    while (end < r->len && r->s[end] != '\n' && r->s[end] != '\r') end++;
    size_t next = end;
    if (next < r->len && r->s[next] == '\r') next++;
    if (next < r->len && r->s[next] == '\n' && (next == end || r->s[next - 1] == '\r')) next++;
    r->pos = next;
    r->lineno++;
    size_t i = start;
    while (i < end && is_ws(r->s[i])) i++;
    if (!continuing) {
      if (i == end) continue;                                  /* blank line */
      if (r->s[i] == '#' || r->s[i] == '!') continue;          /* comment */
    }
    size_t bs = 0;
    for (size_t j = end; j > i && r->s[j - 1] == '\\'; j--) bs++;
    int cont = bs % 2 == 1;
    HUDI_TRY(hudi_buf_append(line, r->s + i, end - i - (cont ? 1 : 0), err));
    *have = 1;
    if (!cont) return HUDI_OK;
    continuing = 1;
  }
  return HUDI_OK;
}

static int hex4(const char *h, uint32_t *out) {
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) {
    char c = h[k];
    int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
          : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
    if (d < 0) return 0;
    v = v * 16 + (uint32_t)d;
  }
  *out = v;
  return 1;
}

/* Unescapes s[0..n) into out (Java's loadConvert). */
static hudi_status unescape(const char *s, size_t n, hudi_buf *out, const line_reader *r,
                            hudi_error *err) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c != '\\') {
      HUDI_TRY(hudi_buf_append_byte(out, (uint8_t)c, err));
      continue;
    }
    if (++i >= n) break;
    c = s[i];
    if (c == 'u') {
      uint32_t cp;
      if (n - i - 1 < 4 || !hex4(s + i + 1, &cp))
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s line %zu: malformed \\uXXXX escape", r->source,
                            r->lineno);
      i += 4;
      /* A surrogate pair written as two escapes is one code point. */
      uint32_t lo;
      if (cp >= 0xD800 && cp < 0xDC00 && n - i - 1 >= 6 && s[i + 1] == '\\' && s[i + 2] == 'u' &&
          hex4(s + i + 3, &lo) && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        i += 6;
      }
      HUDI_TRY(put_utf8(out, cp, err));
      continue;
    }
    char v = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == 'f' ? '\f' : c;
    HUDI_TRY(hudi_buf_append_byte(out, (uint8_t)v, err));
  }
  return HUDI_OK;
}

/* Splits a logical line at the first unescaped '=', ':' or whitespace. */
static hudi_status parse_line(hudi_props *out, const char *s, size_t n, const line_reader *r,
                              hudi_error *err) {
  size_t k = 0;
  int escaped = 0;
  for (; k < n; k++) {
    char c = s[k];
    if (escaped) { escaped = 0; continue; }
    if (c == '\\') { escaped = 1; continue; }
    if (c == '=' || c == ':' || is_ws(c)) break;
  }
  size_t v = k;
  while (v < n && is_ws(s[v])) v++;
  if (v < n && (s[v] == '=' || s[v] == ':')) v++;
  while (v < n && is_ws(s[v])) v++;
  hudi_buf key, val;
  hudi_buf_init(&key, HUDI_PROPS_MAX_BYTES);
  hudi_buf_init(&val, HUDI_PROPS_MAX_BYTES);
  hudi_status st = unescape(s, k, &key, r, err);
  if (st == HUDI_OK) st = unescape(s + v, n - v, &val, r, err);
  uint8_t *kp = NULL, *vp = NULL;
  size_t kl, vl;
  if (st == HUDI_OK) st = hudi_buf_detach(&key, &kp, &kl, err);
  if (st == HUDI_OK) st = hudi_buf_detach(&val, &vp, &vl, err);
  hudi_buf_free(&key);
  hudi_buf_free(&val);
  if (st != HUDI_OK) {
    hudi_free(kp);
    hudi_free(vp);
    return st;
  }
  return props_put(out, (char *)kp, (char *)vp, err);
}

hudi_status hudi_props_parse(hudi_props *out, const char *text, size_t len, const char *source,
                             hudi_error *err) {
  hudi_props_init(out);
  if (len > HUDI_PROPS_MAX_BYTES)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: %zu bytes is larger than the %zu-byte cap", source, len,
                        HUDI_PROPS_MAX_BYTES);
  line_reader r = {text, len, 0, 0, source ? source : "properties"};
  hudi_buf line;
  hudi_buf_init(&line, HUDI_PROPS_MAX_BYTES);
  hudi_status st = HUDI_OK;
  for (;;) {
    int have;
    st = next_logical_line(&r, &line, &have, err);
    if (st != HUDI_OK || !have) break;
    st = parse_line(out, (const char *)line.data, line.len, &r, err);
    if (st != HUDI_OK) break;
  }
  hudi_buf_free(&line);
  if (st != HUDI_OK) hudi_props_free(out);
  return st;
}

hudi_status hudi_props_validate_checksum(const hudi_props *p, const char *source, hudi_error *err) {
  const char *stored = hudi_props_get(p, "hoodie.table.checksum");
  if (!stored) return HUDI_OK;
  const char *table = hudi_props_get(p, "hoodie.table.name");
  if (!table)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: hoodie.table.name is missing", source);
  const char *db = hudi_props_get(p, "hoodie.database.name");
  char *end = NULL;
  unsigned long long v = strtoull(stored, &end, 10);
  uint32_t want = hudi_table_checksum(db, table);
  if (!*stored || *end || v > UINT32_MAX || (uint32_t)v != want)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "%s: hoodie.table.checksum is '%s' but CRC32(\"%s.%s\") is %u", source, stored,
                        db ? db : "", table, want);
  return HUDI_OK;
}

bool hudi_props_list_has(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && !memcmp(p, name, n)) return true;
    p = end ? end + 1 : NULL;
  }
  return false;
}

/* ---- writing (java.util.Properties.store) ---- */

static hudi_status put_unit(hudi_buf *b, uint32_t u, hudi_error *err) {
  static const char hex[] = "0123456789ABCDEF";
  char e[6] = {'\\', 'u', hex[(u >> 12) & 15], hex[(u >> 8) & 15], hex[(u >> 4) & 15], hex[u & 15]};
  return hudi_buf_append(b, e, sizeof e, err);
}

/* Properties.saveConvert with escapeUnicode: backslash escapes for '\\',
 * tab, line breaks, form feed, '=', ':', '#' and '!', a leading space (or
 * every space in a key), and \uXXXX (UTF-16 units) outside printable
 * ASCII. Invalid UTF-8 is refused: the text must read back as it was. */
static hudi_status save_convert(hudi_buf *b, const char *s, bool key, hudi_error *err) {
  size_t len = strlen(s);
  for (size_t i = 0; i < len;) {
    size_t at = i;
    int32_t c = hudi_utf8_next((const uint8_t *)s, len, &i);
    if (c < 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.properties text with invalid UTF-8 at byte %zu", at);
    char esc = 0;
    switch (c) {
      case '\\': esc = '\\'; break;
      case '\t': esc = 't'; break;
      case '\n': esc = 'n'; break;
      case '\r': esc = 'r'; break;
      case '\f': esc = 'f'; break;
      case '=': case ':': case '#': case '!': esc = (char)c; break;
      case ' ': if (key || at == 0) esc = ' '; break;
      default: break;
    }
    if (esc) {
      char e[2] = {'\\', esc};
      HUDI_TRY(hudi_buf_append(b, e, 2, err));
    } else if (c < 0x20 || c > 0x7e) {
      if (c > 0xffff) {
        uint32_t v = (uint32_t)c - 0x10000;
        HUDI_TRY(put_unit(b, 0xd800 + (v >> 10), err));
        HUDI_TRY(put_unit(b, 0xdc00 + (v & 0x3ff), err));
      } else {
        HUDI_TRY(put_unit(b, (uint32_t)c, err));
      }
    } else {
      HUDI_TRY(hudi_buf_append_byte(b, (uint8_t)c, err));
    }
  }
  return HUDI_OK;
}

hudi_status hudi_props_render(const hudi_props *p, const char *comment, const char *date, hudi_buf *out,
                              hudi_error *err) {
  if (comment) HUDI_TRY(hudi_buf_printf(out, err, "#%s\n", comment));
  if (date) HUDI_TRY(hudi_buf_printf(out, err, "#%s\n", date));
  for (size_t i = 0; i < p->len; i++) {
    HUDI_TRY(save_convert(out, p->entries[i].key, true, err));
    HUDI_TRY(hudi_buf_append_byte(out, '=', err));
    HUDI_TRY(save_convert(out, p->entries[i].value, false, err));
    HUDI_TRY(hudi_buf_append_byte(out, '\n', err));
  }
  return HUDI_OK;
}

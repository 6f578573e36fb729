#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

void hudi_buf_init(hudi_buf *b, size_t max) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->max = max ? max : HUDI_BUF_DEFAULT_MAX;
}

void hudi_buf_free(hudi_buf *b) {
  hudi_free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

void hudi_buf_reset(hudi_buf *b) { b->len = 0; }

hudi_status hudi_buf_reserve(hudi_buf *b, size_t extra, hudi_error *err) {
  if (extra > b->max || b->len > b->max - extra)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "buffer would grow past its cap of %zu bytes (%zu + %zu)",
                        b->max, b->len, extra);
  size_t need = b->len + extra;
  if (need <= b->cap) return HUDI_OK;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  /* +1 keeps room for the NUL that detach writes. */
  if (cap > b->max) cap = b->max;
  uint8_t *p = hudi_realloc(b->data, cap + 1);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory growing a buffer to %zu bytes", cap);
  b->data = p;
  b->cap = cap;
  return HUDI_OK;
}

hudi_status hudi_buf_append(hudi_buf *b, const void *p, size_t n, hudi_error *err) {
  if (n == 0) return HUDI_OK;
  HUDI_TRY(hudi_buf_reserve(b, n, err));
  memcpy(b->data + b->len, p, n);
  b->len += n;
  return HUDI_OK;
}

hudi_status hudi_buf_append_byte(hudi_buf *b, uint8_t v, hudi_error *err) {
  return hudi_buf_append(b, &v, 1, err);
}

hudi_status hudi_buf_append_str(hudi_buf *b, const char *s, hudi_error *err) {
  return hudi_buf_append(b, s, strlen(s), err);
}

hudi_status hudi_buf_append_zeros(hudi_buf *b, size_t n, hudi_error *err) {
  if (n == 0) return HUDI_OK;
  HUDI_TRY(hudi_buf_reserve(b, n, err));
  memset(b->data + b->len, 0, n);
  b->len += n;
  return HUDI_OK;
}

hudi_status hudi_buf_printf(hudi_buf *b, hudi_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return hudi_err_set(err, HUDI_ERR_INTERNAL, "bad format string");
  HUDI_TRY(hudi_buf_reserve(b, (size_t)n + 1, err));
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return HUDI_OK;
}

hudi_status hudi_buf_detach(hudi_buf *b, uint8_t **out, size_t *len, hudi_error *err) {
  if (!b->data) {
    b->data = hudi_malloc(1);
    if (!b->data) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  b->data[b->len] = '\0';
  *out = b->data;
  *len = b->len;
  b->data = NULL;
  b->len = b->cap = 0;
  return HUDI_OK;
}

void hudi_buf_attach(hudi_buf *b, uint8_t *data, size_t len) {
  hudi_free(b->data);
  b->data = data;
  b->len = b->cap = len;
}

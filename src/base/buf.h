/* Growable byte buffers with a hard cap (the curl dynbuf rule): a parser
 * fed hostile lengths fails with HUDI_ERR_LIMIT instead of allocating
 * without bound. */
#ifndef HUDI_BASE_BUF_H
#define HUDI_BASE_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct hudi_buf {
  uint8_t *data;
  size_t len;
  size_t cap;
  size_t max; /* hard maximum of len */
} hudi_buf;

#define HUDI_BUF_DEFAULT_MAX ((size_t)1 << 34) /* 16 GiB */

void hudi_buf_init(hudi_buf *b, size_t max);
void hudi_buf_free(hudi_buf *b);
/* Keeps the allocation, forgets the contents. */
void hudi_buf_reset(hudi_buf *b);
/* Makes room for `extra` more bytes past len. */
HUDI_NODISCARD hudi_status hudi_buf_reserve(hudi_buf *b, size_t extra, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_buf_append(hudi_buf *b, const void *p, size_t n, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_buf_append_byte(hudi_buf *b, uint8_t v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_buf_append_str(hudi_buf *b, const char *s, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_buf_printf(hudi_buf *b, hudi_error *err, const char *fmt, ...)
    HUDI_PRINTF(3, 4);
/* Appends n zero bytes. */
HUDI_NODISCARD hudi_status hudi_buf_append_zeros(hudi_buf *b, size_t n, hudi_error *err);
/* Hands the bytes to the caller (free with hudi_free) and empties b. A
 * terminating NUL is written after them (not counted in *len). */
HUDI_NODISCARD hudi_status hudi_buf_detach(hudi_buf *b, uint8_t **out, size_t *len, hudi_error *err);
/* The reverse: b (its old bytes freed) takes over data[0, len), bytes
 * that hudi_buf_detach handed out (an allocation of at least len + 1). */
void hudi_buf_attach(hudi_buf *b, uint8_t *data, size_t len);

#endif

/* UTF-8 decoding by the rules Java's decoder enforces (RFC 3629): no
 * overlong forms, no encoded surrogates, nothing past U+10FFFF. */
#ifndef HUDI_BASE_UTF8_H
#define HUDI_BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the sequence at s[*i] (*i < len) and moves *i past it; returns
 * the code point, or -1 (and *i unmoved) for an invalid or truncated one. */
int32_t hudi_utf8_next(const uint8_t *s, size_t len, size_t *i);

#endif

/* Literal-only gzip (codec/gzip_huffman.h): every output is inflated by
 * zlib (an independent, strict inflater that rejects incomplete and
 * over-subscribed codes and checks the CRC and size), its size is compared
 * with libdeflate's level 6 through hudi_codec_compress, and the adaptive
 * choice is checked on data where each side wins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "codec/codec.h"
#include "codec/gzip_huffman.h"

static uint32_t rng_state = 2463534242u;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* zlib inflates the whole gzip member back to exactly src. */
static void assert_inflates_to(const uint8_t *z, size_t zlen, const uint8_t *src, size_t n) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  assert_int_equal(inflateInit2(&zs, 16 + 15), Z_OK);
  uint8_t *dst = malloc(n + 16);
  zs.next_in = (Bytef *)(uintptr_t)z;
  zs.avail_in = (uInt)zlen;
  zs.next_out = dst;
  zs.avail_out = (uInt)(n + 16);
  int rc = inflate(&zs, Z_FINISH);
  assert_int_equal(rc, Z_STREAM_END);
  assert_int_equal(zs.total_out, n);
  assert_int_equal(zs.avail_in, 0); /* nothing after the member */
  if (n) assert_memory_equal(dst, src, n);
  inflateEnd(&zs);
  free(dst);
}

static size_t huffman_len_matched(const uint8_t *src, size_t n, size_t matched) {
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_gzip_huffman(src, n, matched, &out, &err), HUDI_OK);
  assert_inflates_to(out.data, out.len, src, n);
  size_t len = out.len;
  hudi_buf_free(&out);
  return len;
}

static size_t huffman_len(const uint8_t *src, size_t n) { return huffman_len_matched(src, n, 0); }

static size_t level6_len(const uint8_t *src, size_t n) {
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_codec_compress(HUDI_CODEC_GZIP, 0, src, n, &out, &err), HUDI_OK);
  size_t len = out.len;
  hudi_buf_free(&out);
  return len;
}

/* Unit-length float32 vectors as an embedding column's PLAIN page holds. */
static uint8_t *floats(size_t n_floats) {
  float *f = malloc(n_floats * sizeof *f);
  for (size_t i = 0; i < n_floats; i += 2) {
    /* Box-Muller from two uniforms */
    double u = ((double)(rnd() >> 8) + 1.0) / 16777217.0, v = (double)(rnd() >> 8) / 16777216.0;
    double r = sqrt(-2.0 * log(u)) * 0.05;
    f[i] = (float)(r * cos(6.283185307179586 * v));
    if (i + 1 < n_floats) f[i + 1] = (float)(r * sin(6.283185307179586 * v));
  }
  return (uint8_t *)f;
}

static void edge_sizes(void **state) {
  (void)state;
  static const size_t sizes[] = {0, 1, 2, 255, 65535, 65536, 131071, 131072, 131073, 300000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    uint8_t *p = malloc(n + 1);
    /* uniform bytes: Huffman cannot win, blocks are stored */
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd();
    size_t len = huffman_len(p, n);
    assert_true(len <= n + 18 + 6 * (n / 65535 + 2));
    /* one byte value: a one-literal code plus end-of-block */
    memset(p, 'x', n);
    len = huffman_len(p, n);
    if (n >= 65536) assert_true(len < n / 6);
    /* two values */
    for (size_t i = 0; i < n; i++) p[i] = (rnd() & 1) ? 'a' : 'b';
    len = huffman_len(p, n);
    if (n >= 65536) assert_true(len < n / 5); /* a: 1 bit, b and end-of-block: 2 */
    free(p);
  }
}

/* Counts growing like Fibonacci numbers make a Huffman tree as deep as
 * there are symbols; deflate allows 15 bits, so the lengths must be
 * limited and the code still complete. */
static void deep_tree_is_limited(void **state) {
  (void)state;
  size_t n = 0, cap = 1 << 22;
  uint8_t *p = malloc(cap);
  uint64_t a = 1, b = 1;
  for (int s = 0; s < 30 && n < cap; s++) {
    for (uint64_t i = 0; i < a && n < cap; i++) p[n++] = (uint8_t)s;
    uint64_t c = a + b;
    a = b;
    b = c;
  }
  /* shuffle so every block sees the same skew */
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = rnd() % (i + 1);
    uint8_t t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  size_t len = huffman_len(p, n);
  assert_true(len < n / 2);
  free(p);
}

static void floats_match_level6_size(void **state) {
  (void)state;
  size_t n = 1 << 20;
  uint8_t *p = floats(n / 4);
  size_t h = huffman_len(p, n), l6 = level6_len(p, n);
  /* embeddings: matching gains nothing over literals */
  assert_true(h < n * 95 / 100);
  assert_true(h <= l6 + l6 / 100);
  free(p);
}

static void adaptive_chooses(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  /* floats: the literal coder (its output equals hudi_gzip_huffman's) */
  size_t n = 1 << 20;
  uint8_t *f = floats(n / 4);
  hudi_buf a, h;
  hudi_buf_init(&a, 0);
  hudi_buf_init(&h, 0);
  assert_int_equal(hudi_gzip_adaptive(f, n, 0, &a, &err), HUDI_OK);
  assert_int_equal(hudi_gzip_huffman(f, n, 0, &h, &err), HUDI_OK);
  assert_int_equal(a.len, h.len);
  assert_memory_equal(a.data, h.data, a.len);
  assert_inflates_to(a.data, a.len, f, n);
  /* repetitive text: matching wins, the default codec's bytes */
  uint8_t *t = malloc(n);
  static const char *words[] = {"parquet ", "hudi ", "table ", "commit ", "timeline ", "record "};
  for (size_t i = 0; i < n;) {
    const char *w = words[rnd() % 6];
    for (size_t j = 0; w[j] && i < n; j++) t[i++] = (uint8_t)w[j];
  }
  hudi_buf_reset(&a);
  hudi_buf_reset(&h);
  assert_int_equal(hudi_gzip_adaptive(t, n, 0, &a, &err), HUDI_OK);
  assert_int_equal(hudi_codec_compress(HUDI_CODEC_GZIP, 0, t, n, &h, &err), HUDI_OK);
  assert_int_equal(a.len, h.len);
  assert_memory_equal(a.data, h.data, a.len);
  assert_inflates_to(a.data, a.len, t, n);
  /* small input: the default codec */
  hudi_buf_reset(&a);
  hudi_buf_reset(&h);
  assert_int_equal(hudi_gzip_adaptive(f, 1000, 0, &a, &err), HUDI_OK);
  assert_int_equal(hudi_codec_compress(HUDI_CODEC_GZIP, 0, f, 1000, &h, &err), HUDI_OK);
  assert_int_equal(a.len, h.len);
  /* appends after what out holds */
  hudi_buf_reset(&a);
  assert_int_equal(hudi_buf_append(&a, "xyz", 3, &err), HUDI_OK);
  assert_int_equal(hudi_gzip_adaptive(f, n, 0, &a, &err), HUDI_OK);
  assert_memory_equal(a.data, "xyz", 3);
  assert_inflates_to(a.data + 3, a.len - 3, f, n);
  hudi_buf_free(&a);
  hudi_buf_free(&h);
  free(t);
  free(f);
}

/* A v1 page: repeating levels, then floats. The levels are deflated with
 * matching, the floats with literals; the stream stays one gzip member. */
static void matched_prefix(void **state) {
  (void)state;
  size_t n = 1 << 20, lv = 24 << 10;
  uint8_t *p = floats(n / 4);
  for (size_t i = 0; i < lv; i++) p[i] = (uint8_t)"\x02\x01\x7f\x03"[i % 4];
  size_t plain = huffman_len_matched(p, n, 0), with = huffman_len_matched(p, n, lv);
  assert_true(with + lv / 2 < plain);
  /* everything, nothing after, more than there is (taken as none) */
  huffman_len_matched(p, lv, lv);
  huffman_len_matched(p, 100, 100);
  assert_int_equal(huffman_len_matched(p, n, n + 1), plain);
  /* the adaptive choice samples after the prefix and keeps it matched */
  hudi_buf a;
  hudi_buf_init(&a, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_gzip_adaptive(p, n, lv, &a, &err), HUDI_OK);
  assert_int_equal(a.len, with);
  assert_inflates_to(a.data, a.len, p, n);
  hudi_buf_free(&a);
  free(p);
}

/* A buffer cap too small is an error and leaves out as it was. */
static void cap_is_an_error(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  size_t n = 1 << 18;
  uint8_t *f = floats(n / 4);
  hudi_buf out;
  hudi_buf_init(&out, 1000);
  assert_int_equal(hudi_buf_append(&out, "ab", 2, &err), HUDI_OK);
  assert_int_not_equal(hudi_gzip_huffman(f, n, 0, &out, &err), HUDI_OK);
  assert_int_equal(out.len, 2);
  hudi_buf_free(&out);
  free(f);
}

static void alloc_failures(void **state) {
  (void)state;
  size_t n = 1 << 18;
  uint8_t *f = floats(n / 4);
  for (int k = 0; k < 8; k++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_buf out;
    hudi_buf_init(&out, 0);
    hudi_alloc_fail_after(k);
    hudi_status st = hudi_gzip_adaptive(f, n, k % 2 ? 4096 : 0, &out, &err);
    hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) assert_inflates_to(out.data, out.len, f, n);
    hudi_buf_free(&out);
  }
  free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(edge_sizes),
      cmocka_unit_test(deep_tree_is_limited),
      cmocka_unit_test(floats_match_level6_size),
      cmocka_unit_test(adaptive_chooses),
      cmocka_unit_test(matched_prefix),
      cmocka_unit_test(cap_is_an_error),
      cmocka_unit_test(alloc_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

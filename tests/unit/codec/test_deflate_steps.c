/* Deflate from a given LZ77 parse (codec/deflate_steps.h): every stream is
 * inflated by zlib, an independent and strict inflater (it rejects
 * incomplete or over-subscribed codes and bad distances), and must give
 * back the source exactly. Covers the length and distance code edges
 * (3, 10, 11, 257, 258 and the splits of longer copies; distances 1..4,
 * 5, 32768), overlapping copies, every byte value as a literal, a parse
 * without copies, an empty source, and the stored fallback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec/deflate_steps.h"

static uint32_t rng_state = 88172645u;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* Encodes src by steps (with `codes`, may be NULL) into z (NULL: a
 * scratch buffer) and checks zlib's raw inflate of it; the size. */
static size_t round_trip_codes(const uint8_t *src, size_t n, const hudi_lz_step *steps, size_t k,
                               const hudi_deflate_codes *codes, uint8_t **out) {
  size_t cap = hudi_deflate_steps_bound(n);
  /* a canary after the bound: nothing may be written there (the 8-byte
   * stores of the bit writer included, which ASan may not see) */
  uint8_t *z = malloc(cap + 64);
  memset(z + cap, 0xa5, 64);
  uint8_t *back = malloc(n + 1);
  assert_non_null(z);
  assert_non_null(back);
  size_t zl = hudi_deflate_steps(src, n, steps, k, codes, z);
  assert_true(zl > 0 && zl <= cap);
  for (size_t i = 0; i < 64; i++) assert_int_equal(z[cap + i], 0xa5);
  /* never larger than storing: 5 bytes per 65,535 */
  assert_true(zl <= n + 5 * (n ? (n + 65534) / 65535 : 1));
  z_stream s;
  memset(&s, 0, sizeof s);
  assert_int_equal(inflateInit2(&s, -15), Z_OK);
  s.next_in = z;
  s.avail_in = (uInt)zl;
  s.next_out = back;
  s.avail_out = (uInt)(n + 1);
  assert_int_equal(inflate(&s, Z_FINISH), Z_STREAM_END);
  assert_int_equal(s.total_out, n);
  assert_int_equal(s.avail_in, 0); /* the stream ends where we said */
  inflateEnd(&s);
  if (n) assert_memory_equal(back, src, n);
  if (out) *out = z;
  else free(z);
  free(back);
  return zl;
}

static size_t round_trip(const uint8_t *src, size_t n, const hudi_lz_step *steps, size_t k) {
  return round_trip_codes(src, n, steps, k, NULL, NULL);
}

/* A source of `unit` random bytes repeated: copies of any length at
 * distance `unit` are right from byte `unit` on. */
static uint8_t *periodic(size_t n, size_t unit) {
  uint8_t *s = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++) s[i] = i < unit ? (uint8_t)rnd() : s[i - unit];
  return s;
}

static void test_copy_lengths(void **st) {
  (void)st;
  /* one literal run, then a copy of each length: every length code's
   * edges, and copies past 258 split so that no piece is under 3 (259 and
   * 260 as 255 + 4 and 255 + 5; 261 as 258 + 3) */
  static const uint32_t lens[] = {3, 4, 10, 11, 12, 13, 18, 19, 34, 35, 66, 67, 130, 131, 226, 227, 256, 257,
                                  258, 259, 260, 261, 262, 516, 517, 518, 1000, 40000};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    size_t unit = 7, n = unit + lens[i] + 5;
    uint8_t *s = periodic(n, unit);
    hudi_lz_step steps[2] = {{(uint32_t)unit, lens[i], (uint32_t)unit}, {5, 0, 0}};
    round_trip(s, n, steps, 2);
    free(s);
  }
}

static void test_distances(void **st) {
  (void)st;
  /* A copy from each distance: 1..4 (no extra bits), 5, 6, 7, 8, 9, 12, 13,
   * powers of two around each code edge, 32767 and 32768. */
  static const uint32_t dists[] = {1,    2,    3,    4,    5,    6,    7,     8,     9,     12,    13,   16, 17,
                                   24,   25,   32,   33,   256,  257,  1024,  1025,  4096,  4097,  8192,
                                   8193, 16384, 16385, 24576, 24577, 32767, 32768};
  for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++) {
    size_t d = dists[i], n = d + 300;
    uint8_t *s = periodic(n, d);
    hudi_lz_step steps[2] = {{(uint32_t)d, 297, (uint32_t)d}, {3, 0, 0}};
    round_trip(s, n, steps, 2);
    free(s);
  }
}

static void test_overlap_and_mixed(void **st) {
  (void)st;
  /* "a" then a run copying itself at distance 1, then random literals and
   * copies at random earlier distances, chained as the parse says. */
  size_t n = 200000;
  uint8_t *s = malloc(n);
  hudi_lz_step *steps = malloc(sizeof *steps * n);
  size_t k = 0, at = 0;
  s[at++] = 'a';
  memset(s + at, 'a', 500);
  steps[k++] = (hudi_lz_step){1, 500, 1};
  at += 500;
  while (at < n - 600) {
    uint32_t lit = rnd() % 40, len = rnd() % 3 == 0 ? 0 : 3 + rnd() % 300;
    for (uint32_t j = 0; j < lit; j++) s[at + j] = (uint8_t)(rnd() % 16 + 'a');
    at += lit;
    uint32_t dist = 1 + rnd() % (at < 32768 ? (uint32_t)at : 32768u);
    for (uint32_t j = 0; j < len; j++) s[at + j] = s[at + j - dist];
    steps[k++] = (hudi_lz_step){lit, len, len ? dist : 0};
    at += len;
  }
  for (size_t j = at; j < n; j++) s[j] = (uint8_t)rnd();
  steps[k++] = (hudi_lz_step){(uint32_t)(n - at), 0, 0};
  size_t zl = round_trip(s, n, steps, k);
  assert_true(zl < n / 2); /* the copies made it smaller */
  free(s);
  free(steps);
}

static void test_literals(void **st) {
  (void)st;
  /* every byte value; one byte value only; no bytes at all */
  uint8_t all[4096];
  for (size_t i = 0; i < sizeof all; i++) all[i] = (uint8_t)(i * 7 + i / 256);
  hudi_lz_step one = {sizeof all, 0, 0};
  round_trip(all, sizeof all, &one, 1);
  uint8_t same[1000];
  memset(same, 'x', sizeof same);
  one.lit = sizeof same;
  size_t zl = round_trip(same, sizeof same, &one, 1);
  assert_true(zl < 200); /* one-bit codes, not stored */
  one.lit = 0;
  round_trip(same, 0, &one, 1);
}

static void test_large_near_stored(void **st) {
  (void)st;
  /* 4 MiB of nearly uniform bytes (0..254, and a 255 now and then): the
   * Huffman block is about as large as storing it in 64 stored blocks;
   * whichever is taken stays within the bound and no larger than stored. */
  size_t n = 4193240;
  uint8_t *s = malloc(n);
  for (size_t i = 0; i < n; i++) s[i] = i % 1705 == 0 ? 255 : (uint8_t)(rnd() % 255);
  hudi_lz_step one = {(uint32_t)n, 0, 0};
  round_trip(s, n, &one, 1);
  free(s);
}

static void test_stored_fallback(void **st) {
  (void)st;
  /* Random bytes as literals code no smaller than they are: stored, in
   * 65535-byte pieces, 5 bytes of framing each. */
  size_t n = 150000;
  uint8_t *s = malloc(n);
  for (size_t i = 0; i < n; i++) s[i] = (uint8_t)rnd();
  hudi_lz_step one = {(uint32_t)n, 0, 0};
  size_t zl = round_trip(s, n, &one, 1);
  assert_int_equal(zl, n + 5 * 3);
  free(s);
}

/* A block of hex-digit literals and copies (lengths 3..40, distances
 * 1..200) from generator state r. */
static size_t hex_block(uint8_t *s, size_t n, hudi_lz_step *steps) {
  size_t k = 0, at = 0;
  while (at + 300 < n) {
    uint32_t lit = 1 + rnd() % 30, len = 3 + rnd() % 38;
    for (uint32_t j = 0; j < lit; j++) s[at + j] = (uint8_t)"0123456789abcdef"[rnd() % 16];
    at += lit;
    uint32_t dist = 1 + rnd() % (at < 200 ? (uint32_t)at : 200u);
    for (uint32_t j = 0; j < len; j++) s[at + j] = s[at + j - dist];
    steps[k++] = (hudi_lz_step){lit, len, dist};
    at += len;
  }
  steps[k++] = (hudi_lz_step){0, 0, 0};
  return at;
}

/* Codes from 16 hex blocks; with `all_bytes`, every byte value twice more
 * (so each has a long code). */
static hudi_deflate_codes *hex_codes(bool all_bytes) {
  enum { N = 4096 };
  static uint8_t s[N];
  static hudi_lz_step steps[N];
  hudi_deflate_counts c;
  memset(&c, 0, sizeof c);
  for (int b = 0; b < 16; b++) {
    hex_block(s, N, steps);
    size_t k = 0;
    while (steps[k].lit || steps[k].len) k++;
    hudi_deflate_counts_add(&c, s, steps, k + 1);
  }
  if (all_bytes)
    for (int v = 0; v < 256; v++) c.lit[v] += 2;
  return hudi_deflate_codes_new(&c);
}

/* The same stream with the shared codes as without them (the block's own
 * codes or stored blocks); returns its size. */
static size_t same_as_own(const uint8_t *src, size_t n, const hudi_lz_step *steps, size_t k,
                          const hudi_deflate_codes *codes, uint8_t *first) {
  uint8_t *a = NULL, *o = NULL;
  size_t za = round_trip_codes(src, n, steps, k, codes, &a);
  size_t zo = round_trip_codes(src, n, steps, k, NULL, &o);
  assert_int_equal(za, zo);
  assert_memory_equal(a, o, zo);
  *first = a[0];
  free(a);
  free(o);
  return za;
}

/* Shared codes (hudi_deflate_codes): built from sample counts, they code
 * blocks of the same kind (the output differs from the block's own codes:
 * it was taken), and a block with a symbol they lack (a literal, a length,
 * a distance) builds its own; zlib inflates every stream back. */
static void test_shared_codes(void **st) {
  (void)st;
  enum { N = 4096 };
  static uint8_t s[N];
  static hudi_lz_step steps[N];
  hudi_deflate_codes *codes = hex_codes(false);
  assert_non_null(codes);
  size_t shared_total = 0, own_total = 0;
  for (int b = 0; b < 8; b++) {
    size_t n = hex_block(s, N, steps), k = 0;
    while (steps[k].lit || steps[k].len) k++;
    uint8_t *a = NULL, *o = NULL;
    size_t za = round_trip_codes(s, n, steps, k + 1, codes, &a);
    size_t zo = round_trip_codes(s, n, steps, k + 1, NULL, &o);
    assert_true(za != zo || memcmp(a, o, za) != 0);
    shared_total += za;
    own_total += zo;
    free(a);
    free(o);
  }
  assert_true(shared_total * 100 <= own_total * 105);
  /* Symbols the sample never had: a literal ('z') with a distance (30000)
   * and a length (258), then the distance alone: the block's own codes,
   * byte for byte. */
  static uint8_t big[40000];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)"0123456789abcdef"[rnd() % 16];
  big[5] = 'z';
  for (size_t i = 30010; i < 30010 + 258; i++) big[i] = big[i - 30000];
  hudi_lz_step odd[3] = {{30010, 258, 30000}, {(uint32_t)(sizeof big - 30010 - 258), 0, 0}};
  uint8_t first;
  same_as_own(big, sizeof big, odd, 2, codes, &first);
  big[5] = '0';
  odd[0] = (hudi_lz_step){30010, 3, 30000}; /* distance only */
  for (size_t i = 30010; i < 30013; i++) big[i] = big[i - 30000];
  odd[1] = (hudi_lz_step){(uint32_t)(sizeof big - 30013), 0, 0};
  same_as_own(big, sizeof big, odd, 2, codes, &first);
  hudi_deflate_codes_free(codes);
}

/* The shared codes are written without counting the block first: a
 * symbol they lack found while writing (a literal at the block's end, a
 * length alone) gives the block's own codes after all, and a block the
 * codes would make no smaller than storing it (random bytes; a block
 * shorter than the codes' header) is stored; each byte for byte what the
 * counting decision gives. */
static void test_shared_codes_fallbacks(void **st) {
  (void)st;
  enum { N = 4096 };
  static uint8_t s[N];
  static hudi_lz_step steps[N];
  hudi_deflate_codes *codes = hex_codes(false);
  assert_non_null(codes);
  uint8_t first;
  /* a literal the sample never had, as the block's last byte */
  size_t n = hex_block(s, N - 1, steps), k = 0;
  while (steps[k].lit || steps[k].len) k++;
  s[n] = 'z';
  steps[k].lit = 1;
  same_as_own(s, n + 1, steps, k + 1, codes, &first);
  assert_int_equal(first & 6, 4); /* dynamic Huffman */
  /* a length the sample never had (258), from a distance it had (100) */
  n = hex_block(s, N - 300, steps), k = 0;
  while (steps[k].lit || steps[k].len) k++;
  for (size_t i = n; i < n + 258; i++) s[i] = s[i - 100];
  steps[k] = (hudi_lz_step){0, 258, 100};
  steps[k + 1] = (hudi_lz_step){0, 0, 0};
  same_as_own(s, n + 258, steps, k + 2, codes, &first);
  assert_int_equal(first & 6, 4);
  /* shorter than the codes' header: stored */
  memcpy(s, "0123456789", 10);
  hudi_lz_step lit10 = {10, 0, 0};
  assert_int_equal(same_as_own(s, 10, &lit10, 1, codes, &first), 15);
  assert_int_equal(first, 1); /* final, stored */
  hudi_deflate_codes_free(codes);
  /* random bytes with codes for every byte (the rare ones long): the
   * writing stops once it passes the stored size */
  codes = hex_codes(true);
  assert_non_null(codes);
  for (size_t i = 0; i < N; i++) s[i] = (uint8_t)rnd();
  hudi_lz_step all = {N, 0, 0};
  assert_int_equal(same_as_own(s, N, &all, 1, codes, &first), N + 5);
  assert_int_equal(first, 1);
  hudi_deflate_codes_free(codes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_copy_lengths), cmocka_unit_test(test_distances), cmocka_unit_test(test_overlap_and_mixed),
      cmocka_unit_test(test_literals),     cmocka_unit_test(test_stored_fallback),
      cmocka_unit_test(test_large_near_stored), cmocka_unit_test(test_shared_codes),
      cmocka_unit_test(test_shared_codes_fallbacks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

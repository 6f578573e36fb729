/* Codecs: round trips, samples made by independent implementations
 * (data/make_samples.py: Python's zlib/gzip, pyarrow's snappy/zstd/lz4),
 * corrupt input, wrong sizes, caps, and allocation failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "codec/codec.h"

#define DATA_DIR HUDI_SOURCE_DIR "/tests/unit/codec/data/"

static const hudi_codec all_codecs[] = {HUDI_CODEC_NONE, HUDI_CODEC_SNAPPY, HUDI_CODEC_GZIP,
                                        HUDI_CODEC_DEFLATE, HUDI_CODEC_ZSTD, HUDI_CODEC_LZ4_RAW};
#define N_CODECS (sizeof all_codecs / sizeof all_codecs[0])

static uint8_t *read_file(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s%s", DATA_DIR, name);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)n + 1);
  assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return p;
}

/* Varied inputs: empty, one byte, runs, text, pseudo-random, large. */
static uint8_t *make_input(int kind, size_t *len) {
  static const size_t sizes[] = {0, 1, 100, 4096, 65537, 1 << 20};
  size_t n = sizes[kind % 6];
  uint8_t *p = malloc(n + 1);
  uint32_t x = 2463534242u + (uint32_t)kind;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    switch (kind / 6) {
      case 0: p[i] = (uint8_t)(x & 0xff); break;              /* incompressible */
      case 1: p[i] = (uint8_t)"abcabcabd"[i % 9]; break;      /* repetitive */
      default: p[i] = (uint8_t)((x & 7) == 0 ? x >> 8 : 'a'); /* mostly runs */
    }
  }
  *len = n;
  return p;
}

static void round_trips(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t c = 0; c < N_CODECS; c++) {
    for (int kind = 0; kind < 18; kind++) {
      size_t n;
      uint8_t *in = make_input(kind, &n);
      hudi_buf z;
      hudi_buf_init(&z, 0);
      assert_int_equal(hudi_codec_compress(all_codecs[c], 0, in, n, &z, &err), HUDI_OK);
      uint8_t *back = malloc(n + 1);
      hudi_status st = hudi_codec_decompress(all_codecs[c], z.data, z.len, back, n, &err);
      if (st != HUDI_OK) fail_msg("%s kind %d: %s", hudi_codec_name(all_codecs[c]), kind, err.message);
      assert_memory_equal(back, in, n);
      hudi_buf u;
      hudi_buf_init(&u, 0);
      st = hudi_codec_decompress_unsized(all_codecs[c], z.data, z.len, &u, &err);
      if (st != HUDI_OK) fail_msg("%s kind %d unsized: %s", hudi_codec_name(all_codecs[c]), kind, err.message);
      assert_int_equal(u.len, n);
      if (n) assert_memory_equal(u.data, in, n);
      hudi_buf_free(&u);
      hudi_buf_free(&z);
      free(back);
      free(in);
    }
  }
}

static void compression_levels(void **state) {
  (void)state;
  size_t n;
  uint8_t *in = make_input(9, &n);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_codec codecs[] = {HUDI_CODEC_GZIP, HUDI_CODEC_DEFLATE, HUDI_CODEC_ZSTD};
  for (int c = 0; c < 3; c++) {
    hudi_buf fast, best;
    hudi_buf_init(&fast, 0);
    hudi_buf_init(&best, 0);
    assert_int_equal(hudi_codec_compress(codecs[c], 1, in, n, &fast, &err), HUDI_OK);
    assert_int_equal(hudi_codec_compress(codecs[c], 9, in, n, &best, &err), HUDI_OK);
    assert_true(best.len <= fast.len);
    assert_true(fast.len < n / 4); /* repetitive input compresses */
    hudi_buf_free(&fast);
    hudi_buf_free(&best);
  }
  free(in);
}

static void check_sample(hudi_codec codec, const char *name) {
  size_t plen, zlen;
  uint8_t *payload = read_file("payload.bin", &plen);
  uint8_t *z = read_file(name, &zlen);
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t *out = malloc(plen);
  hudi_status st = hudi_codec_decompress(codec, z, zlen, out, plen, &err);
  if (st != HUDI_OK) fail_msg("%s: %s", name, err.message);
  assert_memory_equal(out, payload, plen);
  hudi_buf u;
  hudi_buf_init(&u, 0);
  st = hudi_codec_decompress_unsized(codec, z, zlen, &u, &err);
  if (st != HUDI_OK) fail_msg("%s unsized: %s", name, err.message);
  assert_int_equal(u.len, plen);
  assert_memory_equal(u.data, payload, plen);
  /* A cap one byte short of the payload is a LIMIT, not corruption (LZ4
   * and snappy find it through their own paths). */
  hudi_buf small;
  hudi_buf_init(&small, plen - 1);
  assert_int_equal(hudi_codec_decompress_unsized(codec, z, zlen, &small, &err), HUDI_ERR_LIMIT);
  hudi_buf_free(&small);
  /* The wrong expected size is corrupt: one less and one more. */
  assert_int_equal(hudi_codec_decompress(codec, z, zlen, out, plen - 1, &err), HUDI_ERR_CORRUPT);
  uint8_t *big = malloc(plen + 1);
  assert_int_equal(hudi_codec_decompress(codec, z, zlen, big, plen + 1, &err), HUDI_ERR_CORRUPT);
  free(big);
  hudi_buf_free(&u);
  free(out);
  free(z);
  free(payload);
}

static void oracle_samples(void **state) {
  (void)state;
  check_sample(HUDI_CODEC_SNAPPY, "payload.snappy");
  check_sample(HUDI_CODEC_GZIP, "payload.gz");
  check_sample(HUDI_CODEC_GZIP, "payload_members.gz");
  check_sample(HUDI_CODEC_GZIP, "payload.zlib"); /* zlib framing is accepted as GZIP */
  check_sample(HUDI_CODEC_DEFLATE, "payload.deflate");
  check_sample(HUDI_CODEC_ZSTD, "payload.zst");
  check_sample(HUDI_CODEC_LZ4_RAW, "payload.lz4raw");
}

/* Truncations and bit flips of the samples never crash, and truncations
 * are always reported as corrupt. */
static void corrupt_samples(void **state) {
  (void)state;
  static const struct { hudi_codec codec; const char *name; } samples[] = {
      {HUDI_CODEC_SNAPPY, "payload.snappy"}, {HUDI_CODEC_GZIP, "payload.gz"},
      {HUDI_CODEC_DEFLATE, "payload.deflate"}, {HUDI_CODEC_ZSTD, "payload.zst"},
      {HUDI_CODEC_LZ4_RAW, "payload.lz4raw"}};
  size_t plen;
  uint8_t *payload = read_file("payload.bin", &plen);
  uint8_t *out = malloc(plen);
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
    size_t zlen;
    uint8_t *z = read_file(samples[s].name, &zlen);
    size_t cuts[] = {0, 1, 5, zlen / 2, zlen - 1};
    for (size_t i = 0; i < 5; i++) {
      hudi_error_clear(&err);
      assert_int_equal(hudi_codec_decompress(samples[s].codec, z, cuts[i], out, plen, &err), HUDI_ERR_CORRUPT);
      assert_true(strlen(err.message) > 0);
      hudi_buf u;
      hudi_buf_init(&u, 0);
      hudi_status st = hudi_codec_decompress_unsized(samples[s].codec, z, cuts[i], &u, &err);
      /* Deflate has no trailer: a raw stream cut exactly at a block
       * boundary may still be rejected only as truncated; lz4 blocks can
       * decode a prefix to some shorter size. Either way not OK for the
       * larger cuts of self-delimiting formats. */
      if (samples[s].codec != HUDI_CODEC_LZ4_RAW) assert_int_equal(st, HUDI_ERR_CORRUPT);
      hudi_buf_free(&u);
    }
    /* Bit flips anywhere: every outcome is a status, never a crash. */
    uint8_t *m = malloc(zlen);
    for (size_t pos = 0; pos < zlen; pos += 7) {
      memcpy(m, z, zlen);
      m[pos] ^= (uint8_t)(1u << (pos % 8));
      hudi_status st = hudi_codec_decompress(samples[s].codec, m, zlen, out, plen, &err);
      assert_true(st == HUDI_OK || st == HUDI_ERR_CORRUPT);
      hudi_buf u;
      hudi_buf_init(&u, 1 << 20);
      st = hudi_codec_decompress_unsized(samples[s].codec, m, zlen, &u, &err);
      assert_true(st == HUDI_OK || st == HUDI_ERR_CORRUPT || st == HUDI_ERR_LIMIT);
      hudi_buf_free(&u);
    }
    free(m);
    free(z);
  }
  /* Garbage is never data. */
  uint8_t junk[64];
  memset(junk, 0xff, sizeof junk);
  for (size_t c = 1; c < N_CODECS; c++)
    assert_int_equal(hudi_codec_decompress(all_codecs[c], junk, sizeof junk, out, plen, &err), HUDI_ERR_CORRUPT);
  /* gzip with trailing garbage after a member is corrupt. */
  size_t zlen;
  uint8_t *z = read_file("payload.gz", &zlen);
  uint8_t *t = malloc(zlen + 3);
  memcpy(t, z, zlen);
  memcpy(t + zlen, "xyz", 3);
  assert_int_equal(hudi_codec_decompress(HUDI_CODEC_GZIP, t, zlen + 3, out, plen, &err), HUDI_ERR_CORRUPT);
  free(t);
  free(z);
  free(out);
  free(payload);
}

static void none_codec_and_names(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t out[4];
  assert_int_equal(hudi_codec_decompress(HUDI_CODEC_NONE, (const uint8_t *)"abc", 3, out, 4, &err),
                   HUDI_ERR_CORRUPT);
  assert_int_equal(hudi_codec_decompress(HUDI_CODEC_NONE, (const uint8_t *)"abcd", 4, out, 4, &err), HUDI_OK);
  assert_memory_equal(out, "abcd", 4);
  assert_string_equal(hudi_codec_name(HUDI_CODEC_LZ4_RAW), "lz4_raw");
  assert_int_equal(hudi_codec_decompress((hudi_codec)99, out, 1, out, 1, &err), HUDI_ERR_UNSUPPORTED);
  hudi_buf b;
  hudi_buf_init(&b, 2);
  assert_int_equal(hudi_codec_decompress_unsized(HUDI_CODEC_NONE, out, 3, &b, &err), HUDI_ERR_LIMIT);
  hudi_buf_free(&b);
}

/* A tiny input that inflates to a lot hits the cap, not memory. */
static void bomb_hits_cap(void **state) {
  (void)state;
  size_t n = 8 << 20;
  uint8_t *zeros = calloc(n, 1);
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t c = 1; c < N_CODECS; c++) {
    hudi_buf z;
    hudi_buf_init(&z, 0);
    assert_int_equal(hudi_codec_compress(all_codecs[c], 0, zeros, n, &z, &err), HUDI_OK);
    hudi_buf u;
    hudi_buf_init(&u, 1 << 20);
    hudi_status st = hudi_codec_decompress_unsized(all_codecs[c], z.data, z.len, &u, &err);
    if (st != HUDI_ERR_LIMIT) fail_msg("%s: %d %s", hudi_codec_name(all_codecs[c]), st, err.message);
    assert_true(u.cap <= (1 << 20));
    hudi_buf_free(&u);
    hudi_buf_free(&z);
  }
  free(zeros);
}

/* Allocation failures surface as NOMEM (or LIMIT/OK), never a crash or leak. */
static void allocation_failures(void **state) {
  (void)state;
  size_t n;
  uint8_t *in = make_input(9, &n);
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t c = 1; c < N_CODECS; c++) {
    for (long k = 0; k < 12; k++) {
      hudi_buf z, u;
      hudi_buf_init(&z, 0);
      hudi_buf_init(&u, 0);
      hudi_alloc_fail_after(k);
      hudi_status st = hudi_codec_compress(all_codecs[c], 0, in, n, &z, &err);
      if (st == HUDI_OK) st = hudi_codec_decompress_unsized(all_codecs[c], z.data, z.len, &u, &err);
      hudi_alloc_fail_after(-1);
      assert_true(st == HUDI_OK || st == HUDI_ERR_NOMEM);
      if (st == HUDI_OK) assert_memory_equal(u.data, in, n);
      hudi_buf_free(&z);
      hudi_buf_free(&u);
    }
  }
  free(in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(round_trips),        cmocka_unit_test(compression_levels),
      cmocka_unit_test(oracle_samples),     cmocka_unit_test(corrupt_samples),
      cmocka_unit_test(none_codec_and_names), cmocka_unit_test(bomb_hits_cap),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

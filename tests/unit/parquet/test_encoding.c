/* Parquet encodings: the worked examples of Encodings.md (apache/parquet-
 * format), encoder/decoder round trips over varied data, and malformed
 * input. Decoding of real pyarrow- and Spark-written pages is checked in
 * test_pyarrow_files.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/bitpack.h"
#include "parquet/encoding.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Encodings.md: values 0..7 with bit width 3, bit-packed in the hybrid:
 * header (1 group << 1 | 1) then 10001000 11000110 11111010. */
static void rle_spec_example(void **state) {
  (void)state;
  const uint8_t enc[] = {0x03, 0x88, 0xc6, 0xfa};
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_rle_decoder d;
  uint32_t out[8];
  assert_int_equal(hudi_pq_rle_decoder_init(&d, enc, sizeof enc, 3, &err), HUDI_OK);
  assert_int_equal(hudi_pq_rle_decode(&d, out, 8, &err), HUDI_OK);
  for (uint32_t i = 0; i < 8; i++) assert_int_equal(out[i], i);
  /* Our encoder writes the same bytes. */
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_rle_encode(&b, out, 8, 3, &err), HUDI_OK);
  assert_int_equal(b.len, sizeof enc);
  assert_memory_equal(b.data, enc, sizeof enc);
  hudi_buf_free(&b);
  /* An RLE run: 100 times the value 5 at width 3 -> header 200, one byte. */
  const uint8_t run[] = {0xc8, 0x01, 0x05};
  uint32_t many[100];
  assert_int_equal(hudi_pq_rle_decoder_init(&d, run, sizeof run, 3, &err), HUDI_OK);
  assert_int_equal(hudi_pq_rle_decode(&d, many, 100, &err), HUDI_OK);
  for (int i = 0; i < 100; i++) assert_int_equal(many[i], 5);
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_rle_encode(&b, many, 100, 3, &err), HUDI_OK);
  assert_int_equal(b.len, sizeof run);
  assert_memory_equal(b.data, run, sizeof run);
  hudi_buf_free(&b);
  /* Asking for more than is there fails. */
  assert_int_equal(hudi_pq_rle_decoder_init(&d, run, sizeof run, 3, &err), HUDI_OK);
  assert_int_equal(hudi_pq_rle_decode(&d, many, 100, &err), HUDI_OK);
  assert_int_equal(hudi_pq_rle_decode(&d, many, 1, &err), HUDI_ERR_CORRUPT);
  /* A run value wider than the bit width is corrupt. */
  const uint8_t wide[] = {0x02, 0x09};
  assert_int_equal(hudi_pq_rle_decoder_init(&d, wide, sizeof wide, 3, &err), HUDI_OK);
  assert_int_equal(hudi_pq_rle_decode(&d, many, 1, &err), HUDI_ERR_CORRUPT);
}

/* Encodings.md, BIT_PACKED (deprecated): 0..7 at width 3, MSB first:
 * 00000101 00111001 01110111. */
static void bit_packed_levels_spec_example(void **state) {
  (void)state;
  const uint8_t enc[] = {0x05, 0x39, 0x77};
  int16_t out[8];
  size_t used;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_pq_levels_decode(out, 8, 7, HUDI_PQ_ENC_BIT_PACKED, enc, 3, &used, &err), HUDI_OK);
  assert_int_equal(used, 3);
  for (int i = 0; i < 8; i++) assert_int_equal(out[i], i);
  /* A max level of 6 makes the 7 corrupt. */
  assert_int_equal(hudi_pq_levels_decode(out, 8, 6, HUDI_PQ_ENC_BIT_PACKED, enc, 3, &used, &err), HUDI_ERR_CORRUPT);
}

static void rle_round_trips(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  size_t n = 5000;
  uint32_t *v = malloc(n * sizeof *v), *back = malloc(n * sizeof *back);
  for (int bw = 0; bw <= 32; bw++) {
    uint32_t mask = bw == 32 ? UINT32_MAX : ((1u << bw) - 1);
    for (int pattern = 0; pattern < 3; pattern++) {
      for (size_t i = 0; i < n; i++) {
        if (pattern == 0) v[i] = (uint32_t)rnd() & mask;                       /* literal */
        else if (pattern == 1) v[i] = (uint32_t)((i / 37) * 2654435761u) & mask; /* runs of 37 */
        else v[i] = (i % 50 < 9 ? (uint32_t)rnd() : 1u) & mask;                /* mixed */
      }
      for (size_t len = 0; len <= n; len += len < 20 ? 1 : 997) {
        hudi_buf b;
        hudi_buf_init(&b, 0);
        assert_int_equal(hudi_pq_rle_encode(&b, v, len, bw, &err), HUDI_OK);
        hudi_pq_rle_decoder d;
        assert_int_equal(hudi_pq_rle_decoder_init(&d, b.data, b.len, bw, &err), HUDI_OK);
        assert_int_equal(hudi_pq_rle_decode(&d, back, len, &err), HUDI_OK);
        if (len) assert_memory_equal(back, v, len * sizeof *v);
        /* Runs compress: pattern 1 needs far less than literal packing. */
        if (pattern == 1 && len == n && bw > 4) assert_true(b.len < (size_t)bw * n / 8 / 4);
        hudi_buf_free(&b);
      }
    }
  }
  free(v);
  free(back);
}

static void levels_round_trip_and_prefix(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  int16_t lv[1000], back[1000];
  for (int i = 0; i < 1000; i++) lv[i] = (int16_t)(rnd() % 4);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_levels_encode(&b, lv, 1000, 3, 1, &err), HUDI_OK);
  uint32_t prefix = (uint32_t)b.data[0] | (uint32_t)b.data[1] << 8;
  assert_int_equal(prefix, b.len - 4);
  assert_int_equal(hudi_buf_append(&b, "tail", 4, &err), HUDI_OK);
  size_t used;
  assert_int_equal(hudi_pq_levels_decode(back, 1000, 3, HUDI_PQ_ENC_RLE, b.data, b.len, &used, &err), HUDI_OK);
  assert_int_equal(used, b.len - 4);
  assert_memory_equal(back, lv, sizeof lv);
  /* Levels above the maximum are corrupt; a length prefix past the end too. */
  assert_int_equal(hudi_pq_levels_decode(back, 1000, 2, HUDI_PQ_ENC_RLE, b.data, b.len, &used, &err),
                   HUDI_ERR_CORRUPT);
  b.data[1] = 0x7f;
  assert_int_equal(hudi_pq_levels_decode(back, 1000, 3, HUDI_PQ_ENC_RLE, b.data, b.len, &used, &err),
                   HUDI_ERR_CORRUPT);
  hudi_buf_free(&b);
  /* Max level 0: no bytes at all. */
  assert_int_equal(hudi_pq_levels_decode(back, 10, 0, HUDI_PQ_ENC_RLE, NULL, 0, &used, &err), HUDI_OK);
  assert_int_equal(used, 0);
  assert_int_equal(back[9], 0);
}

static void dict_indices(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  uint32_t idx[300], back[300];
  for (int i = 0; i < 300; i++) idx[i] = (uint32_t)(rnd() % 17);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_dict_indices_encode(&b, idx, 300, 17, &err), HUDI_OK);
  assert_int_equal(b.data[0], 5); /* 16 needs 5 bits */
  assert_int_equal(hudi_pq_dict_indices_decode(back, 300, 17, b.data, b.len, &err), HUDI_OK);
  assert_memory_equal(back, idx, sizeof idx);
  /* A dictionary of 16 entries cannot hold index 16. */
  int has16 = 0;
  for (int i = 0; i < 300; i++) has16 |= idx[i] == 16;
  if (has16) assert_int_equal(hudi_pq_dict_indices_decode(back, 300, 16, b.data, b.len, &err), HUDI_ERR_CORRUPT);
  b.data[0] = 33;
  assert_int_equal(hudi_pq_dict_indices_decode(back, 300, 17, b.data, b.len, &err), HUDI_ERR_CORRUPT);
  hudi_buf_free(&b);
}

/* Encodings.md example 1: 1,2,3,4,5 -> deltas 1,1,1,1: min delta 1, width 0.
 * With block 128 / 4 miniblocks: 80 01 04 05 02 | 02 00 00 00 00. */
static void delta_spec_example(void **state) {
  (void)state;
  const uint8_t enc[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
  int32_t out[5];
  size_t used;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_pq_delta_decode(out, 5, 4, enc, sizeof enc, &used, &err), HUDI_OK);
  assert_int_equal(used, sizeof enc);
  for (int i = 0; i < 5; i++) assert_int_equal(out[i], i + 1);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_delta_encode(&b, out, 5, 4, &err), HUDI_OK);
  assert_int_equal(b.len, sizeof enc);
  assert_memory_equal(b.data, enc, sizeof enc);
  hudi_buf_free(&b);
  /* Example 2: 7, 5, 3, 1, 2, 3, 4, 5: seven deltas -2 -2 -2 1 1 1 1, min -2,
   * packed 0 0 0 3 3 3 3 at width 2. */
  int32_t v2[] = {7, 5, 3, 1, 2, 3, 4, 5};
  int32_t back[8];
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_delta_encode(&b, v2, 8, 4, &err), HUDI_OK);
  const uint8_t head[] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00, 0x00, 0xc0, 0x3f};
  assert_memory_equal(b.data, head, sizeof head);
  assert_int_equal(b.len, 12 + 6); /* 32 values at width 2 = 8 bytes, 2 of them above */
  assert_int_equal(hudi_pq_delta_decode(back, 8, 4, b.data, b.len, &used, &err), HUDI_OK);
  assert_memory_equal(back, v2, sizeof v2);
  /* A count mismatch, a bad block size and truncation are corrupt. */
  assert_int_equal(hudi_pq_delta_decode(back, 7, 4, b.data, b.len, &used, &err), HUDI_ERR_CORRUPT);
  assert_int_equal(hudi_pq_delta_decode(back, 8, 4, b.data, b.len - 1, &used, &err), HUDI_ERR_CORRUPT);
  b.data[0] = 0x81;
  assert_int_equal(hudi_pq_delta_decode(back, 8, 4, b.data, b.len, &used, &err), HUDI_ERR_CORRUPT);
  hudi_buf_free(&b);
}

static void delta_round_trips(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  size_t n = 1000;
  int64_t *v = malloc(n * 8), *back = malloc(n * 8);
  int32_t *v32 = malloc(n * 4), *b32 = malloc(n * 4);
  for (int pattern = 0; pattern < 4; pattern++) {
    for (size_t i = 0; i < n; i++) {
      switch (pattern) {
        case 0: v[i] = (int64_t)rnd(); break;                          /* full range: wrapping deltas */
        case 1: v[i] = (int64_t)i * 1000 + (int64_t)(rnd() % 10); break; /* sorted */
        case 2: v[i] = i % 2 ? INT64_MAX : INT64_MIN; break;           /* extreme deltas */
        default: v[i] = 42; break;                                     /* constant: width 0 */
      }
      v32[i] = pattern == 2 ? (i % 2 ? INT32_MAX : INT32_MIN) : (int32_t)v[i];
    }
    for (size_t len = 0; len <= n; len += len < 140 ? 1 : 301) {
      hudi_buf b;
      size_t used;
      hudi_buf_init(&b, 0);
      assert_int_equal(hudi_pq_delta_encode(&b, v, len, 8, &err), HUDI_OK);
      assert_int_equal(hudi_pq_delta_decode(back, len, 8, b.data, b.len, &used, &err), HUDI_OK);
      assert_int_equal(used, b.len);
      if (len) assert_memory_equal(back, v, len * 8);
      hudi_buf_reset(&b);
      assert_int_equal(hudi_pq_delta_encode(&b, v32, len, 4, &err), HUDI_OK);
      assert_int_equal(hudi_pq_delta_decode(b32, len, 4, b.data, b.len, &used, &err), HUDI_OK);
      assert_int_equal(used, b.len);
      if (len) assert_memory_equal(b32, v32, len * 4);
      /* INT32 data never packs wider than 32 bits. */
      hudi_buf_free(&b);
    }
  }
  free(v); free(back); free(v32); free(b32);
}

static void make_strings(hudi_buf *data, int32_t *offsets, size_t n) {
  static const char *words[] = {"axis", "axle", "babble", "babyhood", "", "b", "ba", "hoodie"};
  hudi_error err = HUDI_ERROR_INIT;
  offsets[0] = 0;
  for (size_t i = 0; i < n; i++) {
    const char *w = words[rnd() % 8];
    assert_int_equal(hudi_buf_append_str(data, w, &err), HUDI_OK);
    if (rnd() % 3 == 0) assert_int_equal(hudi_buf_printf(data, &err, "%zu", i), HUDI_OK);
    offsets[i + 1] = (int32_t)data->len;
  }
}

/* Encodings.md's DELTA_BYTE_ARRAY example: axis, axle, babble, babyhood
 * -> prefixes 0 2 0 3, suffixes axis le babble yhood. */
static void delta_byte_array_spec_example(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  const char *s = "axisaxlebabblebabyhood";
  int32_t off[] = {0, 4, 8, 14, 22};
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_delta_byte_array_encode(&b, (const uint8_t *)s, off, 4, &err), HUDI_OK);
  /* prefix lengths section: decode it alone */
  int32_t pre[4];
  size_t used;
  assert_int_equal(hudi_pq_delta_decode(pre, 4, 4, b.data, b.len, &used, &err), HUDI_OK);
  assert_int_equal(pre[0], 0); assert_int_equal(pre[1], 2); assert_int_equal(pre[2], 0); assert_int_equal(pre[3], 3);
  /* the rest is DELTA_LENGTH_BYTE_ARRAY of the suffixes */
  hudi_buf sfx;
  hudi_buf_init(&sfx, 0);
  int32_t so[5] = {0};
  size_t used2;
  assert_int_equal(hudi_pq_delta_length_decode(&sfx, so, 4, b.data + used, b.len - used, &used2, &err), HUDI_OK);
  assert_int_equal(sfx.len, 17);
  assert_memory_equal(sfx.data, "axislebabbleyhood", 17);
  assert_int_equal(used + used2, b.len);
  hudi_buf out;
  hudi_buf_init(&out, 0);
  int32_t oo[5] = {0};
  assert_int_equal(hudi_pq_delta_byte_array_decode(&out, oo, 4, b.data, b.len, &used, &err), HUDI_OK);
  assert_memory_equal(out.data, s, 22);
  assert_memory_equal(oo, off, sizeof off);
  hudi_buf_free(&out);
  hudi_buf_free(&sfx);
  hudi_buf_free(&b);
}

static void byte_array_round_trips(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  size_t n = 700;
  int32_t *off = malloc((n + 1) * 4), *back_off = malloc((n + 1) * 4);
  hudi_buf data;
  hudi_buf_init(&data, 0);
  make_strings(&data, off, n);
  for (int enc = 0; enc < 3; enc++) {
    hudi_buf b, out;
    hudi_buf_init(&b, 0);
    hudi_buf_init(&out, 0);
    /* Start at a non-empty output to check offsets are absolute. */
    assert_int_equal(hudi_buf_append(&out, "zz", 2, &err), HUDI_OK);
    back_off[0] = 2;
    size_t used;
    hudi_status st;
    if (enc == 0) {
      assert_int_equal(hudi_pq_plain_encode_byte_array(&b, data.data, off, n, &err), HUDI_OK);
      st = hudi_pq_plain_decode_byte_array(&out, back_off, n, b.data, b.len, &used, &err);
    } else if (enc == 1) {
      assert_int_equal(hudi_pq_delta_length_encode(&b, data.data, off, n, &err), HUDI_OK);
      st = hudi_pq_delta_length_decode(&out, back_off, n, b.data, b.len, &used, &err);
    } else {
      assert_int_equal(hudi_pq_delta_byte_array_encode(&b, data.data, off, n, &err), HUDI_OK);
      st = hudi_pq_delta_byte_array_decode(&out, back_off, n, b.data, b.len, &used, &err);
    }
    assert_int_equal(st, HUDI_OK);
    assert_int_equal(used, b.len);
    for (size_t i = 0; i <= n; i++) assert_int_equal(back_off[i], off[i] + 2);
    assert_memory_equal(out.data + 2, data.data, data.len);
    /* Every truncation fails cleanly (or, for PLAIN, decodes fewer bytes
     * only if the cut falls where it cannot matter: never here). */
    for (size_t cut = 0; cut < b.len; cut += 1 + b.len / 50) {
      hudi_buf_reset(&out);
      back_off[0] = 0;
      if (enc == 0) st = hudi_pq_plain_decode_byte_array(&out, back_off, n, b.data, cut, &used, &err);
      else if (enc == 1) st = hudi_pq_delta_length_decode(&out, back_off, n, b.data, cut, &used, &err);
      else st = hudi_pq_delta_byte_array_decode(&out, back_off, n, b.data, cut, &used, &err);
      assert_int_equal(st, HUDI_ERR_CORRUPT);
    }
    hudi_buf_free(&b);
    hudi_buf_free(&out);
  }
  hudi_buf_free(&data);
  free(off);
  free(back_off);
}

static void plain_fixed_and_bss(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  static const struct { hudi_pq_type type; int32_t len; size_t width; } types[] = {
      {HUDI_PQ_INT32, 0, 4}, {HUDI_PQ_INT64, 0, 8}, {HUDI_PQ_INT96, 0, 12}, {HUDI_PQ_FLOAT, 0, 4},
      {HUDI_PQ_DOUBLE, 0, 8}, {HUDI_PQ_FIXED_LEN_BYTE_ARRAY, 5, 5}};
  size_t n = 333;
  uint8_t *v = malloc(n * 12), *back = malloc(n * 12);
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    size_t w = types[t].width;
    assert_int_equal(hudi_pq_value_size(types[t].type, types[t].len), w);
    for (size_t i = 0; i < n * w; i++) v[i] = (uint8_t)rnd();
    hudi_buf b;
    hudi_buf_init(&b, 0);
    assert_int_equal(hudi_pq_plain_encode_fixed(&b, v, n, types[t].type, types[t].len, &err), HUDI_OK);
    assert_int_equal(b.len, n * w);
    size_t used;
    assert_int_equal(hudi_pq_plain_decode_fixed(back, n, types[t].type, types[t].len, b.data, b.len, &used, &err),
                     HUDI_OK);
    assert_memory_equal(back, v, n * w);
    assert_int_equal(hudi_pq_plain_decode_fixed(back, n, types[t].type, types[t].len, b.data, b.len - 1, &used,
                                                &err), HUDI_ERR_CORRUPT);
    hudi_buf_reset(&b);
    assert_int_equal(hudi_pq_bss_encode(&b, v, n, w, &err), HUDI_OK);
    /* Stream k holds byte k of every value. */
    for (size_t k = 0; k < w; k++)
      for (size_t i = 0; i < n; i += 50) assert_int_equal(b.data[k * n + i], v[i * w + k]);
    assert_int_equal(hudi_pq_bss_decode(back, n, w, b.data, b.len, &err), HUDI_OK);
    assert_memory_equal(back, v, n * w);
    assert_int_equal(hudi_pq_bss_decode(back, n, w, b.data, b.len - 1, &err), HUDI_ERR_CORRUPT);
    hudi_buf_free(&b);
  }
  /* BOOLEAN: bit-packed LSB first. 1,0,1,1,0,0,0,0, 1 -> 0x0d 0x01 */
  uint8_t bools[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_plain_encode_fixed(&b, bools, 9, HUDI_PQ_BOOLEAN, 0, &err), HUDI_OK);
  assert_int_equal(b.len, 2);
  assert_int_equal(b.data[0], 0x0d);
  assert_int_equal(b.data[1], 0x01);
  uint8_t bb[9];
  size_t used;
  assert_int_equal(hudi_pq_plain_decode_fixed(bb, 9, HUDI_PQ_BOOLEAN, 0, b.data, 2, &used, &err), HUDI_OK);
  assert_memory_equal(bb, bools, 9);
  assert_int_equal(hudi_pq_plain_decode_fixed(bb, 9, HUDI_PQ_BOOLEAN, 0, b.data, 1, &used, &err), HUDI_ERR_CORRUPT);
  hudi_buf_free(&b);
  free(v);
  free(back);
}

/* hudi_pq_pack32 against the definition, bit by bit: bit b of value i is
 * bit i * bw + b of the output, LSB first. Widths 0..32, every count up to
 * 70 (ends at every byte and word position), values with bits above the
 * width set (they must be dropped), and a guard byte after the span. */
static void pack32_matches_bit_definition(void **state) {
  (void)state;
  uint32_t v[70];
  uint8_t got[70 * 4 + 1], want[70 * 4 + 1];
  for (int bw = 0; bw <= 32; bw++) {
    for (size_t n = 0; n <= 70; n++) {
      for (size_t i = 0; i < n; i++) v[i] = (uint32_t)rnd();
      size_t span = (n * (size_t)bw + 7) / 8;
      memset(got, 0, sizeof got);
      memset(want, 0, sizeof want);
      got[span] = want[span] = 0xA5;
      for (size_t i = 0; i < n; i++)
        for (int b = 0; b < bw; b++) {
          size_t bit = i * (size_t)bw + (size_t)b;
          if (v[i] >> b & 1) want[bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
      hudi_pq_pack32(got, v, n, bw);
      assert_memory_equal(got, want, span + 1);
    }
  }
}

/* The hybrid's run choice, byte for byte, against the rule written out
 * value by value: walk the maximal runs of equal values; one of 8 or more
 * lends the pending literal values what they lack of a whole group of 8,
 * and, if 8 or more are left, ends them and becomes an RLE run. Values are
 * written as (groups << 1 | 1) then LSB-first bits, runs as (count << 1)
 * then the value's ceil(bw / 8) bytes. */
static void ref_literal(uint8_t *o, size_t *len, const uint32_t *v, size_t n, int bw) {
  if (n == 0) return;
  size_t groups = (n + 7) / 8;
  *len += hudi_pq_write_uleb(o + *len, groups << 1 | 1);
  size_t bytes = groups * (size_t)bw;
  memset(o + *len, 0, bytes);
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < bw; b++)
      if (v[i] >> b & 1) {
        size_t bit = i * (size_t)bw + (size_t)b;
        o[*len + bit / 8] |= (uint8_t)(1u << (bit % 8));
      }
  *len += bytes;
}

static size_t ref_rle(uint8_t *o, const uint32_t *v, size_t n, int bw) {
  size_t len = 0, lit = 0;
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && v[j] == v[i]; j++) {
    }
    size_t borrow = (8 - (i - lit) % 8) % 8;
    if (j - i < 8 || j - i - borrow < 8) continue;
    ref_literal(o, &len, v + lit, i + borrow - lit, bw);
    len += hudi_pq_write_uleb(o + len, (uint64_t)(j - i - borrow) << 1);
    for (int k = 0; k < (bw + 7) / 8; k++) o[len++] = (uint8_t)(v[i] >> (8 * k));
    lit = j;
  }
  ref_literal(o, &len, v + lit, n - lit, bw);
  return len;
}

static void rle_runs_match_the_rule(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  enum { N = 3000 };
  static uint32_t v[N];
  static uint8_t want[N * 5 + 64];
  for (int round = 0; round < 400; round++) {
    int bw = 1 + round % 12;
    size_t n = (size_t)(rnd() % N);
    /* Runs of 1 to 20 (every length around 8 and 16), from a few values. */
    for (size_t i = 0; i < n;) {
      uint32_t x = (uint32_t)(rnd() % 3) & ((1u << bw) - 1);
      size_t len = 1 + (size_t)(rnd() % (round % 2 ? 20 : 9));
      for (; len-- && i < n; i++) v[i] = x;
    }
    hudi_buf b;
    hudi_buf_init(&b, 0);
    assert_int_equal(hudi_pq_rle_encode(&b, v, n, bw, &err), HUDI_OK);
    size_t wlen = ref_rle(want, v, n, bw);
    assert_int_equal(b.len, wlen);
    assert_memory_equal(b.data, want, wlen);
    hudi_buf_free(&b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rle_spec_example),
      cmocka_unit_test(bit_packed_levels_spec_example),
      cmocka_unit_test(rle_round_trips),
      cmocka_unit_test(pack32_matches_bit_definition),
      cmocka_unit_test(rle_runs_match_the_rule),
      cmocka_unit_test(levels_round_trip_and_prefix),
      cmocka_unit_test(dict_indices),
      cmocka_unit_test(delta_spec_example),
      cmocka_unit_test(delta_round_trips),
      cmocka_unit_test(delta_byte_array_spec_example),
      cmocka_unit_test(byte_array_round_trips),
      cmocka_unit_test(plain_fixed_and_bss),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The RLE / bit-packed hybrid encoding, levels and dictionary indices. */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/alloc.h"
#include "parquet/bitpack.h"
#include "parquet/encoding.h"

int hudi_pq_bit_width(uint64_t max_value) {
  int w = 0;
  while (max_value) {
    w++;
    max_value >>= 1;
  }
  return w;
}

static hudi_status rle_corrupt(const hudi_pq_rle_decoder *d, const char *what, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet RLE data: %s at byte %zu of %zu", what, d->pos, d->len);
}

hudi_status hudi_pq_rle_decoder_init(hudi_pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width,
                                     hudi_error *err) {
  memset(d, 0, sizeof *d);
  d->data = data;
  d->len = len;
  d->bit_width = bit_width;
  if (bit_width < 0 || bit_width > 32)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet RLE data: bit width %d is out of range", bit_width);
  return HUDI_OK;
}

static hudi_status next_run(hudi_pq_rle_decoder *d, hudi_error *err) {
  uint64_t header;
  if (!hudi_pq_read_uleb(d->data, d->len, &d->pos, &header)) return rle_corrupt(d, "run header runs past the end", err);
  size_t left = d->len - d->pos;
  if (header & 1) {
    uint64_t groups = header >> 1;
    uint64_t values = groups * 8;
    if (groups > UINT32_MAX / 8) values = UINT32_MAX;
    size_t bytes = d->bit_width ? (size_t)(groups > left ? left + 1 : groups * (uint64_t)d->bit_width) : 0;
    if (bytes > left) {
      /* Some writers end the last literal run early: keep what is there. */
      uint64_t fit = (uint64_t)left * 8 / (uint64_t)d->bit_width;
      if (fit < values) values = fit;
      bytes = left;
    }
    d->run_is_literal = 1;
    d->run_left = (uint32_t)values;
    d->bit_pos = d->pos * 8;
    d->pos += bytes;
  } else {
    uint64_t count = header >> 1;
    size_t nbytes = ((size_t)d->bit_width + 7) / 8;
    if (nbytes > left) return rle_corrupt(d, "run value runs past the end", err);
    uint32_t v = 0;
    for (size_t i = 0; i < nbytes; i++) v |= (uint32_t)d->data[d->pos + i] << (8 * i);
    if (d->bit_width < 32 && (v >> d->bit_width)) return rle_corrupt(d, "run value wider than the bit width", err);
    d->pos += nbytes;
    d->run_is_literal = 0;
    d->run_value = v;
    d->run_left = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
  }
  return HUDI_OK;
}

hudi_status hudi_pq_rle_decode(hudi_pq_rle_decoder *d, uint32_t *out, size_t n, hudi_error *err) {
  while (n > 0) {
    if (d->run_left == 0) {
      if (d->pos >= d->len) return rle_corrupt(d, "data ends before all values were read", err);
      HUDI_TRY(next_run(d, err));
      continue;
    }
    size_t take = d->run_left < n ? d->run_left : n;
    if (d->run_is_literal) {
      hudi_pq_unpack32(out, d->data, d->bit_pos, take, d->bit_width);
      d->bit_pos += take * (size_t)d->bit_width;
    } else {
      for (size_t i = 0; i < take; i++) out[i] = d->run_value;
    }
    out += take;
    n -= take;
    d->run_left -= (uint32_t)take;
  }
  return HUDI_OK;
}

/* RLE runs become one checked value filled straight into the levels;
 * bit-packed runs are unpacked in blocks, checked branch-free per block. */
hudi_status hudi_pq_rle_decode_levels(hudi_pq_rle_decoder *d, int16_t *out, size_t n, int16_t max, hudi_error *err) {
  uint32_t tmp[256];
  while (n > 0) {
    if (d->run_left == 0) {
      if (d->pos >= d->len) return rle_corrupt(d, "data ends before all values were read", err);
      HUDI_TRY(next_run(d, err));
      continue;
    }
    size_t take = d->run_left < n ? d->run_left : n;
    if (!d->run_is_literal) {
      if (d->run_value > (uint32_t)max)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet levels: level %u exceeds the maximum %d", d->run_value,
                            max);
      int16_t v = (int16_t)d->run_value;
      for (size_t i = 0; i < take; i++) out[i] = v;
    } else {
      if (take > 256) take = 256;
      hudi_pq_unpack32(tmp, d->data, d->bit_pos, take, d->bit_width);
      d->bit_pos += take * (size_t)d->bit_width;
      uint32_t top = 0;
      for (size_t i = 0; i < take; i++) {
        top = tmp[i] > top ? tmp[i] : top;
        out[i] = (int16_t)tmp[i];
      }
      if (top > (uint32_t)max)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet levels: level %u exceeds the maximum %d", top, max);
    }
    out += take;
    n -= take;
    d->run_left -= (uint32_t)take;
  }
  return HUDI_OK;
}

/* ---- encoder ---- */

static hudi_status emit_literal(hudi_buf *out, const uint32_t *v, size_t n, int bw, hudi_error *err) {
  if (n == 0) return HUDI_OK;
  size_t groups = (n + 7) / 8;
  uint8_t hdr[10];
  size_t hn = hudi_pq_write_uleb(hdr, ((uint64_t)groups << 1) | 1);
  HUDI_TRY(hudi_buf_append(out, hdr, hn, err));
  size_t bytes = groups * (size_t)bw;
  HUDI_TRY(hudi_buf_append_zeros(out, bytes, err));
  hudi_pq_pack32(out->data + out->len - bytes, v, n, bw);
  return HUDI_OK;
}

static hudi_status emit_run(hudi_buf *out, uint32_t value, size_t n, int bw, hudi_error *err) {
  uint8_t hdr[16];
  size_t hn = hudi_pq_write_uleb(hdr, (uint64_t)n << 1);
  for (int i = 0; i < (bw + 7) / 8; i++) hdr[hn++] = (uint8_t)(value >> (8 * i));
  return hudi_buf_append(out, hdr, hn, err);
}

/* The first position at or after b, up to n, whose value is not x; four
 * values per compare where SSE2 is there (near-constant columns make runs
 * of thousands). */
static size_t run_end(const uint32_t *v, size_t n, size_t b, uint32_t x) {
#ifdef __SSE2__
  __m128i want = _mm_set1_epi32((int)x);
  for (; b + 4 <= n; b += 4) {
    __m128i got = _mm_loadu_si128((const __m128i *)(const void *)(v + b));
    int eq = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(got, want)));
    if (eq != 0xf) return b + (size_t)__builtin_ctz((unsigned)~eq & 0xf);
  }
#endif
  while (b < n && v[b] == x) b++;
  return b;
}

/* The next maximal run of 8 or more equal values starting at or after
 * *from: true with it in [*s, *e). Only such runs change the encoding, and
 * each holds a multiple of 8, so probing those positions finds them all
 * with a compare or two per 8 values; the scan value by value it replaced
 * was 3-4% of a bulk load's CPU (dictionary indices mostly change every
 * value). Maximal runs never overlap, so probing on from *e is exact. */
static bool next_long_run(const uint32_t *v, size_t n, size_t from, size_t *s, size_t *e) {
  for (size_t k = (from + 7) / 8 * 8; k < n; k += 8) {
    bool left = k > from && v[k - 1] == v[k], right = k + 1 < n && v[k + 1] == v[k];
    if (!left && !right) continue;
    size_t a = k, b = k + 1;
    while (a > from && v[a - 1] == v[k]) a--;
    b = run_end(v, n, b, v[k]);
    if (b - a >= 8) {
      *s = a;
      *e = b;
      return true;
    }
    k = (b + 7) / 8 * 8 - 8; /* the next probe is the first multiple of 8 at or after b */
  }
  return false;
}

hudi_status hudi_pq_rle_encode(hudi_buf *out, const uint32_t *v, size_t n, int bw, hudi_error *err) {
  if (bw < 0 || bw > 32) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "RLE bit width %d is out of range", bw);
  size_t lit_start = 0, from = 0, i, j;
  while (next_long_run(v, n, from, &i, &j)) {
    size_t run = j - i;
    /* Literal runs hold whole groups of 8: borrow from this run to fill one. */
    size_t borrow = (8 - (i - lit_start) % 8) % 8;
    if (run - borrow >= 8) {
      HUDI_TRY(emit_literal(out, v + lit_start, i + borrow - lit_start, bw, err));
      HUDI_TRY(emit_run(out, v[i], run - borrow, bw, err));
      lit_start = j;
    }
    from = j;
  }
  /* The last literal run is padded with zeros up to a group of 8. */
  return emit_literal(out, v + lit_start, n - lit_start, bw, err);
}

/* ---- levels ---- */

hudi_status hudi_pq_levels_decode(int16_t *out, size_t n, int16_t max_level, int32_t encoding, const uint8_t *data,
                                  size_t len, size_t *consumed, hudi_error *err) {
  if (max_level == 0) {
    memset(out, 0, n * sizeof *out);
    if (consumed) *consumed = 0;
    return HUDI_OK;
  }
  int bw = hudi_pq_bit_width((uint64_t)max_level);
  if (encoding == HUDI_PQ_ENC_RLE) {
    if (len < 4) return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet levels: no room for the length prefix");
    uint32_t n_bytes = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
    if (n_bytes > len - 4)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet levels: length %u exceeds the %zu bytes left", n_bytes,
                          len - 4);
    hudi_pq_rle_decoder d;
    HUDI_TRY(hudi_pq_rle_decoder_init(&d, data + 4, n_bytes, bw, err));
    HUDI_TRY(hudi_pq_rle_decode_levels(&d, out, n, max_level, err));
    if (consumed) *consumed = 4 + (size_t)n_bytes;
    return HUDI_OK;
  }
  if (encoding == HUDI_PQ_ENC_BIT_PACKED) {
    /* Deprecated: MSB-first bit packing of exactly n values. */
    size_t bytes = (size_t)(((uint64_t)n * (uint64_t)bw + 7) / 8);
    if (bytes > len)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet BIT_PACKED levels need %zu bytes, %zu left", bytes, len);
    for (size_t i = 0; i < n; i++) {
      uint32_t v = 0;
      for (int b = 0; b < bw; b++) {
        size_t bit = i * (size_t)bw + (size_t)b;
        v = v << 1 | ((data[bit >> 3] >> (7 - (bit & 7))) & 1);
      }
      if (v > (uint32_t)max_level)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet levels: level %u exceeds the maximum %d", v, max_level);
      out[i] = (int16_t)v;
    }
    if (consumed) *consumed = bytes;
    return HUDI_OK;
  }
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "parquet levels: encoding %d is not supported", encoding);
}

hudi_status hudi_pq_levels_decode_v2(int16_t *out, size_t n, int16_t max_level, const uint8_t *data, size_t len,
                                     hudi_error *err) {
  if (max_level == 0) {
    memset(out, 0, n * sizeof *out);
    return HUDI_OK;
  }
  hudi_pq_rle_decoder d;
  HUDI_TRY(hudi_pq_rle_decoder_init(&d, data, len, hudi_pq_bit_width((uint64_t)max_level), err));
  return hudi_pq_rle_decode_levels(&d, out, n, max_level, err);
}

hudi_status hudi_pq_levels_encode(hudi_buf *out, const int16_t *levels, size_t n, int16_t max_level,
                                  int with_length_prefix, hudi_error *err) {
  if (max_level == 0) return HUDI_OK;
  uint32_t *tmp = hudi_malloc(hudi_mul_size(n ? n : 1, sizeof *tmp));
  if (!tmp) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory encoding levels");
  for (size_t i = 0; i < n; i++) tmp[i] = (uint32_t)(uint16_t)levels[i];
  size_t start = out->len;
  hudi_status st = HUDI_OK;
  if (with_length_prefix) st = hudi_buf_append_zeros(out, 4, err);
  if (st == HUDI_OK) st = hudi_pq_rle_encode(out, tmp, n, hudi_pq_bit_width((uint64_t)max_level), err);
  hudi_free(tmp);
  if (st != HUDI_OK || !with_length_prefix) return st;
  size_t body = out->len - start - 4;
  if (body > UINT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "levels of %zu bytes are too large", body);
  for (int i = 0; i < 4; i++) out->data[start + (size_t)i] = (uint8_t)(body >> (8 * i));
  return HUDI_OK;
}

/* ---- dictionary indices ---- */

hudi_status hudi_pq_dict_indices_decode(uint32_t *out, size_t n, uint32_t dict_size, const uint8_t *data, size_t len,
                                        hudi_error *err) {
  if (n == 0) return HUDI_OK;
  if (len < 1) return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet dictionary indices: no bit width byte");
  hudi_pq_rle_decoder d;
  HUDI_TRY(hudi_pq_rle_decoder_init(&d, data + 1, len - 1, data[0], err));
  HUDI_TRY(hudi_pq_rle_decode(&d, out, n, err));
  for (size_t i = 0; i < n; i++)
    if (out[i] >= dict_size)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet dictionary index %u is past the dictionary's %u entries",
                          out[i], dict_size);
  return HUDI_OK;
}

hudi_status hudi_pq_dict_indices_encode(hudi_buf *out, const uint32_t *indices, size_t n, uint32_t dict_size,
                                        hudi_error *err) {
  int bw = hudi_pq_bit_width(dict_size ? dict_size - 1 : 0);
  HUDI_TRY(hudi_buf_append_byte(out, (uint8_t)bw, err));
  return hudi_pq_rle_encode(out, indices, n, bw, err);
}

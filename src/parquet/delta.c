/* DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.
 * Arithmetic is unsigned so that overflowing deltas wrap, as the spec
 * requires; INT32 values are the low 32 bits of the 64-bit computation. */
#include <string.h>

#include "base/alloc.h"
#include "parquet/bitpack.h"
#include "parquet/encoding.h"
#include "parquet/thrift.h"

#define MAX_BLOCK_SIZE ((uint64_t)1 << 20)

static hudi_status delta_corrupt(const char *what, size_t pos, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet DELTA_BINARY_PACKED: %s at byte %zu", what, pos);
}

static void put_value(void *out, int width, size_t i, uint64_t v) {
  if (width == 4)
    ((uint32_t *)out)[i] = (uint32_t)v;
  else
    ((uint64_t *)out)[i] = v;
}

hudi_status hudi_pq_delta_decode(void *out, size_t n, int width, const uint8_t *data, size_t len, size_t *consumed,
                                 hudi_error *err) {
  if (width != 4 && width != 8) return hudi_err_set(err, HUDI_ERR_INTERNAL, "delta width %d", width);
  size_t pos = 0;
  uint64_t block_size, mb_count, total, first_zz;
  if (!hudi_pq_read_uleb(data, len, &pos, &block_size) || !hudi_pq_read_uleb(data, len, &pos, &mb_count) ||
      !hudi_pq_read_uleb(data, len, &pos, &total) || !hudi_pq_read_uleb(data, len, &pos, &first_zz))
    return delta_corrupt("header runs past the end", pos, err);
  if (block_size == 0 || block_size % 128 || block_size > MAX_BLOCK_SIZE || mb_count == 0 ||
      block_size % mb_count || (block_size / mb_count) % 32)
    return delta_corrupt("bad block or miniblock size", pos, err);
  if (total != n) {
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet DELTA_BINARY_PACKED: header holds %llu values, expected %zu",
                        (unsigned long long)total, n);
  }
  size_t per_mb = (size_t)(block_size / mb_count);
  uint64_t cur = (uint64_t)hudi_zigzag_decode64(first_zz);
  size_t produced = 0;
  if (n > 0) put_value(out, width, produced++, cur);
  while (produced < n) {
    uint64_t min_zz;
    if (!hudi_pq_read_uleb(data, len, &pos, &min_zz)) return delta_corrupt("block header runs past the end", pos, err);
    uint64_t min_delta = (uint64_t)hudi_zigzag_decode64(min_zz);
    if (mb_count > len - pos) return delta_corrupt("miniblock bit widths run past the end", pos, err);
    const uint8_t *widths = data + pos;
    pos += (size_t)mb_count;
    for (size_t m = 0; m < mb_count && produced < n; m++) {
      int bw = widths[m];
      if (bw > width * 8) return delta_corrupt("miniblock bit width too large", pos, err);
      size_t bytes = per_mb * (size_t)bw / 8;
      if (bytes > len - pos) return delta_corrupt("miniblock runs past the end", pos, err);
      size_t take = n - produced < per_mb ? n - produced : per_mb;
      for (size_t i = 0; i < take; i++) {
        cur += min_delta + hudi_pq_get_bits(data + pos, i * (size_t)bw, bw);
        put_value(out, width, produced++, cur);
      }
      pos += bytes;
    }
  }
  if (consumed) *consumed = pos;
  return HUDI_OK;
}

static uint64_t get_value(const void *v, int width, size_t i) {
  return width == 4 ? (uint64_t)(int64_t)((const int32_t *)v)[i] : ((const uint64_t *)v)[i];
}

/* Delta of two values in the value's own width, sign-extended. */
static int64_t value_delta(uint64_t a, uint64_t b, int width) {
  if (width == 4) return (int64_t)(int32_t)(uint32_t)(a - b);
  return (int64_t)(a - b);
}

static hudi_status put_uleb(hudi_buf *out, uint64_t v, hudi_error *err) {
  uint8_t tmp[10];
  return hudi_buf_append(out, tmp, hudi_pq_write_uleb(tmp, v), err);
}

hudi_status hudi_pq_delta_encode(hudi_buf *out, const void *values, size_t n, int width, hudi_error *err) {
  enum { BLOCK = 128, MINIBLOCKS = 4, PER_MB = 32 };
  if (width != 4 && width != 8) return hudi_err_set(err, HUDI_ERR_INTERNAL, "delta width %d", width);
  HUDI_TRY(put_uleb(out, BLOCK, err));
  HUDI_TRY(put_uleb(out, MINIBLOCKS, err));
  HUDI_TRY(put_uleb(out, n, err));
  uint64_t prev = n ? get_value(values, width, 0) : 0;
  HUDI_TRY(put_uleb(out, hudi_zigzag_encode64(width == 4 ? (int64_t)(int32_t)prev : (int64_t)prev), err));
  for (size_t start = 1; start < n; start += BLOCK) {
    size_t cnt = n - start < BLOCK ? n - start : BLOCK;
    int64_t deltas[BLOCK];
    int64_t min_delta = INT64_MAX;
    for (size_t i = 0; i < cnt; i++) {
      uint64_t v = get_value(values, width, start + i);
      deltas[i] = value_delta(v, prev, width);
      if (deltas[i] < min_delta) min_delta = deltas[i];
      prev = v;
    }
    uint64_t packed[BLOCK] = {0};
    uint8_t widths[MINIBLOCKS] = {0};
    for (size_t i = 0; i < cnt; i++) {
      packed[i] = (uint64_t)deltas[i] - (uint64_t)min_delta;
      int bw = hudi_pq_bit_width(packed[i]);
      if (bw > widths[i / PER_MB]) widths[i / PER_MB] = (uint8_t)bw;
    }
    HUDI_TRY(put_uleb(out, hudi_zigzag_encode64(min_delta), err));
    HUDI_TRY(hudi_buf_append(out, widths, MINIBLOCKS, err));
    /* Miniblocks past the last value are not written. */
    for (size_t m = 0; m * PER_MB < cnt; m++) {
      size_t bytes = PER_MB * (size_t)widths[m] / 8;
      HUDI_TRY(hudi_buf_append_zeros(out, bytes, err));
      hudi_pq_pack64(out->data + out->len - bytes, packed + m * PER_MB, PER_MB, widths[m]);
    }
  }
  return HUDI_OK;
}

/* ---- byte arrays ---- */

/* Decodes n int32 lengths with DBP into a new array (free with hudi_free). */
static hudi_status decode_lengths(int32_t **out, size_t n, const uint8_t *data, size_t len, size_t *consumed,
                                  hudi_error *err) {
  *out = hudi_malloc(hudi_mul_size(n ? n : 1, sizeof(int32_t)));
  if (!*out) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory decoding %zu byte array lengths", n);
  hudi_status st = hudi_pq_delta_decode(*out, n, 4, data, len, consumed, err);
  for (size_t i = 0; st == HUDI_OK && i < n; i++)
    if ((*out)[i] < 0) st = hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet delta byte array: negative length %d",
                                         (*out)[i]);
  if (st != HUDI_OK) {
    hudi_free(*out);
    *out = NULL;
  }
  return st;
}

static hudi_status check_room(hudi_buf *values, size_t add, hudi_error *err) {
  if (add > (size_t)INT32_MAX - values->len)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "parquet byte array values exceed 2 GiB in one buffer");
  return hudi_buf_reserve(values, add, err);
}

hudi_status hudi_pq_delta_length_decode(hudi_buf *values, int32_t *offsets, size_t n, const uint8_t *data,
                                        size_t len, size_t *consumed, hudi_error *err) {
  int32_t *lens;
  size_t pos;
  HUDI_TRY(decode_lengths(&lens, n, data, len, &pos, err));
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < n; i++) {
    size_t l = (size_t)lens[i];
    if (l > len - pos) {
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet DELTA_LENGTH_BYTE_ARRAY value %zu: length %zu at byte %zu "
                        "exceeds the %zu bytes left", i, l, pos, len - pos);
      break;
    }
    if ((st = check_room(values, l, err)) != HUDI_OK) break;
    if (l) memcpy(values->data + values->len, data + pos, l);
    values->len += l;
    offsets[i + 1] = (int32_t)values->len;
    pos += l;
  }
  hudi_free(lens);
  if (st == HUDI_OK && consumed) *consumed = pos;
  return st;
}

hudi_status hudi_pq_delta_byte_array_decode(hudi_buf *values, int32_t *offsets, size_t n, const uint8_t *data,
                                            size_t len, size_t *consumed, hudi_error *err) {
  int32_t *prefix, *suffix;
  size_t c1, c2;
  HUDI_TRY(decode_lengths(&prefix, n, data, len, &c1, err));
  hudi_status st = decode_lengths(&suffix, n, data + c1, len - c1, &c2, err);
  if (st != HUDI_OK) {
    hudi_free(prefix);
    return st;
  }
  size_t pos = c1 + c2;
  size_t prev_off = values->len, prev_len = 0;
  for (size_t i = 0; i < n; i++) {
    size_t p = (size_t)prefix[i], s = (size_t)suffix[i];
    if (p > prev_len) {
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet DELTA_BYTE_ARRAY value %zu: prefix %zu is longer than the "
                        "previous value (%zu)", i, p, prev_len);
      break;
    }
    if (s > len - pos) {
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet DELTA_BYTE_ARRAY value %zu: suffix of %zu bytes at byte %zu "
                        "exceeds the %zu bytes left", i, s, pos, len - pos);
      break;
    }
    if ((st = check_room(values, p + s, err)) != HUDI_OK) break;
    size_t start = values->len;
    if (p) memmove(values->data + start, values->data + prev_off, p);
    if (s) memcpy(values->data + start + p, data + pos, s);
    values->len += p + s;
    offsets[i + 1] = (int32_t)values->len;
    pos += s;
    prev_off = start;
    prev_len = p + s;
  }
  hudi_free(prefix);
  hudi_free(suffix);
  if (st == HUDI_OK && consumed) *consumed = pos;
  return st;
}

static hudi_status encode_lengths(hudi_buf *out, size_t n, const int32_t *offsets, const uint8_t *data,
                                  int prefixes, hudi_error *err) {
  int32_t *lens = hudi_malloc(hudi_mul_size(n ? n : 1, sizeof(int32_t)));
  if (!lens) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory encoding %zu lengths", n);
  for (size_t i = 0; i < n; i++) {
    int32_t l = offsets[i + 1] - offsets[i];
    if (prefixes) {
      /* Common prefix with the previous value. */
      int32_t pl = i ? offsets[i] - offsets[i - 1] : 0, k = 0;
      while (k < l && k < pl && data[offsets[i] + k] == data[offsets[i - 1] + k]) k++;
      lens[i] = k;
    } else {
      lens[i] = l;
    }
  }
  hudi_status st = hudi_pq_delta_encode(out, lens, n, 4, err);
  hudi_free(lens);
  return st;
}

hudi_status hudi_pq_delta_length_encode(hudi_buf *out, const uint8_t *data, const int32_t *offsets, size_t n,
                                        hudi_error *err) {
  HUDI_TRY(encode_lengths(out, n, offsets, data, 0, err));
  size_t total = n ? (size_t)(offsets[n] - offsets[0]) : 0;
  return total ? hudi_buf_append(out, data + offsets[0], total, err) : HUDI_OK;
}

hudi_status hudi_pq_delta_byte_array_encode(hudi_buf *out, const uint8_t *data, const int32_t *offsets, size_t n,
                                            hudi_error *err) {
  HUDI_TRY(encode_lengths(out, n, offsets, data, 1, err));
  /* The suffixes follow as DELTA_LENGTH_BYTE_ARRAY. */
  int32_t *sfx_off = hudi_malloc(hudi_mul_size(n + 1, sizeof(int32_t)));
  if (!sfx_off) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory encoding %zu suffixes", n);
  hudi_buf suffixes;
  hudi_buf_init(&suffixes, 0);
  hudi_status st = HUDI_OK;
  sfx_off[0] = 0;
  for (size_t i = 0; i < n && st == HUDI_OK; i++) {
    int32_t l = offsets[i + 1] - offsets[i];
    int32_t pl = i ? offsets[i] - offsets[i - 1] : 0, k = 0;
    while (k < l && k < pl && data[offsets[i] + k] == data[offsets[i - 1] + k]) k++;
    st = hudi_buf_append(&suffixes, data + offsets[i] + k, (size_t)(l - k), err);
    sfx_off[i + 1] = (int32_t)suffixes.len;
  }
  if (st == HUDI_OK) st = hudi_pq_delta_length_encode(out, suffixes.data, sfx_off, n, err);
  hudi_buf_free(&suffixes);
  hudi_free(sfx_off);
  return st;
}

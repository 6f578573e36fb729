#include "base/hash.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>

#include "base/utf8.h"

/* Java ints wrap; C signed overflow is undefined, so all mixing is done on
 * uint32_t and converted back at the end (two's complement, as on every
 * platform we build for). */
static int32_t as_int32(uint32_t v) {
  return v <= INT32_MAX ? (int32_t)v : (int32_t)(v - 0x80000000u) + INT32_MIN;
}

/* A Java byte widened to int: values >= 0x80 become negative. */
static uint32_t java_byte(uint8_t b) { return (uint32_t)(int32_t)(int8_t)b; }

int32_t hudi_murmur2_hadoop(const void *data, size_t len, int32_t seed) {
  const uint8_t *p = data;
  const uint32_t m = 0x5bd1e995u;
  const int r = 24;
  uint32_t h = (uint32_t)seed ^ (uint32_t)len;
  size_t words = len >> 2;
  for (size_t i = 0; i < words; i++, p += 4) {
    /* The high byte's sign extension is shifted out, so whole words read
     * as plain little-endian. */
    uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  /* Java indexes the tail from the end (data[length - 3] << 16, then
   * data[length - 2] << 8, then data[length - 1]): the reverse of the
   * reference MurmurHash2's order for 2- and 3-byte tails. */
  size_t left = len & 3;
  if (left) {
    const uint8_t *end = p + left;
    if (left >= 3) h ^= java_byte(end[-3]) << 16;
    if (left >= 2) h ^= java_byte(end[-2]) << 8;
    h ^= java_byte(end[-1]);
    h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return as_int32(h);
}

/* Whether s[0, n) is all ASCII (8 bytes a step). */
static bool all_ascii(const uint8_t *s, size_t n) {
  size_t i = 0;
  uint64_t acc = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    acc |= w;
  }
  for (; i < n; i++) acc |= s[i];
  return (acc & UINT64_C(0x8080808080808080)) == 0;
}

/* String.hashCode of ASCII (one UTF-16 unit per byte): four characters a
 * step, h * 31^4 + c0 * 31^3 + c1 * 31^2 + c2 * 31 + c3, the same sum
 * with a quarter of the serial multiplications (record keys are hashed
 * once per key in every record-index write and lookup). */
static uint32_t ascii_hash(const uint8_t *s, size_t n) {
  uint32_t h = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    h = h * 923521u + s[i] * 29791u + s[i + 1] * 961u + s[i + 2] * 31u + s[i + 3];
  for (; i < n; i++) h = 31u * h + s[i];
  return h;
}

hudi_status hudi_java_string_hash(int32_t *out, const char *utf8, size_t len, hudi_error *err) {
  const uint8_t *s = (const uint8_t *)utf8;
  if (all_ascii(s, len)) {
    *out = as_int32(ascii_hash(s, len));
    return HUDI_OK;
  }
  uint32_t h = 0;
  size_t i = 0;
  while (i < len) {
    size_t at = i;
    int32_t cp = hudi_utf8_next(s, len, &i);
    if (cp < 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "invalid UTF-8 at byte offset %zu of a %zu-byte string (byte 0x%02x)", at,
                          len, s[at]);
    if (cp < 0x10000) {
      h = 31u * h + (uint32_t)cp;
    } else {
      uint32_t v = (uint32_t)cp - 0x10000u;
      h = 31u * h + (0xd800u | v >> 10);
      h = 31u * h + (0xdc00u | (v & 0x3ffu));
    }
  }
  *out = as_int32(h);
  return HUDI_OK;
}

int32_t hudi_java_abs_mod(int32_t h, int32_t n) {
  /* Math.abs(INT_MIN) is INT_MIN; INT_MIN % n then lies in (-n, 0]. */
  int32_t a = h == INT32_MIN ? h : (h < 0 ? -h : h);
  int32_t r = a % n;
  return r < 0 ? -r : r;
}

hudi_status hudi_record_index_shard(int32_t *out, const char *key, size_t len,
                                    int32_t num_file_groups, hudi_error *err) {
  if (num_file_groups <= 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "record index shard count must be positive, got %d",
                        (int)num_file_groups);
  int32_t h;
  hudi_status st = hudi_java_string_hash(&h, key, len, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "hashing record key");
  *out = hudi_java_abs_mod(h, num_file_groups);
  return HUDI_OK;
}

uint32_t hudi_crc32_update(uint32_t crc, const void *data, size_t len) {
  const Bytef *p = data;
  uLong c = crc;
  /* zlib takes a uInt length; feed large inputs in pieces. */
  while (len > 0) {
    uInt n = len > (size_t)UINT_MAX ? UINT_MAX : (uInt)len;
    c = crc32(c, p, n);
    p += n;
    len -= n;
  }
  return (uint32_t)c;
}

uint32_t hudi_crc32(const void *data, size_t len) { return hudi_crc32_update(0, data, len); }

uint32_t hudi_table_checksum(const char *database, const char *table) {
  uint32_t c = 0;
  if (database) c = hudi_crc32_update(c, database, strlen(database));
  c = hudi_crc32_update(c, ".", 1);
  return hudi_crc32_update(c, table, strlen(table));
}

uint64_t hudi_xxh64(const void *data, size_t len, uint64_t seed) {
  return (uint64_t)XXH64(data, len, (XXH64_hash_t)seed);
}

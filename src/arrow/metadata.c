#include "arrow/metadata.h"

#include <string.h>

#include "base/alloc.h"

static int32_t read_i32(const char *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Reads one length-prefixed string at md + *pos, checking it against the caps. */
static hudi_status read_str(const char **s, int32_t *len, const char *md, size_t *pos, hudi_error *err) {
  if (*pos > HUDI_ARROW_METADATA_MAX_BYTES - 4)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Arrow metadata larger than %zu bytes",
                        HUDI_ARROW_METADATA_MAX_BYTES);
  int32_t n = read_i32(md + *pos);
  if (n < 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "Arrow metadata: negative length %d at byte %zu", (int)n,
                        *pos);
  if ((size_t)n > HUDI_ARROW_METADATA_MAX_BYTES - *pos - 4)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Arrow metadata larger than %zu bytes at byte %zu",
                        HUDI_ARROW_METADATA_MAX_BYTES, *pos);
  *s = md + *pos + 4;
  *len = n;
  *pos += 4 + (size_t)n;
  return HUDI_OK;
}

/* Walks the pairs, storing them when out is not NULL. */
static hudi_status walk(hudi_arrow_kv *out, size_t *size, int32_t *n_pairs, const char *md,
                        hudi_error *err) {
  *size = 0;
  *n_pairs = 0;
  if (!md) return HUDI_OK;
  int32_t n = read_i32(md);
  if (n < 0) return hudi_err_set(err, HUDI_ERR_CORRUPT, "Arrow metadata: negative pair count %d", (int)n);
  if (n > HUDI_ARROW_METADATA_MAX_PAIRS)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Arrow metadata: %d pairs exceed the cap of %d", (int)n,
                        HUDI_ARROW_METADATA_MAX_PAIRS);
  size_t pos = 4;
  for (int32_t i = 0; i < n; i++) {
    hudi_arrow_kv kv;
    HUDI_TRY(read_str(&kv.key, &kv.key_len, md, &pos, err));
    HUDI_TRY(read_str(&kv.value, &kv.value_len, md, &pos, err));
    if (out) out[i] = kv;
  }
  *size = pos;
  *n_pairs = n;
  return HUDI_OK;
}

hudi_status hudi_arrow_metadata_size(size_t *size, int32_t *n_pairs, const char *metadata,
                                     hudi_error *err) {
  return walk(NULL, size, n_pairs, metadata, err);
}

hudi_status hudi_arrow_metadata_parse(hudi_arrow_kv **pairs, int32_t *n_pairs, const char *metadata,
                                      hudi_error *err) {
  size_t size;
  *pairs = NULL;
  HUDI_TRY(walk(NULL, &size, n_pairs, metadata, err));
  if (*n_pairs == 0) return HUDI_OK;
  hudi_arrow_kv *kv = hudi_calloc((size_t)*n_pairs, sizeof *kv);
  if (!kv) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory decoding Arrow metadata");
  hudi_status st = walk(kv, &size, n_pairs, metadata, err);
  if (st != HUDI_OK) {
    hudi_free(kv);
    return st;
  }
  *pairs = kv;
  return HUDI_OK;
}

static hudi_status put_i32(hudi_buf *out, int32_t v, hudi_error *err) {
  return hudi_buf_append(out, &v, sizeof v, err);
}

hudi_status hudi_arrow_metadata_encode(hudi_buf *out, const hudi_arrow_kv *pairs, int32_t n_pairs,
                                       hudi_error *err) {
  if (n_pairs < 0 || n_pairs > HUDI_ARROW_METADATA_MAX_PAIRS)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Arrow metadata: %d pairs out of range", (int)n_pairs);
  HUDI_TRY(put_i32(out, n_pairs, err));
  for (int32_t i = 0; i < n_pairs; i++) {
    if (pairs[i].key_len < 0 || pairs[i].value_len < 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Arrow metadata: negative length in pair %d", (int)i);
    HUDI_TRY(put_i32(out, pairs[i].key_len, err));
    HUDI_TRY(hudi_buf_append(out, pairs[i].key, (size_t)pairs[i].key_len, err));
    HUDI_TRY(put_i32(out, pairs[i].value_len, err));
    HUDI_TRY(hudi_buf_append(out, pairs[i].value, (size_t)pairs[i].value_len, err));
  }
  return HUDI_OK;
}

hudi_status hudi_arrow_metadata_find(const char **value, int32_t *value_len, const char *metadata,
                                     const char *key, hudi_error *err) {
  size_t size;
  int32_t n;
  HUDI_TRY(walk(NULL, &size, &n, metadata, err));
  size_t klen = strlen(key), pos = 4;
  for (int32_t i = 0; i < n; i++) {
    const char *k = NULL, *v = NULL;
    int32_t kl = 0, vl = 0;
    HUDI_TRY(read_str(&k, &kl, metadata, &pos, err));
    HUDI_TRY(read_str(&v, &vl, metadata, &pos, err));
    if ((size_t)kl == klen && memcmp(k, key, klen) == 0) {
      *value = v;
      *value_len = vl;
      return HUDI_OK;
    }
  }
  return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "Arrow metadata has no key '%s'", key);
}

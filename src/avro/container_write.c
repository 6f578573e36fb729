/* Writing Avro object container files the way Java's DataFileWriter does:
 * header (magic, metadata map as one block, sync), then per block the
 * object count, the byte size, the (compressed) data and the sync. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "avro/container.h"
#include "base/alloc.h"
#include "codec/codec.h"

#define JAVA_SYNC_INTERVAL 64000

static void random_sync(uint8_t sync[HUDI_AVRO_SYNC_SIZE]) {
  FILE *f = fopen("/dev/urandom", "rb");
  size_t got = f ? fread(sync, 1, HUDI_AVRO_SYNC_SIZE, f) : 0;
  if (f) fclose(f);
  if (got == HUDI_AVRO_SYNC_SIZE) return;
  /* No urandom: any distinct-looking marker will do (it only has to be
   * unlikely inside block data). */
  uint64_t x = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)sync ^ 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < HUDI_AVRO_SYNC_SIZE; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    sync[i] = (uint8_t)x;
  }
}

hudi_status hudi_avro_writer_init(hudi_avro_writer *w, hudi_buf *out, const char *schema_json, size_t schema_len,
                                  const hudi_avro_writer_opts *opts, hudi_error *err) {
  memset(w, 0, sizeof *w);
  w->out = out;
  hudi_avro_writer_opts def = HUDI_AVRO_WRITER_OPTS_INIT;
  w->opts = opts ? *opts : def;
  if ((unsigned)w->opts.codec > HUDI_AVRO_CODEC_ZSTANDARD)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "unknown Avro codec %d", (int)w->opts.codec);
  if (w->opts.sync_interval == 0) w->opts.sync_interval = JAVA_SYNC_INTERVAL;
  if (w->opts.sync) memcpy(w->sync, w->opts.sync, HUDI_AVRO_SYNC_SIZE);
  else random_sync(w->sync);
  w->opts.sync = NULL; /* the caller's pointer need not outlive init */
  hudi_buf_init(&w->block, HUDI_AVRO_MAX_BLOCK);
  hudi_buf_init(&w->packed, HUDI_AVRO_MAX_BLOCK + 64);
  hudi_status st = hudi_avro_writer_set_meta(w, "avro.schema", schema_json, schema_len, err);
  /* A failed init leaves nothing to free (the meta array may exist). */
  if (st != HUDI_OK) hudi_avro_writer_free(w);
  return st;
}

void hudi_avro_writer_free(hudi_avro_writer *w) {
  for (size_t i = 0; i < w->n_meta; i++) {
    hudi_free(w->meta[i].key);
    hudi_free(w->meta[i].value);
  }
  hudi_free(w->meta);
  hudi_buf_free(&w->block);
  hudi_buf_free(&w->packed);
  memset(w, 0, sizeof *w);
}

hudi_status hudi_avro_writer_set_meta(hudi_avro_writer *w, const char *key, const void *value, size_t len,
                                      hudi_error *err) {
  if (w->header_done)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Avro metadata '%s' set after the header was written", key);
  uint8_t *v = (uint8_t *)hudi_strndup(value ? value : "", len);
  if (!v) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < w->n_meta; i++) {
    if (strcmp(w->meta[i].key, key) == 0) {
      hudi_free(w->meta[i].value);
      w->meta[i].value = v;
      w->meta[i].len = len;
      return HUDI_OK;
    }
  }
  if (w->n_meta == HUDI_AVRO_MAX_META_ENTRIES) {
    hudi_free(v);
    return hudi_err_set(err, HUDI_ERR_LIMIT, "too many Avro metadata entries");
  }
  if (w->n_meta == w->cap_meta) {
    size_t cap = w->cap_meta ? w->cap_meta * 2 : 4;
    hudi_avro_meta *m = hudi_realloc(w->meta, cap * sizeof *m);
    if (!m) {
      hudi_free(v);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    }
    w->meta = m;
    w->cap_meta = cap;
  }
  char *k = hudi_strdup(key);
  if (!k) {
    hudi_free(v);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  w->meta[w->n_meta].key = k;
  w->meta[w->n_meta].value = v;
  w->meta[w->n_meta].len = len;
  w->n_meta++;
  return HUDI_OK;
}

static hudi_status write_header(hudi_avro_writer *w, hudi_error *err) {
  if (w->header_done) return HUDI_OK;
  if (w->opts.codec != HUDI_AVRO_CODEC_NULL) {
    int has = 0;
    for (size_t i = 0; i < w->n_meta; i++) has |= strcmp(w->meta[i].key, "avro.codec") == 0;
    if (!has) {
      const char *name = hudi_avro_codec_name(w->opts.codec);
      HUDI_TRY(hudi_avro_writer_set_meta(w, "avro.codec", name, strlen(name), err));
    }
  }
  hudi_buf *o = w->out;
  HUDI_TRY(hudi_buf_append(o, "Obj\x01", 4, err));
  HUDI_TRY(hudi_avro_write_long(o, (int64_t)w->n_meta, err));
  for (size_t i = 0; i < w->n_meta; i++) {
    HUDI_TRY(hudi_avro_write_bytes(o, w->meta[i].key, strlen(w->meta[i].key), err));
    HUDI_TRY(hudi_avro_write_bytes(o, w->meta[i].value, w->meta[i].len, err));
  }
  if (w->n_meta) HUDI_TRY(hudi_buf_append_byte(o, 0, err));
  HUDI_TRY(hudi_buf_append(o, w->sync, HUDI_AVRO_SYNC_SIZE, err));
  w->header_done = 1;
  return HUDI_OK;
}

static hudi_status pack(hudi_avro_writer *w, const uint8_t **data, size_t *len, hudi_error *err) {
  hudi_buf_reset(&w->packed);
  const uint8_t *src = w->block.data;
  size_t n = w->block.len;
  switch (w->opts.codec) {
    case HUDI_AVRO_CODEC_NULL:
      *data = src;
      *len = n;
      return HUDI_OK;
    case HUDI_AVRO_CODEC_DEFLATE: HUDI_TRY(hudi_codec_compress(HUDI_CODEC_DEFLATE, w->opts.level, src, n, &w->packed, err)); break;
    case HUDI_AVRO_CODEC_ZSTANDARD: HUDI_TRY(hudi_codec_compress(HUDI_CODEC_ZSTD, w->opts.level, src, n, &w->packed, err)); break;
    case HUDI_AVRO_CODEC_SNAPPY: {
      HUDI_TRY(hudi_codec_compress(HUDI_CODEC_SNAPPY, 0, src, n, &w->packed, err));
      uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
      for (size_t off = 0; off < n;) {
        size_t chunk = n - off > (1u << 30) ? (1u << 30) : n - off;
        crc = (uint32_t)crc32(crc, src + off, (uInt)chunk);
        off += chunk;
      }
      uint8_t be[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
      HUDI_TRY(hudi_buf_append(&w->packed, be, 4, err));
      break;
    }
  }
  *data = w->packed.data;
  *len = w->packed.len;
  return HUDI_OK;
}

hudi_status hudi_avro_writer_flush(hudi_avro_writer *w, hudi_error *err) {
  HUDI_TRY(write_header(w, err));
  if (w->count == 0) return HUDI_OK;
  const uint8_t *data = NULL;
  size_t len = 0;
  HUDI_TRY(pack(w, &data, &len, err));
  HUDI_TRY(hudi_avro_write_long(w->out, w->count, err));
  HUDI_TRY(hudi_avro_write_long(w->out, (int64_t)len, err));
  HUDI_TRY(hudi_buf_append(w->out, data, len, err));
  HUDI_TRY(hudi_buf_append(w->out, w->sync, HUDI_AVRO_SYNC_SIZE, err));
  hudi_buf_reset(&w->block);
  w->count = 0;
  return HUDI_OK;
}

static hudi_status after_append(hudi_avro_writer *w, hudi_error *err) {
  w->count++;
  /* Java's DataFileWriter: a block ends once its buffer reaches the sync interval. */
  if (w->block.len >= w->opts.sync_interval) return hudi_avro_writer_flush(w, err);
  return HUDI_OK;
}

hudi_status hudi_avro_writer_append(hudi_avro_writer *w, const hudi_avro_value *v, hudi_error *err) {
  size_t mark = w->block.len;
  hudi_status st = hudi_avro_encode(v, &w->block, err);
  if (st != HUDI_OK) {
    w->block.len = mark; /* drop the partial object */
    return st;
  }
  return after_append(w, err);
}

hudi_status hudi_avro_writer_append_raw(hudi_avro_writer *w, const uint8_t *datum, size_t len, hudi_error *err) {
  HUDI_TRY(hudi_buf_append(&w->block, datum, len, err));
  return after_append(w, err);
}

hudi_status hudi_avro_writer_finish(hudi_avro_writer *w, hudi_error *err) {
  return hudi_avro_writer_flush(w, err);
}

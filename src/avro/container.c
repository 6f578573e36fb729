/* Reading Avro object container files from memory. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "avro/container.h"
#include "base/alloc.h"
#include "codec/codec.h"

static const char *const codec_names[] = {"null", "deflate", "snappy", "zstandard"};

const char *hudi_avro_codec_name(hudi_avro_codec c) {
  return (unsigned)c < 4 ? codec_names[c] : "?";
}

hudi_status hudi_avro_codec_parse(hudi_avro_codec *out, const char *name, size_t len, hudi_error *err) {
  for (int i = 0; i < 4; i++) {
    if (strlen(codec_names[i]) == len && memcmp(codec_names[i], name, len) == 0) {
      *out = (hudi_avro_codec)i;
      return HUDI_OK;
    }
  }
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "unsupported Avro codec '%.*s'", (int)(len > 64 ? 64 : len), name);
}

#define MAX_META_KEY 4096
#define MAX_META_VALUE ((size_t)64 << 20)

static hudi_status read_meta(hudi_avro_file *f, hudi_avro_cursor *c, hudi_error *err) {
  size_t cap = 0;
  for (;;) {
    size_t start = c->pos;
    int64_t count;
    HUDI_TRY(hudi_avro_read_long(c, &count, err));
    if (count == 0) return HUDI_OK;
    if (count < 0) {
      int64_t size;
      if (count == INT64_MIN) return hudi_avro_cursor_fail(c, err, start, HUDI_ERR_CORRUPT, "invalid metadata count");
      count = -count;
      HUDI_TRY(hudi_avro_read_long(c, &size, err));
    }
    /* An entry takes at least two bytes (two lengths). */
    if ((uint64_t)count > hudi_avro_cursor_left(c) / 2 ||
        (uint64_t)count > HUDI_AVRO_MAX_META_ENTRIES - f->n_meta)
      return hudi_avro_cursor_fail(c, err, start, HUDI_ERR_CORRUPT, "too many metadata entries");
    if (f->n_meta + (size_t)count > cap) {
      cap = f->n_meta + (size_t)count;
      hudi_avro_meta *m = hudi_realloc(f->meta, cap * sizeof *m);
      if (!m) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      f->meta = m;
    }
    for (int64_t i = 0; i < count; i++) {
      const uint8_t *k, *v;
      size_t klen, vlen;
      HUDI_TRY(hudi_avro_read_bytes(c, &k, &klen, MAX_META_KEY, err));
      HUDI_TRY(hudi_avro_read_bytes(c, &v, &vlen, MAX_META_VALUE, err));
      hudi_avro_meta *m = &f->meta[f->n_meta];
      m->key = hudi_strndup((const char *)k, klen);
      m->value = (uint8_t *)hudi_strndup((const char *)v, vlen);
      m->len = vlen;
      if (!m->key || !m->value) {
        hudi_free(m->key);
        hudi_free(m->value);
        return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      }
      f->n_meta++;
    }
  }
}

const hudi_avro_meta *hudi_avro_file_meta(const hudi_avro_file *f, const char *key) {
  /* Java keeps the last of repeated keys (a HashMap); so do we. */
  for (size_t i = f->n_meta; i-- > 0;)
    if (strcmp(f->meta[i].key, key) == 0) return &f->meta[i];
  return NULL;
}

static hudi_status open_header(hudi_avro_file *f, hudi_error *err) {
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, f->data, f->len, 0, f->name);
  if (f->len < 4 || memcmp(f->data, "Obj\x01", 4) != 0)
    return hudi_avro_cursor_fail(&c, err, 0, HUDI_ERR_CORRUPT, "not an Avro container file (bad magic)");
  c.pos = 4;
  HUDI_TRY(read_meta(f, &c, err));
  const uint8_t *sync;
  HUDI_TRY(hudi_avro_read_fixed(&c, HUDI_AVRO_SYNC_SIZE, &sync, err));
  memcpy(f->sync, sync, HUDI_AVRO_SYNC_SIZE);
  f->header_len = f->pos = c.pos;
  const hudi_avro_meta *cm = hudi_avro_file_meta(f, "avro.codec");
  f->codec = HUDI_AVRO_CODEC_NULL;
  if (cm) {
    hudi_status st = hudi_avro_codec_parse(&f->codec, (const char *)cm->value, cm->len, err);
    if (st != HUDI_OK) return hudi_err_context(err, st, "%s", f->name);
  }
  const hudi_avro_meta *sm = hudi_avro_file_meta(f, "avro.schema");
  if (!sm) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: no avro.schema in the header", f->name);
  hudi_status st = hudi_avro_schema_parse(&f->schema, (const char *)sm->value, sm->len, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "%s: avro.schema", f->name);
  return HUDI_OK;
}

hudi_status hudi_avro_file_open(hudi_avro_file *f, const uint8_t *data, size_t len, const char *name,
                                hudi_error *err) {
  memset(f, 0, sizeof *f);
  f->data = data;
  f->len = len;
  f->max_block = HUDI_AVRO_MAX_BLOCK;
  hudi_buf_init(&f->block, f->max_block);
  f->name = hudi_strdup(name ? name : "Avro file");
  if (!f->name) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_status st = open_header(f, err);
  if (st != HUDI_OK) hudi_avro_file_close(f);
  return st;
}

void hudi_avro_file_close(hudi_avro_file *f) {
  for (size_t i = 0; i < f->n_meta; i++) {
    hudi_free(f->meta[i].key);
    hudi_free(f->meta[i].value);
  }
  hudi_free(f->meta);
  hudi_free(f->name);
  hudi_avro_schema_free(f->schema);
  hudi_buf_free(&f->block);
  memset(f, 0, sizeof *f);
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  return hudi_malloc(hudi_mul_size(items, size));
}

static void z_free(voidpf opaque, voidpf p) {
  (void)opaque;
  hudi_free(p);
}

/* Raw inflate into out (bounded by its cap). Bytes after the end of the
 * deflate stream are ignored, as Java's Inflater does: fastavro writes
 * zlib.compress() output minus its 2-byte header and last byte, leaving 3
 * bytes of the Adler-32 trailer behind the stream. */
static hudi_status avro_inflate(const uint8_t *src, size_t n, hudi_buf *out, hudi_error *err) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  zs.zalloc = z_alloc;
  zs.zfree = z_free;
  if (inflateInit2(&zs, -15) != Z_OK) return hudi_err_set(err, HUDI_ERR_NOMEM, "cannot start inflate");
  hudi_status st = HUDI_OK;
  size_t left = n;
  for (;;) {
    if (zs.avail_in == 0 && left > 0) {
      zs.next_in = (Bytef *)(uintptr_t)src;
      zs.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
      src += zs.avail_in;
      left -= zs.avail_in;
    }
    if (out->cap == out->len) {
      size_t grow = out->len ? out->len : 4 * n + 64;
      if (grow > out->max - out->len) grow = out->max - out->len;
      if (grow == 0) grow = 1; /* reserve reports the cap */
      st = hudi_buf_reserve(out, grow, err);
      if (st != HUDI_OK) break;
    }
    size_t room = out->cap - out->len;
    uInt avail = room > (1u << 30) ? (1u << 30) : (uInt)room;
    zs.next_out = out->data + out->len;
    zs.avail_out = avail;
    int rc = inflate(&zs, Z_NO_FLUSH);
    out->len += avail - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && left == 0) {
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "deflate data ends early");
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      st = hudi_err_set(err, rc == Z_MEM_ERROR ? HUDI_ERR_NOMEM : HUDI_ERR_CORRUPT, "bad deflate data (%s)",
                        zs.msg ? zs.msg : "?");
      break;
    }
  }
  inflateEnd(&zs);
  return st;
}

static hudi_status unpack(hudi_avro_file *f, const uint8_t *p, size_t n, uint64_t at, hudi_error *err) {
  hudi_buf_reset(&f->block);
  hudi_status st = HUDI_OK;
  switch (f->codec) {
    case HUDI_AVRO_CODEC_NULL: return HUDI_OK;
    case HUDI_AVRO_CODEC_DEFLATE: st = avro_inflate(p, n, &f->block, err); break;
    case HUDI_AVRO_CODEC_ZSTANDARD: st = hudi_codec_decompress_unsized(HUDI_CODEC_ZSTD, p, n, &f->block, err); break;
    case HUDI_AVRO_CODEC_SNAPPY: {
      if (n < 4) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: snappy block at byte %llu lacks its CRC", f->name,
                                     (unsigned long long)at);
      st = hudi_codec_decompress_unsized(HUDI_CODEC_SNAPPY, p, n - 4, &f->block, err);
      if (st != HUDI_OK) break;
      const uint8_t *q = p + n - 4;
      uint32_t want = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
      uint32_t got = (uint32_t)crc32(0L, Z_NULL, 0);
      for (size_t off = 0; off < f->block.len;) { /* crc32 takes a uInt length */
        size_t chunk = f->block.len - off > (1u << 30) ? (1u << 30) : f->block.len - off;
        got = (uint32_t)crc32(got, f->block.data + off, (uInt)chunk);
        off += chunk;
      }
      if (got != want)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: snappy block at byte %llu fails its CRC32", f->name,
                            (unsigned long long)at);
      break;
    }
  }
  if (st != HUDI_OK)
    return hudi_err_context(err, st, "%s: %s block at byte %llu", f->name, hudi_avro_codec_name(f->codec),
                            (unsigned long long)at);
  return HUDI_OK;
}

hudi_status hudi_avro_file_next_block(hudi_avro_file *f, hudi_avro_block *b, int *done, hudi_error *err) {
  *done = 0;
  if (f->pos >= f->len) {
    *done = 1;
    return HUDI_OK;
  }
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, f->data, f->len, 0, f->name);
  c.pos = f->pos;
  size_t start = c.pos;
  int64_t count, size;
  HUDI_TRY(hudi_avro_read_long(&c, &count, err));
  if (count < 0) return hudi_avro_cursor_fail(&c, err, start, HUDI_ERR_CORRUPT, "negative block count");
  size_t size_at = c.pos;
  HUDI_TRY(hudi_avro_read_long(&c, &size, err));
  if (size < 0 || (uint64_t)size > HUDI_AVRO_MAX_BLOCK)
    return hudi_avro_cursor_fail(&c, err, size_at, HUDI_ERR_CORRUPT, "block size out of range");
  if ((uint64_t)size + HUDI_AVRO_SYNC_SIZE > hudi_avro_cursor_left(&c))
    return hudi_avro_cursor_fail(&c, err, size_at, HUDI_ERR_CORRUPT, "block runs past the end of the file");
  const uint8_t *data = f->data + c.pos;
  c.pos += (size_t)size;
  if (memcmp(f->data + c.pos, f->sync, HUDI_AVRO_SYNC_SIZE) != 0)
    return hudi_avro_cursor_fail(&c, err, c.pos, HUDI_ERR_CORRUPT, "sync marker does not match the header's");
  HUDI_TRY(unpack(f, data, (size_t)size, start, err));
  f->pos = c.pos + HUDI_AVRO_SYNC_SIZE;
  b->count = count;
  b->offset = start;
  b->stored_len = (size_t)size;
  if (f->codec == HUDI_AVRO_CODEC_NULL) {
    b->data = data;
    b->len = (size_t)size;
    snprintf(f->where, sizeof f->where, "%s", f->name);
  } else {
    b->data = f->block.data;
    b->len = f->block.len;
    snprintf(f->where, sizeof f->where, "%s (%s block at byte %zu, decompressed)", f->name,
             hudi_avro_codec_name(f->codec), start);
  }
  return HUDI_OK;
}

void hudi_avro_file_block_cursor(const hudi_avro_file *f, const hudi_avro_block *b, hudi_avro_cursor *c) {
  uint64_t base = f->codec == HUDI_AVRO_CODEC_NULL ? (uint64_t)(b->data - f->data) : 0;
  hudi_avro_cursor_init(c, b->data, b->len, base, f->where);
}

static hudi_status push_count(int64_t **counts, size_t *n, size_t *cap, int64_t v, hudi_error *err) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 8;
    int64_t *p = hudi_realloc(*counts, nc * sizeof *p);
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    *counts = p;
    *cap = nc;
  }
  (*counts)[(*n)++] = v;
  return HUDI_OK;
}

static hudi_status read_block_values(hudi_avro_file *f, const hudi_avro_block *b, hudi_avro_arena *arena,
                                     const hudi_avro_node *reader, hudi_avro_value **vals, size_t *n,
                                     size_t *cap, hudi_error *err) {
  hudi_avro_cursor c;
  hudi_avro_file_block_cursor(f, b, &c);
  uint32_t min = f->schema->root->min_size;
  if (min ? (uint64_t)b->count > b->len / min : b->count > HUDI_AVRO_MAX_EMPTY_ITEMS)
    return hudi_avro_cursor_fail(&c, err, b->offset, HUDI_ERR_CORRUPT, "block count larger than its data can hold");
  if (*n + (size_t)b->count > *cap) {
    size_t nc = *cap ? *cap : 4;
    while (nc < *n + (size_t)b->count) nc *= 2;
    void *p;
    HUDI_TRY(hudi_avro_arena_array(arena, nc, sizeof(hudi_avro_value), &p, err));
    if (*n) memcpy(p, *vals, *n * sizeof(hudi_avro_value));
    *vals = p;
    *cap = nc;
  }
  for (int64_t i = 0; i < b->count; i++) {
    HUDI_TRY(hudi_avro_decode(&(*vals)[*n], arena, f->schema->root, reader, &c, err));
    (*n)++;
  }
  if (hudi_avro_cursor_left(&c) != 0)
    return hudi_avro_cursor_fail(&c, err, hudi_avro_cursor_offset(&c), HUDI_ERR_CORRUPT,
                                 "block has bytes after its last object");
  return HUDI_OK;
}

hudi_status hudi_avro_file_read_all(hudi_avro_file *f, hudi_avro_arena *arena, const hudi_avro_node *reader,
                                    hudi_avro_value **values, size_t *n_values, int64_t **block_counts,
                                    size_t *n_blocks, hudi_error *err) {
  *values = NULL;
  *n_values = 0;
  size_t cap = 0, nb = 0, cap_b = 0;
  int64_t *counts = NULL;
  hudi_status st = HUDI_OK;
  for (;;) {
    hudi_avro_block b;
    int done;
    st = hudi_avro_file_next_block(f, &b, &done, err);
    if (st != HUDI_OK || done) break;
    st = read_block_values(f, &b, arena, reader, values, n_values, &cap, err);
    if (st == HUDI_OK && block_counts) st = push_count(&counts, &nb, &cap_b, b.count, err);
    if (st != HUDI_OK) break;
  }
  if (st != HUDI_OK || !block_counts) {
    hudi_free(counts);
    counts = NULL;
    nb = 0;
  }
  if (block_counts) {
    *block_counts = counts;
    *n_blocks = nb;
  }
  return st;
}

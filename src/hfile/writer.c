/* HFile v3 writer producing the bytes of Hudi's Java HFileWriterImpl
 * (hudi-io, Hudi 1.1): data blocks, meta blocks, a single-level root data
 * index, meta index, file info and trailer; checksum type NULL with zero
 * checksum bytes; every block GZ-compressed (or NONE).
 * Where we deliberately differ from that Java code:
 *  - index key lengths are Hadoop VLongs (what every reader decodes); Java
 *    writes a protobuf varint, identical below 128 and wrong above;
 *  - a data block is closed one key-value early when Hudi's Java reader
 *    would drop its last key-value or hudi-rs would cut its gzip stream
 *    (spec §3.9), so the bytes differ from Java only in those rare cases.
 * Multi-level indexes are never written (Hudi's writer has none either;
 * 1 MiB blocks keep the root index small). */
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "hfile/block.h"
#include "hfile/hfile.h"
#include "hfile/protobuf.h"

#define MAX_KEY_LEN 32767
#define COMPARATOR "org.apache.hudi.io.storage.HoodieHBaseKVComparator"

typedef struct named {
  char *name;
  uint8_t *value;
  size_t len;
  size_t seq; /* insertion order */
  size_t bucket;
} named;

typedef struct named_list {
  named *v;
  size_t n, cap, seq;
} named_list;

struct hudi_hfile_writer {
  hudi_hfile_writer_options opts;
  hudi_buf out;       /* the file so far */
  hudi_buf block;     /* key-values of the data block being built */
  size_t *kv_starts;  /* offset of each of them in `block` */
  size_t n_kvs, kv_cap;
  uint64_t block_acc; /* Java's size accounting: key + value + 9 per entry */
  hudi_buf last_key;  /* last key appended */
  hudi_buf root;      /* root data index payload */
  hudi_buf enc;       /* scratch: one encoded block */
  uint32_t n_root;
  uint64_t entries, total_key_len, total_value_len, total_usw;
  int64_t first_data_off, last_data_off;
  named_list file_info, meta;
  int finished;
};

/* ---- Java HashMap iteration order -------------------------------------- */

/* Java's String.hashCode over the UTF-16 code units of a UTF-8 name. */
static uint32_t java_string_hash(const char *s) {
  uint32_t h = 0;
  const uint8_t *p = (const uint8_t *)s;
  while (*p) {
    uint32_t cp;
    int n;
    if (p[0] < 0x80) { cp = p[0]; n = 1; }
    else if ((p[0] & 0xe0) == 0xc0 && p[1]) { cp = ((uint32_t)(p[0] & 0x1f) << 6) | (p[1] & 0x3f); n = 2; }
    else if ((p[0] & 0xf0) == 0xe0 && p[1] && p[2]) {
      cp = ((uint32_t)(p[0] & 0x0f) << 12) | ((uint32_t)(p[1] & 0x3f) << 6) | (p[2] & 0x3f); n = 3;
    } else if ((p[0] & 0xf8) == 0xf0 && p[1] && p[2] && p[3]) {
      cp = ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3f) << 12) | ((uint32_t)(p[2] & 0x3f) << 6) |
           (p[3] & 0x3f);
      n = 4;
    } else { cp = 0xfffd; n = 1; }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      h = 31 * h + (0xd800 + (cp >> 10));
      h = 31 * h + (0xdc00 + (cp & 0x3ff));
    } else {
      h = 31 * h + cp;
    }
    p += n;
  }
  return h;
}

/* Sorts entries into the order a java.util.HashMap<String, byte[]> filled
 * in insertion order iterates them: by bucket, then insertion order. (A
 * bucket only becomes a tree at 8 colliding keys, far beyond our maps.) */
static void java_hashmap_order(named_list *l) {
  size_t cap = 16;
  while (l->n > cap / 4 * 3) cap *= 2;
  for (size_t i = 0; i < l->n; i++) {
    uint32_t h = java_string_hash(l->v[i].name);
    l->v[i].bucket = (h ^ (h >> 16)) & (cap - 1);
  }
  for (size_t i = 1; i < l->n; i++) { /* insertion sort: maps are small */
    named e = l->v[i];
    size_t j = i;
    while (j > 0 && (l->v[j - 1].bucket > e.bucket ||
                     (l->v[j - 1].bucket == e.bucket && l->v[j - 1].seq > e.seq))) {
      l->v[j] = l->v[j - 1];
      j--;
    }
    l->v[j] = e;
  }
}

static named *named_find(named_list *l, const char *name) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i].name, name) == 0) return &l->v[i];
  return NULL;
}

/* Java Map.put: a new name goes last, an existing one keeps its place. */
static hudi_status named_put(named_list *l, const char *name, const uint8_t *value, size_t len, hudi_error *err) {
  uint8_t *copy = hudi_malloc(len ? len : 1);
  if (!copy) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for HFile entry '%s'", name);
  if (len) memcpy(copy, value, len);
  named *e = named_find(l, name);
  if (e) {
    hudi_free(e->value);
    e->value = copy;
    e->len = len;
    return HUDI_OK;
  }
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 16;
    named *nv = hudi_realloc(l->v, hudi_mul_size(nc, sizeof *nv));
    if (!nv) {
      hudi_free(copy);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for HFile entries");
    }
    l->v = nv;
    l->cap = nc;
  }
  char *nm = hudi_strdup(name);
  if (!nm) {
    hudi_free(copy);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for HFile entry '%s'", name);
  }
  l->v[l->n++] = (named){nm, copy, len, l->seq++, 0};
  return HUDI_OK;
}

static void named_free(named_list *l) {
  for (size_t i = 0; i < l->n; i++) {
    hudi_free(l->v[i].name);
    hudi_free(l->v[i].value);
  }
  hudi_free(l->v);
}

/* ---- create / free ----------------------------------------------------- */

hudi_status hudi_hfile_writer_create(hudi_hfile_writer **out, const hudi_hfile_writer_options *opts,
                                     hudi_error *err) {
  *out = NULL;
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  if (opts) o = *opts;
  if (o.compression != HUDI_HFILE_GZ && o.compression != HUDI_HFILE_NONE)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile compression must be GZ or NONE");
  if (o.block_size == 0 || o.block_size > HUDI_HFILE_MAX_BLOCK / 2)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile block size %zu outside 1..%zu", o.block_size,
                        HUDI_HFILE_MAX_BLOCK / 2);
  hudi_hfile_writer *w = hudi_calloc(1, sizeof *w);
  if (!w) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for an HFile writer");
  w->opts = o;
  hudi_buf_init(&w->out, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&w->block, HUDI_HFILE_MAX_BLOCK);
  hudi_buf_init(&w->last_key, MAX_KEY_LEN);
  hudi_buf_init(&w->root, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&w->enc, HUDI_BUF_DEFAULT_MAX);
  w->first_data_off = -1;
  w->last_data_off = 0;
  /* Java's constructor puts MAX_MEMSTORE_TS_KEY first (HashMap order
   * depends on insertion order within a bucket). */
  static const uint8_t zero8[8] = {0};
  hudi_status st = named_put(&w->file_info, "MAX_MEMSTORE_TS_KEY", zero8, 8, err);
  if (st != HUDI_OK) {
    hudi_hfile_writer_free(w);
    return st;
  }
  *out = w;
  return HUDI_OK;
}

void hudi_hfile_writer_free(hudi_hfile_writer *w) {
  if (!w) return;
  hudi_buf_free(&w->out);
  hudi_buf_free(&w->block);
  hudi_buf_free(&w->last_key);
  hudi_buf_free(&w->root);
  hudi_buf_free(&w->enc);
  hudi_free(w->kv_starts);
  named_free(&w->file_info);
  named_free(&w->meta);
  hudi_free(w);
}

/* ---- data blocks ------------------------------------------------------- */

static void kv_key(const hudi_hfile_writer *w, size_t i, const uint8_t **key, size_t *len) {
  const uint8_t *p = w->block.data + w->kv_starts[i];
  *len = hudi_be16(p + 8);
  *key = p + 10;
}

static size_t kv_end(const hudi_hfile_writer *w, size_t i) {
  return i + 1 < w->n_kvs ? w->kv_starts[i + 1] : w->block.len;
}

/* Would a reader mis-read a block holding the first n key-values, stored
 * in `stored` on-disk bytes? (spec §3.9) Java stops scanning a data block
 * 4 x ceil((33 + onDiskSizeWithoutHeader) / 16384) bytes early, dropping a
 * last key-value no longer than that; hudi-rs cuts the gzip stream short
 * by 4 bytes when that chunk count exceeds the one the writer used. */
static int block_is_misread(const hudi_hfile_writer *w, size_t n, uint64_t stored) {
  uint64_t k = hudi_hfile_checksum_bytes(HUDI_HFILE_HEADER_SIZE + stored, HUDI_HFILE_BYTES_PER_CHECKSUM);
  uint64_t java = hudi_hfile_checksum_bytes(HUDI_HFILE_HEADER_SIZE + stored + k, HUDI_HFILE_BYTES_PER_CHECKSUM);
  uint64_t last = kv_end(w, n - 1) - w->kv_starts[n - 1];
  if (last <= java) return 1;
  return w->opts.compression == HUDI_HFILE_GZ && java != k;
}

static hudi_status flush_block(hudi_hfile_writer *w, hudi_error *err) {
  if (w->n_kvs == 0) return HUDI_OK;
  int gz = w->opts.compression == HUDI_HFILE_GZ;
  /* Java gives the first block prevBlockOffset -1 and every later one its
   * own start offset (it passes currentOffset when creating the block). */
  int64_t prev = w->first_data_off < 0 ? -1 : (int64_t)w->out.len;
  size_t n = w->n_kvs;
  for (;;) {
    size_t len = kv_end(w, n - 1);
    hudi_buf_reset(&w->enc);
    HUDI_TRY(hudi_hfile_block_encode(&w->enc, HUDI_HFILE_MAGIC_DATA, w->block.data, len, gz, prev, err));
    uint64_t stored = hudi_be32(w->enc.data + 29) - HUDI_HFILE_HEADER_SIZE;
    if (n == 1 || !block_is_misread(w, n, stored)) break;
    n--; /* close the block one key-value earlier */
  }
  size_t len = kv_end(w, n - 1);
  uint64_t off = w->out.len;
  HUDI_TRY(hudi_buf_append(&w->out, w->enc.data, w->enc.len, err));
  if (w->first_data_off < 0) w->first_data_off = (int64_t)off;
  w->last_data_off = (int64_t)off;
  w->total_usw += len;
  w->entries += n;
  /* Root index entry: offset, on-disk size, VLong key length, i16 + key. */
  const uint8_t *key;
  size_t klen;
  kv_key(w, 0, &key, &klen);
  uint8_t fixed[12];
  hudi_put_be64(fixed, off);
  hudi_put_be32(fixed + 8, (uint32_t)w->enc.len);
  uint8_t kl[2];
  hudi_put_be16(kl, (uint16_t)klen);
  HUDI_TRY(hudi_buf_append(&w->root, fixed, sizeof fixed, err));
  HUDI_TRY(hudi_hfile_vlong_write(&w->root, (int64_t)klen + 2, err));
  HUDI_TRY(hudi_buf_append(&w->root, kl, 2, err));
  HUDI_TRY(hudi_buf_append(&w->root, key, klen, err));
  w->n_root++;
  /* Key-values held back start the next block. */
  size_t rest = w->block.len - len;
  memmove(w->block.data, w->block.data + len, rest);
  w->block.len = rest;
  w->block_acc = 0;
  for (size_t i = n; i < w->n_kvs; i++) {
    w->kv_starts[i - n] = w->kv_starts[i] - len;
    const uint8_t *p = w->block.data + w->kv_starts[i - n];
    w->block_acc += (uint64_t)hudi_be16(p + 8) + hudi_be32(p + 4) + 9;
  }
  w->n_kvs -= n;
  return HUDI_OK;
}

hudi_status hudi_hfile_writer_append(hudi_hfile_writer *w, const uint8_t *key, size_t key_len,
                                     const uint8_t *value, size_t value_len, hudi_error *err) {
  if (w->finished) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer already finished");
  if (key_len > MAX_KEY_LEN)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile key of %zu bytes exceeds %d", key_len, MAX_KEY_LEN);
  if (value_len > HUDI_HFILE_MAX_BLOCK / 2)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "HFile value of %zu bytes exceeds the cap", value_len);
  int same = 0;
  if (w->entries + w->n_kvs > 0) {
    size_t n = w->last_key.len < key_len ? w->last_key.len : key_len;
    int c = n ? memcmp(w->last_key.data, key, n) : 0;
    if (c == 0) c = w->last_key.len < key_len ? -1 : w->last_key.len > key_len;
    if (c > 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile keys must be ascending: '%.*s' follows '%.*s'",
                          (int)(key_len > 200 ? 200 : key_len), (const char *)key,
                          (int)(w->last_key.len > 200 ? 200 : w->last_key.len), (const char *)w->last_key.data);
    same = c == 0 && w->n_kvs > 0;
  }
  /* Java's rule: close the block before a new key once the accounted
   * size would pass the block size; equal keys stay together. */
  if (w->n_kvs > 0 && !same && w->block_acc + key_len + value_len + 9 > w->opts.block_size)
    HUDI_TRY(flush_block(w, err));
  if (w->n_kvs == w->kv_cap) {
    size_t nc = w->kv_cap ? w->kv_cap * 2 : 256;
    size_t *nv = hudi_realloc(w->kv_starts, hudi_mul_size(nc, sizeof *nv));
    if (!nv) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for an HFile block");
    w->kv_starts = nv;
    w->kv_cap = nc;
  }
  /* i32 key length, i32 value length, i16 row length, row, family length 0,
   * timestamp Long.MAX_VALUE, type 4 (Put), value, mvcc 0. */
  uint8_t head[10], tail[10];
  hudi_put_be32(head, (uint32_t)key_len + 12);
  hudi_put_be32(head + 4, (uint32_t)value_len);
  hudi_put_be16(head + 8, (uint16_t)key_len);
  tail[0] = 0;
  hudi_put_be64(tail + 1, UINT64_C(0x7fffffffffffffff));
  tail[9] = 4;
  size_t start = w->block.len;
  hudi_status st = hudi_buf_append(&w->block, head, sizeof head, err);
  if (st == HUDI_OK) st = hudi_buf_append(&w->block, key, key_len, err);
  if (st == HUDI_OK) st = hudi_buf_append(&w->block, tail, sizeof tail, err);
  if (st == HUDI_OK) st = hudi_buf_append(&w->block, value, value_len, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&w->block, 0, err);
  if (st != HUDI_OK) {
    w->block.len = start;
    return st;
  }
  w->kv_starts[w->n_kvs++] = start;
  w->block_acc += key_len + value_len + 9;
  w->total_key_len += key_len;
  w->total_value_len += value_len;
  hudi_buf_reset(&w->last_key);
  return hudi_buf_append(&w->last_key, key, key_len, err);
}

hudi_status hudi_hfile_writer_add_file_info(hudi_hfile_writer *w, const char *name, const uint8_t *value,
                                            size_t value_len, hudi_error *err) {
  if (w->finished) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer already finished");
  return named_put(&w->file_info, name, value, value_len, err);
}

hudi_status hudi_hfile_writer_add_meta_block(hudi_hfile_writer *w, const char *name, const uint8_t *value,
                                             size_t value_len, hudi_error *err) {
  if (w->finished) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer already finished");
  if (strlen(name) > MAX_KEY_LEN) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "meta block name too long");
  return named_put(&w->meta, name, value, value_len, err);
}

/* ---- finish ------------------------------------------------------------ */

static hudi_status put_be(named_list *l, const char *name, uint64_t v, size_t width, int only_if_absent,
                          hudi_error *err) {
  if (only_if_absent && named_find(l, name)) return HUDI_OK;
  uint8_t b[8];
  if (width == 8)
    hudi_put_be64(b, v);
  else
    hudi_put_be32(b, (uint32_t)v);
  return named_put(l, name, b, width, err);
}

static hudi_status write_meta_blocks(hudi_hfile_writer *w, hudi_buf *meta_index, hudi_error *err) {
  int gz = w->opts.compression == HUDI_HFILE_GZ;
  java_hashmap_order(&w->meta);
  for (size_t i = 0; i < w->meta.n; i++) {
    const named *e = &w->meta.v[i];
    uint64_t off = w->out.len;
    HUDI_TRY(hudi_hfile_block_encode(&w->out, HUDI_HFILE_MAGIC_META, e->value, e->len, gz, -1, err));
    uint8_t fixed[12];
    hudi_put_be64(fixed, off);
    hudi_put_be32(fixed + 8, (uint32_t)(w->out.len - off));
    size_t nl = strlen(e->name);
    HUDI_TRY(hudi_buf_append(meta_index, fixed, sizeof fixed, err));
    HUDI_TRY(hudi_hfile_vlong_write(meta_index, (int64_t)nl, err));
    HUDI_TRY(hudi_buf_append(meta_index, e->name, nl, err));
  }
  return HUDI_OK;
}

static hudi_status write_file_info(hudi_hfile_writer *w, hudi_buf *tmp, hudi_error *err) {
  named_list *l = &w->file_info;
  uint64_t n = w->entries;
  /* The same insertion sequence as Java's finishFileInfo. */
  uint8_t *lk = NULL;
  size_t lk_len = 0;
  if (w->last_key.len) {
    lk = hudi_malloc(w->last_key.len + 2);
    if (!lk) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    hudi_put_be16(lk, (uint16_t)w->last_key.len);
    memcpy(lk + 2, w->last_key.data, w->last_key.len);
    lk_len = w->last_key.len + 2;
  }
  hudi_status st = named_put(l, "hfile.LASTKEY", lk, lk_len, err);
  hudi_free(lk);
  HUDI_TRY(st);
  HUDI_TRY(put_be(l, "hfile.AVG_KEY_LEN", n ? (uint32_t)(w->total_key_len / n) : 0, 4, 0, err));
  int64_t ts = w->opts.create_time_ms;
  if (ts < 0) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    ts = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
  }
  HUDI_TRY(put_be(l, "hfile.CREATE_TIME_TS", (uint64_t)ts, 8, 0, err));
  HUDI_TRY(put_be(l, "hfile.AVG_VALUE_LEN", n ? (uint32_t)(w->total_value_len / n) : 0, 4, 0, err));
  HUDI_TRY(put_be(l, "KEY_VALUE_VERSION", 1, 4, 1, err));
  java_hashmap_order(l);
  /* "PBUF", varint length, InfoProto { repeated BytesBytesPair map_entry = 1 } */
  hudi_buf msg;
  hudi_buf_init(&msg, HUDI_BUF_DEFAULT_MAX);
  st = HUDI_OK;
  for (size_t i = 0; i < l->n && st == HUDI_OK; i++) {
    size_t nl = strlen(l->v[i].name);
    uint64_t pair = 1 + hudi_pb_varint_size(nl) + nl + 1 + hudi_pb_varint_size(l->v[i].len) + l->v[i].len;
    st = hudi_pb_write_tag(&msg, 1, HUDI_PB_BYTES, err);
    if (st == HUDI_OK) st = hudi_pb_write_varint(&msg, pair, err);
    if (st == HUDI_OK) st = hudi_pb_write_bytes_field(&msg, 1, l->v[i].name, nl, err);
    if (st == HUDI_OK) st = hudi_pb_write_bytes_field(&msg, 2, l->v[i].value, l->v[i].len, err);
  }
  hudi_buf_reset(tmp);
  if (st == HUDI_OK) st = hudi_buf_append(tmp, "PBUF", 4, err);
  if (st == HUDI_OK) st = hudi_pb_write_varint(tmp, msg.len, err);
  if (st == HUDI_OK) st = hudi_buf_append(tmp, msg.data, msg.len, err);
  hudi_buf_free(&msg);
  HUDI_TRY(st);
  return hudi_hfile_block_encode(&w->out, HUDI_HFILE_MAGIC_FILE_INFO, tmp->data, tmp->len,
                                 w->opts.compression == HUDI_HFILE_GZ, -1, err);
}

static hudi_status write_trailer(hudi_hfile_writer *w, uint64_t file_info_off, uint64_t load_on_open,
                                 hudi_error *err) {
  hudi_buf pb;
  hudi_buf_init(&pb, HUDI_HFILE_TRAILER_SIZE);
  /* Fields in number order, as Java's generated TrailerProto writes them;
   * 4 (total_uncompressed_bytes) and 13 (encryption_key) are not set. */
  hudi_status st = hudi_pb_write_uint_field(&pb, 1, file_info_off, err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 2, load_on_open, err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 3, w->total_usw, err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 5, w->n_root, err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 6, w->meta.n, err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 7, w->entries, err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 8, 1, err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 9, (uint64_t)w->first_data_off, err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 10, (uint64_t)w->last_data_off, err);
  if (st == HUDI_OK) st = hudi_pb_write_bytes_field(&pb, 11, COMPARATOR, strlen(COMPARATOR), err);
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 12, (uint64_t)w->opts.compression, err);
  size_t start = w->out.len;
  if (st == HUDI_OK) st = hudi_buf_append(&w->out, HUDI_HFILE_MAGIC_TRAILER, 8, err);
  if (st == HUDI_OK) st = hudi_pb_write_varint(&w->out, pb.len, err);
  if (st == HUDI_OK) st = hudi_buf_append(&w->out, pb.data, pb.len, err);
  hudi_buf_free(&pb);
  HUDI_TRY(st);
  HUDI_TRY(hudi_buf_append_zeros(&w->out, HUDI_HFILE_TRAILER_SIZE - (w->out.len - start), err));
  w->out.data[w->out.len - 1] = 3; /* version: minor 0, major 3 */
  return HUDI_OK;
}

hudi_status hudi_hfile_writer_finish(hudi_hfile_writer *w, uint8_t **out, size_t *out_len, hudi_error *err) {
  *out = NULL;
  *out_len = 0;
  if (w->finished) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer already finished");
  w->finished = 1;
  while (w->n_kvs > 0) HUDI_TRY(flush_block(w, err));
  hudi_buf meta_index;
  hudi_buf_init(&meta_index, HUDI_BUF_DEFAULT_MAX);
  int gz = w->opts.compression == HUDI_HFILE_GZ;
  hudi_status st = write_meta_blocks(w, &meta_index, err);
  uint64_t load_on_open = w->out.len;
  if (st == HUDI_OK)
    st = hudi_hfile_block_encode(&w->out, HUDI_HFILE_MAGIC_ROOT, w->root.data, w->root.len, gz, -1, err);
  if (st == HUDI_OK)
    st = hudi_hfile_block_encode(&w->out, HUDI_HFILE_MAGIC_ROOT, meta_index.data, meta_index.len, gz, -1, err);
  uint64_t file_info_off = w->out.len;
  if (st == HUDI_OK) st = write_file_info(w, &meta_index, err);
  hudi_buf_free(&meta_index);
  if (st == HUDI_OK) st = write_trailer(w, file_info_off, load_on_open, err);
  HUDI_TRY(st);
  return hudi_buf_detach(&w->out, out, out_len, err);
}

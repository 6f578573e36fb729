/* HFile multi-level data block index writer (see index_writer.h). The
 * layout and the split rules are HBase's (HFileBlockIndex.BlockIndexWriter),
 * checked against the 3-level deep-index fixture HBase 2.4 wrote. */
#include "hfile/index_writer.h"

#include <string.h>

#include "base/alloc.h"
#include "hfile/block.h"

static void chunk_init(hudi_hfile_chunk *c) {
  memset(c, 0, sizeof *c);
  hudi_buf_init(&c->keys, HUDI_BUF_DEFAULT_MAX);
}

static void chunk_free(hudi_hfile_chunk *c) {
  hudi_buf_free(&c->keys);
  hudi_free(c->v);
  memset(c, 0, sizeof *c);
}

static void chunk_clear(hudi_hfile_chunk *c) {
  hudi_buf_reset(&c->keys);
  c->n = 0;
  c->root_size = c->nonroot_size = 0;
}

/* Hadoop WritableUtils.getVIntSize. */
static size_t vint_size(uint64_t v) {
  if (v <= 127) return 1;
  size_t n = 0;
  while (v) {
    v >>= 8;
    n++;
  }
  return n + 1;
}

static const uint8_t *chunk_key(const hudi_hfile_chunk *c, size_t i) { return c->keys.data + c->v[i].key_off; }

static hudi_status chunk_add(hudi_hfile_chunk *c, const uint8_t *key, size_t key_len, uint64_t off, uint32_t size,
                             uint64_t sub, hudi_error *err) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    void *p = hudi_realloc(c->v, hudi_mul_size(cap, sizeof *c->v));
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for HFile index entries");
    c->v = p;
    c->cap = cap;
  }
  size_t at = c->keys.len;
  HUDI_TRY(hudi_buf_append(&c->keys, key, key_len, err));
  c->v[c->n++] = (struct hudi_hfile_chunk_entry){off, size, at, key_len, sub};
  c->root_size += 12 + vint_size(key_len) + key_len;
  c->nonroot_size += 12 + key_len;
  return HUDI_OK;
}

/* Size of the chunk in the non-root format (HBase getNonRootSize). */
static uint64_t nonroot_bytes(const hudi_hfile_chunk *c) { return 4 + 4 * ((uint64_t)c->n + 1) + c->nonroot_size; }

uint64_t hudi_hfile_index_writer_add_bound(const hudi_hfile_index_writer *w, size_t key_len) {
  if (w->max_chunk == 0) return 0;
  uint64_t payload = nonroot_bytes(&w->inline_chunk) + 4 + 12 + key_len;
  /* zlib's compressBound (deflate never expands more), gzip framing, the
   * header, 4 checksum bytes per 16 KiB, and the 256 bytes of room
   * codec.c's deflate loop keeps free; plus 5 bytes per 4 KiB, which
   * covers libdeflate's bound too (5 per block of at least 5,000 bytes),
   * the room it asks for when it writes the index blocks. */
  uint64_t gz = payload + (payload >> 12) + (payload >> 14) + 13 + 18 + 5 * ((payload >> 12) + 1);
  return HUDI_HFILE_HEADER_SIZE + gz + 4 * ((HUDI_HFILE_HEADER_SIZE + gz) / 16384 + 1) + 256;
}

/* Non-root format: i32 n, (n+1) x i32 entry offsets (from the first entry),
 * then n x (i64 offset, i32 on-disk size, key). */
static hudi_status write_nonroot(const hudi_hfile_chunk *c, hudi_buf *p, hudi_error *err) {
  uint8_t b[12];
  hudi_put_be32(b, (uint32_t)c->n);
  HUDI_TRY(hudi_buf_append(p, b, 4, err));
  uint32_t at = 0;
  for (size_t i = 0; i <= c->n; i++) {
    hudi_put_be32(b, at);
    HUDI_TRY(hudi_buf_append(p, b, 4, err));
    if (i < c->n) at += (uint32_t)(12 + c->v[i].key_len);
  }
  for (size_t i = 0; i < c->n; i++) {
    hudi_put_be64(b, c->v[i].off);
    hudi_put_be32(b + 8, c->v[i].size);
    HUDI_TRY(hudi_buf_append(p, b, 12, err));
    HUDI_TRY(hudi_buf_append(p, chunk_key(c, i), c->v[i].key_len, err));
  }
  return HUDI_OK;
}

/* Root format: n x (i64 offset, i32 on-disk size, VLong key length, key). */
static hudi_status write_root(const hudi_hfile_chunk *c, hudi_buf *p, hudi_error *err) {
  for (size_t i = 0; i < c->n; i++) {
    uint8_t b[12];
    hudi_put_be64(b, c->v[i].off);
    hudi_put_be32(b + 8, c->v[i].size);
    HUDI_TRY(hudi_buf_append(p, b, 12, err));
    HUDI_TRY(hudi_hfile_vlong_write(p, (int64_t)c->v[i].key_len, err));
    HUDI_TRY(hudi_buf_append(p, chunk_key(c, i), c->v[i].key_len, err));
  }
  return HUDI_OK;
}

/* Encodes chunk c as one non-root block of type magic at the end of out,
 * and adds the entry pointing to it to parent. */
static hudi_status write_index_block(hudi_hfile_index_writer *w, hudi_buf *out, const hudi_hfile_chunk *c,
                                     const char *magic, int64_t *prev, hudi_hfile_chunk *parent, hudi_error *err) {
  hudi_buf payload;
  hudi_buf_init(&payload, HUDI_HFILE_MAX_BLOCK);
  hudi_status st = write_nonroot(c, &payload, err);
  uint64_t off = out->len;
  if (st == HUDI_OK)
    st = hudi_hfile_block_encode_fast(out, magic, payload.data, payload.len, w->gz, *prev, w->fast, NULL, err);
  if (st == HUDI_OK) {
    *prev = (int64_t)off;
    st = chunk_add(parent, chunk_key(c, 0), c->v[0].key_len, off, (uint32_t)(out->len - off), c->v[c->n - 1].sub,
                   err);
  }
  hudi_buf_free(&payload);
  return st;
}

void hudi_hfile_index_writer_init(hudi_hfile_index_writer *w, size_t max_chunk, int gz) {
  memset(w, 0, sizeof *w);
  w->max_chunk = max_chunk;
  w->gz = gz;
  w->prev_leaf = w->prev_intermediate = -1;
  w->levels = 1;
  chunk_init(&w->inline_chunk);
  chunk_init(&w->root);
}

void hudi_hfile_index_writer_free(hudi_hfile_index_writer *w) {
  chunk_free(&w->inline_chunk);
  chunk_free(&w->root);
}

hudi_status hudi_hfile_index_writer_add(hudi_hfile_index_writer *w, hudi_buf *out, const uint8_t *key, size_t key_len,
                                        uint64_t off, uint32_t size, hudi_error *err) {
  w->data_blocks++;
  HUDI_TRY(chunk_add(&w->inline_chunk, key, key_len, off, size, w->data_blocks, err));
  if (w->max_chunk == 0 || nonroot_bytes(&w->inline_chunk) < w->max_chunk) return HUDI_OK;
  HUDI_TRY(write_index_block(w, out, &w->inline_chunk, HUDI_HFILE_MAGIC_LEAF, &w->prev_leaf, &w->root, err));
  chunk_clear(&w->inline_chunk);
  w->levels = 2;
  return HUDI_OK;
}

hudi_status hudi_hfile_index_writer_close_leaves(hudi_hfile_index_writer *w, hudi_buf *out, hudi_error *err) {
  if (w->inline_chunk.n == 0) return HUDI_OK;
  if (w->root.n == 0) { /* no leaf yet: these entries are the root (HBase does the same) */
    hudi_hfile_chunk t = w->root;
    w->root = w->inline_chunk;
    w->inline_chunk = t;
    return HUDI_OK;
  }
  w->levels = 2;
  HUDI_TRY(write_index_block(w, out, &w->inline_chunk, HUDI_HFILE_MAGIC_LEAF, &w->prev_leaf, &w->root, err));
  chunk_clear(&w->inline_chunk);
  return HUDI_OK;
}

/* HBase's mid-key metadata: the leaf block holding the middle data block
 * entry, and that entry's place in it (BlockIndexChunk.getMidKeyMetadata). */
static hudi_status mid_key(const hudi_hfile_chunk *c, hudi_buf *p, hudi_error *err) {
  uint64_t total = c->v[c->n - 1].sub, mid = (total - 1) / 2;
  size_t lo = 0, hi = c->n; /* first entry whose cumulative count exceeds mid */
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (c->v[m].sub > mid)
      hi = m;
    else
      lo = m + 1;
  }
  uint64_t before = lo > 0 ? c->v[lo - 1].sub : 0;
  uint8_t b[16];
  hudi_put_be64(b, c->v[lo].off);
  hudi_put_be32(b + 8, c->v[lo].size);
  hudi_put_be32(b + 12, (uint32_t)(mid - before));
  return hudi_buf_append(p, b, sizeof b, err);
}

/* Splits the current root level into intermediate blocks; the new root
 * points to them (HBase writeIntermediateLevel, with HBASE-16288's rule
 * that the first block takes more than MIN_ENTRIES entries). */
static hudi_status intermediate_level(hudi_hfile_index_writer *w, hudi_buf *out, hudi_error *err) {
  hudi_hfile_chunk parent, cur;
  chunk_init(&parent);
  chunk_init(&cur);
  hudi_status st = HUDI_OK;
  const hudi_hfile_chunk *lvl = &w->root;
  for (size_t i = 0; st == HUDI_OK && i < lvl->n; i++) {
    st = chunk_add(&cur, chunk_key(lvl, i), lvl->v[i].key_len, lvl->v[i].off, lvl->v[i].size, lvl->v[i].sub, err);
    if (st == HUDI_OK && i >= HUDI_HFILE_INDEX_MIN_ENTRIES && cur.root_size >= w->max_chunk) {
      st = write_index_block(w, out, &cur, HUDI_HFILE_MAGIC_INTERMEDIATE, &w->prev_intermediate, &parent, err);
      chunk_clear(&cur);
    }
  }
  if (st == HUDI_OK && cur.n > 0)
    st = write_index_block(w, out, &cur, HUDI_HFILE_MAGIC_INTERMEDIATE, &w->prev_intermediate, &parent, err);
  chunk_free(&cur);
  if (st != HUDI_OK) {
    chunk_free(&parent);
    return st;
  }
  chunk_free(&w->root);
  w->root = parent;
  return HUDI_OK;
}

hudi_status hudi_hfile_index_writer_finish(hudi_hfile_index_writer *w, hudi_buf *out, uint64_t *root_off,
                                           uint32_t *root_entries, hudi_error *err) {
  hudi_buf payload;
  hudi_buf_init(&payload, HUDI_HFILE_MAX_BLOCK);
  hudi_status st = HUDI_OK;
  /* The mid-key comes from the leaf level, before intermediate levels
   * replace the root's entries. */
  hudi_buf mid;
  hudi_buf_init(&mid, 64);
  if (w->levels > 1) st = mid_key(&w->root, &mid, err);
  while (st == HUDI_OK && w->levels > 1 && w->root.root_size > w->max_chunk &&
         w->root.n > HUDI_HFILE_INDEX_MIN_ENTRIES && w->levels < HUDI_HFILE_INDEX_MAX_LEVELS) {
    st = intermediate_level(w, out, err);
    if (st == HUDI_OK) w->levels++;
  }
  if (st == HUDI_OK) st = write_root(&w->root, &payload, err);
  if (st == HUDI_OK) st = hudi_buf_append(&payload, mid.data, mid.len, err);
  *root_off = out->len;
  if (st == HUDI_OK)
    st = hudi_hfile_block_encode_fast(out, HUDI_HFILE_MAGIC_ROOT, payload.data, payload.len, w->gz, -1, w->fast, NULL, err);
  *root_entries = (uint32_t)w->root.n;
  hudi_buf_free(&payload);
  hudi_buf_free(&mid);
  return st;
}

/* HFile v3 reader. Open reads the trailer and the load-on-open section
 * (root data index, meta index, file info) with one ranged read each.
 * A lookup walks a multi-level index down with its sorted keys, level by
 * level, reading only the intermediate and leaf index blocks and the data
 * blocks the keys fall in; the blocks a level needs are known before any
 * is read, so runs of them close together are fetched with one read each
 * (coalescing; windows below). A scan expands the whole index once. */
#include <string.h>

#include "base/alloc.h"
#include "hfile/block.h"
#include "hfile/hfile.h"
#include "hfile/protobuf.h"

#define MAX_INDEX_LEVELS 8
#define MAX_INDEX_ENTRIES ((size_t)1 << 26)
#define MAX_LOAD_ON_OPEN ((uint64_t)512 << 20)
/* Coalesced reads held at once during a lookup, and the bytes they may
 * hold together (at least this, at least 4 coalesced reads' worth): a
 * window read for index blocks also holds the data blocks between them,
 * which the next level then finds without a read. */
#define MAX_WINDOWS 16
#define WINDOW_BUDGET ((uint64_t)16 << 20)
/* A merged read spans at most this many times the bytes its blocks are
 * expected to bring (hfile.h): bytes stay proportional to the keys. */
#define COALESCE_DENSITY 64

/* A block index entry; the row key lives in the reader's key arena. */
typedef struct idx_entry {
  uint64_t off;
  uint32_t size; /* on-disk size with header */
  size_t key_off, key_len;
} idx_entry;

typedef struct fi_entry {
  size_t key_off, key_len, val_off, val_len;
} fi_entry;

/* File bytes [off, off + bytes.len) fetched by one coalesced read. */
typedef struct window {
  uint64_t off;
  uint64_t stamp; /* 0: free */
  hudi_buf bytes;
} window;

/* A block some lookup keys fall in: keys [k0, k1). */
typedef struct task {
  uint64_t off;
  uint32_t size;
  size_t k0, k1;
} task;

struct hudi_hfile_reader {
  hudi_hfile_source src;
  const uint8_t *mem; /* open_buffer: the borrowed bytes */
  char *name;
  hudi_hfile_trailer t;
  int gz;
  int includes_tags;
  hudi_hfile_stats stats;
  hudi_buf keys;           /* arena of index keys */
  idx_entry *data_idx;     /* root entries until expanded, then data blocks */
  size_t n_data;
  uint32_t levels_left;    /* index levels still to expand below data_idx */
  idx_entry *meta_idx;
  size_t n_meta;
  char **meta_names;
  hudi_buf file_info;      /* decoded file info payload */
  fi_entry *fi;
  size_t n_fi;
  hudi_buf raw, block;     /* scratch: on-disk bytes, decoded payload */
  int64_t cur_off;         /* file offset of the data block decoded in `block`, or -1 */
  /* A lookup's current non-root index block, parsed. */
  struct walk_level {
    idx_entry *e;
    size_t n, cap;
    hudi_buf keys;
  } walk[MAX_INDEX_LEVELS];
  uint64_t co_gap, co_max; /* hudi_hfile_reader_set_coalesce */
  window win[MAX_WINDOWS]; /* during a lookup only */
  uint64_t win_clock;
};

/* ---- small helpers ---------------------------------------------------- */

static int mem_read(void *ctx, uint64_t off, size_t len, uint8_t *dst) {
  hudi_hfile_reader *r = ctx;
  if (off > r->src.size || len > r->src.size - off) return -1;
  memcpy(dst, r->mem + off, len);
  return 0;
}

static hudi_status read_range(hudi_hfile_reader *r, uint64_t off, size_t len, hudi_buf *dst, hudi_error *err) {
  if (off > r->src.size || len > r->src.size - off)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: range [%llu, +%zu) is past the end of the %llu-byte file",
                        r->name, (unsigned long long)off, len, (unsigned long long)r->src.size);
  hudi_buf_reset(dst);
  HUDI_TRY(hudi_buf_reserve(dst, len ? len : 1, err));
  if (len && r->src.read_range(r->src.ctx, off, len, dst->data) != 0)
    return hudi_err_set(err, HUDI_ERR_IO, "%s: reading %zu bytes at byte offset %llu failed", r->name, len,
                        (unsigned long long)off);
  dst->len = len;
  r->stats.reads++;
  r->stats.bytes_read += len;
  return HUDI_OK;
}

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  size_t n = al < bl ? al : bl;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c;
  return al < bl ? -1 : al > bl;
}

static const uint8_t *idx_key(const hudi_hfile_reader *r, const idx_entry *e) { return r->keys.data + e->key_off; }
static const uint8_t *arena_key(const hudi_buf *arena, const idx_entry *e) { return arena->data + e->key_off; }

/* Stores an index key. Data index keys are KeyValue keys (i16 row length,
 * row, then family/qualifier/timestamp/type for HBase files); only the
 * row is kept since lookups compare rows. Meta index keys are raw names. */
static hudi_status add_key(hudi_hfile_reader *r, hudi_buf *arena, idx_entry *e, const uint8_t *k, size_t klen,
                           int row_only, uint64_t at, hudi_error *err) {
  if (row_only) {
    if (klen < 2 || (size_t)hudi_be16(k) > klen - 2)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: index key of %zu bytes at byte offset %llu has no valid row",
                          r->name, klen, (unsigned long long)at);
    klen = hudi_be16(k);
    k += 2;
  }
  e->key_off = arena->len;
  e->key_len = klen;
  return hudi_buf_append(arena, k, klen, err);
}

/* ---- trailer ------------------------------------------------------------ */

static hudi_status parse_trailer(hudi_hfile_reader *r, const uint8_t *p, uint64_t base, hudi_error *err) {
  hudi_hfile_trailer *t = &r->t;
  unsigned long long b = (unsigned long long)base;
  if (memcmp(p, HUDI_HFILE_MAGIC_TRAILER, 8) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: no HFile trailer magic at byte offset %llu", r->name, b);
  t->minor_version = p[HUDI_HFILE_TRAILER_SIZE - 4];
  t->major_version = hudi_be32(p + HUDI_HFILE_TRAILER_SIZE - 4) & 0xffffff;
  if (t->major_version != 3)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: HFile version %u.%u (only 3 is supported)", r->name,
                        t->major_version, t->minor_version);
  hudi_pb_reader pr;
  hudi_pb_reader_init(&pr, p + 8, HUDI_HFILE_TRAILER_SIZE - 12, base + 8);
  const uint8_t *msg;
  size_t msg_len;
  HUDI_TRY(hudi_pb_read_bytes(&pr, &msg, &msg_len, err));
  hudi_pb_reader_init(&pr, msg, msg_len, base + 8 + (uint64_t)(msg - (p + 8)));
  t->num_data_index_levels = 1;
  t->first_data_block_offset = -1;
  t->last_data_block_offset = -1;
  while (!hudi_pb_at_end(&pr)) {
    uint32_t field;
    int wire;
    uint64_t v = 0;
    HUDI_TRY(hudi_pb_read_tag(&pr, &field, &wire, err));
    if (field == 11 && wire == HUDI_PB_BYTES) {
      const uint8_t *s;
      size_t n;
      HUDI_TRY(hudi_pb_read_bytes(&pr, &s, &n, err));
      if (n >= sizeof t->comparator) n = sizeof t->comparator - 1;
      memcpy(t->comparator, s, n);
      t->comparator[n] = 0;
      continue;
    }
    if (wire != HUDI_PB_VARINT || field > 12) {
      HUDI_TRY(hudi_pb_skip(&pr, wire, err));
      continue;
    }
    HUDI_TRY(hudi_pb_read_varint(&pr, &v, err));
    switch (field) {
      case 1: t->file_info_offset = v; break;
      case 2: t->load_on_open_offset = v; break;
      case 3: t->uncompressed_data_index_size = v; break;
      case 4: t->total_uncompressed_bytes = v; break;
      case 5: t->data_index_count = (uint32_t)v; break;
      case 6: t->meta_index_count = (uint32_t)v; break;
      case 7: t->entry_count = v; break;
      case 8: t->num_data_index_levels = (uint32_t)v; break;
      case 9: t->first_data_block_offset = (int64_t)v; break;
      case 10: t->last_data_block_offset = (int64_t)v; break;
      case 12: t->compression_codec = (uint32_t)v; break;
      default: break;
    }
    if ((field == 5 || field == 6 || field == 8 || field == 12) && v > UINT32_MAX)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: trailer field %u value %llu out of range", r->name, field,
                          (unsigned long long)v);
  }
  if (t->compression_codec == 1) {
    r->gz = 1;
  } else if (t->compression_codec != 2) {
    static const char *names[] = {"LZO", "GZ", "NONE", "SNAPPY", "LZ4", "BZIP2", "ZSTD"};
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: HFile compression %s (id %u) is not supported", r->name,
                        t->compression_codec < 7 ? names[t->compression_codec] : "unknown", t->compression_codec);
  }
  if (t->num_data_index_levels < 1 || t->num_data_index_levels > MAX_INDEX_LEVELS)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: %u data index levels (1..%d allowed)", r->name,
                        t->num_data_index_levels, MAX_INDEX_LEVELS);
  return HUDI_OK;
}

/* ---- index blocks ----------------------------------------------------- */

/* Root index format: n x (i64 offset, i32 on-disk size, VLong key length, key). */
static hudi_status parse_root_entries(hudi_hfile_reader *r, const uint8_t *p, size_t len, uint64_t base,
                                      size_t n, int row_only, idx_entry **out, hudi_error *err) {
  if (n > len / 13 + 1 && n > 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: root index at byte offset %llu claims %zu entries in %zu bytes",
                        r->name, (unsigned long long)base, n, len);
  idx_entry *e = hudi_calloc(n ? n : 1, sizeof *e);
  if (!e) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for %zu index entries", n);
  *out = e;
  size_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t at = base + HUDI_HFILE_HEADER_SIZE + pos;
    int64_t klen = 0;
    size_t vl = len - pos >= 12 ? hudi_hfile_vlong_read(p + pos + 12, len - pos - 12, &klen) : 0;
    if (vl == 0 || klen < 0 || (uint64_t)klen > len - pos - 12 - vl)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: root index entry %zu at byte offset %llu is truncated",
                          r->name, i, (unsigned long long)at);
    e[i].off = hudi_be64(p + pos);
    e[i].size = hudi_be32(p + pos + 8);
    HUDI_TRY(add_key(r, &r->keys, &e[i], p + pos + 12 + vl, (size_t)klen, row_only, at, err));
    pos += 12 + vl + (size_t)klen;
  }
  return HUDI_OK;
}

/* The size bytes at off, when a window holds them all. */
static const uint8_t *window_at(const hudi_hfile_reader *r, uint64_t off, uint32_t size) {
  for (size_t i = 0; i < MAX_WINDOWS; i++) {
    const window *w = &r->win[i];
    if (w->stamp && off >= w->off && size <= w->bytes.len && off - w->off <= w->bytes.len - size)
      return w->bytes.data + (off - w->off);
  }
  return NULL;
}

/* Whether an index entry's block lies in the data section (read_block
 * reports the ones that do not). */
static bool block_sane(const hudi_hfile_reader *r, uint64_t off, uint32_t size) {
  uint64_t end = r->src.size - HUDI_HFILE_TRAILER_SIZE;
  return size >= HUDI_HFILE_HEADER_SIZE && off <= end && size <= end - off && size <= HUDI_HFILE_MAX_BLOCK;
}

/* The error for an index entry whose block is not in the data section. */
static hudi_status outside_data(const hudi_hfile_reader *r, uint64_t off, uint32_t size, const char *magic,
                                hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: index points to a %u-byte %s block at byte offset %llu, outside the data section",
                      r->name, size, magic, (unsigned long long)off);
}

/* The header of the block of `size` on-disk bytes at p (file offset off),
 * which must be a `magic` block. */
static hudi_status block_header(const hudi_hfile_reader *r, const uint8_t *p, uint64_t off, uint32_t size,
                                const char *magic, hudi_hfile_block_header *h, hudi_error *err) {
  HUDI_TRY(hudi_hfile_block_header_parse(h, p, size, off, r->name, err));
  if (memcmp(h->magic, magic, 8) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: expected a %s block at byte offset %llu, found %s", r->name,
                        magic, (unsigned long long)off, h->magic);
  return HUDI_OK;
}

/* Reads a whole block of `size` on-disk bytes at off (from a window when
 * one holds it), checks its magic, and decodes its payload into out. */
static hudi_status read_block(hudi_hfile_reader *r, uint64_t off, uint32_t size, const char *magic, hudi_buf *out,
                              hudi_error *err) {
  if (!block_sane(r, off, size)) return outside_data(r, off, size, magic, err);
  const uint8_t *p = window_at(r, off, size);
  if (!p) {
    HUDI_TRY(read_range(r, off, size, &r->raw, err));
    p = r->raw.data;
  }
  hudi_hfile_block_header h;
  HUDI_TRY(block_header(r, p, off, size, magic, &h, err));
  return hudi_hfile_block_decode(&h, p, r->gz, off, r->name, out, err);
}

/* Non-root (leaf and intermediate) index format: i32 n, (n+1) x i32
 * offsets of the entries, then n x (i64 offset, i32 on-disk size, key). */
static hudi_status parse_nonroot(hudi_hfile_reader *r, const uint8_t *p, size_t len, uint64_t at, hudi_buf *arena,
                                 idx_entry **vec, size_t *n_vec, size_t *cap, hudi_error *err) {
  unsigned long long o = (unsigned long long)at;
  if (len < 4) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: index block at byte offset %llu is empty", r->name, o);
  uint32_t n = hudi_be32(p);
  if (n > (len - 4) / 4 - 1 || (size_t)n > MAX_INDEX_ENTRIES)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: index block at byte offset %llu claims %u entries in %zu bytes",
                        r->name, o, n, len);
  size_t base = 4 + 4 * ((size_t)n + 1);
  for (uint32_t i = 0; i < n; i++) {
    size_t a = hudi_be32(p + 4 + 4 * (size_t)i), b = hudi_be32(p + 8 + 4 * (size_t)i);
    if (a > b || b > len - base || b - a < 12)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: index block at byte offset %llu: entry %u has bad bounds",
                          r->name, o, i);
    if (*n_vec == *cap) {
      size_t nc = *cap ? *cap * 2 : 64;
      if (nc > MAX_INDEX_ENTRIES)
        return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: more than %zu index entries", r->name, MAX_INDEX_ENTRIES);
      idx_entry *nv = hudi_realloc(*vec, hudi_mul_size(nc, sizeof *nv));
      if (!nv) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for index entries");
      *vec = nv;
      *cap = nc;
    }
    idx_entry *e = &(*vec)[(*n_vec)++];
    const uint8_t *q = p + base + a;
    e->off = hudi_be64(q);
    e->size = hudi_be32(q + 8);
    HUDI_TRY(add_key(r, arena, e, q + 12, b - a - 12, 1, at + base + a, err));
  }
  return HUDI_OK;
}

/* Replaces the entries of one index level by the entries of the blocks
 * they point to, until data_idx lists data blocks. */
static hudi_status ensure_index(hudi_hfile_reader *r, hudi_error *err) {
  while (r->levels_left > 0) {
    idx_entry *next = NULL;
    size_t n_next = 0, cap = 0;
    const char *magic = r->levels_left == 1 ? HUDI_HFILE_MAGIC_LEAF : HUDI_HFILE_MAGIC_INTERMEDIATE;
    hudi_status st = HUDI_OK;
    for (size_t i = 0; i < r->n_data && st == HUDI_OK; i++) {
      st = read_block(r, r->data_idx[i].off, r->data_idx[i].size, magic, &r->block, err);
      if (st == HUDI_OK) {
        r->stats.index_blocks_read++;
        st = parse_nonroot(r, r->block.data, r->block.len, r->data_idx[i].off, &r->keys, &next, &n_next, &cap, err);
      }
    }
    r->cur_off = -1;
    if (st != HUDI_OK) {
      hudi_free(next);
      return st;
    }
    hudi_free(r->data_idx);
    r->data_idx = next;
    r->n_data = n_next;
    r->levels_left--;
  }
  return HUDI_OK;
}

/* ---- file info -------------------------------------------------------- */

static hudi_status parse_file_info(hudi_hfile_reader *r, uint64_t at, hudi_error *err) {
  const uint8_t *p = r->file_info.data;
  size_t len = r->file_info.len;
  uint64_t base = at + HUDI_HFILE_HEADER_SIZE;
  if (len < 4 || memcmp(p, "PBUF", 4) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: file info at byte offset %llu lacks the PBUF magic", r->name,
                        (unsigned long long)at);
  hudi_pb_reader pr;
  hudi_pb_reader_init(&pr, p + 4, len - 4, base + 4);
  const uint8_t *msg;
  size_t msg_len;
  HUDI_TRY(hudi_pb_read_bytes(&pr, &msg, &msg_len, err));
  hudi_pb_reader_init(&pr, msg, msg_len, base + (uint64_t)(msg - p));
  size_t cap = 0;
  while (!hudi_pb_at_end(&pr)) {
    uint32_t field;
    int wire;
    HUDI_TRY(hudi_pb_read_tag(&pr, &field, &wire, err));
    if (field != 1 || wire != HUDI_PB_BYTES) {
      HUDI_TRY(hudi_pb_skip(&pr, wire, err));
      continue;
    }
    const uint8_t *pair;
    size_t pair_len;
    HUDI_TRY(hudi_pb_read_bytes(&pr, &pair, &pair_len, err));
    hudi_pb_reader pp;
    hudi_pb_reader_init(&pp, pair, pair_len, base + (uint64_t)(pair - p));
    fi_entry e = {0, 0, 0, 0};
    while (!hudi_pb_at_end(&pp)) {
      const uint8_t *v;
      size_t vl;
      HUDI_TRY(hudi_pb_read_tag(&pp, &field, &wire, err));
      if ((field == 1 || field == 2) && wire == HUDI_PB_BYTES) {
        HUDI_TRY(hudi_pb_read_bytes(&pp, &v, &vl, err));
        if (field == 1) {
          e.key_off = (size_t)(v - p);
          e.key_len = vl;
        } else {
          e.val_off = (size_t)(v - p);
          e.val_len = vl;
        }
      } else {
        HUDI_TRY(hudi_pb_skip(&pp, wire, err));
      }
    }
    if (r->n_fi == cap) {
      cap = cap ? cap * 2 : 16;
      fi_entry *nf = hudi_realloc(r->fi, hudi_mul_size(cap, sizeof *nf));
      if (!nf) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for file info");
      r->fi = nf;
    }
    r->fi[r->n_fi++] = e;
  }
  const uint8_t *v;
  size_t vl;
  r->includes_tags = hudi_hfile_reader_file_info(r, "hfile.MAX_TAGS_LEN", &v, &vl);
  return HUDI_OK;
}

/* ---- open ------------------------------------------------------------- */

/* Decodes the block at region offset *pos (file offset base + *pos). */
static hudi_status region_block(hudi_hfile_reader *r, const hudi_buf *region, uint64_t base, size_t *pos,
                                const char *magic, hudi_buf *out, hudi_error *err) {
  hudi_hfile_block_header h;
  uint64_t at = base + *pos;
  HUDI_TRY(hudi_hfile_block_header_parse(&h, region->data + *pos, region->len - *pos, at, r->name, err));
  if (memcmp(h.magic, magic, 8) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: expected a %s block at byte offset %llu, found %s", r->name,
                        magic, (unsigned long long)at, h.magic);
  HUDI_TRY(hudi_hfile_block_decode(&h, region->data + *pos, r->gz, at, r->name, out, err));
  *pos += HUDI_HFILE_HEADER_SIZE + h.on_disk_size_without_header;
  return HUDI_OK;
}

static hudi_status load_on_open(hudi_hfile_reader *r, hudi_error *err) {
  uint64_t end = r->src.size - HUDI_HFILE_TRAILER_SIZE, lo = r->t.load_on_open_offset;
  if (lo >= end)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: load-on-open offset %llu is not before the trailer at %llu",
                        r->name, (unsigned long long)lo, (unsigned long long)end);
  if (end - lo > MAX_LOAD_ON_OPEN)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: load-on-open section of %llu bytes exceeds the cap", r->name,
                        (unsigned long long)(end - lo));
  hudi_buf region;
  hudi_buf_init(&region, HUDI_BUF_DEFAULT_MAX);
  size_t pos = 0;
  hudi_status st = read_range(r, lo, (size_t)(end - lo), &region, err);
  if (st == HUDI_OK) st = region_block(r, &region, lo, &pos, HUDI_HFILE_MAGIC_ROOT, &r->block, err);
  if (st == HUDI_OK)
    st = parse_root_entries(r, r->block.data, r->block.len, lo, r->t.data_index_count, 1, &r->data_idx, err);
  r->n_data = r->t.data_index_count;
  r->levels_left = r->t.num_data_index_levels - 1;
  uint64_t meta_at = lo + pos;
  if (st == HUDI_OK) st = region_block(r, &region, lo, &pos, HUDI_HFILE_MAGIC_ROOT, &r->block, err);
  if (st == HUDI_OK)
    st = parse_root_entries(r, r->block.data, r->block.len, meta_at, r->t.meta_index_count, 0, &r->meta_idx, err);
  if (st == HUDI_OK) r->n_meta = r->t.meta_index_count;
  uint64_t fi_at = lo + pos;
  if (st == HUDI_OK) st = region_block(r, &region, lo, &pos, HUDI_HFILE_MAGIC_FILE_INFO, &r->file_info, err);
  if (st == HUDI_OK) st = parse_file_info(r, fi_at, err);
  /* Further blocks (HBase bloom filter metadata) are not used by Hudi. */
  hudi_buf_free(&region);
  if (st != HUDI_OK) return st;
  r->meta_names = hudi_calloc(r->n_meta ? r->n_meta : 1, sizeof *r->meta_names);
  if (!r->meta_names) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < r->n_meta; i++) {
    r->meta_names[i] = hudi_strndup((const char *)idx_key(r, &r->meta_idx[i]), r->meta_idx[i].key_len);
    if (!r->meta_names[i]) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  return HUDI_OK;
}

hudi_status hudi_hfile_reader_open(hudi_hfile_reader **out, const hudi_hfile_source *src, hudi_error *err) {
  *out = NULL;
  if (!src || !src->read_range)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile source needs a read_range callback");
  hudi_hfile_reader *r = hudi_calloc(1, sizeof *r);
  if (!r) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for an HFile reader");
  r->src = *src;
  r->cur_off = -1;
  r->co_max = HUDI_HFILE_COALESCE_MAX_DEFAULT;
  hudi_buf_init(&r->keys, HUDI_BUF_DEFAULT_MAX);
  for (size_t i = 0; i < MAX_INDEX_LEVELS; i++) hudi_buf_init(&r->walk[i].keys, HUDI_BUF_DEFAULT_MAX);
  for (size_t i = 0; i < MAX_WINDOWS; i++) hudi_buf_init(&r->win[i].bytes, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&r->file_info, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&r->raw, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&r->block, HUDI_BUF_DEFAULT_MAX);
  r->name = hudi_strdup(src->name ? src->name : "HFile");
  if (!r->name) {
    hudi_hfile_reader_free(r);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for an HFile reader");
  }
  hudi_status st = HUDI_OK;
  if (src->size < HUDI_HFILE_TRAILER_SIZE + HUDI_HFILE_HEADER_SIZE * 3)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: %llu bytes is too small for an HFile", r->name,
                      (unsigned long long)src->size);
  uint64_t toff = src->size - HUDI_HFILE_TRAILER_SIZE;
  if (st == HUDI_OK) st = read_range(r, toff, HUDI_HFILE_TRAILER_SIZE, &r->raw, err);
  if (st == HUDI_OK) st = parse_trailer(r, r->raw.data, toff, err);
  if (st == HUDI_OK) st = load_on_open(r, err);
  if (st != HUDI_OK) {
    hudi_hfile_reader_free(r);
    return st;
  }
  *out = r;
  return HUDI_OK;
}

hudi_status hudi_hfile_reader_open_buffer(hudi_hfile_reader **out, const uint8_t *data, size_t len,
                                          const char *name, hudi_error *err) {
  /* mem_read reads through a reader's mem/src.size; during open a stack
   * stand-in provides them, afterwards the reader itself. */
  hudi_hfile_reader stand_in;
  memset(&stand_in, 0, sizeof stand_in);
  stand_in.mem = data;
  stand_in.src.size = len;
  hudi_hfile_source src = {mem_read, &stand_in, len, name};
  hudi_status st = hudi_hfile_reader_open(out, &src, err);
  if (st != HUDI_OK) return st;
  (*out)->mem = data;
  (*out)->src.ctx = *out;
  (*out)->co_max = 0; /* a copy per block costs what a merged copy does */
  return HUDI_OK;
}

void hudi_hfile_reader_free(hudi_hfile_reader *r) {
  if (!r) return;
  if (r->meta_names)
    for (size_t i = 0; i < r->n_meta; i++) hudi_free(r->meta_names[i]);
  hudi_free(r->meta_names);
  hudi_free(r->meta_idx);
  hudi_free(r->data_idx);
  hudi_free(r->fi);
  for (size_t i = 0; i < MAX_INDEX_LEVELS; i++) {
    hudi_free(r->walk[i].e);
    hudi_buf_free(&r->walk[i].keys);
  }
  for (size_t i = 0; i < MAX_WINDOWS; i++) hudi_buf_free(&r->win[i].bytes);
  hudi_buf_free(&r->keys);
  hudi_buf_free(&r->file_info);
  hudi_buf_free(&r->raw);
  hudi_buf_free(&r->block);
  hudi_free(r->name);
  hudi_free(r);
}

/* ---- accessors -------------------------------------------------------- */

const hudi_hfile_trailer *hudi_hfile_reader_trailer(const hudi_hfile_reader *r) { return &r->t; }
uint64_t hudi_hfile_reader_entry_count(const hudi_hfile_reader *r) { return r->t.entry_count; }
void hudi_hfile_reader_stats(const hudi_hfile_reader *r, hudi_hfile_stats *out) { *out = r->stats; }

void hudi_hfile_reader_set_coalesce(hudi_hfile_reader *r, uint64_t gap, uint64_t max) {
  r->co_gap = gap;
  r->co_max = max;
}
size_t hudi_hfile_reader_file_info_count(const hudi_hfile_reader *r) { return r->n_fi; }

void hudi_hfile_reader_file_info_at(const hudi_hfile_reader *r, size_t i, const uint8_t **key, size_t *key_len,
                                    const uint8_t **value, size_t *value_len) {
  const fi_entry *e = &r->fi[i];
  *key = r->file_info.data + e->key_off;
  *key_len = e->key_len;
  *value = r->file_info.data + e->val_off;
  *value_len = e->val_len;
}

bool hudi_hfile_reader_file_info(const hudi_hfile_reader *r, const char *name, const uint8_t **value,
                                 size_t *value_len) {
  size_t n = strlen(name);
  for (size_t i = 0; i < r->n_fi; i++) {
    const fi_entry *e = &r->fi[i];
    if (e->key_len == n && memcmp(r->file_info.data + e->key_off, name, n) == 0) {
      *value = r->file_info.data + e->val_off;
      *value_len = e->val_len;
      return true;
    }
  }
  return false;
}

size_t hudi_hfile_reader_meta_count(const hudi_hfile_reader *r) { return r->n_meta; }
const char *hudi_hfile_reader_meta_name(const hudi_hfile_reader *r, size_t i) { return r->meta_names[i]; }

hudi_status hudi_hfile_reader_meta_block(hudi_hfile_reader *r, const char *name, hudi_buf *out, bool *found,
                                         hudi_error *err) {
  size_t n = strlen(name);
  *found = false;
  for (size_t i = 0; i < r->n_meta; i++) {
    const idx_entry *e = &r->meta_idx[i];
    if (e->key_len != n || memcmp(idx_key(r, e), name, n) != 0) continue;
    r->cur_off = -1; /* r->block is reused */
    HUDI_TRY(read_block(r, e->off, e->size, HUDI_HFILE_MAGIC_META, &r->block, err));
    HUDI_TRY(hudi_buf_append(out, r->block.data, r->block.len, err));
    *found = true;
    return HUDI_OK;
  }
  return HUDI_OK;
}

/* ---- data blocks and key-values --------------------------------------- */

typedef struct kv {
  const uint8_t *row, *value;
  size_t row_len, value_len;
  size_t next; /* payload offset of the following key-value */
} kv;

/* Parses the key-value at payload offset pos:
 *   i32 key length, i32 value length,
 *   key = i16 row length, row, u8 family length, family, qualifier, i64 ts, u8 type,
 *   value, [u16 tags length, tags] (when the file has tags), VLong mvcc. */
static hudi_status kv_parse(const hudi_hfile_reader *r, size_t pos, kv *out, hudi_error *err) {
  const uint8_t *b = r->block.data;
  size_t n = r->block.len;
  if (n - pos < 8) goto bad;
  uint32_t klen = hudi_be32(b + pos), vlen = hudi_be32(b + pos + 4);
  if (klen < 12 || klen > n - pos - 8 || vlen > n - pos - 8 - klen) goto bad;
  const uint8_t *k = b + pos + 8;
  uint16_t rlen = hudi_be16(k);
  if ((size_t)rlen + 2 + 1 + 9 > klen || (size_t)k[2 + rlen] > klen - rlen - 12) goto bad;
  out->row = k + 2;
  out->row_len = rlen;
  out->value = k + klen;
  out->value_len = vlen;
  size_t p = pos + 8 + (size_t)klen + vlen;
  if (r->includes_tags) {
    if (n - p < 2 || (size_t)hudi_be16(b + p) > n - p - 2) goto bad;
    p += 2 + hudi_be16(b + p);
  }
  int64_t mvcc;
  size_t used = hudi_hfile_vlong_read(b + p, n - p, &mvcc);
  if (used == 0) goto bad;
  out->next = p + used;
  return HUDI_OK;
bad:
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: bad key-value at byte %zu of the data block at byte offset %llu",
                      r->name, pos, (unsigned long long)r->cur_off);
}

static hudi_status load_data_block(hudi_hfile_reader *r, const idx_entry *e, hudi_error *err) {
  if (r->cur_off == (int64_t)e->off) return HUDI_OK;
  r->cur_off = -1;
  HUDI_TRY(read_block(r, e->off, e->size, HUDI_HFILE_MAGIC_DATA, &r->block, err));
  r->cur_off = (int64_t)e->off;
  r->stats.data_blocks_read++;
  return HUDI_OK;
}

/* Index of the last of the n entries whose key is <= key, or -1. */
static long floor_entry(const idx_entry *e, size_t n, const hudi_buf *arena, const uint8_t *key, size_t len) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (key_cmp(arena_key(arena, &e[mid]), e[mid].key_len, key, len) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (long)lo - 1;
}

static long floor_block(const hudi_hfile_reader *r, const uint8_t *key, size_t len) {
  return floor_entry(r->data_idx, r->n_data, &r->keys, key, len);
}

/* The sorted keys [0, n) that fall in one data block: a cursor moves
 * forward through its key-values. keys[i] is the caller's key base + i. */
static hudi_status lookup_block(hudi_hfile_reader *r, const idx_entry *blk, const hudi_hfile_key *keys, size_t n,
                                size_t base, hudi_hfile_found_fn found, void *ctx, int *stop, hudi_error *err) {
  HUDI_TRY(load_data_block(r, blk, err));
  size_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    while (pos < r->block.len) {
      kv e = {0};
      HUDI_TRY(kv_parse(r, pos, &e, err));
      int c = key_cmp(e.row, e.row_len, keys[i].data, keys[i].len);
      if (c > 0) break;
      if (c == 0) {
        if (found(ctx, base + i, e.value, e.value_len)) {
          *stop = 1;
          return HUDI_OK;
        }
        break; /* stay: a repeated lookup key finds the same key-value */
      }
      pos = e.next;
    }
  }
  return HUDI_OK;
}

/* Appends to *t the blocks of one index block's n entries that the sorted
 * keys [k0, k1) fall in, each with its keys, in entry order: a merge join,
 * each entry some key falls in once, the others never. */
static hudi_status join_level(const hudi_hfile_reader *r, const idx_entry *e, size_t n, const hudi_buf *arena,
                              const hudi_hfile_key *keys, size_t k0, size_t k1, task **t, size_t *n_t, size_t *cap,
                              hudi_error *err) {
  size_t i = k0;
  while (i < k1) {
    long s = floor_entry(e, n, arena, keys[i].data, keys[i].len);
    if (s < 0) { /* before the first key this block covers */
      i++;
      continue;
    }
    size_t j = i + 1;
    if ((size_t)s + 1 < n) {
      const idx_entry *next = &e[s + 1];
      while (j < k1 && key_cmp(keys[j].data, keys[j].len, arena_key(arena, next), next->key_len) < 0) j++;
    } else {
      j = k1;
    }
    if (*n_t == *cap) {
      size_t nc = *cap ? *cap * 2 : 64;
      task *nt = hudi_realloc(*t, hudi_mul_size(nc, sizeof *nt));
      if (!nt) return hudi_err_set(err, HUDI_ERR_NOMEM, "%s: out of memory for a lookup", r->name);
      *t = nt;
      *cap = nc;
    }
    (*t)[(*n_t)++] = (task){e[s].off, e[s].size, i, j};
    i = j;
  }
  return HUDI_OK;
}

static void windows_drop(hudi_hfile_reader *r) {
  for (size_t i = 0; i < MAX_WINDOWS; i++) {
    hudi_buf_free(&r->win[i].bytes);
    r->win[i].stamp = 0;
  }
}

/* A window slot with room for len more bytes, emptying the oldest ones. */
static window *window_slot(hudi_hfile_reader *r, uint64_t len) {
  uint64_t budget = r->co_max * 4 > WINDOW_BUDGET ? r->co_max * 4 : WINDOW_BUDGET;
  for (;;) {
    uint64_t held = 0;
    window *free_w = NULL, *oldest = NULL;
    for (size_t i = 0; i < MAX_WINDOWS; i++) {
      window *w = &r->win[i];
      if (!w->stamp) {
        if (!free_w) free_w = w;
        continue;
      }
      held += w->bytes.len;
      if (!oldest || w->stamp < oldest->stamp) oldest = w;
    }
    if (free_w && held + len <= budget) return free_w;
    if (!oldest) return NULL;
    hudi_buf_free(&oldest->bytes);
    oldest->stamp = 0;
  }
}

/* The bytes a block of a level is expected to bring: itself, and for an
 * index block about one block of its size per key below it (its keys'
 * data blocks, which lie before it in HBase's layout, inside a merged read
 * that reaches back over them). */
static uint64_t worth(const task *t, bool index) {
  return (uint64_t)t->size * (index ? 1 + (uint64_t)(t->k1 - t->k0) : 1);
}

/* Before block t[at] of a level is read: when no window holds it, the run
 * of blocks from it on (in file order) whose gaps are at most co_gap bytes,
 * at most co_max bytes in all and at most COALESCE_DENSITY times what its
 * blocks are worth, is fetched with one read into a window, so the run's
 * blocks (and what lies between) are then read from memory. Blocks a
 * window already holds are passed over; a run of one block is left to
 * read_block. *next: the first block not yet considered. */
static hudi_status prefetch(hudi_hfile_reader *r, const task *t, size_t n, size_t at, bool index, size_t *next,
                            hudi_error *err) {
  if (at < *next || r->co_max == 0) return HUDI_OK;
  *next = at + 1;
  if (window_at(r, t[at].off, t[at].size) || !block_sane(r, t[at].off, t[at].size)) return HUDI_OK;
  uint64_t start = t[at].off, end = start + t[at].size, want = worth(&t[at], index);
  size_t blocks = 1, u = at + 1;
  for (; u < n; u++) {
    if (window_at(r, t[u].off, t[u].size)) continue;
    if (!block_sane(r, t[u].off, t[u].size) || t[u].off < end || t[u].off - end > r->co_gap ||
        t[u].off + t[u].size - start > r->co_max ||
        (want + worth(&t[u], index)) * COALESCE_DENSITY < t[u].off + t[u].size - start)
      break;
    end = t[u].off + t[u].size;
    want += worth(&t[u], index);
    blocks++;
  }
  *next = u;
  if (blocks < 2) return HUDI_OK;
  window *w = window_slot(r, end - start);
  if (!w) return HUDI_OK;
  w->stamp = ++r->win_clock;
  w->off = start;
  hudi_status st = read_range(r, start, (size_t)(end - start), &w->bytes, err);
  if (st != HUDI_OK) w->stamp = 0;
  return st;
}

/* The index blocks of one level below the root: each is read (prefetched
 * in runs), parsed and joined with its keys into the next level's blocks. */
static hudi_status descend(hudi_hfile_reader *r, const task *cur, size_t n_cur, const char *magic,
                           const hudi_hfile_key *keys, task **next, size_t *n_next, size_t *cap, hudi_error *err) {
  struct walk_level *w = &r->walk[0];
  size_t planned = 0;
  *n_next = 0;
  for (size_t t = 0; t < n_cur; t++) {
    HUDI_TRY(prefetch(r, cur, n_cur, t, true, &planned, err));
    r->cur_off = -1; /* r->block is reused */
    HUDI_TRY(read_block(r, cur[t].off, cur[t].size, magic, &r->block, err));
    r->stats.index_blocks_read++;
    w->n = 0;
    hudi_buf_reset(&w->keys);
    HUDI_TRY(parse_nonroot(r, r->block.data, r->block.len, cur[t].off, &w->keys, &w->e, &w->n, &w->cap, err));
    HUDI_TRY(join_level(r, w->e, w->n, &w->keys, keys, cur[t].k0, cur[t].k1, next, n_next, cap, err));
  }
  return HUDI_OK;
}

/* The data blocks of one batch of tasks: prefetched in runs, each merge-
 * joined with its keys. */
static hudi_status data_level(hudi_hfile_reader *r, const task *t, size_t n, const hudi_hfile_key *keys,
                              hudi_hfile_found_fn found, void *ctx, int *stop, hudi_error *err) {
  size_t planned = 0;
  for (size_t i = 0; i < n && !*stop; i++) {
    HUDI_TRY(prefetch(r, t, n, i, false, &planned, err));
    idx_entry blk = {t[i].off, t[i].size, 0, 0};
    HUDI_TRY(lookup_block(r, &blk, keys + t[i].k0, t[i].k1 - t[i].k0, t[i].k0, found, ctx, stop, err));
  }
  return HUDI_OK;
}

static hudi_status lookup_levels(hudi_hfile_reader *r, const hudi_hfile_key *keys, size_t n_keys,
                                 hudi_hfile_found_fn found, void *ctx, task **a, size_t *cap_a, task **b,
                                 size_t *cap_b, hudi_error *err) {
  /* From the root (or, once a scan expanded the index, the data block
   * entries) down, one level at a time. */
  size_t n_a = 0, n_b = 0;
  int stop = 0;
  HUDI_TRY(join_level(r, r->data_idx, r->n_data, &r->keys, keys, 0, n_keys, a, &n_a, cap_a, err));
  if (r->levels_left == 0) return data_level(r, *a, n_a, keys, found, ctx, &stop, err);
  for (uint32_t below = r->levels_left; below > 1; below--) {
    HUDI_TRY(descend(r, *a, n_a, HUDI_HFILE_MAGIC_INTERMEDIATE, keys, b, &n_b, cap_b, err));
    task *swap = *a;
    size_t swap_cap = *cap_a;
    *a = *b;
    *cap_a = *cap_b;
    *b = swap;
    *cap_b = swap_cap;
    n_a = n_b;
  }
  /* Leaf blocks run by run: a run's data blocks are looked up while the
   * run's window (which holds most of them) is still held. */
  size_t planned = 0, t = 0;
  while (t < n_a && !stop) {
    HUDI_TRY(prefetch(r, *a, n_a, t, true, &planned, err));
    size_t end = planned > t + 1 ? planned : t + 1;
    HUDI_TRY(descend(r, *a + t, end - t, HUDI_HFILE_MAGIC_LEAF, keys, b, &n_b, cap_b, err));
    HUDI_TRY(data_level(r, *b, n_b, keys, found, ctx, &stop, err));
    t = end;
  }
  return HUDI_OK;
}

hudi_status hudi_hfile_reader_lookup(hudi_hfile_reader *r, const hudi_hfile_key *keys, size_t n_keys,
                                     hudi_hfile_found_fn found, void *ctx, hudi_error *err) {
  for (size_t i = 1; i < n_keys; i++)
    if (key_cmp(keys[i - 1].data, keys[i - 1].len, keys[i].data, keys[i].len) > 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile lookup keys are not sorted (key %zu < key %zu)", i,
                          i - 1);
  task *a = NULL, *b = NULL;
  size_t cap_a = 0, cap_b = 0;
  hudi_status st = lookup_levels(r, keys, n_keys, found, ctx, &a, &cap_a, &b, &cap_b, err);
  hudi_free(a);
  hudi_free(b);
  /* A data block decoded from a window stays valid in r->block. */
  windows_drop(r);
  return st;
}

static int has_prefix(const kv *e, const uint8_t *prefix, size_t len) {
  return e->row_len >= len && (len == 0 || memcmp(e->row, prefix, len) == 0);
}

hudi_status hudi_hfile_reader_scan_prefix(hudi_hfile_reader *r, const uint8_t *prefix, size_t prefix_len,
                                          hudi_hfile_kv_fn fn, void *ctx, hudi_error *err) {
  HUDI_TRY(ensure_index(r, err));
  long s = prefix_len ? floor_block(r, prefix, prefix_len) : 0;
  for (size_t b = s < 0 ? 0 : (size_t)s; b < r->n_data; b++) {
    HUDI_TRY(load_data_block(r, &r->data_idx[b], err));
    size_t pos = 0;
    while (pos < r->block.len) {
      kv e = {0};
      HUDI_TRY(kv_parse(r, pos, &e, err));
      if (has_prefix(&e, prefix, prefix_len)) {
        if (fn(ctx, e.row, e.row_len, e.value, e.value_len)) return HUDI_OK;
      } else if (key_cmp(e.row, e.row_len, prefix, prefix_len) > 0) {
        return HUDI_OK; /* past every key with this prefix */
      }
      pos = e.next;
    }
  }
  return HUDI_OK;
}

hudi_status hudi_hfile_reader_scan(hudi_hfile_reader *r, hudi_hfile_kv_fn fn, void *ctx, hudi_error *err) {
  return hudi_hfile_reader_scan_prefix(r, NULL, 0, fn, ctx, err);
}

/* ---- block-wise scan -------------------------------------------------- */

const uint8_t *hudi_hfile_reader_last_key(const hudi_hfile_reader *r, size_t *len) {
  const uint8_t *v;
  size_t vl;
  *len = 0;
  /* hfile.LASTKEY is a KeyValue key: i16 row length, row, then (HBase's
   * files) family, qualifier, timestamp and type. */
  if (!hudi_hfile_reader_file_info(r, "hfile.LASTKEY", &v, &vl) || vl < 2 || (size_t)hudi_be16(v) > vl - 2)
    return NULL;
  *len = hudi_be16(v);
  return v + 2;
}

/* Sequential reads of the data section in chunks of this size: a scan
 * reads every block, and one read per 4 KiB block is a system call (or a
 * request) per block. */
#define SCAN_CHUNK ((size_t)4 << 20)

/* The on-disk bytes of data block e, from chunk (refilled from e on when
 * it does not hold them). */
static hudi_status scan_raw(hudi_hfile_reader *r, const idx_entry *e, hudi_buf *chunk, uint64_t *chunk_off,
                            const uint8_t **p, hudi_error *err) {
  if (!block_sane(r, e->off, e->size)) return outside_data(r, e->off, e->size, HUDI_HFILE_MAGIC_DATA, err);
  if (chunk->len == 0 || e->off < *chunk_off || e->off - *chunk_off > chunk->len ||
      e->size > chunk->len - (e->off - *chunk_off)) {
    uint64_t end = r->src.size - HUDI_HFILE_TRAILER_SIZE;
    size_t n = end - e->off < SCAN_CHUNK ? (size_t)(end - e->off) : SCAN_CHUNK;
    if (n < e->size) n = e->size;
    HUDI_TRY(read_range(r, e->off, n, chunk, err));
    *chunk_off = e->off;
  }
  *p = chunk->data + (e->off - *chunk_off);
  return HUDI_OK;
}

/* Decodes data block e (header h, its bytes at p) into r->block. */
static hudi_status decode_raw(hudi_hfile_reader *r, const idx_entry *e, const hudi_hfile_block_header *h,
                              const uint8_t *p, hudi_error *err) {
  r->cur_off = -1;
  HUDI_TRY(hudi_hfile_block_decode(h, p, r->gz, e->off, r->name, &r->block, err));
  r->cur_off = (int64_t)e->off;
  r->stats.data_blocks_read++;
  return HUDI_OK;
}

/* Hands data block b (header h, its bytes at p) over whole when the
 * visitor takes it. */
static hudi_status offer_whole(hudi_hfile_reader *r, size_t b, const hudi_hfile_block_header *h,
                               const hudi_hfile_block_visitor *v, void *ctx, const uint8_t *p, bool *taken,
                               hudi_error *err) {
  const idx_entry *e = &r->data_idx[b];
  bool last = b + 1 == r->n_data;
  const uint8_t *next = last ? NULL : idx_key(r, &r->data_idx[b + 1]);
  size_t next_len = last ? 0 : r->data_idx[b + 1].key_len, last_len = 0;
  const uint8_t *last_key = last ? hudi_hfile_reader_last_key(r, &last_len) : NULL;
  *taken = false;
  if ((uint64_t)h->on_disk_size_without_header + HUDI_HFILE_HEADER_SIZE != e->size)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: the index's %u-byte data block at byte offset %llu is a block of %llu bytes",
                        r->name, e->size, (unsigned long long)e->off,
                        (unsigned long long)h->on_disk_size_without_header + HUDI_HFILE_HEADER_SIZE);
  /* The file's last block goes whole only with its last key known; a
   * block with real checksums (HBase's writer: CRC32C over the header)
   * not at all, as the copy's new prevBlockOffset would break them. */
  if ((last && !last_key) || h->checksum_type != 0 || !v->take_whole(ctx, idx_key(r, e), e->key_len, next, next_len))
    return HUDI_OK;
  *taken = true;
  return v->whole(ctx, p, e->size, idx_key(r, e), e->key_len, last_key, last_len, err);
}

hudi_status hudi_hfile_reader_scan_blocks(hudi_hfile_reader *r, const hudi_hfile_block_visitor *v, void *ctx,
                                          uint64_t *decoded, hudi_error *err) {
  if (decoded) *decoded = 0;
  HUDI_TRY(ensure_index(r, err));
  bool copyable = r->gz && !r->includes_tags && v->take_whole && v->whole;
  hudi_buf chunk;
  hudi_buf_init(&chunk, SCAN_CHUNK + HUDI_HFILE_MAX_BLOCK);
  uint64_t chunk_off = 0, n_kv = 0;
  hudi_status st = HUDI_OK;
  for (size_t b = 0; st == HUDI_OK && b < r->n_data; b++) {
    const idx_entry *e = &r->data_idx[b];
    const uint8_t *p = NULL;
    hudi_hfile_block_header h;
    st = scan_raw(r, e, &chunk, &chunk_off, &p, err);
    if (st == HUDI_OK) st = block_header(r, p, e->off, e->size, HUDI_HFILE_MAGIC_DATA, &h, err);
    bool taken = false;
    if (st == HUDI_OK && copyable) st = offer_whole(r, b, &h, v, ctx, p, &taken, err);
    if (st != HUDI_OK || taken) continue;
    st = decode_raw(r, e, &h, p, err);
    int stop = 0;
    for (size_t pos = 0; st == HUDI_OK && !stop && pos < r->block.len;) {
      kv c = {0};
      st = kv_parse(r, pos, &c, err);
      if (st != HUDI_OK) break;
      n_kv++;
      stop = v->kv(ctx, c.row, c.row_len, c.value, c.value_len);
      pos = c.next;
    }
    if (stop) break;
  }
  hudi_buf_free(&chunk);
  if (decoded) *decoded = n_kv;
  return st;
}

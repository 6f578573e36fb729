/* HFile v3 writer producing the bytes of Hudi's Java HFileWriterImpl
 * (hudi-io, Hudi 1.1): data blocks, meta blocks, the root data index,
 * meta index, file info and trailer; checksum type NULL with zero
 * checksum bytes; every block GZ-compressed (or NONE).
 * GZ data blocks are deflated by libdeflate unless java_exact_bytes asks
 * for zlib level 6 (Java's Deflater): the same gzip framing around another
 * valid deflate stream, so only the compressed bytes differ; a block that
 * must be closed early (§3.9, below) is zlib's, sized by the zlib search.
 * Where we deliberately differ from that Java code:
 *  - index key lengths are Hadoop VLongs (what every reader decodes); Java
 *    writes a protobuf varint, identical below 128 and wrong above;
 *  - a data block is closed one key-value early when Hudi's Java reader
 *    would drop its last key-value or hudi-rs would cut its gzip stream
 *    (spec §3.9), so the bytes differ from Java only in those rare cases.
 * The data block index stays one root level while it fits in
 * index_block_size bytes (at Hudi's 1 MiB blocks, any file under ~20 GB),
 * which is all Hudi's writer produces; beyond that it grows leaf and intermediate levels
 * as HBase's writer does (index_writer.c), so small-block files such as our
 * record index keep a small root and lookups read only the index blocks
 * their keys need.
 * With compress_threads, data blocks are encoded on worker threads while
 * the caller appends (block_pipe.c; "the pipeline" below), producing the
 * same bytes. */
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "base/alloc.h"
#include "base/threadpool.h"
#include "codec/fast_deflate.h"
#include "hfile/block.h"
#include "hfile/block_pipe.h"
#include "hfile/cell_deflate.h"
#include "hfile/hfile.h"
#include "hfile/index_writer.h"
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
  hudi_hfile_index_writer index; /* data block index */
  hudi_buf enc;       /* scratch: one encoded block */
  uint32_t n_root;    /* root data index entries (trailer data_index_count) */
  uint64_t entries, total_key_len, total_value_len, total_usw;
  int64_t first_data_off, last_data_off;
  named_list file_info, meta;
  struct gz_sizer *gz; /* block sizing for the cut search, kept for its memory */
  int last_cut;        /* the previous block was closed early (spec §3.9) */
  int has_key;         /* last_key holds a key */
  int last_key_exact;  /* 0: last_key is a copied block's first key (a lower bound) */
  hudi_fast_deflater *fast; /* libdeflate for data blocks; NULL: zlib */
  hudi_fast_deflater *stored; /* libdeflate at level 0 for index blocks; NULL: zlib */
  /* Pipelined encoding (compress_threads; "the pipeline" below). */
  hudi_hfile_pipe *pipe; /* NULL: every block is encoded here, in order */
  int workers;           /* pipeline threads to start; 0: never */
  uint64_t pipe_after;   /* ... once this many blocks were closed */
  uint64_t blocks;       /* data blocks closed (queued or written) */
  uint64_t recuts;       /* times queued blocks were re-cut */
  int replaying;         /* re-cutting: blocks are encoded here */
  hudi_buf replay;       /* key-values being re-cut */
  size_t prefaulted;     /* out's bytes below this were handed to be pre-faulted */
  /* Shared Huffman codes for cell-deflated data blocks ("shared codes"
   * below): sampled from the first key-values appended. */
  int sampling;                 /* still sampling */
  hudi_buf sample;              /* the sample chunk's key-values */
  size_t sample_last;           /* offset of its last key-value */
  uint64_t sample_acc;          /* its size by Java's accounting */
  int sample_chunks;            /* chunks counted */
  uint64_t sample_total;        /* their size by Java's accounting */
  hudi_deflate_counts *counts;  /* their symbols */
  hudi_deflate_codes *codes;    /* built from them; NULL: not (yet) */
  hudi_buf codes_after;         /* the last sampled row key */
  int finished;
};

static void gz_sizer_destroy(struct gz_sizer *g);

/* Row keys in HBase's order: unsigned bytes, a prefix first. */
static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  size_t n = al < bl ? al : bl;
  int c = n ? memcmp(a, b, n) : 0;
  return c ? c : (al < bl ? -1 : al > bl);
}

/* The `gz` argument of hudi_hfile_block_encode_fast for data blocks. */
static int data_codec(const hudi_hfile_writer_options *o) {
  if (o->compression != HUDI_HFILE_GZ) return 0;
  return o->cell_deflate ? HUDI_HFILE_GZ_CELLS : 1;
}
static void pipe_plan(hudi_hfile_writer *w);

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
  if (o.deflate_level < 0 || o.deflate_level > 12)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile deflate level %d outside 1..12 (0 = default)",
                        o.deflate_level);
  if (o.compress_threads < 0 || o.compress_threads > HUDI_HFILE_PIPE_MAX_WORKERS + 1)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile compress_threads %d outside 0..%d", o.compress_threads,
                        HUDI_HFILE_PIPE_MAX_WORKERS + 1);
  if (o.index_block_size > HUDI_HFILE_MAX_BLOCK / 2)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile index block size %zu exceeds %zu", o.index_block_size,
                        HUDI_HFILE_MAX_BLOCK / 2);
  hudi_hfile_writer *w = hudi_calloc(1, sizeof *w);
  if (!w) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for an HFile writer");
  w->opts = o;
  hudi_buf_init(&w->out, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&w->block, HUDI_HFILE_MAX_BLOCK);
  hudi_buf_init(&w->last_key, MAX_KEY_LEN);
  hudi_hfile_index_writer_init(&w->index, o.index_block_size ? o.index_block_size : o.block_size,
                               o.compression == HUDI_HFILE_GZ);
  hudi_buf_init(&w->enc, HUDI_BUF_DEFAULT_MAX);
  w->first_data_off = -1;
  w->last_key_exact = 1;
  w->last_data_off = 0;
  /* Should libdeflate's state not be had, zlib writes the blocks. */
  if (o.compression == HUDI_HFILE_GZ && !o.java_exact_bytes)
    w->fast = hudi_fast_deflater_new(o.deflate_level ? o.deflate_level : HUDI_HFILE_DEFAULT_DEFLATE_LEVEL);
  /* Index blocks go out as stored deflate (level 0: valid gzip that
   * inflates at copy speed). A keyed commit reads every leaf index block
   * its keys fall under, so leaf inflation grows with the table (10M
   * keys: 306 leaf blocks a shard, ~30 ms of a 10k-key upsert at level 1)
   * where its data blocks do not; stored, the index is ~1.7x its deflated
   * size, ~2% of a record-index file. */
  if (w->fast) w->stored = hudi_fast_deflater_new(0);
  w->index.fast = w->stored;
  hudi_buf_init(&w->replay, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&w->sample, HUDI_HFILE_MAX_BLOCK);
  hudi_buf_init(&w->codes_after, MAX_KEY_LEN);
  w->sampling = w->fast && data_codec(&o) == HUDI_HFILE_GZ_CELLS && !o.own_codes;
  pipe_plan(w);
  /* Java's constructor puts MAX_MEMSTORE_TS_KEY first (HashMap order
   * depends on insertion order within a bucket). last_key gets room for
   * the longest key now, so append copies into it without a check. */
  static const uint8_t zero8[8] = {0};
  hudi_status st = hudi_buf_reserve(&w->last_key, MAX_KEY_LEN, err);
  if (st == HUDI_OK) st = named_put(&w->file_info, "MAX_MEMSTORE_TS_KEY", zero8, 8, err);
  if (st != HUDI_OK) {
    hudi_hfile_writer_free(w);
    return st;
  }
  *out = w;
  return HUDI_OK;
}

void hudi_hfile_writer_use_buffer(hudi_hfile_writer *w, uint8_t *data, size_t cap) {
  if (w->out.data || w->out.len || cap == 0) {
    hudi_free(data);
    return;
  }
  w->out.data = data;
  w->out.cap = cap;
}

void hudi_hfile_writer_free(hudi_hfile_writer *w) {
  if (!w) return;
  hudi_hfile_pipe_free(w->pipe); /* first: its workers may still read w->opts */
  hudi_buf_free(&w->replay);
  hudi_buf_free(&w->sample);
  hudi_buf_free(&w->codes_after);
  hudi_free(w->counts);
  hudi_deflate_codes_free(w->codes);
  hudi_buf_free(&w->out);
  hudi_buf_free(&w->block);
  hudi_buf_free(&w->last_key);
  hudi_hfile_index_writer_free(&w->index);
  hudi_buf_free(&w->enc);
  hudi_free(w->kv_starts);
  named_free(&w->file_info);
  named_free(&w->meta);
  gz_sizer_destroy(w->gz);
  hudi_fast_deflater_free(w->fast);
  hudi_fast_deflater_free(w->stored);
  hudi_free(w);
}

/* ---- data blocks ------------------------------------------------------- */

static size_t kv_end(const hudi_hfile_writer *w, size_t i) {
  return i + 1 < w->n_kvs ? w->kv_starts[i + 1] : w->block.len;
}

/* Would a reader mis-read a block holding the first n key-values, stored
 * in `stored` on-disk bytes? (spec §3.9) Java stops scanning a data block
 * 4 x ceil((33 + onDiskSizeWithoutHeader) / 16384) bytes early, dropping a
 * last key-value no longer than that; hudi-rs cuts the gzip stream short
 * by 4 bytes when that chunk count exceeds the one the writer used. */
static uint64_t chunk_bytes(uint64_t stored) {
  return hudi_hfile_checksum_bytes(HUDI_HFILE_HEADER_SIZE + stored, HUDI_HFILE_BYTES_PER_CHECKSUM);
}

static uint64_t java_bytes(uint64_t stored) {
  return hudi_hfile_checksum_bytes(HUDI_HFILE_HEADER_SIZE + stored + chunk_bytes(stored),
                                   HUDI_HFILE_BYTES_PER_CHECKSUM);
}

static uint64_t kv_size(const hudi_hfile_writer *w, size_t i) { return kv_end(w, i) - w->kv_starts[i]; }

/* The verdict from the last key-value's size alone. */
static int misread_verdict(uint64_t last_kv_size, int gz, uint64_t stored) {
  uint64_t java = java_bytes(stored);
  if (last_kv_size <= java) return 1;
  return gz && java != chunk_bytes(stored);
}

static int block_is_misread(const hudi_hfile_writer *w, size_t n, uint64_t stored) {
  return misread_verdict(kv_size(w, n - 1), w->opts.compression == HUDI_HFILE_GZ, stored);
}

/* ---- where to close a block (spec §3.9) ----------------------------------
 * The rule: a block holds the most key-values n (of the n_kvs waiting) for
 * which no reader mis-reads it, at least one. Closing one key-value earlier
 * and re-encoding until that holds re-compresses a 1 MiB block thousands of
 * times (its last key-values are all "too short" until it shrinks below
 * about 460 KiB), so the search below finds the same n with few size
 * evaluations:
 *  - NONE: the stored size of n key-values is their length; no encoding.
 *  - GZ: one deflate pass over the block keeps snapshots of the stream
 *    (deflateCopy) every `step` key-values; the exact compressed size of
 *    any prefix is then a snapshot, at most `step` key-values more, and the
 *    end of the stream. zlib's output does not depend on how its input is
 *    split between calls, so this is the size one-shot compression gives.
 *    The search relies on that size never shrinking as key-values are
 *    added (deflate's output grows with its input), so that the checksum
 *    chunk counts it depends on only step up with n: it binary-searches
 *    the largest n whose chunk count leaves room for the longest
 *    key-value, then walks down over runs of n with equal counts (found by
 *    galloping), checking each key-value's length without compressing.
 * The chosen block is then encoded the ordinary way; should its size not
 * be the one predicted, the plain walk from the top decides instead. */

#define GZ_SNAPSHOTS 64
#define POOL_MAX (8 * (GZ_SNAPSHOTS + 2))

/* zlib's allocations recycled: every snapshot and probe allocates the same
 * few buffers (~260 KiB per stream); fresh memory each time would cost more
 * in page faults than the copying. */
typedef struct zpool {
  struct { void *p; size_t size; } free[POOL_MAX];
  size_t n;
} zpool;

typedef struct gz_sizer {
  const hudi_hfile_writer *w;
  z_stream snap[GZ_SNAPSHOTS + 1]; /* snap[j]: fed the first j * step key-values */
  uint64_t out_at[GZ_SNAPSHOTS + 1];
  size_t n_snap, step;
  zpool pool;
  uint8_t sink[16384]; /* compressed bytes are only counted */
} gz_sizer;

/* Each allocation carries its size in front, so a freed one can be reused
 * for a request of the same size. */
static voidpf gz_alloc(voidpf opaque, uInt items, uInt size) {
  zpool *pool = opaque;
  size_t n = hudi_mul_size(items, size);
  for (size_t i = pool->n; i-- > 0;) {
    if (pool->free[i].size != n) continue;
    void *p = pool->free[i].p;
    pool->free[i] = pool->free[--pool->n];
    return (uint8_t *)p + 16;
  }
  uint8_t *p = hudi_malloc(n > SIZE_MAX - 16 ? SIZE_MAX : n + 16);
  if (!p) return NULL;
  memcpy(p, &n, sizeof n);
  return p + 16;
}

static void gz_free(voidpf opaque, voidpf q) {
  zpool *pool = opaque;
  if (!q) return;
  uint8_t *p = (uint8_t *)q - 16;
  size_t n;
  memcpy(&n, p, sizeof n);
  if (pool->n == POOL_MAX) {
    hudi_free(p);
    return;
  }
  pool->free[pool->n].p = p;
  pool->free[pool->n].size = n;
  pool->n++;
}

static void zpool_free(zpool *pool) {
  for (size_t i = 0; i < pool->n; i++) hudi_free(pool->free[i].p);
  pool->n = 0;
}

/* Feeds bytes [from, to) of the block, flushing with `flush`; adds the
 * bytes produced to *out. */
static hudi_status gz_feed(gz_sizer *g, z_stream *z, size_t from, size_t to, int flush, uint64_t *out,
                           hudi_error *err) {
  z->next_in = (Bytef *)(g->w->block.data + from);
  z->avail_in = (uInt)(to - from);
  for (;;) {
    z->next_out = g->sink;
    z->avail_out = sizeof g->sink;
    int rc = deflate(z, flush);
    *out += sizeof g->sink - z->avail_out;
    if (rc == Z_STREAM_END) return HUDI_OK;
    if (rc != Z_OK && rc != Z_BUF_ERROR) return hudi_err_set(err, HUDI_ERR_INTERNAL, "deflate failed (%d)", rc);
    if (flush == Z_NO_FLUSH && z->avail_in == 0) return HUDI_OK;
    if (rc == Z_BUF_ERROR && z->avail_out != 0) /* no progress possible */
      return hudi_err_set(err, HUDI_ERR_INTERNAL, "deflate made no progress");
  }
}

static hudi_status deflate_start(z_stream *z, zpool *pool, hudi_error *err) {
  memset(z, 0, sizeof *z);
  z->zalloc = gz_alloc;
  z->zfree = gz_free;
  z->opaque = pool;
  /* hudi_hfile_gzip's settings: raw deflate, level 6, default memory. */
  int rc = deflateInit2(z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  if (rc == Z_MEM_ERROR) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory starting deflate");
  return rc == Z_OK ? HUDI_OK : hudi_err_set(err, HUDI_ERR_INTERNAL, "deflateInit2 failed (%d)", rc);
}

/* Ends the snapshots; their memory stays in the pool for the next block. */
static void gz_sizer_free(gz_sizer *g) {
  for (size_t j = 0; j < g->n_snap; j++) deflateEnd(&g->snap[j]);
  g->n_snap = 0;
}

static void gz_sizer_destroy(struct gz_sizer *g) {
  if (!g) return;
  gz_sizer_free(g);
  zpool_free(&g->pool);
  hudi_free(g);
}

/* One pass over the n_kvs waiting key-values, keeping snapshots; with
 * `full`, also the stored size of all of them. */
static hudi_status gz_sizer_init(gz_sizer *g, const hudi_hfile_writer *w, uint64_t *full, hudi_error *err) {
  g->w = w;
  g->n_snap = 0;
  g->step = (w->n_kvs + GZ_SNAPSHOTS - 1) / GZ_SNAPSHOTS;
  if (g->step == 0) g->step = 1;
  z_stream run;
  HUDI_TRY(deflate_start(&run, &g->pool, err));
  uint64_t out = 0;
  hudi_status st = HUDI_OK;
  for (size_t j = 0; st == HUDI_OK; j++) {
    size_t at = j * g->step;
    if (at >= w->n_kvs) break;
    int rc = deflateCopy(&g->snap[j], &run);
    if (rc != Z_OK) {
      st = hudi_err_set(err, rc == Z_MEM_ERROR ? HUDI_ERR_NOMEM : HUDI_ERR_INTERNAL, "deflateCopy failed (%d)", rc);
      break;
    }
    g->out_at[j] = out;
    g->n_snap = j + 1;
    size_t next = at + g->step < w->n_kvs ? at + g->step : w->n_kvs;
    if (next < w->n_kvs) {
      st = gz_feed(g, &run, w->kv_starts[at], w->kv_starts[next], Z_NO_FLUSH, &out, err);
    } else if (full) {
      st = gz_feed(g, &run, w->kv_starts[at], w->block.len, Z_FINISH, &out, err);
      *full = 10 + out + 8;
    }
  }
  deflateEnd(&run);
  if (st != HUDI_OK) gz_sizer_free(g);
  return st;
}

/* Stored bytes (gzip header and trailer included) of the first n
 * key-values. */
static hudi_status gz_size(gz_sizer *g, size_t n, uint64_t *stored, hudi_error *err) {
  size_t j = (n - 1) / g->step;
  if (j >= g->n_snap) j = g->n_snap - 1;
  z_stream z;
  int rc = deflateCopy(&z, &g->snap[j]);
  if (rc != Z_OK)
    return hudi_err_set(err, rc == Z_MEM_ERROR ? HUDI_ERR_NOMEM : HUDI_ERR_INTERNAL, "deflateCopy failed (%d)", rc);
  uint64_t out = g->out_at[j];
  hudi_status st = gz_feed(g, &z, g->w->kv_starts[j * g->step], kv_end(g->w, n - 1), Z_FINISH, &out, err);
  deflateEnd(&z);
  *stored = 10 + out + 8; /* hudi_hfile_gzip: 10-byte header, deflate, crc32 + size */
  return st;
}

typedef struct cut_search {
  hudi_hfile_writer *w;
  gz_sizer *gz; /* NULL: NONE */
} cut_search;

static hudi_status stored_size(cut_search *c, size_t n, uint64_t *stored, hudi_error *err) {
  if (!c->gz) {
    *stored = kv_end(c->w, n - 1);
    return HUDI_OK;
  }
  return gz_size(c->gz, n, stored, err);
}

/* The checksum chunk counts a stored size gives; equal keys, equal verdicts
 * for key-values of equal length. */
static uint64_t size_key(uint64_t stored) { return chunk_bytes(stored) << 32 | java_bytes(stored); }

/* Largest n in [1, hi] for which no reader mis-reads the block, or 1; the
 * first hi key-values, whose block is known to be mis-read. */
static hudi_status search_cut(cut_search *c, size_t hi, size_t *cut, hudi_error *err) {
  hudi_hfile_writer *w = c->w;
  uint64_t longest = 0;
  for (size_t i = 0; i < hi; i++)
    if (kv_size(w, i) > longest) longest = kv_size(w, i);
  /* Past the largest n whose Java bound is below the longest key-value,
   * every block drops its last key-value: binary search for that n. */
  size_t lo = 1, top = hi - 1;
  uint64_t s;
  while (lo < top) {
    size_t mid = lo + (top - lo + 1) / 2;
    HUDI_TRY(stored_size(c, mid, &s, err));
    if (java_bytes(s) < longest) lo = mid;
    else top = mid - 1;
  }
  size_t n = lo;
  while (n > 1) {
    HUDI_TRY(stored_size(c, n, &s, err));
    if (!block_is_misread(w, n, s)) break;
    /* Gallop down to the first m with the same chunk counts as n ... */
    uint64_t key = size_key(s);
    size_t same = n, d = 1;
    for (;;) {
      size_t m = same > d ? same - d : 1;
      uint64_t sm;
      HUDI_TRY(stored_size(c, m, &sm, err));
      if (size_key(sm) != key) {
        /* ... the boundary lies in (m, same]: bisect it. */
        size_t a = m, b = same; /* key(a) differs, key(b) equal */
        while (b - a > 1) {
          size_t mid = a + (b - a) / 2;
          HUDI_TRY(stored_size(c, mid, &sm, err));
          if (size_key(sm) == key) b = mid;
          else a = mid;
        }
        same = b;
        break;
      }
      same = m;
      if (m == 1) break;
      d *= 2;
    }
    /* Within [same, n) the verdict is the length's against the same bound. */
    size_t i = n - 1;
    if (java_bytes(s) == chunk_bytes(s) || !c->gz)
      for (; i >= same && i > 1; i--)
        if (kv_size(w, i - 1) > java_bytes(s)) break;
    if (i >= same && i > 1 && (java_bytes(s) == chunk_bytes(s) || !c->gz)) {
      n = i;
      break;
    }
    n = same > 1 ? same - 1 : 1;
  }
  *cut = n;
  return HUDI_OK;
}

/* ---- shared codes ----------------------------------------------------------
 * Cell-deflated data blocks (record-index files: ~40 key-values of the
 * same shape in 4 KiB) share one set of Huffman codes per file instead of
 * each building its own (deflate_steps.h). The codes come from the first
 * SAMPLE_CHUNKS block-sized chunks of key-values appended, and serve every
 * block whose first row key comes after the sample's last: a rule on the
 * appended keys alone, so a block's bytes do not depend on whether the
 * pipeline or this thread encoded it, nor on when. */

#define SAMPLE_CHUNKS 32 /* 128 KiB of 4 KiB blocks: see hudi_deflate_codes_new */
#define SAMPLE_BYTES ((uint64_t)256 << 10) /* ... or fewer, larger blocks */

static void sample_stop(hudi_hfile_writer *w) {
  w->sampling = 0;
  hudi_buf_free(&w->sample);
  hudi_free(w->counts);
  w->counts = NULL;
}

/* The sample chunk is complete: its symbols are counted, and after the
 * last chunk the codes built. Out of memory just ends the sampling. */
static void sample_chunk(hudi_hfile_writer *w) {
  if (!w->counts && !(w->counts = hudi_calloc(1, sizeof *w->counts))) {
    sample_stop(w);
    return;
  }
  if (!hudi_hfile_cell_count(w->sample.data, w->sample.len, w->counts)) {
    sample_stop(w);
    return;
  }
  w->sample_total += w->sample_acc;
  if (++w->sample_chunks < SAMPLE_CHUNKS && w->sample_total < SAMPLE_BYTES) {
    hudi_buf_reset(&w->sample);
    w->sample_acc = 0;
    return;
  }
  const uint8_t *last = w->sample.data + w->sample_last;
  size_t klen = hudi_be16(last + 8);
  if (hudi_buf_append(&w->codes_after, last + 10, klen, NULL) == HUDI_OK) w->codes = hudi_deflate_codes_new(w->counts);
  sample_stop(w);
}

/* Adds the key-value just appended (acc: its size by Java's accounting)
 * to the sample, chunked as blocks are closed (must_close). */
static void sample_kv(hudi_hfile_writer *w, const uint8_t *kv, size_t len, uint64_t acc) {
  if (w->sample.len > 0 && w->sample_acc + acc > w->opts.block_size) {
    sample_chunk(w);
    if (!w->sampling) return;
  }
  w->sample_last = w->sample.len;
  w->sample_acc += acc;
  if (hudi_buf_append(&w->sample, kv, len, NULL) != HUDI_OK) sample_stop(w);
}

/* The shared codes for the waiting block, or NULL: it starts within the
 * sample, or there are none. */
static const hudi_deflate_codes *block_codes(const hudi_hfile_writer *w) {
  if (!w->codes || w->n_kvs == 0) return NULL;
  const uint8_t *kv = w->block.data + w->kv_starts[0];
  return key_cmp(kv + 10, hudi_be16(kv + 8), w->codes_after.data, w->codes_after.len) > 0 ? w->codes : NULL;
}

/* Encodes the first n key-values into w->enc (with `fast`, by libdeflate);
 * their stored size. */
static hudi_status encode_prefix(hudi_hfile_writer *w, size_t n, int64_t prev, hudi_fast_deflater *fast,
                                 uint64_t *stored, hudi_error *err) {
  hudi_buf_reset(&w->enc);
  HUDI_TRY(hudi_hfile_block_encode_fast(&w->enc, HUDI_HFILE_MAGIC_DATA, w->block.data, kv_end(w, n - 1),
                                        data_codec(&w->opts), prev, fast, block_codes(w), err));
  *stored = hudi_be32(w->enc.data + 29) - HUDI_HFILE_HEADER_SIZE;
  return HUDI_OK;
}

/* How many of the waiting key-values the next block takes; w->enc holds it.
 * The whole block is encoded first (the common case: it is read right);
 * after a block that had to be closed early, the next one likely must be
 * too, so its size comes from the sizer's pass instead. */
static hudi_status choose_block(hudi_hfile_writer *w, int64_t prev, size_t *out_n, hudi_error *err) {
  size_t n = w->n_kvs;
  int gz = w->opts.compression == HUDI_HFILE_GZ;
  uint64_t stored;
  int sized = 0;
  /* libdeflate: the whole block once; if it reads right (every block of a
   * few KiB, nearly every one of 64 KiB) that is the block. Otherwise the
   * zlib search below picks the cut, and the block is zlib's, so it is
   * exactly the size the search predicted. */
  if (w->fast && !(w->last_cut && n > 1)) {
    HUDI_TRY(encode_prefix(w, n, prev, w->fast, &stored, err));
    if (n == 1 || !block_is_misread(w, n, stored)) {
      w->last_cut = 0;
      *out_n = n;
      return HUDI_OK;
    }
  }
  if (gz && !w->gz) {
    w->gz = hudi_malloc(sizeof *w->gz);
    if (!w->gz) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory sizing an HFile block");
    w->gz->pool.n = 0;
    w->gz->n_snap = 0;
  }
  if (gz && w->last_cut && n > 1) {
    HUDI_TRY(gz_sizer_init(w->gz, w, &stored, err));
    sized = 1;
  } else {
    HUDI_TRY(encode_prefix(w, n, prev, NULL, &stored, err));
  }
  size_t cut = n;
  hudi_status st = HUDI_OK;
  if (n > 1 && block_is_misread(w, n, stored)) {
    cut_search c = {w, NULL};
    if (gz && !sized) st = gz_sizer_init(w->gz, w, NULL, err);
    if (gz) c.gz = w->gz;
    if (st == HUDI_OK) st = search_cut(&c, n, &cut, err);
  }
  if (gz) gz_sizer_free(w->gz);
  HUDI_TRY(st);
  if (cut < n || sized) HUDI_TRY(encode_prefix(w, cut, prev, NULL, &stored, err));
  if (cut > 1 && block_is_misread(w, cut, stored)) {
    /* The size was not the predicted one: the plain walk decides. */
    for (cut = n; cut > 1; cut--) {
      HUDI_TRY(encode_prefix(w, cut, prev, NULL, &stored, err));
      if (!block_is_misread(w, cut, stored)) break;
    }
    if (cut == 1) HUDI_TRY(encode_prefix(w, cut, prev, NULL, &stored, err));
  }
  w->last_cut = cut < n;
  *out_n = cut;
  return HUDI_OK;
}

/* The file buffer. First touches of its fresh pages cost 5-40% of what
 * deflating the data does on this project's (virtual, shared) machine, so
 * with the pipeline the workers pre-fault it ahead of the copies
 * (hudi_hfile_pipe_prefault): PREFAULT_AHEAD bytes past the end, asked for
 * again once half of it is used. (Transparent huge pages, MADV_HUGEPAGE,
 * were no faster in the benchmark under load: direct compaction.)
 * Growing the buffer may move it, so a pre-fault in progress is waited for
 * first, and the growth is made large enough for the block, an index block
 * after it and the rest of what put_block appends. */
#define PREFAULT_AHEAD ((size_t)4 << 20)

static hudi_status out_room(hudi_hfile_writer *w, size_t enc_len, size_t key_len, hudi_error *err) {
  size_t need = enc_len + (size_t)hudi_hfile_index_writer_add_bound(&w->index, key_len + 2);
  if (w->out.cap - w->out.len < need) {
    if (w->pipe) hudi_hfile_pipe_prefault_wait(w->pipe);
    size_t grow = need > w->out.len ? need : w->out.len; /* doubling, as hudi_buf does */
    if (w->pipe && grow < PREFAULT_AHEAD) grow = PREFAULT_AHEAD;
    if (w->out.cap - w->out.len < grow && hudi_buf_reserve(&w->out, grow, NULL) != HUDI_OK)
      HUDI_TRY(hudi_buf_reserve(&w->out, need, err)); /* near the buffer's cap */
    if (w->prefaulted > w->out.cap) w->prefaulted = w->out.cap;
  }
  if (w->pipe && w->prefaulted < w->out.len + PREFAULT_AHEAD / 2) {
    size_t from = w->prefaulted > w->out.len ? w->prefaulted : w->out.len;
    size_t to = w->out.len + PREFAULT_AHEAD < w->out.cap ? w->out.len + PREFAULT_AHEAD : w->out.cap;
    if (to > from) hudi_hfile_pipe_prefault(w->pipe, w->out.data + from, to - from);
    w->prefaulted = to;
  }
  return HUDI_OK;
}

/* Appends a data block (encoded, prev_block_offset still to set) and its
 * index entry; len bytes of key-values from kv, n of them. */
static hudi_status put_block(hudi_hfile_writer *w, uint8_t *enc, size_t enc_len, const uint8_t *kv, size_t len,
                             size_t n, hudi_error *err) {
  HUDI_TRY(out_room(w, enc_len, hudi_be16(kv + 8), err));
  /* Java gives the first block prevBlockOffset -1 and every later one its
   * own start offset (it passes currentOffset when creating the block). */
  uint64_t off = w->out.len;
  hudi_put_be64(enc + 16, w->first_data_off < 0 ? UINT64_MAX : off);
  HUDI_TRY(hudi_buf_append(&w->out, enc, enc_len, err));
  if (w->first_data_off < 0) w->first_data_off = (int64_t)off;
  w->last_data_off = (int64_t)off;
  w->total_usw += len;
  w->entries += n;
  /* Index entry key: i16 length + the block's first row key. */
  size_t klen = hudi_be16(kv + 8);
  return hudi_hfile_index_writer_add(&w->index, &w->out, kv + 8, klen + 2, off, (uint32_t)enc_len, err);
}

static hudi_status flush_block(hudi_hfile_writer *w, hudi_error *err) {
  if (w->n_kvs == 0) return HUDI_OK;
  /* Java gives the first block prevBlockOffset -1 and every later one its
   * own start offset (it passes currentOffset when creating the block). */
  int64_t prev = w->first_data_off < 0 ? -1 : (int64_t)w->out.len;
  size_t n = 0;
  HUDI_TRY(choose_block(w, prev, &n, err));
  size_t len = kv_end(w, n - 1);
  w->blocks++;
  HUDI_TRY(put_block(w, w->enc.data, w->enc.len, w->block.data, len, n, err));
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

/* ---- the pipeline ---------------------------------------------------------
 * With compress_threads, a full block is queued (hudi_hfile_pipe) instead of
 * encoded here, on the guess that it reads right as it is, which every
 * block of a few KiB and nearly every one of 64 KiB does. Its encoder,
 * on whatever thread, does what choose_block's first step does: encode
 * the whole block (libdeflate, or zlib with java_exact_bytes) and judge it
 * by spec §3.9. Blocks are written in queue order. A block judged mis-read
 * means the guess was wrong from there on: the blocks queued after it were
 * cut as if it had taken all its key-values. So its key-values go back
 * into `block` and flush_block closes it early, exactly as without the
 * pipeline, and every key-value queued after it is appended again
 * (replayed) with blocks encoded here, until a block again takes all its
 * key-values (last_cut = 0): from there the single-threaded writer starts
 * each block afresh too, so queueing resumes. The bytes are thus those of
 * the single-threaded writer whatever the threads' timing. */

#define PIPE_BYTES ((size_t)1 << 20)
#define PIPE_MAX_SLOTS 256

/* Decides the pipeline: worker count and when to start it. */
static void pipe_plan(hudi_hfile_writer *w) {
  int t = w->opts.compress_threads;
  w->workers = 0;
  if (t > 1) {
    w->workers = t - 1;
    w->pipe_after = 0;
  } else if (t == 0 && w->opts.compression == HUDI_HFILE_GZ &&
             w->opts.block_size <= HUDI_HFILE_PIPE_AUTO_MAX_BLOCK && hudi_cpu_count() >= 2) {
    w->workers = 1;
    w->pipe_after = HUDI_HFILE_PIPE_AUTO_BLOCKS;
  }
}

/* The encoder of a queued block: choose_block's first step (see above). */
static void encode_job(const void *ctx, hudi_hfile_pipe_job *j, hudi_fast_deflater *fast) {
  const hudi_hfile_writer_options *o = ctx;
  int gz = o->compression == HUDI_HFILE_GZ;
  hudi_buf_reset(&j->enc);
  j->misread = 0;
  j->status = hudi_hfile_block_encode_fast(&j->enc, HUDI_HFILE_MAGIC_DATA, j->kv.data, j->kv.len, data_codec(o), 0,
                                           fast, j->codes, &j->err);
  if (j->status != HUDI_OK || j->n < 2) return;
  uint64_t stored = hudi_be32(j->enc.data + 29) - HUDI_HFILE_HEADER_SIZE;
  j->misread = misread_verdict(j->kv.len - j->starts[j->n - 1], gz, stored);
}

static int pipelined(const hudi_hfile_writer *w) { return w->pipe && !w->replaying && !w->last_cut; }

/* Starts the pipeline once the file is big enough; without it (no threads,
 * no memory) the writer just goes on alone. */
static void pipe_start(hudi_hfile_writer *w) {
  if (w->pipe || w->workers == 0 || w->blocks < w->pipe_after) return;
  int level = w->fast ? (w->opts.deflate_level ? w->opts.deflate_level : HUDI_HFILE_DEFAULT_DEFLATE_LEVEL) : 0;
  /* About PIPE_BYTES of key-values in flight (at least 4 blocks per
   * thread): a deep queue rides out the moments a busy machine does not
   * run one of the threads, which with 8 slots of 4 KiB (~120 us of work)
   * sent the writer to compress blocks itself. */
  size_t slots = PIPE_BYTES / w->opts.block_size, least = 4 * ((size_t)w->workers + 1);
  if (slots < least) slots = least;
  if (slots > PIPE_MAX_SLOTS) slots = PIPE_MAX_SLOTS;
  if (hudi_hfile_pipe_create(&w->pipe, w->workers, slots, level, HUDI_HFILE_MAX_BLOCK, encode_job, &w->opts,
                             NULL) != HUDI_OK)
    w->pipe = NULL;
  w->workers = 0; /* one attempt */
}

static hudi_status kv_room(hudi_hfile_writer *w, hudi_error *err) {
  if (w->n_kvs < w->kv_cap) return HUDI_OK;
  size_t nc = w->kv_cap ? w->kv_cap * 2 : 256;
  size_t *nv = hudi_realloc(w->kv_starts, hudi_mul_size(nc, sizeof *nv));
  if (!nv) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for an HFile block");
  w->kv_starts = nv;
  w->kv_cap = nc;
  return HUDI_OK;
}

/* Moves the waiting block into the pipeline's free slot (pump made one). */
static void queue_block(hudi_hfile_writer *w) {
  hudi_hfile_pipe_job *j = hudi_hfile_pipe_next(w->pipe);
  j->codes = block_codes(w);
  hudi_buf b = j->kv;
  j->kv = w->block;
  w->block = b;
  hudi_buf_reset(&w->block);
  size_t *st = j->starts, cap = j->cap;
  j->starts = w->kv_starts;
  j->cap = w->kv_cap;
  j->n = w->n_kvs;
  w->kv_starts = st;
  w->kv_cap = cap;
  w->n_kvs = 0;
  w->block_acc = 0;
  w->blocks++;
  hudi_hfile_pipe_submit(w->pipe);
}

static hudi_status before_kv(hudi_hfile_writer *w, size_t key_len, size_t value_len, int same, hudi_error *err);

static hudi_status append_raw(hudi_hfile_writer *w, const uint8_t *kv, size_t len, hudi_error *err) {
  HUDI_TRY(kv_room(w, err));
  size_t start = w->block.len;
  HUDI_TRY(hudi_buf_append(&w->block, kv, len, err));
  w->kv_starts[w->n_kvs++] = start;
  w->block_acc += (uint64_t)hudi_be16(kv + 8) + hudi_be32(kv + 4) + 9;
  return HUDI_OK;
}

/* The queued block j (the oldest) must close early: see above. */
static hudi_status recut(hudi_hfile_writer *w, hudi_hfile_pipe_job *j, hudi_error *err) {
  hudi_hfile_pipe_cancel(w->pipe);
  w->recuts++;
  /* To replay: j's last key-value (only to compare keys with), then the
   * later queued blocks' key-values and the block being filled. */
  hudi_buf_reset(&w->replay);
  size_t skip = j->kv.len - j->starts[j->n - 1];
  hudi_status st = hudi_buf_append(&w->replay, j->kv.data + j->starts[j->n - 1], skip, err);
  for (size_t i = 1; st == HUDI_OK && i < hudi_hfile_pipe_count(w->pipe); i++) {
    hudi_hfile_pipe_job *later = hudi_hfile_pipe_at(w->pipe, i);
    st = hudi_buf_append(&w->replay, later->kv.data, later->kv.len, err);
  }
  if (st == HUDI_OK) st = hudi_buf_append(&w->replay, w->block.data, w->block.len, err);
  if (st != HUDI_OK) {
    hudi_hfile_pipe_clear(w->pipe);
    return st;
  }
  /* j's key-values become the waiting block again, as queue_block found it. */
  hudi_buf_reset(&w->block);
  w->n_kvs = 0;
  w->block_acc = 0;
  w->blocks--;
  for (size_t i = 0; st == HUDI_OK && i < j->n; i++) {
    size_t end = i + 1 < j->n ? j->starts[i + 1] : j->kv.len;
    st = append_raw(w, j->kv.data + j->starts[i], end - j->starts[i], err);
  }
  hudi_hfile_pipe_clear(w->pipe);
  HUDI_TRY(st);
  HUDI_TRY(flush_block(w, err));
  w->replaying = 1;
  const uint8_t *prev = w->replay.data;
  for (size_t at = skip; st == HUDI_OK && at < w->replay.len;) {
    const uint8_t *kv = w->replay.data + at;
    size_t kl = hudi_be16(kv + 8), vl = hudi_be32(kv + 4), len = 8 + (size_t)hudi_be32(kv) + vl + 1;
    int same = hudi_be16(prev + 8) == kl && memcmp(prev + 10, kv + 10, kl) == 0;
    st = before_kv(w, kl, vl, same, err);
    if (st == HUDI_OK) st = append_raw(w, kv, len, err);
    prev = kv;
    at += len;
  }
  w->replaying = 0;
  return st;
}

/* Writes the queued blocks already encoded, in order; waits for them
 * (encoding meanwhile) while the queue is full, or with `all` until it is
 * empty. A re-cut empties the queue. */
static hudi_status pump(hudi_hfile_writer *w, bool all, hudi_error *err) {
  for (;;) {
    bool full = hudi_hfile_pipe_full(w->pipe);
    hudi_hfile_pipe_job *j = hudi_hfile_pipe_head(w->pipe, all || full);
    if (!j) return HUDI_OK;
    if (j->status != HUDI_OK) {
      if (err) *err = j->err;
      return j->status;
    }
    if (j->misread) return recut(w, j, err);
    HUDI_TRY(put_block(w, j->enc.data, j->enc.len, j->kv.data, j->kv.len, j->n, err));
    hudi_hfile_pipe_pop(w->pipe);
  }
}

/* Java's rule: close the block before a new key once the accounted size
 * would pass the block size; equal keys stay together. */
static int must_close(const hudi_hfile_writer *w, size_t key_len, size_t value_len, int same) {
  return w->n_kvs > 0 && !same && w->block_acc + key_len + value_len + 9 > w->opts.block_size;
}

/* Closes the waiting block if the next key-value does not join it. */
static hudi_status before_kv(hudi_hfile_writer *w, size_t key_len, size_t value_len, int same, hudi_error *err) {
  if (!must_close(w, key_len, value_len, same)) return HUDI_OK;
  if (!w->replaying) pipe_start(w);
  if (pipelined(w)) {
    uint64_t recuts = w->recuts;
    HUDI_TRY(pump(w, false, err));
    /* A re-cut replayed everything up to here: judge this key-value anew. */
    if (w->recuts != recuts && !must_close(w, key_len, value_len, same)) return HUDI_OK;
    if (pipelined(w)) {
      queue_block(w);
      return HUDI_OK;
    }
  }
  return flush_block(w, err);
}

hudi_status hudi_hfile_writer_append(hudi_hfile_writer *w, const uint8_t *key, size_t key_len,
                                     const uint8_t *value, size_t value_len, hudi_error *err) {
  return hudi_hfile_writer_append2(w, key, key_len, value, value_len, NULL, 0, err);
}

const uint8_t *hudi_hfile_writer_last_key(const hudi_hfile_writer *w, size_t *len) {
  *len = w->has_key ? w->last_key.len : 0;
  return w->has_key ? w->last_key.data : NULL;
}

hudi_status hudi_hfile_writer_append2(hudi_hfile_writer *w, const uint8_t *key, size_t key_len,
                                      const uint8_t *head, size_t head_len, const uint8_t *tail, size_t tail_len,
                                      hudi_error *err) {
  if (w->finished) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer already finished");
  if (key_len > MAX_KEY_LEN)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile key of %zu bytes exceeds %d", key_len, MAX_KEY_LEN);
  if (head_len > HUDI_HFILE_MAX_BLOCK / 2 || tail_len > HUDI_HFILE_MAX_BLOCK / 2 - head_len)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "HFile value of %zu bytes exceeds the cap", head_len + tail_len);
  size_t value_len = head_len + tail_len;
  int same = 0;
  if (w->has_key) {
    int c = key_cmp(w->last_key.data, w->last_key.len, key, key_len);
    if (c > 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile keys must be ascending: '%.*s' follows '%.*s'",
                          (int)(key_len > 200 ? 200 : key_len), (const char *)key,
                          (int)(w->last_key.len > 200 ? 200 : w->last_key.len), (const char *)w->last_key.data);
    same = c == 0 && w->n_kvs > 0;
  }
  HUDI_TRY(before_kv(w, key_len, value_len, same, err));
  HUDI_TRY(kv_room(w, err));
  /* i32 key length, i32 value length, i16 row length, row, family length 0,
   * timestamp Long.MAX_VALUE, type 4 (Put), value, mvcc 0. */
  /* One reservation, then the bytes written in place (this runs once per
   * key-value: five appends cost more than the copying). */
  size_t start = w->block.len, kv_len = 21 + key_len + value_len;
  HUDI_TRY(hudi_buf_reserve(&w->block, kv_len, err));
  uint8_t *p = w->block.data + start;
  hudi_put_be32(p, (uint32_t)key_len + 12);
  hudi_put_be32(p + 4, (uint32_t)value_len);
  hudi_put_be16(p + 8, (uint16_t)key_len);
  if (key_len) memcpy(p + 10, key, key_len);
  p += 10 + key_len;
  p[0] = 0;
  hudi_put_be64(p + 1, UINT64_C(0x7fffffffffffffff));
  p[9] = 4;
  if (head_len) memcpy(p + 10, head, head_len);
  if (tail_len) memcpy(p + 10 + head_len, tail, tail_len);
  p[10 + value_len] = 0;
  if (w->sampling) sample_kv(w, w->block.data + start, kv_len, key_len + value_len + 9);
  w->block.len = start + kv_len;
  w->kv_starts[w->n_kvs++] = start;
  w->block_acc += key_len + value_len + 9;
  w->total_key_len += key_len;
  w->total_value_len += value_len;
  /* last_key has room for any key (reserved at create). */
  if (key_len) memcpy(w->last_key.data, key, key_len);
  w->last_key.len = key_len;
  w->has_key = 1;
  w->last_key_exact = 1;
  return HUDI_OK;
}

/* Writes every key-value appended so far into data blocks; queued ones are
 * written (or re-cut) as they come. */
static hudi_status flush_all(hudi_hfile_writer *w, hudi_error *err) {
  for (;;) {
    if (w->n_kvs > 0 && pipelined(w)) {
      HUDI_TRY(pump(w, false, err));
      if (w->n_kvs > 0 && pipelined(w)) queue_block(w);
    } else if (w->n_kvs > 0) {
      HUDI_TRY(flush_block(w, err));
    } else if (w->pipe && hudi_hfile_pipe_count(w->pipe) > 0) {
      HUDI_TRY(pump(w, true, err));
    } else {
      return HUDI_OK;
    }
  }
}

hudi_status hudi_hfile_writer_copy_block(hudi_hfile_writer *w, const uint8_t *block, size_t len, const uint8_t *first,
                                         size_t first_len, const uint8_t *last, size_t last_len, hudi_error *err) {
  if (w->finished) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer already finished");
  if (first_len > MAX_KEY_LEN || last_len > MAX_KEY_LEN)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile key of %zu bytes exceeds %d",
                        first_len > last_len ? first_len : last_len, MAX_KEY_LEN);
  if (w->opts.compression != HUDI_HFILE_GZ)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer: copied data blocks need GZ compression");
  hudi_hfile_block_header h;
  HUDI_TRY(hudi_hfile_block_header_parse(&h, block, len, 0, "copied data block", err));
  if (memcmp(h.magic, HUDI_HFILE_MAGIC_DATA, 8) != 0 || (uint64_t)h.on_disk_size_without_header + HUDI_HFILE_HEADER_SIZE != len)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer: a copied block must be one whole %s block (%zu bytes)",
                        HUDI_HFILE_MAGIC_DATA, len);
  if (h.checksum_type != 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "HFile writer: a copied block must have checksum type NULL (0), not %u: its header changes",
                        (unsigned)h.checksum_type);
  if (w->has_key && key_cmp(w->last_key.data, w->last_key.len, first, first_len) > 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile keys must be ascending: copied block from '%.*s' follows '%.*s'",
                        (int)(first_len > 200 ? 200 : first_len), (const char *)first,
                        (int)(w->last_key.len > 200 ? 200 : w->last_key.len), (const char *)w->last_key.data);
  HUDI_TRY(flush_all(w, err));
  /* The index entry's key: i16 length + the block's first row key. */
  uint8_t key[MAX_KEY_LEN + 2];
  hudi_put_be16(key, (uint16_t)first_len);
  if (first_len) memcpy(key + 2, first, first_len);
  HUDI_TRY(out_room(w, len, first_len, err));
  uint64_t off = w->out.len;
  HUDI_TRY(hudi_buf_append(&w->out, block, len, err));
  /* prevBlockOffset as put_block sets it (readers ignore it; checksums
   * are of type NULL, so nothing else changes). */
  hudi_put_be64(w->out.data + off + 16, w->first_data_off < 0 ? UINT64_MAX : off);
  if (w->first_data_off < 0) w->first_data_off = (int64_t)off;
  w->last_data_off = (int64_t)off;
  w->total_usw += h.uncompressed_size_without_header;
  w->blocks++;
  /* Its last key when given; else its first, a lower bound for the next
   * append's order check, which finish refuses as hfile.LASTKEY. */
  const uint8_t *k = last ? last : first;
  size_t kl = last ? last_len : first_len;
  if (kl) memcpy(w->last_key.data, k, kl);
  w->last_key.len = kl;
  w->has_key = 1;
  w->last_key_exact = last != NULL;
  return hudi_hfile_index_writer_add(&w->index, &w->out, key, first_len + 2, off, (uint32_t)len, err);
}

void hudi_hfile_writer_add_copied(hudi_hfile_writer *w, uint64_t entries, uint64_t key_bytes, uint64_t value_bytes) {
  w->entries += entries;
  w->total_key_len += key_bytes;
  w->total_value_len += value_bytes;
}

uint64_t hudi_hfile_writer_recuts(const hudi_hfile_writer *w) { return w->recuts; }

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
    /* libdeflate at the data blocks' level (zlib level 6 with
     * java_exact_bytes): a metadata HFile's bloom filter is ~0.5-1 MB of
     * Base64 text, which zlib's level 6 deflated at ~20 MB/s, a fifth of a
     * 2M-key metadata compaction. */
    HUDI_TRY(hudi_hfile_block_encode_fast(&w->out, HUDI_HFILE_MAGIC_META, e->value, e->len, gz, -1, w->fast, NULL, err));
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
  if (st == HUDI_OK) st = hudi_pb_write_uint_field(&pb, 8, w->index.levels, err);
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
  HUDI_TRY(flush_all(w, err));
  if (!w->last_key_exact)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile writer: the last copied data block's last key was not given");
  /* No worker may touch the buffer from here on: it grows and is handed out. */
  if (w->pipe) hudi_hfile_pipe_prefault_wait(w->pipe);
  /* HBase's order: the last leaf index block, meta blocks, intermediate
   * index blocks, then load-on-open from the root index. */
  HUDI_TRY(hudi_hfile_index_writer_close_leaves(&w->index, &w->out, err));
  hudi_buf meta_index;
  hudi_buf_init(&meta_index, HUDI_BUF_DEFAULT_MAX);
  int gz = w->opts.compression == HUDI_HFILE_GZ;
  hudi_status st = write_meta_blocks(w, &meta_index, err);
  uint64_t load_on_open = 0;
  if (st == HUDI_OK) st = hudi_hfile_index_writer_finish(&w->index, &w->out, &load_on_open, &w->n_root, err);
  if (st == HUDI_OK)
    st = hudi_hfile_block_encode(&w->out, HUDI_HFILE_MAGIC_ROOT, meta_index.data, meta_index.len, gz, -1, err);
  uint64_t file_info_off = w->out.len;
  if (st == HUDI_OK) st = write_file_info(w, &meta_index, err);
  hudi_buf_free(&meta_index);
  if (st == HUDI_OK) st = write_trailer(w, file_info_off, load_on_open, err);
  HUDI_TRY(st);
  return hudi_buf_detach(&w->out, out, out_len, err);
}

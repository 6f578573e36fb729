/* Multi-level data block indexes: files our writer makes with tiny blocks
 * read back key for key and answer batch lookups as a brute-force model
 * does, reading only the index blocks their keys need; and their layout is
 * HBase's, checked by a walker that first checks itself against the
 * 3-level deep-index file HBase 2.4 wrote (hudi-rs fixture). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "hfile/block.h"
#include "hfile/hfile.h"
#include "hfile/hfile_test_util.h"

#define DEEP HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/hfile/hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile"

/* ---- a model file: uuid-like keys, varied values ---------------------- */

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Key i of the model: 36 hex-ish characters, strictly ascending in i (the
 * first 8 digits are i, the rest pseudo-random), so a key between i and
 * i+1 (suffix 'g') is absent. */
static void model_key(char *out, size_t i) {
  uint64_t a = mix(i), b = mix(i ^ 0xabcdef);
  snprintf(out, 40, "%08zx-%04x-%04x-%04x-%012llx", i, (unsigned)(a & 0xffff), (unsigned)((a >> 16) & 0xffff),
           (unsigned)((a >> 32) & 0xffff), (unsigned long long)(b & 0xffffffffffffull));
}

static size_t model_value(char *out, size_t i) {
  int n = snprintf(out, 128, "v%zu:", i);
  size_t len = (size_t)n + (size_t)(mix(i * 7) % 60);
  for (size_t j = (size_t)n; j < len; j++) out[j] = (char)('a' + (i + j) % 26);
  return len;
}

static uint8_t *write_model(size_t n, size_t block, size_t index_block, hudi_hfile_compression c, size_t *len) {
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = block;
  o.index_block_size = index_block;
  o.compression = c;
  o.create_time_ms = 1772922372542;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  char k[40], v[128];
  for (size_t i = 0; i < n; i++) {
    model_key(k, i);
    size_t vl = model_value(v, i);
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)k, strlen(k), (const uint8_t *)v, vl, &err), HUDI_OK);
  }
  assert_int_equal(hudi_hfile_writer_add_meta_block(w, "bloomFilter", (const uint8_t *)"bits", 4, &err), HUDI_OK);
  uint8_t *out = NULL;
  assert_int_equal(hudi_hfile_writer_finish(w, &out, len, &err), HUDI_OK);
  hudi_hfile_writer_free(w);
  return out;
}

/* ---- a layout walker, independent of the reader ----------------------- */

typedef struct wblock {
  uint64_t off;
  uint32_t size; /* on disk, with header */
  char magic[9];
  int64_t prev;
  uint8_t *payload;
  size_t len;
  int deflate_type; /* GZ files: BTYPE of the first deflate block (0 stored, 1 fixed, 2 dynamic); -1 otherwise */
} wblock;

typedef struct layout {
  wblock *b;
  size_t n;
  uint32_t levels, root_n;
  uint64_t load_on_open;
  uint8_t mid[16];
  int has_mid;
  size_t data_blocks, leaf_blocks, inter_blocks;
} layout;

static const wblock *block_at(const layout *l, uint64_t off) {
  for (size_t i = 0; i < l->n; i++)
    if (l->b[i].off == off) return &l->b[i];
  return NULL;
}

/* A non-root index payload: n, (n+1) offsets, entries; checks the
 * offsets and returns n. Entry i's fields via the out arrays (may be NULL). */
static uint32_t nonroot(const wblock *b, size_t i, uint64_t *off, uint32_t *size, const uint8_t **key, size_t *klen) {
  const uint8_t *p = b->payload;
  uint32_t n = hudi_be32(p);
  assert_true(4 + 4 * ((size_t)n + 1) <= b->len);
  size_t base = 4 + 4 * ((size_t)n + 1);
  assert_int_equal(hudi_be32(p + 4), 0);
  assert_int_equal(base + hudi_be32(p + 4 + 4 * (size_t)n), b->len); /* the last offset ends the block */
  if (off && i < n) {
    size_t a = hudi_be32(p + 4 + 4 * i), e = hudi_be32(p + 8 + 4 * i);
    *off = hudi_be64(p + base + a);
    *size = hudi_be32(p + base + a + 8);
    *key = p + base + a + 12;
    *klen = e - a - 12;
  }
  return n;
}

/* The row of an index key (i16 length + row + anything HBase adds). */
static void key_row(const uint8_t *k, size_t klen, const uint8_t **row, size_t *rlen) {
  assert_true(klen >= 2);
  *rlen = hudi_be16(k);
  assert_true(*rlen <= klen - 2);
  *row = k + 2;
}

static int row_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  int c = memcmp(a, b, al < bl ? al : bl);
  return c ? c : (al < bl ? -1 : al > bl);
}

/* The first row key a block covers (data: its first key-value). */
static void first_row(const layout *l, const wblock *b, const uint8_t **row, size_t *rlen) {
  if (memcmp(b->magic, "DATABLK*", 8) == 0) {
    assert_true(b->len >= 10);
    *rlen = hudi_be16(b->payload + 8);
    *row = b->payload + 10;
    return;
  }
  uint64_t o;
  uint32_t s;
  const uint8_t *k;
  size_t kl;
  nonroot(b, 0, &o, &s, &k, &kl);
  key_row(k, kl, row, rlen);
  (void)l;
}

/* Follows an entry pointing to a block of the expected type; checks its
 * size and that its key is <= the block's first row (== when exact, as
 * our writer's; HBase may shorten keys). Collects leaf-level facts. */
typedef struct walk {
  const layout *l;
  int exact;
  size_t next_data;  /* index among data blocks, in file order */
  uint64_t *leaf_counts;
  uint64_t *leaf_offs;
  uint32_t *leaf_sizes;
  size_t n_leaves;
} walk;

static void follow(walk *w, uint64_t off, uint32_t size, const uint8_t *key, size_t klen, uint32_t below) {
  const wblock *b = block_at(w->l, off);
  assert_non_null(b);
  assert_int_equal(b->size, size);
  const char *magic = below == 0 ? "DATABLK*" : below == 1 ? "IDXLEAF2" : "IDXINTE2";
  assert_memory_equal(b->magic, magic, 8);
  const uint8_t *row, *frow;
  size_t rl, frl;
  key_row(key, klen, &row, &rl);
  first_row(w->l, b, &frow, &frl);
  if (w->exact)
    assert_int_equal(row_cmp(row, rl, frow, frl), 0);
  else
    assert_true(row_cmp(row, rl, frow, frl) <= 0);
  if (below == 0) {
    /* data blocks are reached in file order, every one of them */
    size_t seen = 0;
    for (size_t i = 0; i < w->l->n; i++)
      if (memcmp(w->l->b[i].magic, "DATABLK*", 8) == 0) {
        if (w->l->b[i].off == off) assert_int_equal(seen, w->next_data);
        seen++;
      }
    w->next_data++;
    return;
  }
  uint32_t n = nonroot(b, 0, NULL, NULL, NULL, NULL);
  assert_true(n >= 1);
  if (below == 1) {
    w->leaf_counts = realloc(w->leaf_counts, (w->n_leaves + 1) * sizeof *w->leaf_counts);
    w->leaf_offs = realloc(w->leaf_offs, (w->n_leaves + 1) * sizeof *w->leaf_offs);
    w->leaf_sizes = realloc(w->leaf_sizes, (w->n_leaves + 1) * sizeof *w->leaf_sizes);
    w->leaf_counts[w->n_leaves] = n;
    w->leaf_offs[w->n_leaves] = off;
    w->leaf_sizes[w->n_leaves] = size;
    w->n_leaves++;
  }
  for (uint32_t i = 0; i < n; i++) {
    uint64_t co;
    uint32_t cs;
    const uint8_t *ck;
    size_t ckl;
    nonroot(b, i, &co, &cs, &ck, &ckl);
    follow(w, co, cs, ck, ckl, below - 1);
  }
}

static void layout_read(layout *l, const uint8_t *f, size_t len) {
  memset(l, 0, sizeof *l);
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, f, len, "layout", &err), HUDI_OK);
  const hudi_hfile_trailer *t = hudi_hfile_reader_trailer(r);
  l->levels = t->num_data_index_levels;
  l->root_n = t->data_index_count;
  l->load_on_open = t->load_on_open_offset;
  int gz = t->compression_codec == 1;
  hudi_hfile_reader_free(r);
  size_t cap = 0;
  for (uint64_t off = 0; off <= l->load_on_open;) {
    hudi_hfile_block_header h;
    assert_int_equal(hudi_hfile_block_header_parse(&h, f + off, len - off, off, "layout", &err), HUDI_OK);
    if (l->n == cap) {
      cap = cap ? cap * 2 : 256;
      l->b = realloc(l->b, cap * sizeof *l->b);
    }
    wblock *b = &l->b[l->n++];
    memset(b, 0, sizeof *b);
    b->off = off;
    b->size = HUDI_HFILE_HEADER_SIZE + h.on_disk_size_without_header;
    memcpy(b->magic, h.magic, 9);
    b->prev = h.prev_block_offset;
    /* The gzip member follows the header: a 10-byte gzip header (no
     * optional fields here), then the first deflate block's 3 header bits. */
    const uint8_t *gzm = f + off + HUDI_HFILE_HEADER_SIZE;
    b->deflate_type = gz && gzm[0] == 0x1f && gzm[1] == 0x8b && gzm[3] == 0 ? (gzm[10] >> 1) & 3 : -1;
    hudi_buf p;
    hudi_buf_init(&p, HUDI_BUF_DEFAULT_MAX);
    assert_int_equal(hudi_hfile_block_decode(&h, f + off, gz, off, "layout", &p, &err), HUDI_OK);
    b->payload = malloc(p.len ? p.len : 1);
    memcpy(b->payload, p.data, p.len);
    b->len = p.len;
    hudi_buf_free(&p);
    if (memcmp(h.magic, "DATABLK*", 8) == 0) l->data_blocks++;
    if (memcmp(h.magic, "IDXLEAF2", 8) == 0) l->leaf_blocks++;
    if (memcmp(h.magic, "IDXINTE2", 8) == 0) l->inter_blocks++;
    if (off == l->load_on_open) break;
    off += b->size;
  }
}

static void layout_free(layout *l) {
  for (size_t i = 0; i < l->n; i++) free(l->b[i].payload);
  free(l->b);
}

/* HBase's mid-key metadata from the leaf level: the leaf holding data
 * entry (total-1)/2 and the entry's index within it. */
static void expected_mid(const walk *w, uint8_t out[16]) {
  uint64_t total = 0;
  for (size_t i = 0; i < w->n_leaves; i++) total += w->leaf_counts[i];
  uint64_t mid = (total - 1) / 2, before = 0;
  size_t i = 0;
  while (before + w->leaf_counts[i] <= mid) before += w->leaf_counts[i++];
  hudi_put_be64(out, w->leaf_offs[i]);
  hudi_put_be32(out + 8, w->leaf_sizes[i]);
  hudi_put_be32(out + 12, (uint32_t)(mid - before));
}

/* Walks the whole index from the root; returns the walk (caller frees). */
static void check_layout(const layout *l, int exact, walk *w) {
  memset(w, 0, sizeof *w);
  w->l = l;
  w->exact = exact;
  const wblock *root = &l->b[l->n - 1];
  assert_int_equal(root->off, l->load_on_open);
  assert_memory_equal(root->magic, "IDXROOT2", 8);
  size_t pos = 0;
  for (uint32_t i = 0; i < l->root_n; i++) {
    assert_true(pos + 12 < root->len);
    uint64_t off = hudi_be64(root->payload + pos);
    uint32_t size = hudi_be32(root->payload + pos + 8);
    int64_t kl;
    size_t vl = hudi_hfile_vlong_read(root->payload + pos + 12, root->len - pos - 12, &kl);
    assert_true(vl > 0 && kl >= 2 && (size_t)kl <= root->len - pos - 12 - vl);
    follow(w, off, size, root->payload + pos + 12 + vl, (size_t)kl, l->levels - 1);
    pos += 12 + vl + (size_t)kl;
  }
  assert_int_equal(w->next_data, l->data_blocks); /* every data block, once */
  if (l->levels == 1) {
    assert_int_equal(pos, root->len);
    assert_int_equal(l->leaf_blocks + l->inter_blocks, 0);
    return;
  }
  assert_int_equal(root->len - pos, 16);
  assert_int_equal(w->n_leaves, l->leaf_blocks);
  uint8_t mid[16];
  expected_mid(w, mid);
  assert_memory_equal(root->payload + pos, mid, 16);
  /* prevBlockOffset chains per block type (HBase's prevOffsetByType). */
  int64_t prev_leaf = -1, prev_inter = -1;
  for (size_t i = 0; i < l->n; i++) {
    const wblock *b = &l->b[i];
    if (memcmp(b->magic, "IDXLEAF2", 8) == 0) {
      assert_int_equal(b->prev, prev_leaf);
      prev_leaf = (int64_t)b->off;
    } else if (memcmp(b->magic, "IDXINTE2", 8) == 0) {
      assert_int_equal(b->prev, prev_inter);
      prev_inter = (int64_t)b->off;
    }
  }
}

static void walk_free(walk *w) {
  free(w->leaf_counts);
  free(w->leaf_offs);
  free(w->leaf_sizes);
}

/* The walker against HBase's own 3-level file: all of it holds there. */
static void test_walker_on_hbase_deep_index(void **s) {
  (void)s;
  size_t len = 0;
  uint8_t *f = tu_read_file(DEEP, &len);
  assert_non_null(f);
  layout l;
  layout_read(&l, f, len);
  assert_int_equal(l.levels, 3);
  walk w;
  check_layout(&l, 0, &w);
  assert_int_equal(w.n_leaves, 103);
  /* HBase writes each leaf right after the data block that filled it, and
   * the intermediate blocks just before the root. */
  assert_memory_equal(l.b[l.n - 2].magic, "IDXINTE2", 8);
  for (size_t i = 0; i + 1 < l.n; i++)
    if (memcmp(l.b[i].magic, "IDXLEAF2", 8) == 0) assert_memory_equal(l.b[i - 1].magic, "DATABLK*", 8);
  walk_free(&w);
  layout_free(&l);
  free(f);
}

/* Our leaf blocks are placed and filled as HBase's: right after the data
 * block whose entry filled them; a leaf closes once its non-root size
 * reaches the chunk size (the last one may be short). */
static void check_leaf_fill(const layout *l, size_t chunk) {
  size_t leaves = 0;
  for (size_t i = 0; i < l->n; i++) {
    const wblock *b = &l->b[i];
    if (memcmp(b->magic, "IDXLEAF2", 8) != 0) continue;
    leaves++;
    uint64_t o;
    uint32_t sz;
    const uint8_t *k;
    size_t kl;
    uint32_t n = nonroot(b, 0, NULL, NULL, NULL, NULL);
    nonroot(b, n - 1, &o, &sz, &k, &kl);
    assert_true(i > 0);
    assert_int_equal(l->b[i - 1].off, o); /* follows its last data block */
    if (leaves < l->leaf_blocks) {
      assert_true(b->len >= chunk);
      assert_true(b->len - (12 + kl) - 4 < chunk); /* one entry fewer did not fill it */
    }
  }
}

/* ---- reading back ------------------------------------------------------ */

typedef struct model_hits {
  size_t n;
  int *hit;
  size_t *idx; /* lookup key i is model key idx[i] (or absent) */
  int *present;
} model_hits;

static int on_model(void *ctx, size_t i, const uint8_t *v, size_t vl) {
  model_hits *m = ctx;
  assert_true(i < m->n);
  assert_true(m->present[i]);
  char want[128];
  size_t wl = model_value(want, m->idx[i]);
  assert_int_equal(vl, wl);
  assert_memory_equal(v, want, wl);
  m->hit[i]++;
  return 0;
}

/* Looks up `want` model keys chosen by a seeded generator, each present
 * key followed by an absent neighbour; checks every answer against the
 * model and returns the reader's stats for the lookup alone. */
static void lookup_sample(hudi_hfile_reader *r, size_t n_model, size_t want, uint64_t seed, hudi_hfile_stats *used) {
  size_t m = 2 * want;
  char (*store)[40] = calloc(m, 40);
  hudi_hfile_key *keys = calloc(m, sizeof *keys);
  model_hits mh = {m, calloc(m, sizeof(int)), calloc(m, sizeof(size_t)), calloc(m, sizeof(int))};
  /* sorted distinct picks: walk the model and take each key with
   * probability want/n_model */
  size_t k = 0;
  for (size_t i = 0; i < n_model && k + 2 <= m; i++) {
    if (mix(i ^ seed) % n_model >= want) continue;
    model_key(store[k], i);
    mh.idx[k] = i;
    mh.present[k] = 1;
    k++;
    model_key(store[k], i);
    store[k][36] = 'g'; /* sorts after key i, before key i+1 */
    store[k][37] = 0;
    mh.idx[k] = i;
    mh.present[k] = 0;
    k++;
  }
  for (size_t i = 0; i < k; i++) keys[i] = (hudi_hfile_key){(const uint8_t *)store[i], strlen(store[i])};
  hudi_hfile_stats s0, s1;
  hudi_hfile_reader_stats(r, &s0);
  hudi_error err = HUDI_ERROR_INIT;
  mh.n = k;
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, k, on_model, &mh, &err), HUDI_OK);
  hudi_hfile_reader_stats(r, &s1);
  for (size_t i = 0; i < k; i++) assert_int_equal(mh.hit[i], mh.present[i]);
  used->data_blocks_read = s1.data_blocks_read - s0.data_blocks_read;
  used->index_blocks_read = s1.index_blocks_read - s0.index_blocks_read;
  used->reads = s1.reads - s0.reads;
  used->bytes_read = s1.bytes_read - s0.bytes_read;
  free(mh.hit);
  free(mh.idx);
  free(mh.present);
  free(keys);
  free(store);
}

static void scan_all(hudi_hfile_reader *r, size_t n) {
  tu_kvs all = {0};
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  assert_int_equal(all.n, n);
  char k[40], v[128];
  for (size_t i = 0; i < n; i++) {
    model_key(k, i);
    size_t vl = model_value(v, i);
    assert_string_equal(all.keys[i], k);
    assert_int_equal(all.vlen[i], vl);
    assert_memory_equal(all.vals[i], v, vl);
  }
  tu_kvs_free(&all);
}

/* 20k key-values in 256-byte blocks with 512-byte index blocks: a 3+ level
 * index. Every key reads back; batch lookups agree with the model; one key
 * costs one index block per level below the root and one data block. */
static void test_deep_round_trip(void **s) {
  (void)s;
  const size_t n = 20000;
  hudi_hfile_compression cs[2] = {HUDI_HFILE_GZ, HUDI_HFILE_NONE};
  for (int ci = 0; ci < 2; ci++) {
    size_t len;
    uint8_t *f = write_model(n, 256, 512, cs[ci], &len);
    layout l;
    layout_read(&l, f, len);
    assert_true(l.levels >= 3);
    walk w;
    check_layout(&l, 1, &w);
    check_leaf_fill(&l, 512);
    walk_free(&w);
    if (cs[ci] == HUDI_HFILE_GZ) {
      /* Index blocks are stored deflate (a lookup reads every leaf its keys
       * fall under, so they are not inflated); data blocks are compressed. */
      size_t stored_index = 0, packed_data = 0;
      for (size_t i = 0; i < l.n; i++) {
        const wblock *b = &l.b[i];
        bool index = memcmp(b->magic, "IDX", 3) == 0;
        if (index) assert_int_equal(b->deflate_type, 0);
        stored_index += index;
        packed_data += memcmp(b->magic, "DATABLK*", 8) == 0 && b->deflate_type > 0;
      }
      assert_int_equal(stored_index, l.leaf_blocks + l.inter_blocks + 1); /* and the root */
      assert_int_equal(packed_data, l.data_blocks);
    }
    hudi_hfile_reader *r = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_hfile_reader_open_buffer(&r, f, len, "deep", &err), HUDI_OK);
    assert_int_equal(hudi_hfile_reader_entry_count(r), n);
    hudi_hfile_stats u;
    /* one key */
    lookup_sample(r, n, 1, 99, &u);
    assert_true(u.data_blocks_read <= 1);
    assert_true(u.index_blocks_read <= l.levels - 1);
    /* a few keys: far fewer index blocks than the file has */
    lookup_sample(r, n, 20, 7, &u);
    assert_true(u.data_blocks_read <= 20);
    assert_true(u.index_blocks_read <= 20 * (l.levels - 1));
    assert_true(u.index_blocks_read < (l.leaf_blocks + l.inter_blocks) / 4);
    /* many keys, then every key */
    lookup_sample(r, n, 5000, 3, &u);
    assert_true(u.data_blocks_read <= l.data_blocks);
    assert_true(u.index_blocks_read <= l.leaf_blocks + l.inter_blocks);
    lookup_sample(r, n, n, 5, &u);
    scan_all(r, n);
    /* a lookup after the scan expanded the index */
    lookup_sample(r, n, 100, 11, &u);
    assert_int_equal(u.index_blocks_read, 0);
    hudi_hfile_reader_free(r);
    layout_free(&l);
    free(f);
  }
}

/* Every file size around leaf and level boundaries: including a last leaf
 * that closes exactly on the last data block. */
static void test_boundary_sweep(void **s) {
  (void)s;
  uint32_t seen_levels = 0;
  for (size_t n = 0; n <= 420; n += (n < 60 ? 1 : 7)) {
    size_t len;
    uint8_t *f = write_model(n, 64, 160, HUDI_HFILE_GZ, &len);
    layout l;
    layout_read(&l, f, len);
    walk w;
    check_layout(&l, 1, &w);
    check_leaf_fill(&l, 160);
    walk_free(&w);
    seen_levels |= 1u << l.levels;
    hudi_hfile_reader *r = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_hfile_reader_open_buffer(&r, f, len, "sweep", &err), HUDI_OK);
    hudi_hfile_stats u;
    lookup_sample(r, n, n, 1, &u);
    scan_all(r, n);
    hudi_hfile_reader_free(r);
    layout_free(&l);
    free(f);
  }
  assert_true(seen_levels & (1u << 1));
  assert_true(seen_levels & (1u << 2));
  assert_true(seen_levels & (1u << 3));
}

/* A file whose index fits one block is single-level and byte for byte the
 * file a one-level writer makes (the Hudi-compatible bytes). */
static void test_small_stays_single_level(void **s) {
  (void)s;
  size_t a_len, b_len;
  uint8_t *a = write_model(3000, 4096, 0, HUDI_HFILE_GZ, &a_len);       /* index block = 4096 */
  uint8_t *b = write_model(3000, 4096, 1 << 20, HUDI_HFILE_GZ, &b_len); /* never multi-level */
  assert_int_equal(a_len, b_len);
  assert_memory_equal(a, b, a_len);
  layout l;
  layout_read(&l, a, a_len);
  assert_int_equal(l.levels, 1);
  assert_true(l.data_blocks > 20);
  layout_free(&l);
  free(a);
  free(b);
}

int main(void) {
  /* the shared helpers this file does not need */
  (void)tu_zip_each;
  (void)tu_found_init;
  (void)tu_on_found;
  (void)tu_found_free;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_walker_on_hbase_deep_index),
      cmocka_unit_test(test_deep_round_trip),
      cmocka_unit_test(test_boundary_sweep),
      cmocka_unit_test(test_small_stays_single_level),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

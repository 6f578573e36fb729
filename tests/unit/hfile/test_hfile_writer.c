/* The HFile writer: round trips through our reader, a model of how the
 * Java and hudi-rs readers bound a block (spec §3.9), byte-for-byte
 * re-encoding of the HFiles Hudi 1.1's Java writer put in the v9 fixture
 * tables, and corrupt or truncated input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <zlib.h>

#include "base/alloc.h"
#include "hfile/block.h"
#include "hfile/hfile.h"
#include "hfile/hfile_test_util.h"

#define TABLE_DIR HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/test/data/"

static bool g_java_exact; /* write_file's java_exact_bytes */

static uint8_t *write_file(size_t n, size_t block_size, hudi_hfile_compression c, size_t *len) {
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = block_size;
  o.compression = c;
  o.java_exact_bytes = g_java_exact;
  o.create_time_ms = 1772922372542;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  for (size_t i = 0; i < n; i++) {
    char k[64], v[256];
    snprintf(k, sizeof k, "key-%08zu", i * 2);
    int vl = snprintf(v, sizeof v, "value-%zu-", i);
    for (size_t j = 0; j < i % 97; j++) v[vl++] = (char)('a' + (i + j) % 26); /* varied lengths */
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)k, strlen(k), (const uint8_t *)v, (size_t)vl, &err),
                     HUDI_OK);
  }
  assert_int_equal(hudi_hfile_writer_add_file_info(w, "schema", (const uint8_t *)"{\"type\":\"null\"}", 15, &err),
                   HUDI_OK);
  assert_int_equal(hudi_hfile_writer_add_meta_block(w, "bloomFilter", (const uint8_t *)"bloom-bits", 10, &err),
                   HUDI_OK);
  uint8_t *out = NULL;
  assert_int_equal(hudi_hfile_writer_finish(w, &out, len, &err), HUDI_OK);
  hudi_hfile_writer_free(w);
  return out;
}

static void expected_value(size_t i, char *v, size_t *vl) {
  int n = snprintf(v, 256, "value-%zu-", i);
  for (size_t j = 0; j < i % 97; j++) v[n++] = (char)('a' + (i + j) % 26);
  *vl = (size_t)n;
}

/* What Java's HFileDataBlock sees: it stops scanning at
 * 33 + usw - 4*ceil((33 + odsw)/16384), so a key-value starting at or past
 * that offset is invisible. Also checks hudi-rs's gzip payload bound
 * (odsw - the same checksum count) equals the stored payload. Walks the
 * blocks from offset 0 to the load-on-open section; returns the number of
 * key-values Java would see. */
static uint64_t java_visible_entries(const uint8_t *f, size_t len, uint64_t load_on_open, int gz) {
  uint64_t seen = 0;
  size_t off = 0;
  hudi_buf payload;
  hudi_buf_init(&payload, HUDI_BUF_DEFAULT_MAX);
  while (off < load_on_open) {
    hudi_hfile_block_header h;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_hfile_block_header_parse(&h, f + off, len - off, off, "t", &err), HUDI_OK);
    uint64_t sums = hudi_hfile_checksum_bytes(33 + (uint64_t)h.on_disk_size_without_header, 16384);
    if (gz) assert_int_equal(h.on_disk_size_without_header - sums, h.on_disk_data_size_with_header - 33);
    if (memcmp(h.magic, "DATABLK*", 8) == 0) {
      assert_int_equal(hudi_hfile_block_decode(&h, f + off, gz, off, "t", &payload, &err), HUDI_OK);
      uint64_t end = 33 + (uint64_t)h.uncompressed_size_without_header - sums;
      size_t p = 0;
      while (p < payload.len) {
        uint32_t kl = hudi_be32(payload.data + p), vl = hudi_be32(payload.data + p + 4);
        if (33 + p < end) seen++;
        p += 8 + kl + vl + 1;
      }
    }
    off += 33 + h.on_disk_size_without_header;
  }
  hudi_buf_free(&payload);
  return seen;
}

static void round_trip(size_t n, size_t block_size, hudi_hfile_compression c) {
  size_t len;
  uint8_t *f = write_file(n, block_size, c, &len);
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, f, len, "round-trip", &err), HUDI_OK);
  const hudi_hfile_trailer *t = hudi_hfile_reader_trailer(r);
  assert_int_equal(t->entry_count, n);
  assert_int_equal(t->compression_codec, (uint32_t)c);
  assert_int_equal(t->major_version, 3);
  assert_string_equal(t->comparator, "org.apache.hudi.io.storage.HoodieHBaseKVComparator");
  if (n) assert_true(t->data_index_count >= 1);
  assert_int_equal(java_visible_entries(f, len, t->load_on_open_offset, c == HUDI_HFILE_GZ), n);

  tu_kvs all = {0};
  hudi_hfile_stats s0, s1;
  hudi_hfile_reader_stats(r, &s0);
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  hudi_hfile_reader_stats(r, &s1);
  uint64_t blocks = s1.data_blocks_read - s0.data_blocks_read; /* a scan reads each once */
  if (block_size <= 1024 && n > 100) assert_true(blocks > 10);
  if (t->num_data_index_levels == 1) assert_int_equal(blocks, t->data_index_count);
  assert_int_equal(all.n, n);
  char k[64], v[256];
  size_t vl;
  for (size_t i = 0; i < n; i++) {
    snprintf(k, sizeof k, "key-%08zu", i * 2);
    expected_value(i, v, &vl);
    assert_string_equal(all.keys[i], k);
    assert_int_equal(all.vlen[i], vl);
    assert_memory_equal(all.vals[i], v, vl);
  }
  tu_kvs_free(&all);

  /* Every key (even numbers) and every gap (odd numbers), one batch. */
  size_t m = 2 * n + 1;
  char (*store)[32] = calloc(m, 32);
  hudi_hfile_key *keys = calloc(m, sizeof *keys);
  for (size_t i = 0; i < m; i++) {
    snprintf(store[i], 32, "key-%08zu", i);
    keys[i] = (hudi_hfile_key){(const uint8_t *)store[i], strlen(store[i])};
  }
  tu_found fd;
  tu_found_init(&fd, m);
  hudi_hfile_reader_stats(r, &s0);
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, m, tu_on_found, &fd, &err), HUDI_OK);
  hudi_hfile_reader_stats(r, &s1);
  assert_int_equal(fd.hits, n);
  assert_true(s1.data_blocks_read - s0.data_blocks_read <= blocks);
  for (size_t i = 0; i < m; i++) {
    if (i % 2 == 0 && i / 2 < n) {
      expected_value(i / 2, v, &vl);
      assert_non_null(fd.vals[i]);
      assert_int_equal(fd.vlen[i], vl);
      assert_memory_equal(fd.vals[i], v, vl);
    } else {
      assert_null(fd.vals[i]);
    }
  }
  tu_found_free(&fd);
  free(keys);
  free(store);

  /* Prefix "key-000001" holds keys 100..198 (even). */
  tu_kvs pre = {0};
  assert_int_equal(hudi_hfile_reader_scan_prefix(r, (const uint8_t *)"key-000001", 10, tu_collect, &pre, &err),
                   HUDI_OK);
  size_t want = n <= 50 ? 0 : (n - 50 < 50 ? n - 50 : 50); /* even keys 100..198 */
  assert_int_equal(pre.n, want);
  tu_kvs_free(&pre);

  /* File info: ours and the writer's. */
  const uint8_t *fv;
  size_t fl;
  assert_true(hudi_hfile_reader_file_info(r, "schema", &fv, &fl));
  assert_int_equal(fl, 15);
  assert_true(hudi_hfile_reader_file_info(r, "hfile.LASTKEY", &fv, &fl));
  if (n) {
    snprintf(k, sizeof k, "key-%08zu", (n - 1) * 2);
    assert_int_equal(fl, 2 + strlen(k));
    assert_int_equal(hudi_be16(fv), strlen(k));
    assert_memory_equal(fv + 2, k, strlen(k));
  } else {
    assert_int_equal(fl, 0);
  }
  assert_true(hudi_hfile_reader_file_info(r, "KEY_VALUE_VERSION", &fv, &fl));
  assert_int_equal(fl, 4);
  assert_int_equal(hudi_be32(fv), 1);
  assert_true(hudi_hfile_reader_file_info(r, "MAX_MEMSTORE_TS_KEY", &fv, &fl));
  assert_int_equal(fl, 8);
  assert_int_equal(hudi_be64(fv), 0);
  assert_true(hudi_hfile_reader_file_info(r, "hfile.CREATE_TIME_TS", &fv, &fl));
  assert_int_equal(hudi_be64(fv), 1772922372542);
  assert_true(hudi_hfile_reader_file_info(r, "hfile.AVG_KEY_LEN", &fv, &fl));
  assert_int_equal(hudi_be32(fv), n ? 12 : 0);
  hudi_buf mb;
  hudi_buf_init(&mb, 1 << 20);
  bool found = false;
  assert_int_equal(hudi_hfile_reader_meta_block(r, "bloomFilter", &mb, &found, &err), HUDI_OK);
  assert_true(found);
  assert_int_equal(mb.len, 10);
  assert_memory_equal(mb.data, "bloom-bits", 10);
  hudi_buf_reset(&mb);
  assert_int_equal(hudi_hfile_reader_meta_block(r, "nope", &mb, &found, &err), HUDI_OK);
  assert_false(found);
  hudi_buf_free(&mb);
  hudi_hfile_reader_free(r);
  hudi_free(f);
}

static void test_round_trips(void **s) {
  (void)s;
  size_t sizes[] = {64, 1024, 16384, 1 << 20};
  for (size_t i = 0; i < 4; i++) {
    g_java_exact = true; /* zlib */
    round_trip(3000, sizes[i], HUDI_HFILE_GZ);
    g_java_exact = false; /* libdeflate */
    round_trip(3000, sizes[i], HUDI_HFILE_GZ);
    round_trip(3000, sizes[i], HUDI_HFILE_NONE);
  }
  round_trip(1, 1024, HUDI_HFILE_GZ);
  round_trip(0, 1024, HUDI_HFILE_GZ);
  round_trip(0, 1024, HUDI_HFILE_NONE);
}

/* A tiny last key-value in a block of more than 5 x 16 KiB would be
 * dropped by Java's reader (it is no longer than the 24 checksum bytes);
 * the writer moves it to the next block. */
static void test_java_short_last_kv(void **s) {
  (void)s;
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.compression = HUDI_HFILE_NONE;
  o.block_size = 1 << 20;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  static uint8_t big[1000];
  memset(big, 'x', sizeof big);
  char k[16];
  for (int i = 0; i < 90; i++) {
    snprintf(k, sizeof k, "a%03d", i);
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)k, 4, big, sizeof big, &err), HUDI_OK);
  }
  assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)"b", 1, (const uint8_t *)"", 0, &err), HUDI_OK);
  uint8_t *f;
  size_t len;
  assert_int_equal(hudi_hfile_writer_finish(w, &f, &len, &err), HUDI_OK);
  hudi_hfile_writer_free(w);
  hudi_hfile_reader *r = NULL;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, f, len, "short-last", &err), HUDI_OK);
  const hudi_hfile_trailer *t = hudi_hfile_reader_trailer(r);
  assert_int_equal(t->entry_count, 91);
  assert_int_equal(t->data_index_count, 2);
  assert_int_equal(java_visible_entries(f, len, t->load_on_open_offset, 0), 91);
  hudi_hfile_key key = {(const uint8_t *)"b", 1};
  tu_found fd;
  tu_found_init(&fd, 1);
  assert_int_equal(hudi_hfile_reader_lookup(r, &key, 1, tu_on_found, &fd, &err), HUDI_OK);
  assert_int_equal(fd.hits, 1);
  assert_int_equal(fd.vlen[0], 0);
  tu_found_free(&fd);
  hudi_hfile_reader_free(r);
  hudi_free(f);
}

/* With 1 MiB blocks and key-values of ~100 bytes, most blocks end in a
 * key-value Java would drop, so the writer searches for where to close
 * them (spec §3.9). Every block must read whole in the Java model, and be
 * as long as allowed: whenever the next block's first key-value was
 * already waiting (the accounted size left room for it), adding it must
 * give a mis-read block, judged by encoding that longer block directly. */
static void blocks_maximal(hudi_hfile_compression c, bool java_exact) {
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.compression = c;
  o.java_exact_bytes = java_exact;
  o.block_size = 1 << 20;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  uint64_t r = 88172645463325252ull;
  size_t n = 30000;
  for (size_t i = 0; i < n; i++) {
    char k[32];
    uint8_t v[200];
    snprintf(k, sizeof k, "key-%08zu", i);
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    size_t vl = 10 + r % 140;
    for (size_t j = 0; j < vl; j++) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      v[j] = j < vl / 4 ? (uint8_t)('a' + j % 7) : (uint8_t)r; /* mostly incompressible */
    }
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)k, strlen(k), v, vl, &err), HUDI_OK);
  }
  uint8_t *f;
  size_t len;
  assert_int_equal(hudi_hfile_writer_finish(w, &f, &len, &err), HUDI_OK);
  hudi_hfile_writer_free(w);
  hudi_hfile_reader *rd = NULL;
  assert_int_equal(hudi_hfile_reader_open_buffer(&rd, f, len, "maximal", &err), HUDI_OK);
  const hudi_hfile_trailer *t = hudi_hfile_reader_trailer(rd);
  assert_int_equal(t->entry_count, n);
  int gz = c == HUDI_HFILE_GZ;
  assert_int_equal(java_visible_entries(f, len, t->load_on_open_offset, gz), n);
  /* Walk the data blocks: payload of block b, first key-value of b + 1. */
  hudi_buf cur, next, enc;
  hudi_buf_init(&cur, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&next, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&enc, HUDI_BUF_DEFAULT_MAX);
  size_t off = 0, blocks = 0, cut = 0;
  hudi_hfile_block_header h;
  assert_int_equal(hudi_hfile_block_header_parse(&h, f, len, 0, "t", &err), HUDI_OK);
  assert_int_equal(hudi_hfile_block_decode(&h, f, gz, 0, "t", &cur, &err), HUDI_OK);
  for (;;) {
    off += 33 + h.on_disk_size_without_header;
    assert_int_equal(hudi_hfile_block_header_parse(&h, f + off, len - off, off, "t", &err), HUDI_OK);
    if (memcmp(h.magic, "DATABLK*", 8) != 0) break;
    blocks++;
    assert_int_equal(hudi_hfile_block_decode(&h, f + off, gz, off, "t", &next, &err), HUDI_OK);
    uint64_t acc = 0;
    for (size_t p = 0; p < cur.len;) {
      uint32_t kl = hudi_be32(cur.data + p), vl = hudi_be32(cur.data + p + 4);
      acc += kl - 12 + vl + 9;
      p += 8 + kl + vl + 1;
    }
    uint32_t kl = hudi_be32(next.data), vl = hudi_be32(next.data + 4);
    size_t first = 8 + (size_t)kl + vl + 1;
    if (acc + kl - 12 + vl + 9 <= o.block_size) {
      cut++;
      hudi_buf_reset(&enc);
      assert_int_equal(hudi_buf_append(&cur, next.data, first, &err), HUDI_OK);
      assert_int_equal(hudi_hfile_block_encode(&enc, HUDI_HFILE_MAGIC_DATA, cur.data, cur.len, gz, 0, &err), HUDI_OK);
      uint64_t stored = hudi_be32(enc.data + 29) - 33;
      uint64_t k = hudi_hfile_checksum_bytes(33 + stored, 16384);
      uint64_t java = hudi_hfile_checksum_bytes(33 + stored + k, 16384);
      assert_true(first <= java || (gz && java != k));
    }
    hudi_buf_reset(&cur);
    assert_int_equal(hudi_buf_append(&cur, next.data, next.len, &err), HUDI_OK);
  }
  assert_true(blocks >= 3);
  assert_true(cut >= 2); /* the search did run */
  hudi_buf_free(&cur);
  hudi_buf_free(&next);
  hudi_buf_free(&enc);
  hudi_hfile_reader_free(rd);
  hudi_free(f);
}

static void test_large_blocks_maximal(void **s) {
  (void)s;
  blocks_maximal(HUDI_HFILE_NONE, false);
  blocks_maximal(HUDI_HFILE_GZ, true);
  /* libdeflate blocks: the cut ones are zlib's, from the same search. */
  blocks_maximal(HUDI_HFILE_GZ, false);
}

/* ---- libdeflate data blocks ---------------------------------------------
 * Record-index-shaped key-values (36-byte keys, 60-byte values: a partition
 * path from a small set, then random bytes) written with libdeflate (the
 * default) and with zlib (java_exact_bytes) at 4 KiB, 64 KiB and 1 MiB
 * blocks. Each file: every key reads back through our reader (scan and one
 * batched lookup with absent keys between), every block reads whole in the
 * Java/hudi-rs model (§3.9), and every GZ data block is framed as
 * java.util.zip.GZIPOutputStream frames it (10-byte header, CRC32 and
 * ISIZE checked here with zlib's crc32) around a raw deflate stream that
 * zlib's own inflate decodes to exactly the payload. */

static void rli_key(size_t i, char k[37]) {
  uint64_t r = i * 0x9e3779b97f4a7c15ull + 1;
  r ^= r >> 29;
  snprintf(k, 37, "%08zx-%04x-4%03x-%017llx", i * 3, (unsigned)(r & 0xffff), (unsigned)((r >> 16) & 0xfff),
           (unsigned long long)(r * 0xbf58476d1ce4e5b9ull));
}

static void rli_value(size_t i, uint8_t v[60]) {
  static const char *parts[4] = {"region=us/date=2024-01-01", "region=eu/date=2024-01-01",
                                 "region=ap/date=2024-01-02", "region=sa/date=2024-01-02"};
  uint64_t r = i * 0x2545f4914f6cdd1dull + 7;
  memcpy(v, parts[r % 4], 25);
  for (size_t j = 25; j < 60; j++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    v[j] = (uint8_t)r;
  }
}

/* given (of given_cap bytes, may be NULL): handed to the writer with
 * hudi_hfile_writer_use_buffer before the key-value at index given_at. */
static uint8_t *write_rli_given(size_t n, size_t block_size, bool java_exact, size_t *len, uint8_t *given,
                                size_t given_cap, size_t given_at) {
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = block_size;
  o.java_exact_bytes = java_exact;
  o.create_time_ms = 1772922372542;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  for (size_t i = 0; i < n; i++) {
    if (given && i == given_at) hudi_hfile_writer_use_buffer(w, given, given_cap);
    char k[37];
    uint8_t v[60];
    rli_key(i, k);
    rli_value(i, v);
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)k, 36, v, 60, &err), HUDI_OK);
  }
  uint8_t *out = NULL;
  assert_int_equal(hudi_hfile_writer_finish(w, &out, len, &err), HUDI_OK);
  hudi_hfile_writer_free(w);
  return out;
}

static uint8_t *write_rli(size_t n, size_t block_size, bool java_exact, size_t *len) {
  return write_rli_given(n, block_size, java_exact, len, NULL, 0, 0);
}

/* Checks the gzip framing and zlib's decoding of every data block; returns
 * the number of data blocks. */
static size_t check_gzip_blocks(const uint8_t *f, size_t len, uint64_t load_on_open) {
  static const uint8_t java_header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0};
  size_t off = 0, blocks = 0;
  uint8_t *raw = malloc(HUDI_HFILE_MAX_BLOCK / 64);
  assert_non_null(raw);
  while (off < load_on_open) {
    hudi_hfile_block_header h;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_hfile_block_header_parse(&h, f + off, len - off, off, "t", &err), HUDI_OK);
    if (memcmp(h.magic, "DATABLK*", 8) == 0) {
      blocks++;
      const uint8_t *gz = f + off + 33;
      size_t gz_len = h.on_disk_data_size_with_header - 33;
      assert_true(gz_len >= 18);
      assert_memory_equal(gz, java_header, 10);
      assert_true(h.uncompressed_size_without_header <= HUDI_HFILE_MAX_BLOCK / 64);
      z_stream z;
      memset(&z, 0, sizeof z);
      assert_int_equal(inflateInit2(&z, -15), Z_OK);
      z.next_in = (Bytef *)(uintptr_t)(gz + 10);
      z.avail_in = (uInt)(gz_len - 18);
      z.next_out = raw;
      z.avail_out = (uInt)(HUDI_HFILE_MAX_BLOCK / 64);
      assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
      assert_int_equal(z.avail_in, 0); /* the stream ends where the trailer starts */
      assert_int_equal(z.total_out, h.uncompressed_size_without_header);
      inflateEnd(&z);
      uint32_t crc = (uint32_t)crc32(0L, raw, (uInt)h.uncompressed_size_without_header);
      const uint8_t *t = gz + gz_len - 8;
      assert_int_equal(tu_le32(t), crc);
      assert_int_equal(tu_le32(t + 4), h.uncompressed_size_without_header);
    }
    off += 33 + h.on_disk_size_without_header;
  }
  free(raw);
  return blocks;
}

static void check_rli_file(const uint8_t *f, size_t len, size_t n) {
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, f, len, "rli", &err), HUDI_OK);
  const hudi_hfile_trailer *t = hudi_hfile_reader_trailer(r);
  assert_int_equal(t->entry_count, n);
  assert_int_equal(t->compression_codec, HUDI_HFILE_GZ);
  assert_int_equal(java_visible_entries(f, len, t->load_on_open_offset, 1), n);
  assert_true(check_gzip_blocks(f, len, t->load_on_open_offset) >= 3);
  tu_kvs all = {0};
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  assert_int_equal(all.n, n);
  char k[37];
  uint8_t v[60];
  for (size_t i = 0; i < n; i++) {
    rli_key(i, k);
    rli_value(i, v);
    assert_int_equal(all.klen[i], 36);
    assert_memory_equal(all.keys[i], k, 36);
    assert_int_equal(all.vlen[i], 60);
    assert_memory_equal(all.vals[i], v, 60);
  }
  tu_kvs_free(&all);
  /* Every key, and after each an absent one (the key with a '~' appended
   * sorts after it and before the next). */
  size_t m = 2 * n;
  char (*store)[38] = calloc(m, 38);
  hudi_hfile_key *keys = calloc(m, sizeof *keys);
  assert_true(store && keys);
  for (size_t i = 0; i < n; i++) {
    rli_key(i, store[2 * i]);
    memcpy(store[2 * i + 1], store[2 * i], 36);
    store[2 * i + 1][36] = '~';
    keys[2 * i] = (hudi_hfile_key){(const uint8_t *)store[2 * i], 36};
    keys[2 * i + 1] = (hudi_hfile_key){(const uint8_t *)store[2 * i + 1], 37};
  }
  tu_found fd;
  tu_found_init(&fd, m);
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, m, tu_on_found, &fd, &err), HUDI_OK);
  assert_int_equal(fd.hits, n);
  for (size_t i = 0; i < n; i++) {
    rli_value(i, v);
    assert_non_null(fd.vals[2 * i]);
    assert_int_equal(fd.vlen[2 * i], 60);
    assert_memory_equal(fd.vals[2 * i], v, 60);
    assert_null(fd.vals[2 * i + 1]);
  }
  tu_found_free(&fd);
  free(keys);
  free(store);
  hudi_hfile_reader_free(r);
}

static void test_fast_deflate_blocks(void **s) {
  (void)s;
  const size_t n = 40000; /* ~4.6 MB of key-values: 5 blocks of 1 MiB */
  size_t sizes[] = {4096, 65536, 1 << 20};
  for (size_t i = 0; i < 3; i++) {
    size_t fast_len, zlib_len;
    uint8_t *fast = write_rli(n, sizes[i], false, &fast_len);
    uint8_t *zl = write_rli(n, sizes[i], true, &zlib_len);
    check_rli_file(fast, fast_len, n);
    check_rli_file(zl, zlib_len, n);
    /* Another deflate stream, not zlib's (the libdeflate path ran), of
     * about zlib's size. (At 1 MiB every block here must be closed early,
     * so all of them are zlib's.) */
    if (sizes[i] < (1 << 20)) assert_true(fast_len != zlib_len || memcmp(fast, zl, fast_len) != 0);
    assert_true(fast_len < zlib_len + zlib_len / 20 && zlib_len < fast_len + fast_len / 20);
    hudi_free(fast);
    hudi_free(zl);
  }
}

/* A value given in two pieces (append2) makes the same file as the joined
 * value; last_key follows the appends. */
static void test_append_two_pieces(void **s) {
  (void)s;
  uint8_t *files[2];
  size_t lens[2];
  for (int split = 0; split < 2; split++) {
    hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
    o.block_size = 4096;
    o.create_time_ms = 1772922372542;
    hudi_hfile_writer *w = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
    size_t kl;
    assert_null(hudi_hfile_writer_last_key(w, &kl));
    assert_int_equal(kl, 0);
    for (size_t i = 0; i < 5000; i++) {
      char k[37];
      uint8_t v[60];
      rli_key(i, k);
      rli_value(i, v);
      size_t cut = i % 61; /* 0 and 60: one piece empty */
      if (split)
        assert_int_equal(hudi_hfile_writer_append2(w, (const uint8_t *)k, 36, v, cut, v + cut, 60 - cut, &err),
                         HUDI_OK);
      else
        assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)k, 36, v, 60, &err), HUDI_OK);
      const uint8_t *last = hudi_hfile_writer_last_key(w, &kl);
      assert_int_equal(kl, 36);
      assert_memory_equal(last, k, 36);
    }
    assert_int_equal(hudi_hfile_writer_finish(w, &files[split], &lens[split], &err), HUDI_OK);
    hudi_hfile_writer_free(w);
  }
  assert_int_equal(lens[0], lens[1]);
  assert_memory_equal(files[0], files[1], lens[0]);
  check_rli_file(files[1], lens[1], 5000);
  hudi_free(files[0]);
  hudi_free(files[1]);
}

static void test_writer_rejects(void **s) {
  (void)s;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)"b", 1, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)"a", 1, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  static uint8_t huge[40000];
  memset(huge, 'z', sizeof huge);
  assert_int_equal(hudi_hfile_writer_append(w, huge, sizeof huge, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_hfile_writer_free(w);
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.compression = (hudi_hfile_compression)7;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_ERR_INVALID_ARG);
  o.compression = HUDI_HFILE_GZ;
  o.deflate_level = 13;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_ERR_INVALID_ARG);
  o.deflate_level = -1;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_ERR_INVALID_ARG);
}

/* ---- byte-exact re-encoding of Hudi 1.1.1's own HFiles ------------------ */

static const char *generated[] = {"hfile.LASTKEY",        "hfile.AVG_KEY_LEN", "hfile.AVG_VALUE_LEN",
                                  "hfile.CREATE_TIME_TS", "KEY_VALUE_VERSION", "MAX_MEMSTORE_TS_KEY"};

typedef struct exact_stats {
  int files, identical;
} exact_stats;

static void reencode(void *ctx, const char *name, const uint8_t *data, size_t len) {
  exact_stats *es = ctx;
  /* Only files from Hudi's Java writer (version bytes 00 00 00 03). */
  if (len < 4096 || memcmp(data + len - 4, "\0\0\0\3", 4) != 0) return;
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, data, len, name, &err), HUDI_OK);
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT; /* 1 MiB, GZ */
  o.java_exact_bytes = true; /* zlib level 6, as Java's Deflater */
  const uint8_t *v;
  size_t vl;
  assert_true(hudi_hfile_reader_file_info(r, "hfile.CREATE_TIME_TS", &v, &vl));
  o.create_time_ms = (int64_t)hudi_be64(v);
  hudi_hfile_writer *w = NULL;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  tu_kvs all = {0};
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  for (size_t i = 0; i < all.n; i++)
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)all.keys[i], all.klen[i],
                                              (const uint8_t *)all.vals[i], all.vlen[i], &err),
                     HUDI_OK);
  for (size_t i = 0; i < hudi_hfile_reader_file_info_count(r); i++) {
    const uint8_t *k;
    size_t kl;
    hudi_hfile_reader_file_info_at(r, i, &k, &kl, &v, &vl);
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)kl, (const char *)k);
    int gen = 0;
    for (size_t g = 0; g < 6; g++) gen |= strcmp(nm, generated[g]) == 0;
    if (!gen) assert_int_equal(hudi_hfile_writer_add_file_info(w, nm, v, vl, &err), HUDI_OK);
  }
  hudi_buf mb;
  hudi_buf_init(&mb, HUDI_BUF_DEFAULT_MAX);
  for (size_t i = 0; i < hudi_hfile_reader_meta_count(r); i++) {
    bool found;
    hudi_buf_reset(&mb);
    assert_int_equal(hudi_hfile_reader_meta_block(r, hudi_hfile_reader_meta_name(r, i), &mb, &found, &err), HUDI_OK);
    assert_int_equal(
        hudi_hfile_writer_add_meta_block(w, hudi_hfile_reader_meta_name(r, i), mb.data, mb.len, &err), HUDI_OK);
  }
  hudi_buf_free(&mb);
  uint8_t *out;
  size_t out_len;
  assert_int_equal(hudi_hfile_writer_finish(w, &out, &out_len, &err), HUDI_OK);
  size_t diff = 0;
  while (diff < len && diff < out_len && out[diff] == data[diff]) diff++;
  es->files++;
  if (diff == len && out_len == len)
    es->identical++;
  else
    print_message("%s: %zu vs %zu bytes, first difference at byte %zu\n", name, out_len, len, diff);
  hudi_free(out);
  hudi_hfile_writer_free(w);
  tu_kvs_free(&all);
  hudi_hfile_reader_free(r);
}

static void check_exact(const char *zip) {
  size_t len = 0;
  uint8_t *z = tu_read_file(zip, &len);
  assert_non_null(z);
  exact_stats es = {0, 0};
  assert_true(tu_zip_each(z, len, "/.hoodie/metadata/", ".hfile", reencode, &es) > 0);
  print_message("%s: %d of %d Hudi-written HFiles re-encoded byte for byte\n", zip, es.identical, es.files);
  assert_true(es.files >= 12);
  assert_int_equal(es.identical, es.files);
  free(z);
}

/* MDT log files: "#HUDI#", i64 length, i32 version, i32 block type,
 * header (i32 n, n x (i32 key, i32 len, bytes)), i64 content length,
 * content, footer. HFILE blocks (type 4) hold a whole HFile. */
static void reencode_log_blocks(void *ctx, const char *name, const uint8_t *data, size_t len) {
  if (!strstr(name, "/.hoodie/metadata/") || !strstr(name, ".log.")) return;
  size_t p = 0;
  while (p + 6 + 8 <= len && memcmp(data + p, "#HUDI#", 6) == 0) {
    uint64_t blen = hudi_be64(data + p + 6);
    size_t start = p + 14, q = start + 4;
    assert_true(blen <= len - start);
    uint32_t type = hudi_be32(data + q);
    q += 4;
    uint32_t nh = hudi_be32(data + q);
    q += 4;
    for (uint32_t i = 0; i < nh; i++) q += 8 + hudi_be32(data + q + 4);
    uint64_t clen = hudi_be64(data + q);
    q += 8;
    assert_true(clen <= len - q);
    if (type == 4) reencode(ctx, name, data + q, (size_t)clen);
    p = start + (size_t)blen;
  }
}

static void test_exact_log_blocks(void **s) {
  (void)s;
  size_t len = 0;
  const char *zip = TABLE_DIR "sample_table/mor/avro/v9_txns_simple_meta.zip";
  uint8_t *z = tu_read_file(zip, &len);
  assert_non_null(z);
  exact_stats es = {0, 0};
  assert_true(tu_zip_each(z, len, "/.hoodie/metadata/", "", reencode_log_blocks, &es) > 0);
  print_message("%s: %d of %d HFiles in MDT log blocks re-encoded byte for byte\n", zip, es.identical, es.files);
  assert_true(es.files >= 70);
  assert_int_equal(es.identical, es.files);
  free(z);
}

static void test_exact_v9(void **s) {
  (void)s;
  check_exact(TABLE_DIR "sample_table/mor/avro/v9_txns_simple_meta.zip");
  check_exact(TABLE_DIR "sample_table/cow/v9_txns_nonpart_meta.zip");
}

/* ---- corrupt and truncated input ---------------------------------------- */

static int ignore_kv(void *c, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl) { return 0; }
static int ignore_found(void *c, size_t i, const uint8_t *v, size_t vl) { return 0; }

/* Opens, scans, looks up and reads the meta block; returns the first error. */
static hudi_status exercise(const uint8_t *f, size_t len, hudi_error *err) {
  hudi_hfile_reader *r = NULL;
  hudi_status st = hudi_hfile_reader_open_buffer(&r, f, len, "mutant", err);
  if (st != HUDI_OK) return st;
  st = hudi_hfile_reader_scan(r, ignore_kv, NULL, err);
  hudi_hfile_key k = {(const uint8_t *)"key-00000100", 12};
  if (st == HUDI_OK) st = hudi_hfile_reader_lookup(r, &k, 1, ignore_found, NULL, err);
  hudi_buf mb;
  hudi_buf_init(&mb, 1 << 20);
  bool found;
  if (st == HUDI_OK) st = hudi_hfile_reader_meta_block(r, "bloomFilter", &mb, &found, err);
  hudi_buf_free(&mb);
  hudi_hfile_reader_free(r);
  return st;
}

static void test_corrupt(void **s) {
  (void)s;
  size_t len;
  uint8_t *f = write_file(200, 1024, HUDI_HFILE_GZ, &len);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(exercise(f, len, &err), HUDI_OK);
  /* Every truncation fails cleanly. */
  for (size_t n = 0; n < len; n += (n < 64 || len - n < 4200) ? 1 : 97) {
    uint8_t *t = malloc(n ? n : 1);
    memcpy(t, f, n);
    assert_int_not_equal(exercise(t, n, &err), HUDI_OK);
    free(t);
  }
  /* Every single-byte change either reads or fails; never crashes. */
  uint8_t *m = malloc(len);
  for (size_t i = 0; i < len; i += (len - i < 4200) ? 1 : 3) {
    memcpy(m, f, len);
    m[i] ^= 0x5a;
    (void)exercise(m, len, &err);
  }
  /* Specific damage gives specific errors naming the offset. */
  memcpy(m, f, len);
  memcpy(m, "XXXXXXXX", 8); /* first data block magic */
  assert_int_equal(exercise(m, len, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "byte offset 0"));
  memcpy(m, f, len);
  m[len - 1] = 2; /* version 2 */
  assert_int_equal(exercise(m, len, &err), HUDI_ERR_UNSUPPORTED);
  memcpy(m, f, len);
  hudi_put_be32(m + 8, 0x7fffff00); /* first block claims a huge on-disk size */
  assert_int_equal(exercise(m, len, &err), HUDI_ERR_CORRUPT);
  free(m);
  hudi_free(f);
}

/* A file written into a buffer given to the writer (a used one, full of
 * other bytes; smaller than the file, so it grows; or larger) has the bytes
 * of one written into the writer's own; a buffer given after the first
 * key-value is freed and changes nothing (ASan: no leak). */
static void test_use_buffer(void **s) {
  (void)s;
  const size_t n = 40000;
  size_t want_len, got_len;
  uint8_t *want = write_rli(n, 4096, false, &want_len);
  size_t caps[] = {(size_t)1 << 16, want_len + want_len / 2};
  for (size_t i = 0; i < 2; i++) {
    uint8_t *given = hudi_malloc(caps[i]);
    assert_non_null(given);
    memset(given, 0xab, caps[i]);
    uint8_t *got = write_rli_given(n, 4096, false, &got_len, given, caps[i], 0);
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got, want, want_len);
    hudi_free(got);
  }
  uint8_t *late = hudi_malloc((size_t)1 << 16);
  assert_non_null(late);
  uint8_t *got = write_rli_given(n, 4096, false, &got_len, late, (size_t)1 << 16, 1);
  assert_int_equal(got_len, want_len);
  assert_memory_equal(got, want, want_len);
  hudi_free(got);
  hudi_free(want);
}

/* hudi_hfile_reader_scan_blocks + hudi_hfile_writer_copy_block: a file
 * rewritten from another, every third data block copied whole and the rest
 * re-appended key by key (with an extra key between two blocks), reads
 * back as the source plus that key: the same key-values in order, the
 * entry count, hfile.LASTKEY (the source's, the last block being copied).
 * With compress_threads 2 the pipeline is flushed before each copy. */
typedef struct copy_ctx {
  hudi_hfile_writer *w;
  size_t block, copied, extra_at;
  bool extra_done;
} copy_ctx;

static bool take_third(void *c, const uint8_t *first, size_t fl, const uint8_t *next, size_t nl) {
  copy_ctx *x = c;
  (void)first, (void)fl, (void)next, (void)nl;
  return x->block++ % 3 == 0 || next == NULL;
}

static hudi_status copy_whole(void *c, const uint8_t *block, size_t len, const uint8_t *first, size_t fl,
                              const uint8_t *last, size_t ll, hudi_error *err) {
  copy_ctx *x = c;
  x->copied++;
  return hudi_hfile_writer_copy_block(x->w, block, len, first, fl, last, ll, err);
}

static int append_kv(void *c, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl) {
  copy_ctx *x = c;
  hudi_error err = HUDI_ERROR_INIT;
  if (!x->extra_done && kl == 12 && memcmp(k, "key-00000100", 12) == 0) {
    /* "key-00000099x" sorts between key-00000098 and key-00000100 */
    assert_int_equal(hudi_hfile_writer_append(x->w, (const uint8_t *)"key-00000099x", 13, (const uint8_t *)"x", 1, &err),
                     HUDI_OK);
    x->extra_done = true;
  }
  assert_int_equal(hudi_hfile_writer_append(x->w, k, kl, v, vl, &err), HUDI_OK);
  return 0;
}

typedef struct collect_kv {
  size_t n;
  char last[64];
} collect_kv;

static int count_kv(void *c, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl) {
  collect_kv *x = c;
  (void)v, (void)vl;
  if (kl == 13) return 0; /* the extra key */
  char want[64];
  snprintf(want, sizeof want, "key-%08zu", x->n * 2);
  if (kl != strlen(want) || memcmp(k, want, kl) != 0) fail_msg("key %zu is %.*s, want %s", x->n, (int)kl, k, want);
  x->n++;
  return 0;
}

static void test_copy_blocks(void **s) {
  (void)s;
  const size_t n = 3000;
  size_t src_len;
  uint8_t *src = write_file(n, 512, HUDI_HFILE_GZ, &src_len);
  for (int threads = 1; threads <= 2; threads++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_hfile_reader *r;
    assert_int_equal(hudi_hfile_reader_open_buffer(&r, src, src_len, "src", &err), HUDI_OK);
    hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
    o.block_size = 512;
    o.compress_threads = threads;
    copy_ctx x = {0};
    assert_int_equal(hudi_hfile_writer_create(&x.w, &o, &err), HUDI_OK);
    hudi_hfile_block_visitor v = {take_third, copy_whole, append_kv};
    uint64_t decoded = 0;
    assert_int_equal(hudi_hfile_reader_scan_blocks(r, &v, &x, &decoded, &err), HUDI_OK);
    assert_true(x.copied > 10 && x.extra_done);
    assert_true(decoded < n);
    hudi_hfile_writer_add_copied(x.w, n - decoded, 0, 0);
    uint8_t *out = NULL;
    size_t out_len = 0;
    assert_int_equal(hudi_hfile_writer_finish(x.w, &out, &out_len, &err), HUDI_OK);
    hudi_hfile_writer_free(x.w);
    hudi_hfile_reader *back;
    assert_int_equal(hudi_hfile_reader_open_buffer(&back, out, out_len, "copy", &err), HUDI_OK);
    assert_int_equal(hudi_hfile_reader_entry_count(back), n + 1);
    collect_kv c = {0};
    assert_int_equal(hudi_hfile_reader_scan(back, count_kv, &c, &err), HUDI_OK);
    assert_int_equal(c.n, n);
    size_t la, lb;
    const uint8_t *ka = hudi_hfile_reader_last_key(r, &la), *kb = hudi_hfile_reader_last_key(back, &lb);
    assert_non_null(ka);
    assert_int_equal(la, lb);
    assert_memory_equal(ka, kb, la);
    hudi_hfile_reader_free(back);
    hudi_free(out);
    hudi_hfile_reader_free(r);
  }
  hudi_free(src);
}

/* What copy_block refuses: a writer without GZ, bytes that are not one
 * whole data block, keys out of order; and a file whose last block was
 * copied without its last key. */
static int stop_kv(void *c, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl) {
  (void)c, (void)k, (void)kl, (void)v, (void)vl;
  return 1;
}

typedef struct first_block {
  uint8_t bytes[4096];
  size_t len;
  char first[64];
  size_t first_len;
} first_block;

static bool take_first(void *c, const uint8_t *first, size_t fl, const uint8_t *next, size_t nl) {
  first_block *b = c;
  (void)next, (void)nl;
  if (b->len) return false;
  memcpy(b->first, first, fl);
  b->first_len = fl;
  return true;
}

static hudi_status keep_first(void *c, const uint8_t *block, size_t len, const uint8_t *first, size_t fl,
                              const uint8_t *last, size_t ll, hudi_error *err) {
  first_block *b = c;
  (void)first, (void)fl, (void)last, (void)ll, (void)err;
  assert_true(len <= sizeof b->bytes);
  memcpy(b->bytes, block, len);
  b->len = len;
  return HUDI_OK;
}

static void test_copy_block_rejects(void **s) {
  (void)s;
  size_t src_len;
  uint8_t *src = write_file(400, 512, HUDI_HFILE_GZ, &src_len);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_hfile_reader *r;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, src, src_len, "src", &err), HUDI_OK);
  first_block b = {0};
  hudi_hfile_block_visitor v = {take_first, keep_first, stop_kv};
  assert_int_equal(hudi_hfile_reader_scan_blocks(r, &v, &b, NULL, &err), HUDI_OK);
  assert_true(b.len > 33);
  const uint8_t *k = (const uint8_t *)b.first;
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.compression = HUDI_HFILE_NONE;
  hudi_hfile_writer *w;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_copy_block(w, b.bytes, b.len, k, b.first_len, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "GZ"));
  hudi_hfile_writer_free(w);
  o.compression = HUDI_HFILE_GZ;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  /* One byte short: the header's sizes do not fit (HUDI_ERR_CORRUPT). */
  assert_int_not_equal(hudi_hfile_writer_copy_block(w, b.bytes, b.len - 1, k, b.first_len, NULL, 0, &err), HUDI_OK);
  assert_non_null(strstr(err.message, "copied data block"));
  assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)"zzz", 3, (const uint8_t *)"v", 1, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_copy_block(w, b.bytes, b.len, k, b.first_len, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "ascending"));
  hudi_hfile_writer_free(w);
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_copy_block(w, b.bytes, b.len, k, b.first_len, NULL, 0, &err), HUDI_OK);
  uint8_t *out = NULL;
  size_t out_len;
  assert_int_equal(hudi_hfile_writer_finish(w, &out, &out_len, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "last key"));
  hudi_hfile_writer_free(w);
  /* A block with real checksums (type 2, CRC32C, as HBase writes) is not
   * copied: the copy's new prevBlockOffset would not match them. */
  uint8_t crc_block[sizeof b.bytes];
  memcpy(crc_block, b.bytes, b.len);
  crc_block[24] = 2;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_copy_block(w, crc_block, b.len, k, b.first_len, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "checksum type"));
  hudi_hfile_writer_free(w);
  /* ... and the reader does not offer it: the scan decodes it instead
   * (stop_kv ends the scan at its first key-value, nothing was taken). */
  size_t at = 0;
  while (at + b.len <= src_len && memcmp(src + at, b.bytes, 33) != 0) at++;
  assert_true(at + b.len <= src_len);
  uint8_t *src2 = hudi_malloc(src_len);
  memcpy(src2, src, src_len);
  src2[at + 24] = 2;
  hudi_hfile_reader *r2;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r2, src2, src_len, "src2", &err), HUDI_OK);
  first_block b2 = {0};
  uint64_t decoded = 0;
  assert_int_equal(hudi_hfile_reader_scan_blocks(r2, &v, &b2, &decoded, &err), HUDI_OK);
  assert_int_equal(b2.len, 0);
  assert_int_equal(decoded, 1);
  hudi_hfile_reader_free(r2);
  hudi_free(src2);
  hudi_hfile_reader_free(r);
  hudi_free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_use_buffer),
      cmocka_unit_test(test_round_trips), cmocka_unit_test(test_java_short_last_kv),
      cmocka_unit_test(test_large_blocks_maximal), cmocka_unit_test(test_fast_deflate_blocks),
      cmocka_unit_test(test_writer_rejects), cmocka_unit_test(test_append_two_pieces), cmocka_unit_test(test_exact_v9), cmocka_unit_test(test_exact_log_blocks),
      cmocka_unit_test(test_corrupt), cmocka_unit_test(test_copy_blocks), cmocka_unit_test(test_copy_block_rejects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

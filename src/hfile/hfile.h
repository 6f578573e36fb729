/* HFile v3: the file format of Hudi's metadata-table base files and of
 * HFILE_DATA log blocks. A reader (over a range-read callback, so only the
 * blocks a lookup needs are fetched) and a writer that produces the bytes
 * Hudi's own Java HFileWriterImpl writes. Keys are compared as unsigned
 * bytes of the row key ("content"), as Hudi does.
 * Format notes: ../shared/spec/hudi-metadata-table.md §3. */
#ifndef HUDI_HFILE_HFILE_H
#define HUDI_HFILE_HFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

/* ---- reader ---------------------------------------------------------- */

/* Reads exactly len bytes at off into dst; returns 0 on success, non-zero
 * on failure (the reader then fails with HUDI_ERR_IO). */
typedef int (*hudi_hfile_read_fn)(void *ctx, uint64_t off, size_t len, uint8_t *dst);

typedef struct hudi_hfile_source {
  hudi_hfile_read_fn read_range;
  void *ctx;
  uint64_t size;    /* file size in bytes */
  const char *name; /* used in error messages; may be NULL; copied */
} hudi_hfile_source;

typedef struct hudi_hfile_trailer {
  uint32_t major_version, minor_version;
  uint64_t file_info_offset;
  uint64_t load_on_open_offset;
  uint64_t uncompressed_data_index_size;
  uint64_t total_uncompressed_bytes;
  uint32_t data_index_count; /* entries in the root data index */
  uint32_t meta_index_count;
  uint64_t entry_count;
  uint32_t num_data_index_levels;
  int64_t first_data_block_offset; /* -1 when absent */
  int64_t last_data_block_offset;
  char comparator[256];
  uint32_t compression_codec; /* 1 GZ, 2 NONE */
} hudi_hfile_trailer;

/* Counters of what the reader fetched through read_range, cumulative since
 * open (the trailer and load-on-open section included). */
typedef struct hudi_hfile_stats {
  uint64_t reads;            /* read_range calls */
  uint64_t bytes_read;       /* bytes they returned */
  uint64_t data_blocks_read; /* data blocks fetched and decoded */
  uint64_t index_blocks_read; /* intermediate/leaf index blocks fetched */
} hudi_hfile_stats;

typedef struct hudi_hfile_reader hudi_hfile_reader;

/* Opens an HFile: reads the trailer and the load-on-open section (root
 * data index, meta index, file info). src->ctx must outlive the reader.
 * *out is owned by the caller (hudi_hfile_reader_free). */
HUDI_NODISCARD hudi_status hudi_hfile_reader_open(hudi_hfile_reader **out, const hudi_hfile_source *src,
                                                  hudi_error *err);
/* The same over bytes in memory; data is borrowed and must outlive the reader. */
HUDI_NODISCARD hudi_status hudi_hfile_reader_open_buffer(hudi_hfile_reader **out, const uint8_t *data,
                                                         size_t len, const char *name, hudi_error *err);
void hudi_hfile_reader_free(hudi_hfile_reader *r);

const hudi_hfile_trailer *hudi_hfile_reader_trailer(const hudi_hfile_reader *r);
uint64_t hudi_hfile_reader_entry_count(const hudi_hfile_reader *r);
void hudi_hfile_reader_stats(const hudi_hfile_reader *r, hudi_hfile_stats *out);

/* How a lookup reads the blocks it needs. Each level of the index (and the
 * data blocks) is planned before it is read: a run of needed blocks in
 * file order where at most `gap` bytes lie between one and the next is
 * fetched with one read_range of at most `max` bytes and at most 64 times
 * the bytes its blocks are expected to bring (an index block counts one
 * block of its size per key below it): the bytes between are read and
 * dropped, the blocks decoded from memory; a lone block is read alone.
 * Leaf blocks go run by run, each run's data blocks looked up while its
 * read is held, so no byte is fetched twice.
 * The default, gap 0 and max HUDI_HFILE_COALESCE_MAX_DEFAULT, merges only
 * adjacent blocks: the same bytes as one read per block, in fewer reads.
 * For an object store, where a request costs a round trip whatever its
 * size, a gap of about what the link moves in one round trip (~1 MiB)
 * trades extra bytes (bounded by the gap per needed block and by the 64x
 * density) for far fewer requests. max 0 turns merging off (open_buffer's default:
 * a copy per block costs what a merged copy does). */
#define HUDI_HFILE_COALESCE_MAX_DEFAULT ((uint64_t)1 << 20)
void hudi_hfile_reader_set_coalesce(hudi_hfile_reader *r, uint64_t gap, uint64_t max);

/* File info, in file order. Pointers stay valid until the reader is freed. */
size_t hudi_hfile_reader_file_info_count(const hudi_hfile_reader *r);
void hudi_hfile_reader_file_info_at(const hudi_hfile_reader *r, size_t i, const uint8_t **key, size_t *key_len,
                                    const uint8_t **value, size_t *value_len);
/* Looks a file info entry up by name; false when absent. */
bool hudi_hfile_reader_file_info(const hudi_hfile_reader *r, const char *name, const uint8_t **value,
                                 size_t *value_len);

/* Meta block names, in meta index order. */
size_t hudi_hfile_reader_meta_count(const hudi_hfile_reader *r);
const char *hudi_hfile_reader_meta_name(const hudi_hfile_reader *r, size_t i);
/* Appends the (decompressed) content of meta block `name` to out; sets
 * *found to false (and appends nothing) when there is no such block. */
HUDI_NODISCARD hudi_status hudi_hfile_reader_meta_block(hudi_hfile_reader *r, const char *name, hudi_buf *out,
                                                        bool *found, hudi_error *err);

/* Called once per key found. value points into the reader's block buffer
 * and is valid only during the call. Return non-zero to stop early. */
typedef int (*hudi_hfile_found_fn)(void *ctx, size_t key_index, const uint8_t *value, size_t value_len);

typedef struct hudi_hfile_key {
  const uint8_t *data;
  size_t len;
} hudi_hfile_key;

/* Point lookup of a batch of keys sorted ascending (unsigned bytes;
 * repeats allowed). Merge-joins them against the index, level by level
 * from the root: each index block (leaf, intermediate) and data block some
 * key falls in is read once, the others are not read, so k keys cost about
 * k data blocks plus the index blocks above them, not the file (reads of
 * nearby blocks merged as hudi_hfile_reader_set_coalesce says). For a key
 * stored several times the first occurrence is reported. Unsorted input
 * fails with HUDI_ERR_INVALID_ARG. */
HUDI_NODISCARD hudi_status hudi_hfile_reader_lookup(hudi_hfile_reader *r, const hudi_hfile_key *keys,
                                                    size_t n_keys, hudi_hfile_found_fn found, void *ctx,
                                                    hudi_error *err);

/* Called for each key-value of a scan, in file order; key is the row key
 * content. Return non-zero to stop. */
typedef int (*hudi_hfile_kv_fn)(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                                size_t value_len);

/* Every key-value whose key starts with prefix (prefix_len 0: all of them). */
HUDI_NODISCARD hudi_status hudi_hfile_reader_scan_prefix(hudi_hfile_reader *r, const uint8_t *prefix,
                                                         size_t prefix_len, hudi_hfile_kv_fn fn, void *ctx,
                                                         hudi_error *err);
HUDI_NODISCARD hudi_status hudi_hfile_reader_scan(hudi_hfile_reader *r, hudi_hfile_kv_fn fn, void *ctx,
                                                  hudi_error *err);

/* A scan that may take data blocks whole (hudi_hfile_reader_scan_blocks). */
typedef struct hudi_hfile_block_visitor {
  /* Whether the data block whose keys run from first up to, not
   * including, next (next NULL: the file's last block) is handed to whole
   * instead of its key-values to kv. */
  bool (*take_whole)(void *ctx, const uint8_t *first, size_t first_len, const uint8_t *next, size_t next_len);
  /* The block's on-disk bytes (header included), valid during the call;
   * last is the block's last row key for the file's last block (from
   * hfile.LASTKEY), else NULL. */
  hudi_status (*whole)(void *ctx, const uint8_t *block, size_t len, const uint8_t *first, size_t first_len,
                       const uint8_t *last, size_t last_len, hudi_error *err);
  hudi_hfile_kv_fn kv; /* non-zero stops the scan */
} hudi_hfile_block_visitor;

/* Every key-value in order, as hudi_hfile_reader_scan, but offering each
 * data block whole first when the file's cells can be copied as they are
 * (GZ blocks without tags: what Hudi's writers and ours write); other
 * files go to kv only. *decoded (nullable) counts the key-values given
 * to kv: the entry count minus it is what the whole blocks hold. */
HUDI_NODISCARD hudi_status hudi_hfile_reader_scan_blocks(hudi_hfile_reader *r, const hudi_hfile_block_visitor *v,
                                                         void *ctx, uint64_t *decoded, hudi_error *err);

/* The row key of hfile.LASTKEY (NULL when the file has none). */
const uint8_t *hudi_hfile_reader_last_key(const hudi_hfile_reader *r, size_t *len);

/* ---- writer ---------------------------------------------------------- */

typedef enum hudi_hfile_compression {
  HUDI_HFILE_GZ = 1,
  HUDI_HFILE_NONE = 2
} hudi_hfile_compression;

typedef struct hudi_hfile_writer_options {
  size_t block_size;                   /* uncompressed data block target, bytes */
  hudi_hfile_compression compression;
  int64_t create_time_ms;              /* hfile.CREATE_TIME_TS; -1 = now */
  /* Largest index block (HBase hfile.index.block.max.size): a root index
   * bigger than this becomes leaf (and intermediate) index blocks, so a
   * lookup reads the index blocks its keys need rather than the whole
   * index. 0 = block_size. Files small enough for one index block are
   * single-level, byte for byte what Hudi's own writer produces. */
  size_t index_block_size;
  /* GZ data blocks are deflated by libdeflate at deflate_level (several
   * times zlib's speed; any deflate stream reads the same everywhere: the
   * gzip framing is Java's). true: zlib at level 6 for every block, the
   * bytes Hudi's Java writer produces (what the fixture re-encoding tests
   * compare). Index, meta and file-info blocks always use zlib. */
  bool java_exact_bytes;
  /* libdeflate level 1..12; 0 = HUDI_HFILE_DEFAULT_DEFLATE_LEVEL. */
  int deflate_level;
  /* GZ data blocks of key-values that repeat their neighbours (sorted keys
   * sharing prefixes, few distinct values: the record index, secondary
   * indexes) deflated from their cell layout instead of by libdeflate:
   * ~2x as fast, a little smaller there, much larger elsewhere (column
   * statistics). Ignored with java_exact_bytes. See cell_deflate.h.
   * The blocks of a file share one set of Huffman codes, sampled from its
   * first key-values (writer.c, "shared codes"): ~16% less CPU for a
   * record-index file, ~1.7% more bytes. */
  bool cell_deflate;
  /* Threads that encode (deflate) data blocks while the caller appends:
   * 1 = only the calling thread; n = 2..9 = the caller plus n-1 workers
   * from the first block on; 0 = auto: one worker once the file reaches
   * HUDI_HFILE_PIPE_AUTO_BLOCKS data blocks, when blocks are GZ and at most
   * HUDI_HFILE_PIPE_AUTO_MAX_BLOCK bytes and the machine has 2+ cores.
   * The file's bytes never depend on it: blocks are cut on the caller's
   * thread by the same rules, and a block that spec §3.9 closes early makes
   * the writer re-cut the blocks queued after it. About 1 MiB of
   * key-values is in flight (at least 4 blocks per thread, at most 256
   * blocks); when the queue is full the calling thread encodes blocks too,
   * and idle workers pre-fault the file buffer ahead of the writer. */
  int compress_threads;
  /* With cell_deflate: every block builds its own Huffman codes (the
   * writer before shared codes; tests and benchmarks compare the two). */
  bool own_codes;
} hudi_hfile_writer_options;

/* compress_threads = 0 thresholds: below this many data blocks a file is
 * written on the calling thread alone (a thread start costs about what
 * deflating a few 4 KiB blocks does, and small files are many); blocks
 * larger than this are mostly closed early by spec §3.9 at record-index
 * shapes, which the pipeline can only redo on the calling thread. */
#define HUDI_HFILE_PIPE_AUTO_BLOCKS 64
#define HUDI_HFILE_PIPE_AUTO_MAX_BLOCK ((size_t)256 << 10)

/* libdeflate's level for GZ data blocks. Chosen by bench/hfile_bench.c on
 * record-index-shaped key-values (1M; docs/benchmarks.md): level 1 writes
 * 3.1x as fast as zlib-6 (1.3M vs 0.42M key-values per CPU second) with
 * files within 1% of zlib-6's size (4 KiB blocks 1% smaller, 64 KiB 0.7%
 * larger); level 6 is 1.9x zlib's speed for about the same size. */
#define HUDI_HFILE_DEFAULT_DEFLATE_LEVEL 1

/* Hudi's metadata-table defaults: 1 MiB GZ blocks. */
#define HUDI_HFILE_WRITER_OPTIONS_INIT {1024 * 1024, HUDI_HFILE_GZ, -1, 0, false, 0, false, 0, false}

typedef struct hudi_hfile_writer hudi_hfile_writer;

/* *out is owned by the caller (hudi_hfile_writer_free). */
HUDI_NODISCARD hudi_status hudi_hfile_writer_create(hudi_hfile_writer **out, const hudi_hfile_writer_options *opts,
                                                    hudi_error *err);
void hudi_hfile_writer_free(hudi_hfile_writer *w);

/* Appends a key-value. Keys must be non-decreasing (unsigned bytes; Hudi
 * itself never repeats a key), at most 32767 bytes. */
HUDI_NODISCARD hudi_status hudi_hfile_writer_append(hudi_hfile_writer *w, const uint8_t *key, size_t key_len,
                                                    const uint8_t *value, size_t value_len, hudi_error *err);
/* The same with the value given in two pieces, head then tail (a
 * metadata compaction's constant meta-field prefix and each record's
 * payload): the bytes are copied once, into the block. */
HUDI_NODISCARD hudi_status hudi_hfile_writer_append2(hudi_hfile_writer *w, const uint8_t *key, size_t key_len,
                                                     const uint8_t *head, size_t head_len, const uint8_t *tail,
                                                     size_t tail_len, hudi_error *err);
/* The last key appended (NULL, *len 0 before the first); valid until the
 * next append. */
const uint8_t *hudi_hfile_writer_last_key(const hudi_hfile_writer *w, size_t *len);
/* Copies a whole GZ data block of another HFile (len on-disk bytes,
 * header included, as hudi_hfile_reader_scan_blocks hands it over) after
 * what was appended so far, which is first closed into blocks: a merge
 * keeps the blocks no change falls in without inflating and deflating
 * them again. first is the block's first row key; last its last one, or
 * NULL when another key or block follows (finish refuses a file that ends
 * with a block whose last key was not given: hfile.LASTKEY). Its cells
 * are not counted: hudi_hfile_writer_add_copied adds them. */
HUDI_NODISCARD hudi_status hudi_hfile_writer_copy_block(hudi_hfile_writer *w, const uint8_t *block, size_t len,
                                                        const uint8_t *first, size_t first_len, const uint8_t *last,
                                                        size_t last_len, hudi_error *err);
/* Counts key-values of copied blocks in the trailer's entry count and the
 * key and value bytes of hfile.AVG_KEY_LEN / AVG_VALUE_LEN. */
void hudi_hfile_writer_add_copied(hudi_hfile_writer *w, uint64_t entries, uint64_t key_bytes, uint64_t value_bytes);
/* Adds (or replaces) a file info entry, e.g. "schema". The writer itself
 * sets hfile.LASTKEY, hfile.AVG_KEY_LEN, hfile.AVG_VALUE_LEN,
 * hfile.CREATE_TIME_TS, MAX_MEMSTORE_TS_KEY and KEY_VALUE_VERSION. */
HUDI_NODISCARD hudi_status hudi_hfile_writer_add_file_info(hudi_hfile_writer *w, const char *name,
                                                           const uint8_t *value, size_t value_len,
                                                           hudi_error *err);
/* Adds (or replaces) a meta block, e.g. "bloomFilter". */
HUDI_NODISCARD hudi_status hudi_hfile_writer_add_meta_block(hudi_hfile_writer *w, const char *name,
                                                            const uint8_t *value, size_t value_len,
                                                            hudi_error *err);
/* Times the pipeline (compress_threads) had to re-cut queued blocks after
 * one that spec §3.9 closes early; 0 without it. For tests and benchmarks. */
uint64_t hudi_hfile_writer_recuts(const hudi_hfile_writer *w);
/* Writes the rest of the file and hands the whole file to the caller
 * (*out freed with hudi_free). The writer can only be freed afterwards. */
HUDI_NODISCARD hudi_status hudi_hfile_writer_finish(hudi_hfile_writer *w, uint8_t **out, size_t *out_len,
                                                    hudi_error *err);
/* Gives a writer nothing has been appended to an allocation of cap bytes
 * (from hudi_malloc) to write the file into: pages an earlier file
 * faulted in serve again instead of fresh ones. The writer owns it from
 * here (freed with the writer, or handed out by finish); a writer that
 * already has a buffer frees it instead. */
void hudi_hfile_writer_use_buffer(hudi_hfile_writer *w, uint8_t *data, size_t cap);

#endif

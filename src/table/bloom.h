/* Hudi's footer bloom filter, type DYNAMIC_V0 (HoodieDynamicBoundedBloomFilter
 * over Hadoop's DynamicBloomFilter), serialised as base64 the way Hudi
 * stores it under the footer key "org.apache.hudi.bloomfilter"
 * (hudi-format-core.md §4). */
#ifndef HUDI_TABLE_BLOOM_H
#define HUDI_TABLE_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "hudi/table.h"

/* Hudi's defaults: hoodie.index.bloom.num_entries, .fpp, .dynamic.max.entries. */
#define HUDI_BLOOM_DEFAULT_ENTRIES 60000
#define HUDI_BLOOM_DEFAULT_FPP 1e-9
#define HUDI_BLOOM_DEFAULT_MAX_ENTRIES 100000

/* Keys (and their bytes) hudi_bloom_add queues before hashing them. */
#define HUDI_BLOOM_PENDING 32
#define HUDI_BLOOM_PENDING_BYTES 2048

typedef struct hudi_bloom {
  int32_t vector_size; /* bits per row */
  int32_t nb_hash;
  int32_t nr;          /* keys per row before a new row */
  int32_t max_entries;
  int32_t current;     /* keys in the active row */
  int32_t n_rows;
  int64_t round_robin; /* next row once the maximum is reached */
  bool reached_max;
  uint8_t **rows;      /* n_rows bit vectors of ceil(vector_size / 8) bytes */
  /* Sized late (hudi_bloom_init_for): until the filter has its size, the
   * keys wait in held_keys as (u32 length, bytes) records. */
  bool held;
  int32_t held_n, held_cap, held_max;
  double held_fpp;
  hudi_buf held_keys;
  /* Keys given one at a time (hudi_bloom_add) wait here until a group of
   * them can be hashed side by side (hudi_bloom_add_many): a key's 30
   * chained hashes are a chain of dependent multiplies, and one key at a
   * time leaves the multiplier idle most of the time. Every reader of the
   * filter (serialize, might_contain, add_many) takes them into account. */
  int32_t pend_n;
  uint16_t pend_off[HUDI_BLOOM_PENDING + 1];
  char pend[HUDI_BLOOM_PENDING_BYTES];
} hudi_bloom;

/* An empty filter sized for num_entries keys at false-positive rate fpp,
 * growing rows up to max_entries (Hudi: max(max_entries, num_entries)). */
HUDI_NODISCARD hudi_status hudi_bloom_init(hudi_bloom *b, int32_t num_entries, double fpp, int32_t max_entries,
                                           hudi_error *err);
void hudi_bloom_free(hudi_bloom *b);

/* Adds a key (its UTF-8 bytes); it may wait in the pending queue. */
HUDI_NODISCARD hudi_status hudi_bloom_add(hudi_bloom *b, const void *key, size_t len, hudi_error *err);

/* Adds keys[0..n) in order, the same filter as n hudi_bloom_add calls.
 * Each key takes nb_hash (30 by default) chained murmur hashes, a chain of
 * dependent multiplies; up to 16 keys are hashed side by side, in vector
 * lanes, so that their chains overlap. */
HUDI_NODISCARD hudi_status hudi_bloom_add_many(hudi_bloom *b, const char *const *keys, const size_t *lens, size_t n,
                                               hudi_error *err);

/* True when the key may be in the filter. */
bool hudi_bloom_might_contain(const hudi_bloom *b, const void *key, size_t len);

/* Appends the base64 text Hudi writes into the footer (a held filter:
 * HUDI_ERR_INTERNAL, see hudi_bloom_finish); adds pending keys first. */
HUDI_NODISCARD hudi_status hudi_bloom_serialize(hudi_bloom *b, hudi_buf *out, hudi_error *err);

/* The footer bloom filter of one write's base files.
 * on: whether they carry it, by Java's rule
 * (HoodieFileWriterFactory.enableBloomFilter, meta fields populated):
 * hoodie.parquet.bloom.filter.enabled (default true, as
 * HoodieStorageConfig) or a hoodie.index.type containing "BLOOM". Spark
 * writes it with the record index too; with the option false Java writes
 * none of the four footer keys (org.apache.hudi.bloomfilter,
 * hoodie_bloom_filter_type_code, hoodie_min/max_record_key: they all come
 * from HoodieBloomFilterWriteSupport), and so do we.
 * entries, fpp, max_entries: hoodie.index.bloom.num_entries, .fpp and
 * hoodie.bloom.index.filter.dynamic.max.entries (defaults above);
 * entries_set: num_entries was given explicitly. */
typedef struct hudi_bloom_cfg {
  bool on;
  bool entries_set;
  int32_t entries;
  int32_t max_entries;
  double fpp;
} hudi_bloom_cfg;

/* Reads the write's options (as hudi_write_option). A value that is not
 * true/false, a positive count or a rate in (0, 1) is HUDI_ERR_INVALID_ARG
 * naming the option. */
HUDI_NODISCARD hudi_status hudi_bloom_cfg_read(hudi_bloom_cfg *cfg, const hudi_table *t, const hudi_option *opts,
                                               size_t n_opts, hudi_error *err);

/* A DYNAMIC_V0 filter as a writer left it after `keys` keys (the footer
 * text of a base file of that many rows), to go on adding keys as that
 * writer would have: a COW rewrite that keeps every stored row in order and
 * appends new keys gets the filter of exactly its keys (a filter is the OR
 * of its keys' bits, the row each key lands in depends only on how many
 * came before it) without hashing the stored keys again. true only when
 * the filter's sizes are the ones cfg gives a file of `keys` keys and its
 * row count and fill say it holds `keys` keys; false (b empty) for
 * anything else: the caller builds the filter from the keys. */
bool hudi_bloom_resume(hudi_bloom *b, const char *text, size_t len, const hudi_bloom_cfg *cfg, int64_t keys);

/* Whether a sized filter has been given exactly `keys` keys (its rows and
 * fill counter say so): a resumed filter's check before it is written. */
bool hudi_bloom_counted(const hudi_bloom *b, int64_t keys);

/* An empty filter for one base file. Java sizes every file's filter for
 * hoodie.index.bloom.num_entries (60000 keys: 430 KB of base64 in the
 * footer) whatever the file holds, so a 1000-row insert file carries a
 * filter 60 times larger than it needs. Unless num_entries was set
 * explicitly, the keys are held back until either num_entries + 1 of them
 * have come (then the filter is Java's, bit for bit) or hudi_bloom_finish
 * sizes it for the keys the file got: the same false-positive rate for
 * them, a fraction of the bytes, and still a DYNAMIC_V0 filter every Hudi
 * reader loads (its size is part of its serialized form). Adding keys
 * works the same either way; while keys are held, might_contain answers
 * true. With num_entries set: Java's filter from the start. */
HUDI_NODISCARD hudi_status hudi_bloom_init_for(hudi_bloom *b, const hudi_bloom_cfg *cfg, hudi_error *err);

/* Gives a held filter its size (for the keys it got; an empty file's is
 * Java's) and adds them; nothing for a filter already sized. Before
 * hudi_bloom_serialize. */
HUDI_NODISCARD hudi_status hudi_bloom_finish(hudi_bloom *b, hudi_error *err);

/* Standard base64 (with padding) of len bytes, appended to out. */
HUDI_NODISCARD hudi_status hudi_base64_encode(hudi_buf *out, const void *data, size_t len, hudi_error *err);

#endif

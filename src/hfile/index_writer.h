/* The data block index of an HFile as HBase's HFileBlockIndex.BlockIndexWriter
 * builds it: one level (the root) while it is small, else leaf index blocks
 * (IDXLEAF2) written inline after the data blocks they index, intermediate
 * blocks (IDXINTE2) written before the root, and a root block (IDXROOT2)
 * that ends with HBase's 16-byte mid-key metadata. Java (Hudi 1.0+) and
 * hudi-rs read every level; a lookup then reads only the index blocks its
 * keys fall in, which keeps record-index lookups from reading the whole
 * index of a large file. Spec: hudi-metadata-table.md §3.4. */
#ifndef HUDI_HFILE_INDEX_WRITER_H
#define HUDI_HFILE_INDEX_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

/* HBase's hfile.index.block.min.entries: the root is split into another
 * level only while it holds more entries than this, and an intermediate
 * level's first block takes more than this many entries. */
#define HUDI_HFILE_INDEX_MIN_ENTRIES 16
/* HBase stops adding levels at this many. */
#define HUDI_HFILE_INDEX_MAX_LEVELS 16

/* Index entries of one block-to-be: keys are `i16 length + content`. */
typedef struct hudi_hfile_chunk {
  hudi_buf keys;
  struct hudi_hfile_chunk_entry {
    uint64_t off;
    uint32_t size;     /* on-disk size with header of the block pointed to */
    size_t key_off, key_len;
    uint64_t sub;      /* data blocks indexed up to and including this entry */
  } *v;
  size_t n, cap;
  uint64_t root_size;    /* bytes in the root format */
  uint64_t nonroot_size; /* sum of 12 + key length (non-root format, without the count and offsets) */
} hudi_hfile_chunk;

typedef struct hudi_hfile_index_writer {
  size_t max_chunk; /* HBase's hfile.index.block.max.size; 0: one level only */
  int gz;
  hudi_hfile_chunk inline_chunk; /* data block entries not yet in a leaf block */
  hudi_hfile_chunk root;         /* leaf block entries (or, single-level, data block entries) */
  uint64_t data_blocks;
  int64_t prev_leaf, prev_intermediate; /* prevBlockOffset chains per block type, as HBase */
  uint32_t levels;     /* 1, or 2 once a leaf block is written; finish adds intermediate levels */
  struct hudi_fast_deflater *fast; /* borrowed: libdeflate for the GZ index blocks; NULL: zlib (Java's bytes) */
} hudi_hfile_index_writer;

void hudi_hfile_index_writer_init(hudi_hfile_index_writer *w, size_t max_chunk, int gz);
void hudi_hfile_index_writer_free(hudi_hfile_index_writer *w);

/* Records a data block written at off (on-disk size with header) whose first
 * row key is key. Appends a leaf index block to out when the current leaf
 * chunk has reached max_chunk bytes (HBase writes it right after the data
 * block that filled it). */
HUDI_NODISCARD hudi_status hudi_hfile_index_writer_add(hudi_hfile_index_writer *w, hudi_buf *out, const uint8_t *key,
                                                       size_t key_len, uint64_t off, uint32_t size, hudi_error *err);

/* An upper bound of the bytes the next hudi_hfile_index_writer_add may
 * append to out (a leaf index block holding the waiting entries and one
 * more of key_len bytes), compressed or not. */
uint64_t hudi_hfile_index_writer_add_bound(const hudi_hfile_index_writer *w, size_t key_len);

/* After the last data block: writes the last leaf block, or, when no leaf
 * block was written, makes the entries the (single-level) root. */
HUDI_NODISCARD hudi_status hudi_hfile_index_writer_close_leaves(hudi_hfile_index_writer *w, hudi_buf *out,
                                                                hudi_error *err);

/* Appends the intermediate levels the root needs, then the root block
 * (load-on-open starts at *root_off). Sets w->levels; *root_entries is the
 * trailer's data_index_count. */
HUDI_NODISCARD hudi_status hudi_hfile_index_writer_finish(hudi_hfile_index_writer *w, hudi_buf *out,
                                                          uint64_t *root_off, uint32_t *root_entries,
                                                          hudi_error *err);

#endif

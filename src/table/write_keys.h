/* The record-index entries of an append written a segment at a time
 * (write.c, hudi_c.append.segment.bytes): each row's key -> the partition
 * and file group it went to, copied out of a segment's rows before the
 * next segment replaces them, for one duplicate check and one metadata
 * commit over the whole append. */
#ifndef HUDI_TABLE_WRITE_KEYS_H
#define HUDI_TABLE_WRITE_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "table/mdt_write.h"
#include "table/write_rows.h"

typedef struct hudi_write_key_entry {
  uint64_t key_off, part_off, fid_off; /* in bytes */
  uint32_t key_len;
} hudi_write_key_entry;

typedef struct hudi_write_keys {
  hudi_buf bytes; /* keys, then each file's partition and file id, NUL-terminated */
  hudi_write_key_entry *items;
  size_t n, cap;
} hudi_write_keys;

void hudi_write_keys_init(hudi_write_keys *k);
void hudi_write_keys_free(hudi_write_keys *k);

/* Rows [from, to) of rows (one partition) went to file group file_id. */
HUDI_NODISCARD hudi_status hudi_write_keys_add_file(hudi_write_keys *k, const hudi_write_rows *rows, size_t from,
                                                    size_t to, const char *file_id, hudi_error *err);

/* Every entry as a key change, pointing into k (valid while k is
 * unchanged); *out is freed with hudi_free. */
HUDI_NODISCARD hudi_status hudi_write_keys_changes(const hudi_write_keys *k, hudi_mdt_key_change **out,
                                                   hudi_error *err);

#endif

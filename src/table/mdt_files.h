/* The metadata table's `files` partition: the table's partitions and the
 * files of each partition, without listing storage (spec
 * hudi-metadata-table.md §2 "Keys by partition").
 *
 * Keys: "__all_partitions__" (type 1) maps every partition path to
 * {0, isDeleted}; "<partition path>" (type 2; "." for a non-partitioned
 * table) maps each file name to {size, isDeleted}. Here partitions are
 * relative paths as in the file-system view: "" for a non-partitioned
 * table (stored as "."). Entries marked deleted are left out. */
#ifndef HUDI_TABLE_MDT_FILES_H
#define HUDI_TABLE_MDT_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "table/mdt_reader.h"

typedef struct hudi_mdt_file {
  char *name; /* file name, no directory */
  uint64_t size;
} hudi_mdt_file;

typedef struct hudi_mdt_partition_files {
  char *partition;     /* as asked for */
  hudi_mdt_file *files; /* sorted by name */
  size_t n_files;
  int found;           /* 0: the partition has no record */
} hudi_mdt_partition_files;

typedef struct hudi_mdt_strings {
  char **items; /* sorted */
  size_t count;
} hudi_mdt_strings;

void hudi_mdt_strings_free(hudi_mdt_strings *s);
void hudi_mdt_partition_files_free(hudi_mdt_partition_files *p, size_t n);

/* Every live partition of __all_partitions__, sorted ("" for "."). Fails
 * with HUDI_ERR_NOT_FOUND when the files partition is not available. */
HUDI_NODISCARD hudi_status hudi_mdt_list_partitions(hudi_mdt *m, hudi_mdt_strings *out, hudi_mdt_read_stats *stats,
                                                    hudi_error *err);

/* The live files of each partition (one batched lookup). *out is an array
 * of n entries in the order asked, freed with hudi_mdt_partition_files_free. */
HUDI_NODISCARD hudi_status hudi_mdt_list_files(hudi_mdt *m, const char *const *partitions, size_t n,
                                               hudi_mdt_partition_files **out, hudi_mdt_read_stats *stats,
                                               hudi_error *err);

#endif

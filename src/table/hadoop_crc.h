/* The ".<name>.crc" checksums Hadoop's local file system (ChecksumFileSystem)
 * keeps beside every file Spark writes to a local path. Spark verifies a
 * file against its checksum when one exists and refuses a file that no
 * longer matches; without one it reads the file unchecked. So hudi-c,
 * which writes no checksums, deletes a file's checksum when it deletes or
 * replaces a file Spark may have written (object stores have none). */
#ifndef HUDI_TABLE_HADOOP_CRC_H
#define HUDI_TABLE_HADOOP_CRC_H

#include "io/storage.h"

/* Deletes the checksum of rel ("dir/.name.crc" for "dir/name"), if any; a
 * no-op off the local backend. */
HUDI_NODISCARD hudi_status hudi_hadoop_crc_delete(hudi_storage *s, const char *rel, hudi_error *err);

#endif

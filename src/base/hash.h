/* The hashes Hudi's file formats depend on, bit-exact with the Java
 * definitions (golden vectors in tests/golden/, made by the real classes). */
#ifndef HUDI_BASE_HASH_H
#define HUDI_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* MurmurHash2, 32-bit, as org.apache.hudi.common.util.hash.MurmurHash and
 * org.apache.hadoop.util.hash.MurmurHash compute it (what Hudi's bloom
 * filter uses). Two differences from the reference C MurmurHash2, both in
 * the 1-3 tail bytes: they are Java signed bytes (a byte >= 0x80 is
 * sign-extended before it is mixed in), and they are taken in reverse order
 * (the last byte is the low one). Java takes the length as an int, so
 * inputs are meaningful only up to INT32_MAX bytes. */
int32_t hudi_murmur2_hadoop(const void *data, size_t len, int32_t seed);

/* java.lang.String.hashCode() of the string whose UTF-8 bytes are given:
 * h = 31*h + c over its UTF-16 code units (a supplementary character is two
 * units, its surrogate pair). Invalid UTF-8 (overlong forms, encoded
 * surrogates, values past U+10FFFF, truncated sequences) is rejected with
 * HUDI_ERR_INVALID_ARG naming the byte offset: Java would have replaced it
 * with U+FFFD, and a key that does not round-trip cannot be matched. */
HUDI_NODISCARD hudi_status hudi_java_string_hash(int32_t *out, const char *utf8, size_t len,
                                                 hudi_error *err);

/* Java's Math.abs(Math.abs(h) % n) for n > 0, with Math.abs(INT_MIN) ==
 * INT_MIN, so the result is always in [0, n). */
int32_t hudi_java_abs_mod(int32_t h, int32_t n);

/* The metadata table's record-index shard of a record key
 * (HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex): the key's Java
 * hashCode mapped by hudi_java_abs_mod onto num_file_groups (1..INT32_MAX). */
HUDI_NODISCARD hudi_status hudi_record_index_shard(int32_t *out, const char *key, size_t len,
                                                   int32_t num_file_groups, hudi_error *err);

/* CRC-32 (zlib / java.util.zip.CRC32). Start with crc = 0. */
uint32_t hudi_crc32_update(uint32_t crc, const void *data, size_t len);
uint32_t hudi_crc32(const void *data, size_t len);

/* hoodie.table.checksum: CRC-32 of the UTF-8 of "<database>.<table>"; a
 * NULL database means hoodie.database.name is absent, which Java treats as
 * "" (HoodieTableConfig.generateChecksum). Written as an unsigned decimal. */
uint32_t hudi_table_checksum(const char *database, const char *table);

/* XXH64 (libxxhash). */
uint64_t hudi_xxh64(const void *data, size_t len, uint64_t seed);

#endif

/* The content of a PARQUET_DATA log block (HoodieParquetDataBlock, block
 * type 5): one whole Parquet file, "PAR1" ... footer ... "PAR1", with no
 * version prefix and no record count (a block of no records is never
 * written; Java's serializeRecords returns no bytes for it).
 *
 * What Java puts in that file (HoodieAppendHandle.getBlock ->
 * HoodieParquetDataBlock, and the Spark-written fixture
 * log_files/valid_log_parquet_data):
 *  - every record's columns, the five _hoodie_ meta columns first;
 *    _hoodie_file_name holds the file id, as in AVRO_DATA blocks;
 *  - the base files' Parquet settings: codec hoodie.parquet.compression.codec
 *    (gzip by default; the fixture's chunks are GZIP), dictionary per
 *    hoodie.parquet.dictionary.enabled, column statistics (hudi-c's
 *    upserts use zstd when the codec option is unset: merge_write.c);
 *  - no bloom filter and no hoodie_min/max_record_key in the footer (the
 *    block writer is opened without one); the footer key/values name the
 *    writer's schema only: parquet-avro's parquet.avro.schema (Java's Avro
 *    record path, what we write) or Spark's row metadata (the fixture).
 *    Readers use neither: Java, Spark and hudi-rs read the columns by name
 *    against the block's SCHEMA header.
 * The block's headers are those of an AVRO_DATA block: INSTANT_TIME and
 * SCHEMA (the Avro schema with the meta fields).
 *
 * Writing: begin, write Arrow batches of the schema, finish; the file is
 * appended to the caller's buffer, which then becomes the block content. */
#ifndef HUDI_TABLE_LOG_PARQUET_BLOCK_H
#define HUDI_TABLE_LOG_PARQUET_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "hudi/arrow_abi.h"
#include "table/log_format.h"

/* parquet/writer.h, not included here: its enum hudi_pq_conv clashes with
 * parquet/reader.h's, and readers of blocks include this header too. */
struct hudi_pq_writer;
struct hudi_pq_writer_options;

/* hoodie.logfile.data.block.format: Java's HoodieLogBlockType ids. */
#define HUDI_LOG_DATA_BLOCK_FORMAT_KEY "hoodie.logfile.data.block.format"

/* "avro" -> AVRO_DATA, "parquet" -> PARQUET_DATA (case-insensitive); NULL
 * or "" -> dflt. Anything else (hfile is for the metadata table only) is
 * HUDI_ERR_UNSUPPORTED naming the value. */
HUDI_NODISCARD hudi_status hudi_log_data_block_format_parse(int32_t *type, const char *value, int32_t dflt,
                                                            hudi_error *err);

typedef struct hudi_log_parquet_writer {
  struct hudi_pq_writer *w;
  hudi_buf *out;
  size_t start;  /* out->len at begin: the content starts there */
  int64_t rows;
} hudi_log_parquet_writer;

/* Opens a Parquet file of `schema` (a struct: meta columns then data)
 * that finish appends to *out. pq: the base-file writer options (codec,
 * dictionary, page and row-group sizes, schema style); NULL: Hudi's
 * defaults (the writer's defaults with gzip and 2-level lists). */
HUDI_NODISCARD hudi_status hudi_log_parquet_begin(hudi_log_parquet_writer *w, hudi_buf *out,
                                                  const struct ArrowSchema *schema,
                                                  const struct hudi_pq_writer_options *pq, hudi_error *err);
/* Writes one batch (borrowed); last: no rows follow (the writer then
 * writes the final row group column by column, HUDI_PQ_WRITE_LAST). */
HUDI_NODISCARD hudi_status hudi_log_parquet_write(hudi_log_parquet_writer *w, const struct ArrowArray *batch,
                                                  bool last, hudi_error *err);
/* Adds parquet.avro.schema = avro_schema (nullable: none) and
 * writer.model.name = avro, writes the footer and appends the file to out.
 * On error out is left as it was at begin. */
HUDI_NODISCARD hudi_status hudi_log_parquet_finish(hudi_log_parquet_writer *w, const char *avro_schema,
                                                   hudi_error *err);
/* Frees the writer (after finish, or to abandon it). */
void hudi_log_parquet_writer_free(hudi_log_parquet_writer *w);

/* Checks that content[0, len) is framed as a Parquet file (leading and
 * trailing "PAR1", a footer length that fits) and gives its footer length.
 * base: the content's file offset, where: the log file, for messages. */
HUDI_NODISCARD hudi_status hudi_log_parquet_check(const uint8_t *content, size_t len, uint64_t base,
                                                  const char *where, uint32_t *footer_len, hudi_error *err);

#endif

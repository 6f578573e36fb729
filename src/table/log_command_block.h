/* COMMAND blocks (HoodieCommandBlock): no content; the header says what to
 * do. The only command is ROLLBACK (COMMAND_BLOCK_TYPE "0"): blocks written
 * by TARGET_INSTANT_TIME are to be ignored. v6 rollbacks write one into a
 * new log file (token 1-0-1); v8 rollbacks delete the log files instead. */
#ifndef HUDI_TABLE_LOG_COMMAND_BLOCK_H
#define HUDI_TABLE_LOG_COMMAND_BLOCK_H

#include "table/log_format.h"

typedef struct hudi_log_command {
  int32_t command;            /* HUDI_LOG_COMMAND_ROLLBACK */
  const char *instant;        /* INSTANT_TIME: the rollback's instant; borrowed */
  const char *target_instant; /* TARGET_INSTANT_TIME: the rolled-back instant; borrowed */
} hudi_log_command;

/* Reads a COMMAND block's header. A missing key, a command other than
 * rollback, or a non-empty content is HUDI_ERR_CORRUPT / UNSUPPORTED naming
 * the block. Pointers borrow from b. */
HUDI_NODISCARD hudi_status hudi_log_command_block_read(hudi_log_command *out,
                                                       const hudi_log_block *b, const char *where,
                                                       hudi_error *err);

/* Fills header (which must be empty) with what Java writes for a rollback
 * block: INSTANT_TIME, TARGET_INSTANT_TIME, COMMAND_BLOCK_TYPE = "0". */
HUDI_NODISCARD hudi_status hudi_log_rollback_header(hudi_log_meta *header, const char *instant,
                                                    const char *target_instant, hudi_error *err);

/* Fills header (which must be empty) for a data or delete block: INSTANT_TIME
 * and, when schema is not NULL, SCHEMA (the writer schema's JSON, with the
 * Hudi meta fields). Spark 1.x writes exactly these two keys. */
HUDI_NODISCARD hudi_status hudi_log_data_header(hudi_log_meta *header, const char *instant,
                                                const char *schema_json, hudi_error *err);

#endif

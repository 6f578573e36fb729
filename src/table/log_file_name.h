/* Hudi log file names: `.<fileId>_<instant>.<ext>.<version>[_<writeToken>[<cdc>]]`.
 *
 * Java's FSUtils.LOG_FILE_PATTERN is
 *   ^\.(.+)_(.*)\.(log|archive)\.(\d+)(_((\d+)-(\d+)-(\d+))(.cdc)?)?
 * and HoodieLogFile matches it against the whole name. `<instant>` is the
 * delta commit's own requested time in table versions 8 and 9, and the
 * instant of the file slice's base file in version 6 (the parser cannot
 * tell them apart; the table version decides what it means). The write
 * token is `<taskPartitionId>-<stageId>-<taskAttemptId>`; `1-0-1` is
 * HoodieLogFormat.UNKNOWN_WRITE_TOKEN. The CDC suffix is ".cdc" (0.13 wrote
 * "-cdc"; the pattern's unescaped '.' accepts both). */
#ifndef HUDI_TABLE_LOG_FILE_NAME_H
#define HUDI_TABLE_LOG_FILE_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

#define HUDI_LOG_FILE_EXT "log"
#define HUDI_LOG_ARCHIVE_EXT "archive"
#define HUDI_LOG_CDC_SUFFIX ".cdc"
#define HUDI_LOG_UNKNOWN_WRITE_TOKEN "1-0-1"
/* Longest name component we accept (far above any real file id or instant). */
#define HUDI_LOG_FILE_NAME_MAX 4096

typedef struct hudi_log_file_name {
  char *file_id;     /* owned */
  char *instant;     /* owned; may be empty, as the pattern allows */
  char *extension;   /* owned: "log" or "archive" */
  int32_t version;   /* >= 0 (Java Integer.parseInt of \d+) */
  bool has_token;    /* false: the name ends after the version */
  char *write_token; /* owned; "" when !has_token */
  int64_t task_partition_id, stage_id, task_attempt_id; /* the token's numbers */
  char *suffix;      /* owned; "" or the 4-character CDC suffix */
} hudi_log_file_name;

#define HUDI_LOG_FILE_NAME_INIT {NULL, NULL, NULL, 0, false, NULL, 0, 0, 0, NULL}

void hudi_log_file_name_free(hudi_log_file_name *n);

/* Parses a file name (the last path component; a path is rejected). Not a
 * log file name -> HUDI_ERR_INVALID_ARG naming it. *out is filled only on
 * success; free it with hudi_log_file_name_free. */
HUDI_NODISCARD hudi_status hudi_log_file_name_parse(hudi_log_file_name *out, const char *name,
                                                    size_t len, hudi_error *err);

/* True if name matches the pattern (no allocation). */
bool hudi_log_file_name_matches(const char *name, size_t len);

/* Appends `.<fileId>_<instant>.<ext>.<version>[_<token>[suffix]]` to out
 * (FSUtils.makeLogFileName). extension NULL means "log"; token NULL or ""
 * writes no token (and then suffix must be empty). The pieces are checked so
 * that the result parses back to the same fields. */
HUDI_NODISCARD hudi_status hudi_log_file_name_format(hudi_buf *out, const char *file_id,
                                                     const char *instant, const char *extension,
                                                     int32_t version, const char *write_token,
                                                     const char *suffix, hudi_error *err);

/* Appends `<taskPartitionId>-<stageId>-<taskAttemptId>` to out. */
HUDI_NODISCARD hudi_status hudi_log_write_token_format(hudi_buf *out, int64_t task_partition_id,
                                                       int64_t stage_id, int64_t task_attempt_id,
                                                       hudi_error *err);

/* HoodieLogFile.LogFileComparator: instant (String.compareTo), then version,
 * then write token (absent first, then natural string order), then suffix.
 * The file id is not compared: order log files of one file group. */
int hudi_log_file_name_compare(const hudi_log_file_name *a, const hudi_log_file_name *b);

#endif

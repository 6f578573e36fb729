/* Rolling back a delta commit's log appends on a table of version 6
 * (timeline layout 1), as Hudi does there (hudi-format-v6-and-archive.md
 * A5, A6; fixture mor/parquet/v6_nonpartitioned_rollback).
 *
 * A version-6 log file is named by its file slice's base instant, not by
 * the delta commit that wrote it, so a rollback cannot tell a failed
 * write's log file by its name and does not delete it. Instead:
 *
 *   plan      one request per file slice T appended to: fileId, the base
 *             instant, no files to delete, and logBlocksToBeDeleted
 *             {"<uri of a log file>": its size} for each of the slice's
 *             log files holding a block of T (Hudi's
 *             MarkerBasedRollbackStrategy names the latest only, assuming
 *             T appended last); a slice whose base instant is T itself had
 *             its latest log file created by T: deleted instead
 *   execute   a ROLLBACK command block (INSTANT_TIME R, TARGET_INSTANT_TIME
 *             T) written as the slice's next log version with write token
 *             1-0-1; readers then skip T's blocks (read_slice.c), as Java
 *             and hudi-rs do
 *   metadata  rollbackLogFiles {"<uri of the command block's file>": size},
 *             logFilesFromFailedCommit = the request's logBlocksToBeDeleted
 *
 * Local paths are written as "file:<absolute path>", as Java's
 * FileStatus.getPath().toString() gives them in the fixture. */
#ifndef HUDI_TABLE_ROLLBACK_LOG_BLOCKS_H
#define HUDI_TABLE_ROLLBACK_LOG_BLOCKS_H

#include "base/buf.h"
#include "base/hashmap.h"
#include "table/commit_metadata.h"
#include "table/rollback.h"

/* The uri of file rel of x as Java writes it into a rollback plan's log
 * map ("file:/abs/path" on local storage, the store's uri otherwise),
 * NUL-terminated in out. */
HUDI_NODISCARD hudi_status hudi_rb_log_uri(hudi_buf *out, const hudi_rb_target *x, const char *rel, hudi_error *err);

/* Listings of partition directories, each taken once per plan or per
 * execution (a write that appended to many file slices of a partition
 * does not list it once per slice), with their log files grouped by file
 * slice. */
typedef struct hudi_rb_dirs hudi_rb_dirs;
HUDI_NODISCARD hudi_status hudi_rb_dirs_new(hudi_rb_dirs **out, hudi_error *err);
void hudi_rb_dirs_free(hudi_rb_dirs *dirs);

/* Adds the request for the APPEND marker of file `file` (a log file name,
 * as hudi-c writes them, or the base-file-like name 0.x writes) in
 * partition to plan p of instant T. seen dedups file slices across
 * markers; the partition's listing comes from dirs. A marker naming
 * neither is skipped. */
HUDI_NODISCARD hudi_status hudi_rb_append_request(hudi_rollback_plan *p, const hudi_rb_target *x,
                                                  const char *partition, const char *file, const char *instant,
                                                  hudi_hashmap *seen, hudi_rb_dirs *dirs, hudi_error *err);

/* Requests for the file slices whose log files hold blocks of T,
 * found by listing x and reading those files' block headers: the
 * version-6 part of a rollback without markers. */
HUDI_NODISCARD hudi_status hudi_rb_append_requests_from_listing(hudi_rollback_plan *p, const hudi_rb_target *x,
                                                                const hudi_file_list *listing, const char *instant,
                                                                hudi_error *err);

/* The same requests, for a completed T whose commit metadata m is read:
 * only the log files its write stats name are read for T's blocks (each
 * stat's path, as Hudi's ListingBasedRollbackStrategy takes it; logFiles
 * when the path names no log file), instead of every log file of the
 * table. listing: x, recursive (its entries give the files' sizes; a
 * named file not in it is skipped). */
HUDI_NODISCARD hudi_status hudi_rb_append_requests_from_metadata(hudi_rollback_plan *p, const hudi_rb_target *x,
                                                                 const hudi_commit_metadata *m,
                                                                 const hudi_file_list *listing, const char *instant,
                                                                 hudi_error *err);

/* Runs request rq (logBlocksToBeDeleted not empty) of the rollback R of T:
 * writes the command block and records both log maps in pm (of m). The
 * partition's listing comes from dirs, which then holds the new file. */
HUDI_NODISCARD hudi_status hudi_rb_write_command_block(const hudi_rb_target *x, hudi_rb_dirs *dirs,
                                                       const hudi_rollback_request *rq,
                                                       const char *rollback_time, const char *instant,
                                                       hudi_rollback_metadata *m,
                                                       hudi_rollback_partition_metadata *pm, hudi_error *err);

#endif

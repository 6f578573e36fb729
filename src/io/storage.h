/* The one storage interface. Every layer reads and writes a table's files
 * through a hudi_storage: a base URI (the table's root) plus paths relative
 * to it. Objects are keyed by path; a "directory" is only a prefix of keys,
 * so object stores (s3://, gs://, az://) fit the same operations as the
 * local file system.
 *
 * Paths given to these functions are relative, '/'-separated and are
 * normalised first: empty and "." components are dropped and ".." removes
 * the previous component. An absolute path, or one whose ".." would climb
 * above the base, is rejected with HUDI_ERR_INVALID_ARG.
 *
 * A hudi_storage holds no per-call state: one handle may be used from many
 * threads at once. */
#ifndef HUDI_IO_STORAGE_H
#define HUDI_IO_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

typedef struct hudi_storage hudi_storage;

/* A storage option, e.g. {"fsync", "false"} or (later) {"aws_region", "eu-west-1"}.
 * Backends ignore keys that belong to other backends, so one option list can
 * be passed whatever the scheme. */
typedef struct hudi_storage_option {
  const char *key;
  const char *value;
} hudi_storage_option;

/* Opens the backend that serves base_uri's scheme:
 *   - a plain path ("/data/t", "rel/t") or a file: URI ("file:///data/t",
 *     Hadoop's "file:/data/t") -> the local file system;
 *   - any other "scheme://..." -> a registered backend, or
 *     HUDI_ERR_UNSUPPORTED naming the scheme.
 * The base need not exist yet: writes create directories as needed.
 * Local options: "fsync" = "true" (default) | "false" (skip fsync of files
 * and directories; for tests and scratch tables only).
 * *out is owned by the caller; release it with hudi_storage_free. */
HUDI_NODISCARD hudi_status hudi_storage_open(hudi_storage **out, const char *base_uri,
                                             const hudi_storage_option *options, size_t n_options,
                                             hudi_error *err);
void hudi_storage_free(hudi_storage *s);

/* The normalised base, e.g. "/data/t" for the local backend (static for the
 * handle's lifetime), and the backend's name ("local", "faulty", ...). */
const char *hudi_storage_base(const hudi_storage *s);
const char *hudi_storage_backend_name(const hudi_storage *s);

/* Whether s is local storage whose writes are fsynced (option "fsync",
 * on by default): a writer streaming a large file into it may then start
 * the file's writeback early (hudi_local_start_writeback). */
bool hudi_local_storage_syncs(const hudi_storage *s);

/* Starts writing bytes [offset, offset + len) of fd back to the disk
 * without waiting for them (Linux sync_file_range; elsewhere nothing). A
 * file written by steps and so started is mostly on the disk by its
 * fsync, which then waits for little: a bulk load's ~1.5 GB of base files
 * were flushed by the write group's sync at the end, ~0.5 s of 5 with the
 * cores idle. Best effort: durability is still the fsync's. */
void hudi_local_start_writeback(int fd, uint64_t offset, uint64_t len);

/* ---- reads ---------------------------------------------------------- */

/* Reads up to len bytes at offset into dst. *n_read < len means the object
 * ends there (a short read at end of object is not an error; an offset at or
 * past the end gives *n_read == 0). A missing object is HUDI_ERR_NOT_FOUND,
 * as is a path naming a directory. */
HUDI_NODISCARD hudi_status hudi_storage_read(hudi_storage *s, const char *path, uint64_t offset,
                                             void *dst, size_t len, size_t *n_read, hudi_error *err);

/* Like hudi_storage_read, but a short read is HUDI_ERR_CORRUPT naming the
 * path, the offset and how many bytes were there: for callers that know the
 * object must be at least offset + len bytes long (a footer, a block whose
 * size an index recorded). */
HUDI_NODISCARD hudi_status hudi_storage_read_exact(hudi_storage *s, const char *path,
                                                   uint64_t offset, void *dst, size_t len,
                                                   hudi_error *err);

/* Appends up to len bytes read at offset to out (whose cap bounds them);
 * *n_read as for hudi_storage_read. n_read may be NULL, which makes a short
 * read HUDI_ERR_CORRUPT as in hudi_storage_read_exact. */
HUDI_NODISCARD hudi_status hudi_storage_read_buf(hudi_storage *s, const char *path, uint64_t offset,
                                                 size_t len, hudi_buf *out, size_t *n_read,
                                                 hudi_error *err);

/* Appends the whole object to out. An object larger than max_size bytes (or
 * than out's own cap) is HUDI_ERR_LIMIT naming the path and its size; out
 * is then left as it was. */
HUDI_NODISCARD hudi_status hudi_storage_read_all(hudi_storage *s, const char *path, size_t max_size,
                                                 hudi_buf *out, hudi_error *err);

/* A file held for many ranged reads (an HFile's index and data blocks).
 * On local storage one descriptor serves them all: an open and a close
 * around every read were ~12% of the CPU of a 10k-key upsert's
 * record-index lookup. Other backends read each range through
 * hudi_storage_read (with its read-ahead and request cache). Nothing is
 * opened until the first read; a missing file is reported there, as
 * hudi_storage_read reports it. A local file deleted or replaced while
 * held keeps being read as it was when first read. One thread at a time
 * per hudi_storage_file; s must outlive it. */
typedef struct hudi_storage_file hudi_storage_file;
HUDI_NODISCARD hudi_status hudi_storage_file_open(hudi_storage *s, const char *path, hudi_storage_file **out,
                                                  hudi_error *err);
/* As hudi_storage_read_exact, on the held file. */
HUDI_NODISCARD hudi_status hudi_storage_file_read_exact(hudi_storage_file *f, uint64_t offset, void *dst,
                                                        size_t len, hudi_error *err);
void hudi_storage_file_close(hudi_storage_file *f);

typedef struct hudi_file_stat {
  uint64_t size;    /* bytes; 0 for directories */
  int64_t mtime_ms; /* last modification, milliseconds since the Unix epoch */
  bool is_dir;      /* a directory (object stores: a prefix with objects under it) */
} hudi_file_stat;

/* Size, mtime and kind of path; HUDI_ERR_NOT_FOUND when absent. The empty
 * path "" is the base itself. */
HUDI_NODISCARD hudi_status hudi_storage_stat(hudi_storage *s, const char *path, hudi_file_stat *out,
                                             hudi_error *err);

/* *exists = whether path names a file or directory; other failures are
 * reported as errors, never as "absent". */
HUDI_NODISCARD hudi_status hudi_storage_exists(hudi_storage *s, const char *path, bool *exists,
                                               hudi_error *err);

/* ---- writes --------------------------------------------------------- */

enum {
  /* Create the object only if nothing is at path yet: HUDI_ERR_EXISTS
   * otherwise. Still atomic: a reader sees no object or all of it. Exactly
   * one of several racing writers succeeds. This is how a timeline instant
   * is completed at most once. */
  HUDI_WRITE_IF_ABSENT = 1u << 0,
  /* Write in place, without the temporary object and rename: a crash or
   * error mid-write can leave a partial object at path. Only for files that
   * no reader can be looking at yet (and that a failed writer's rollback
   * deletes). Object stores ignore it: their PUT is atomic anyway. Cannot be
   * combined with HUDI_WRITE_IF_ABSENT. */
  HUDI_WRITE_DIRECT = 1u << 1,
  /* Durable at the sync of the write group this thread has open on this
   * storage (hudi_storage_group_begin below) rather than before the write
   * returns; readers see the object at once either way. Without an open
   * group, or on a backend whose writes are durable when they return
   * (object stores), it changes nothing. Only with HUDI_WRITE_DIRECT or
   * HUDI_WRITE_IF_ABSENT: a grouped write creates an object and never
   * replaces one, so a crash before the sync loses only objects that are
   * new (and that the commit writing them never got to list). */
  HUDI_WRITE_GROUPED = 1u << 2
};

/* Writes the whole object: creates it or replaces it. By default atomic: a
 * reader sees either the previous object (or none) or all of the new bytes,
 * never a prefix (local: a temporary file in the same directory, fsync,
 * rename). Missing parent directories are created. flags: HUDI_WRITE_*. */
HUDI_NODISCARD hudi_status hudi_storage_write(hudi_storage *s, const char *path, const void *data,
                                              size_t len, unsigned flags, hudi_error *err);

/* hudi_storage_write(s, path, data, len, HUDI_WRITE_IF_ABSENT, err). */
HUDI_NODISCARD hudi_status hudi_storage_write_if_absent(hudi_storage *s, const char *path,
                                                        const void *data, size_t len,
                                                        hudi_error *err);

/* ---- write groups (group commit) -------------------------------------- */

/* A commit writes one file per file group it touches (and a marker before
 * each), all of which must be durable before the commit is listed in the
 * metadata table and completes, but none of which needs to be durable on
 * its own before that. A write group lets those writes
 * (HUDI_WRITE_GROUPED) skip their own durability step and makes them all
 * durable at hudi_storage_group_sync. On the local backend a write costs
 * two fsyncs (the file, its directory); grouped, the sync fsyncs each file
 * once and each directory holding them (and its ancestors up to the base)
 * once, in one run: the commit's markers share one directory, its log files
 * a few, and files created together share inode-table blocks.
 *
 * A group belongs to the thread that began it (and the threads it lets
 * join) and to one storage; writes from other threads or to other storages
 * are not grouped. One group per thread at a time. */
typedef struct hudi_storage_group hudi_storage_group;

/* Opens a write group on s for this thread. HUDI_ERR_INVALID_ARG when the
 * thread has one open already. */
HUDI_NODISCARD hudi_status hudi_storage_group_begin(hudi_storage *s, hudi_storage_group **out, hudi_error *err);

/* Lets the calling thread (a worker of the group's owner) write into g
 * until hudi_storage_group_leave: its grouped writes on g's storage wait for
 * g's sync. Returns whether it joined: false for a NULL g or when the thread
 * has a group open (its own writes are then synced as usual). The owner
 * syncs only after its workers are done. */
bool hudi_storage_group_join(hudi_storage_group *g);

/* Ends hudi_storage_group_join when joined is its result. */
void hudi_storage_group_leave(hudi_storage_group *g, bool joined);

/* Makes every grouped write of g so far durable (each file, then each
 * directory that holds one and its ancestors, deepest first; up to 8 at a
 * time, on threads of its own). The group stays open: later
 * grouped writes wait for the next sync. On failure every write stays
 * pending (the next sync tries them all again). A NULL group is a no-op. */
HUDI_NODISCARD hudi_status hudi_storage_group_sync(hudi_storage_group *g, hudi_error *err);

/* Grouped writes of g waiting for its sync (0 on backends that do not
 * defer). */
size_t hudi_storage_group_pending(const hudi_storage_group *g);

/* Closes g without syncing what is pending (the caller is failing the
 * commit). NULL is a no-op. */
void hudi_storage_group_end(hudi_storage_group *g);

enum {
  /* Fail with HUDI_ERR_EXISTS instead of replacing an existing destination;
   * the check and the rename are one atomic step. */
  HUDI_RENAME_NO_REPLACE = 1u << 0
};

/* Renames from to to, atomically for a single object: to shows either its
 * old state or from's content. Missing parents of to are created. A missing
 * from is HUDI_ERR_NOT_FOUND. Directories can be renamed on the local
 * backend only (object stores would copy key by key: HUDI_ERR_UNSUPPORTED). */
HUDI_NODISCARD hudi_status hudi_storage_rename(hudi_storage *s, const char *from, const char *to,
                                               unsigned flags, hudi_error *err);

/* Publishes tmp, a file this process wrote outside the storage layer (the
 * Parquet writer streams a local temporary through its own descriptor),
 * as path, durable as a write is: on the local backend tmp is fsynced, then
 * renamed to path (hudi_storage_rename: path's directory fsynced); with a write
 * group open on s in this thread, the rename happens now and path joins the
 * group (file and directory synced at the group's sync). Storage option
 * "fsync" false: the rename alone. Backends without a sync op (writes
 * durable when they return): the rename alone. */
/* Makes path's missing parent directories as a write into path would (on
 * the local backend each one's name durable in its parent; object stores
 * have none to make): for a file written outside the storage layer. */
HUDI_NODISCARD hudi_status hudi_storage_make_parents(hudi_storage *s, const char *path, hudi_error *err);

HUDI_NODISCARD hudi_status hudi_storage_publish(hudi_storage *s, const char *tmp, const char *path,
                                                hudi_error *err);

/* Sets path's modification time to mtime_ms (milliseconds since the Unix
 * epoch) where the backend lets a client choose it (the local file system);
 * HUDI_ERR_UNSUPPORTED on object stores, whose servers stamp objects
 * themselves. For the completed instant files of a version-6 timeline,
 * whose modification time Java reads as the completion time. */
HUDI_NODISCARD hudi_status hudi_storage_set_mtime(hudi_storage *s, const char *path, int64_t mtime_ms,
                                                  hudi_error *err);

enum {
  /* A missing path is success, not HUDI_ERR_NOT_FOUND. */
  HUDI_DELETE_MISSING_OK = 1u << 0,
  /* Delete path and everything under path/ (a marker directory, a failed
   * write's partition files). Without it, a directory is HUDI_ERR_INVALID_ARG. */
  HUDI_DELETE_RECURSIVE = 1u << 1
};

/* Deletes one object, or with HUDI_DELETE_RECURSIVE a whole prefix. The
 * base itself ("") cannot be deleted. On s3:// and gs://, a delete with
 * HUDI_DELETE_MISSING_OK and without HUDI_DELETE_RECURSIVE is one DELETE
 * request with no existence check: a prefix with objects under it is then
 * left as it is instead of being HUDI_ERR_INVALID_ARG. */
HUDI_NODISCARD hudi_status hudi_storage_delete(hudi_storage *s, const char *path, unsigned flags,
                                               hudi_error *err);

/* ---- listing -------------------------------------------------------- */

typedef struct hudi_file_info {
  char *path;       /* relative to the base, '/'-separated, NUL-terminated */
  uint64_t size;    /* bytes; 0 for directories */
  int64_t mtime_ms; /* milliseconds since the Unix epoch */
  bool is_dir;
} hudi_file_info;

/* A listing; owns its entries and their paths. Zero-initialise it
 * (HUDI_FILE_LIST_INIT), free it with hudi_file_list_free. */
typedef struct hudi_file_list {
  hudi_file_info *items;
  size_t count;
  size_t cap;
} hudi_file_list;

#define HUDI_FILE_LIST_INIT {NULL, 0, 0}

void hudi_file_list_free(hudi_file_list *list);

enum {
  /* Every object at any depth below dir (files only: object stores have no
   * directories to report, so neither do we). Without it: the immediate
   * children of dir, files and subdirectories (is_dir). */
  HUDI_LIST_RECURSIVE = 1u << 0,
  /* Also report the temporary objects of in-flight (or crashed) atomic
   * writes, which listings hide by default; see hudi_storage_is_temp_name. */
  HUDI_LIST_INCLUDE_TEMP = 1u << 1
};

/* Lists the entries under the directory (prefix) dir ("" = the base) into
 * out, which must be empty; entries are sorted by path, bytewise. A
 * directory that does not exist lists as empty (object stores cannot tell
 * it apart from an empty one). Symbolic links are reported as what they
 * point to; a recursive listing does not descend into linked directories. */
HUDI_NODISCARD hudi_status hudi_storage_list(hudi_storage *s, const char *dir, unsigned flags,
                                             hudi_file_list *out, hudi_error *err);

/* Holds the listings of dirs (at most 4) until the matching
 * hudi_storage_release_listings: on object stores a repeated non-recursive
 * listing of a held directory is answered from the last one, unless a
 * write, rename or delete through this handle touched a path under it
 * since. Only for a caller that guarantees nothing else changes those
 * directories meanwhile (the table layer: its timelines, while it holds
 * the table lock). Holds nest (the outermost one's dirs count); local
 * storage ignores them. See io/objcache.h, which also describes the cache
 * of immutable objects read whole ("request_cache" = "false" turns both
 * off). */
HUDI_NODISCARD hudi_status hudi_storage_hold_listings(hudi_storage *s, const char *const *dirs,
                                                      size_t n_dirs, hudi_error *err);
void hudi_storage_release_listings(hudi_storage *s);

/* Drops what the object-store backends keep of immutable Hudi files (stats
 * and small objects; io/objcache.h). The table layer calls it whenever it
 * loads a timeline, so that what is kept lives for one view of the table:
 * another writer may delete such a file (a rollback) and a later one write
 * the same name again. No-op on local storage. */
void hudi_storage_forget_objects(hudi_storage *s);

/* True for the names (last path component) the atomic write path gives its
 * temporary objects: ".<name>.<unique>.hudi-tmp". Hudi's own file names
 * (base files, ".<id>_<instant>.log.<n>_<token>" log files, timeline
 * instants) never end in ".hudi-tmp". */
bool hudi_storage_is_temp_name(const char *name);

#endif

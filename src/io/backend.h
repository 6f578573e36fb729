/* For storage backends only: the vtable behind hudi_storage, the scheme
 * registry and helpers a backend needs. Other layers include io/storage.h.
 *
 * The dispatch functions in storage.c validate flags and normalise paths
 * before calling a backend, so every backend receives relative, normalised
 * paths ("a/b/c", or "" for the base) and known flag bits only. */
#ifndef HUDI_IO_BACKEND_H
#define HUDI_IO_BACKEND_H

#include "io/storage.h"

/* How an object store maps onto these operations (for the later s3/gs/az
 * backends): read = GET with a Range header (416 -> *n_read 0); stat = HEAD,
 * falling back to a one-key listing of "path/" to report a prefix as a
 * directory; write = PUT (atomic by nature, HUDI_WRITE_DIRECT changes
 * nothing); HUDI_WRITE_IF_ABSENT = conditional PUT (S3 "If-None-Match: *",
 * GCS ifGenerationMatch=0, Azure "If-None-Match: *"), 412 -> HUDI_ERR_EXISTS;
 * rename = copy + delete of one object (NO_REPLACE: conditional copy),
 * directories -> HUDI_ERR_UNSUPPORTED; list = ListObjects with prefix
 * "dir/" (delimiter "/" unless recursive) paging on continuation tokens
 * inside the backend's list; remove = DELETE, recursive = list + batch
 * delete. */
typedef struct hudi_storage_vtable {
  const char *name; /* "local", "faulty", later "s3", ... */
  /* Reads up to len bytes at offset; *n_read < len only at end of object. */
  hudi_status (*read)(hudi_storage *s, const char *path, uint64_t offset, void *dst, size_t len,
                      size_t *n_read, hudi_error *err);
  /* Appends the whole object to out, at most max_size bytes (else
   * HUDI_ERR_LIMIT, out->len unchanged). NULL: storage.c uses stat + read. */
  hudi_status (*read_all)(hudi_storage *s, const char *path, size_t max_size, hudi_buf *out,
                          hudi_error *err);
  hudi_status (*stat)(hudi_storage *s, const char *path, hudi_file_stat *out, hudi_error *err);
  /* flags: HUDI_WRITE_*; len bytes of data (data may be NULL when len is 0). */
  hudi_status (*write)(hudi_storage *s, const char *path, const void *data, size_t len,
                       unsigned flags, hudi_error *err);
  hudi_status (*rename)(hudi_storage *s, const char *from, const char *to, unsigned flags,
                        hudi_error *err);
  /* Appends entries to out in any order (storage.c sorts them). An object
   * store pages through its listing here. */
  hudi_status (*list)(hudi_storage *s, const char *dir, unsigned flags, hudi_file_list *out,
                      hudi_error *err);
  hudi_status (*remove)(hudi_storage *s, const char *path, unsigned flags, hudi_error *err);
  /* Frees the backend's state, including the struct that embeds hudi_storage. */
  void (*destroy)(hudi_storage *s);
  /* Optional (NULL: a held file's reads go through read): opens path once
   * for the many ranged reads of a hudi_storage_file (*handle is the
   * backend's), reads through it as read does, and closes it. */
  hudi_status (*hold)(hudi_storage *s, const char *path, void **handle, hudi_error *err);
  hudi_status (*held_read)(hudi_storage *s, void *handle, uint64_t offset, void *dst, size_t len, size_t *n_read,
                           hudi_error *err);
  void (*release)(hudi_storage *s, void *handle);
  /* Optional (NULL: writes are durable when they return, and write groups
   * defer nothing): makes path, a file or a directory ("" is the base),
   * durable. With it, write receives HUDI_WRITE_UNSYNCED_ for grouped
   * writes and then leaves the object and its directory to this call.
   * Called from several threads at once (a group's sync, group.c). */
  hudi_status (*sync)(hudi_storage *s, const char *path, hudi_error *err);
  /* Optional (NULL: no directories to make): makes path's missing parent
   * directories as a write into path would. */
  hudi_status (*make_parents)(hudi_storage *s, const char *path, hudi_error *err);
  /* Optional (NULL: the store keeps its own modification times, as object
   * stores do): sets path's modification time to mtime_ms. */
  hudi_status (*set_mtime)(hudi_storage *s, const char *path, int64_t mtime_ms, hudi_error *err);
} hudi_storage_vtable;

/* Write flag storage.c passes to a backend with sync for a grouped write
 * (storage.h, write groups): skip making this write durable; sync is called
 * for the path and its directories later. Only with HUDI_WRITE_DIRECT or
 * HUDI_WRITE_IF_ABSENT. */
#define HUDI_WRITE_UNSYNCED_ (1u << 31)

/* Every backend embeds this as its first member. */
struct hudi_storage {
  const hudi_storage_vtable *vtable;
  char *base; /* owned by the backend; freed by its destroy */
  /* Sequential read-ahead (io/readahead.h), set by object-store backends
   * at open; NULL: reads go straight to the backend. Owned and freed by
   * storage.c. */
  struct hudi_readahead *readahead;
  /* Immutable objects and held timeline listings (io/objcache.h), set by
   * object-store backends at open; NULL: none. Owned and freed by
   * storage.c. */
  struct hudi_objcache *objcache;
};

/* Opens a backend for uri (the whole string the caller gave). */
typedef hudi_status (*hudi_storage_open_fn)(hudi_storage **out, const char *uri,
                                            const hudi_storage_option *options, size_t n_options,
                                            hudi_error *err);

/* Makes scheme (lower case, e.g. "s3") served by open_fn. HUDI_ERR_EXISTS
 * when the scheme is already served. Thread-safe; the registry lives for the
 * process. "file" (and plain paths) are built in. */
HUDI_NODISCARD hudi_status hudi_storage_register(const char *scheme, hudi_storage_open_fn open_fn,
                                                 hudi_error *err);

/* The fsyncs a local storage has made since it was opened (tests: what
 * write groups save); 0 for other backends. */
uint64_t hudi_local_storage_fsyncs(const hudi_storage *s);

/* The local backend's open, exposed so the registry (and tests) can name it. */
HUDI_NODISCARD hudi_status hudi_local_storage_open(hudi_storage **out, const char *uri,
                                                   const hudi_storage_option *options,
                                                   size_t n_options, hudi_error *err);

/* The value of key in options (last one wins), or NULL. */
const char *hudi_storage_option_get(const hudi_storage_option *options, size_t n_options,
                                    const char *key);

/* Parses a boolean option value ("true"/"false"/"1"/"0", any case). */
HUDI_NODISCARD hudi_status hudi_storage_option_bool(const hudi_storage_option *options,
                                                    size_t n_options, const char *key, bool dflt,
                                                    bool *out, hudi_error *err);

/* Appends an entry (path copied from path[0..path_len)) to list. */
HUDI_NODISCARD hudi_status hudi_file_list_push(hudi_file_list *list, const char *path,
                                               size_t path_len, uint64_t size, int64_t mtime_ms,
                                               bool is_dir, hudi_error *err);

/* Normalises a relative path as described in storage.h into *out (owned by
 * the caller, hudi_free). */
HUDI_NODISCARD hudi_status hudi_path_normalize(char **out, const char *path, hudi_error *err);

/* Normalises an absolute local path in place: collapses "//", drops "."
 * and resolves ".." lexically ("/.." stays "/"); no trailing slash except
 * for "/" itself. path must start with '/'. */
void hudi_path_normalize_abs(char *path);

/* A fresh temporary sibling of path, ".<name>.<pid>-<n>.hudi-tmp" in the
 * same directory (so a rename onto path stays within one file system). The
 * name part is shortened so the result stays under NAME_MAX. */
HUDI_NODISCARD hudi_status hudi_path_temp_sibling(char **out, const char *path, hudi_error *err);

#endif

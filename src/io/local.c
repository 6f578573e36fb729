/* The local file system backend (POSIX). Atomic writes go to a temporary
 * sibling that is fsynced and then renamed (or linked, for write-if-absent)
 * over the target, so a reader never sees a prefix of an object. Every
 * system call that can be interrupted is retried on EINTR; every error
 * names the path and the errno text. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__linux__)
#  include <sys/syscall.h>
#endif

#include "base/alloc.h"
#include "io/backend.h"

typedef struct local_storage {
  hudi_storage base; /* base.base: absolute, normalised, no trailing '/' except "/" */
  bool fsync;        /* option "fsync": make writes durable before reporting them */
  atomic_uint_fast64_t fsyncs; /* made so far (hudi_local_storage_fsyncs) */
} local_storage;

/* How many fresh temporary names to try when one is taken (another process
 * with our pid on a shared file system, or a leftover of a crash). */
#define TEMP_ATTEMPTS 16
#define READ_CHUNK ((size_t)1 << 30)

/* ---- errors --------------------------------------------------------- */

static hudi_status errno_status(int e) {
  switch (e) {
    case ENOENT:
    case ENOTDIR: return HUDI_ERR_NOT_FOUND;
    case EEXIST: return HUDI_ERR_EXISTS;
    case ENOMEM: return HUDI_ERR_NOMEM;
    case ENAMETOOLONG:
    case EISDIR:
    case EINVAL: return HUDI_ERR_INVALID_ARG;
    default: return HUDI_ERR_IO;
  }
}

static hudi_status sys_err(hudi_error *err, int e, const char *op, const char *path) {
  char msg[256];
  /* XSI strerror_r: the GNU variant is not selected (no _GNU_SOURCE). */
  if (strerror_r(e, msg, sizeof msg) != 0) snprintf(msg, sizeof msg, "errno %d", e);
  return hudi_err_set(err, errno_status(e), "%s '%s': %s", op, path, msg);
}

/* ---- EINTR-safe system calls ----------------------------------------- */

static int open_retry(const char *path, int flags, mode_t mode) {
  int fd;
  do fd = open(path, flags | O_CLOEXEC, mode);
  while (fd < 0 && errno == EINTR);
  return fd;
}

/* Reads until len bytes or end of file; returns 0 or an errno. */
static int pread_full(int fd, void *dst, size_t len, uint64_t offset, size_t *got) {
  *got = 0;
  while (*got < len) {
    size_t want = len - *got < READ_CHUNK ? len - *got : READ_CHUNK;
    ssize_t r = pread(fd, (char *)dst + *got, want, (off_t)(offset + *got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (r == 0) break;
    *got += (size_t)r;
  }
  return 0;
}

static int write_full(int fd, const void *src, size_t len) {
  size_t done = 0;
  while (done < len) {
    size_t want = len - done < READ_CHUNK ? len - done : READ_CHUNK;
    ssize_t r = write(fd, (const char *)src + done, want);
    if (r < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (r == 0) return EIO;
    done += (size_t)r;
  }
  return 0;
}

static int fsync_retry(int fd) {
  int r;
  do r = fsync(fd);
  while (r != 0 && errno == EINTR);
  return r == 0 ? 0 : errno;
}

static int counted_fsync(local_storage *ls, int fd) {
  atomic_fetch_add_explicit(&ls->fsyncs, 1, memory_order_relaxed);
  return fsync_retry(fd);
}

/* close(2) is not retried: on Linux the descriptor is gone even on EINTR. */
static int close_checked(int fd) { return close(fd) == 0 || errno == EINTR ? 0 : errno; }

/* ---- paths ---------------------------------------------------------- */

static local_storage *as_local(hudi_storage *s) { return (local_storage *)s; }

/* base + "/" + rel (rel "" gives the base). */
static hudi_status full_path(char **out, const local_storage *ls, const char *rel, hudi_error *err) {
  const char *base = ls->base.base;
  size_t bn = strlen(base), rn = strlen(rel);
  if (bn == 1) bn = 0; /* base "/": avoid "//x" */
  char *p = hudi_malloc(bn + 1 + rn + 1);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory joining '%s' and '%s'", base, rel);
  memcpy(p, base, bn);
  p[bn] = '/';
  memcpy(p + bn + 1, rel, rn + 1);
  if (rn == 0 && bn > 0) p[bn] = '\0';
  *out = p;
  return HUDI_OK;
}

/* Runs fn on the directory part of path (temporarily cut at the last '/'). */
static int with_parent(char *path, int (*fn)(char *dir)) {
  char *slash = strrchr(path, '/');
  if (!slash) return ENOENT;
  if (slash == path) return fn("/");
  *slash = '\0';
  int r = fn(path);
  *slash = '/';
  return r;
}

/* Opens path (flags added to O_RDONLY), fsyncs and closes it. Returns 0
 * or errno. */
static int fsync_path(const char *path, int flags) {
  int fd = open_retry(path, O_RDONLY | O_CLOEXEC | flags, 0);
  if (fd < 0) return errno;
  int r = fsync_retry(fd);
  close(fd);
  /* Some file systems cannot fsync a directory; nothing more to do there. */
  return r == EINVAL ? 0 : r;
}

static int fsync_dir(char *dir) { return fsync_path(dir, O_DIRECTORY); }

/* fsyncs path's directory when ls has fsync on (ls NULL: nothing to do).
 * Returns 0 or errno. */
static int fsync_parent(local_storage *ls, char *path) {
  if (!ls || !ls->fsync) return 0;
  atomic_fetch_add_explicit(&ls->fsyncs, 1, memory_order_relaxed);
  return with_parent(path, fsync_dir);
}

/* Makes a rename or link into path's directory durable. */
static hudi_status sync_parent(local_storage *ls, char *path, hudi_error *err) {
  int e = fsync_parent(ls, path);
  return e ? sys_err(err, e, "fsync directory of", path) : HUDI_OK;
}


/* mkdir -p: tries the directory itself first, so existing ancestors (which
 * we may not be allowed to write) are never touched. Each directory made
 * has its parent fsynced, so its name is durable before anything in it is
 * (on a file system without a journal a new directory's entry is otherwise
 * written back whenever, and a file fsynced in it can be lost with it); ls
 * NULL: a grouped write, whose directories the group's sync makes durable.
 * Returns 0 or errno. */
static int mkdirs(local_storage *ls, char *dir) {
  if (mkdir(dir, 0777) == 0) return fsync_parent(ls, dir);
  if (errno == EEXIST) return 0;
  if (errno != ENOENT) return errno;
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir) return ENOENT;
  *slash = '\0';
  int r = mkdirs(ls, dir);
  *slash = '/';
  if (r != 0) return r;
  if (mkdir(dir, 0777) == 0) return fsync_parent(ls, dir);
  /* A racing writer may have made it meanwhile: EEXIST is success. */
  return errno == EEXIST ? 0 : errno;
}

/* mkdirs of path's directory. */
static int mkdirs_of(local_storage *ls, char *path) {
  char *slash = strrchr(path, '/');
  if (!slash) return ENOENT;
  if (slash == path) return 0; /* "/" */
  *slash = '\0';
  int r = mkdirs(ls, path);
  *slash = '/';
  return r;
}

/* rename(2) that fails with EEXIST instead of replacing: link(2) then
 * unlink(2) (link never replaces), and where link cannot work (a
 * directory, a file system without hard links) Linux's renameat2
 * RENAME_NOREPLACE. Either way the existence check and the creation are one
 * atomic step. Returns 0 or errno. */
static int rename_noreplace(const char *from, const char *to) {
  if (link(from, to) == 0) {
    /* to is complete; a leftover from would only be a stray second name. */
    unlink(from);
    return 0;
  }
  int e = errno;
#if defined(__linux__) && defined(SYS_renameat2)
  if (e == EPERM || e == EMLINK || e == ENOTSUP || e == EOPNOTSUPP || e == ENOSYS) {
    if (syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u /* RENAME_NOREPLACE */) == 0)
      return 0;
    return errno;
  }
#endif
  return e;
}

/* ---- reads ---------------------------------------------------------- */

/* Reads up to len bytes at offset from fd, opened on full. */
static hudi_status read_at(int fd, const char *full, uint64_t offset, void *dst, size_t len, size_t *n_read,
                           hudi_error *err) {
  int e = pread_full(fd, dst, len, offset, n_read);
  if (e == EISDIR) return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "read '%s': is a directory", full);
  return e ? sys_err(err, e, "read", full) : HUDI_OK;
}

static hudi_status local_read(hudi_storage *s, const char *path, uint64_t offset, void *dst,
                              size_t len, size_t *n_read, hudi_error *err) {
  char *full;
  HUDI_TRY(full_path(&full, as_local(s), path, err));
  hudi_status st;
  int fd = open_retry(full, O_RDONLY, 0);
  if (fd < 0) {
    st = sys_err(err, errno, "read", full);
  } else {
    st = read_at(fd, full, offset, dst, len, n_read, err);
    close(fd);
  }
  hudi_free(full);
  return st;
}

/* A held file (hudi_storage_file): its descriptor, and its full path for
 * error messages. */
typedef struct local_held {
  int fd;
  char *full;
} local_held;

static hudi_status local_hold(hudi_storage *s, const char *path, void **handle, hudi_error *err) {
  local_held *h = hudi_calloc(1, sizeof *h);
  if (!h) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening '%s'", path);
  hudi_status st = full_path(&h->full, as_local(s), path, err);
  if (st == HUDI_OK && (h->fd = open_retry(h->full, O_RDONLY, 0)) < 0) st = sys_err(err, errno, "read", h->full);
  if (st != HUDI_OK) {
    hudi_free(h->full);
    hudi_free(h);
    return st;
  }
  *handle = h;
  return HUDI_OK;
}

static hudi_status local_held_read(hudi_storage *s, void *handle, uint64_t offset, void *dst, size_t len,
                                   size_t *n_read, hudi_error *err) {
  (void)s;
  local_held *h = handle;
  return read_at(h->fd, h->full, offset, dst, len, n_read, err);
}

static void local_release(hudi_storage *s, void *handle) {
  (void)s;
  local_held *h = handle;
  close(h->fd);
  hudi_free(h->full);
  hudi_free(h);
}

/* Reads the rest of fd past out's current end in chunks, for a file that
 * grew after fstat; over max_total bytes in all is HUDI_ERR_LIMIT. */
static hudi_status read_tail(int fd, const char *full, size_t start_len, size_t max_total,
                             hudi_buf *out, hudi_error *err) {
  uint8_t chunk[16384];
  for (;;) {
    size_t have = out->len - start_len, got;
    int e = pread_full(fd, chunk, sizeof chunk, have, &got);
    if (e) return sys_err(err, e, "read", full);
    if (got == 0) return HUDI_OK;
    if (got > max_total - have)
      return hudi_err_set(err, HUDI_ERR_LIMIT, "'%s' grew past the cap of %zu bytes while being read",
                          full, max_total);
    HUDI_TRY(hudi_buf_append(out, chunk, got, err));
  }
}

static hudi_status read_all_fd(int fd, const char *full, size_t max_size, hudi_buf *out,
                               hudi_error *err) {
  struct stat st;
  if (fstat(fd, &st) != 0) return sys_err(err, errno, "stat", full);
  if (S_ISDIR(st.st_mode))
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "read '%s': is a directory", full);
  if ((uint64_t)st.st_size > max_size)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "'%s' is %llu bytes, over the cap of %zu", full,
                        (unsigned long long)st.st_size, max_size);
  size_t size = (size_t)st.st_size, start = out->len, got;
  HUDI_TRY(hudi_buf_reserve(out, size, err));
  int e = pread_full(fd, out->data + start, size, 0, &got);
  if (e) return sys_err(err, e, "read", full);
  out->len += got;
  /* got < size: the file shrank (only a direct writer can do that); what we
   * read ends at its end. got == size: it may have grown, read on. */
  return got < size ? HUDI_OK : read_tail(fd, full, start, max_size, out, err);
}

static hudi_status local_read_all(hudi_storage *s, const char *path, size_t max_size, hudi_buf *out,
                                  hudi_error *err) {
  char *full;
  HUDI_TRY(full_path(&full, as_local(s), path, err));
  hudi_status st;
  int fd = open_retry(full, O_RDONLY, 0);
  if (fd < 0) {
    st = sys_err(err, errno, "read", full);
  } else {
    size_t before = out->len;
    st = read_all_fd(fd, full, max_size, out, err);
    if (st != HUDI_OK) out->len = before;
    close(fd);
  }
  hudi_free(full);
  return st;
}

static int64_t mtime_ms(const struct stat *st) {
#if defined(__APPLE__)
  return (int64_t)st->st_mtimespec.tv_sec * 1000 + st->st_mtimespec.tv_nsec / 1000000;
#else
  return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
#endif
}

static hudi_status local_stat(hudi_storage *s, const char *path, hudi_file_stat *out,
                              hudi_error *err) {
  char *full;
  HUDI_TRY(full_path(&full, as_local(s), path, err));
  struct stat st;
  hudi_status rc = HUDI_OK;
  if (stat(full, &st) != 0) {
    rc = sys_err(err, errno, "stat", full);
  } else {
    bool dir = S_ISDIR(st.st_mode);
    *out = (hudi_file_stat){dir ? 0 : (uint64_t)st.st_size, mtime_ms(&st), dir};
  }
  hudi_free(full);
  return rc;
}

/* ---- writes --------------------------------------------------------- */

/* Creates path for writing (O_EXCL when exclusive), making missing parent
 * directories (mkdirs: durable with dir_ls). Returns the descriptor or -1
 * with errno set. */
static int create_file(local_storage *dir_ls, char *path, bool exclusive) {
  int flags = O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC);
  int fd = open_retry(path, flags, 0666);
  if (fd < 0 && errno == ENOENT) {
    int e = mkdirs_of(dir_ls, path);
    if (e) {
      errno = e;
      return -1;
    }
    fd = open_retry(path, flags, 0666);
  }
  return fd;
}

/* Writes data to fd, fsyncs it when sync, closes it. */
static hudi_status fill_and_close(local_storage *ls, int fd, const char *path, const void *data, size_t len,
                                  bool sync, hudi_error *err) {
  int e = write_full(fd, data, len);
  if (!e && sync) e = counted_fsync(ls, fd);
  int ce = close_checked(fd);
  if (!e) e = ce;
  return e ? sys_err(err, e, "write", path) : HUDI_OK;
}

/* unsynced: a grouped write (storage.h): the file and its directory are
 * made durable by local_sync later. */
static hudi_status write_direct(local_storage *ls, char *full, const void *data, size_t len, bool unsynced,
                                hudi_error *err) {
  int fd = create_file(unsynced ? NULL : ls, full, false);
  if (fd < 0) return sys_err(err, errno, "write", full);
  HUDI_TRY(fill_and_close(ls, fd, full, data, len, ls->fsync && !unsynced, err));
  return unsynced ? HUDI_OK : sync_parent(ls, full, err);
}

/* Creates a fresh temporary sibling of full; *tmp is owned by the caller. */
static hudi_status open_temp(local_storage *dir_ls, char **tmp, int *fd, char *full, hudi_error *err) {
  for (int attempt = 0; attempt < TEMP_ATTEMPTS; attempt++) {
    HUDI_TRY(hudi_path_temp_sibling(tmp, full, err));
    *fd = create_file(dir_ls, *tmp, true);
    if (*fd >= 0) return HUDI_OK;
    int e = errno;
    if (e != EEXIST) {
      hudi_status st = sys_err(err, e, "create temporary file", *tmp);
      hudi_free(*tmp);
      *tmp = NULL;
      return st;
    }
    hudi_free(*tmp);
    *tmp = NULL;
  }
  return hudi_err_set(err, HUDI_ERR_IO, "write '%s': no free temporary name after %d attempts", full,
                      TEMP_ATTEMPTS);
}

static hudi_status write_atomic(local_storage *ls, char *full, const void *data, size_t len, bool if_absent,
                                bool unsynced, hudi_error *err) {
  char *tmp;
  int fd;
  HUDI_TRY(open_temp(unsynced ? NULL : ls, &tmp, &fd, full, err));
  hudi_status st = fill_and_close(ls, fd, tmp, data, len, ls->fsync && !unsynced, err);
  if (st == HUDI_OK) {
    int e = 0;
    if (if_absent)
      e = rename_noreplace(tmp, full);
    else if (rename(tmp, full) != 0)
      e = errno;
    if (e == EEXIST)
      st = hudi_err_set(err, HUDI_ERR_EXISTS, "write '%s': already exists", full);
    else if (e)
      st = sys_err(err, e, "write", full);
  }
  /* After a successful rename tmp is gone already; after link it is a second
   * name, and after a failure a stray file: remove it either way. */
  if (st != HUDI_OK || if_absent) unlink(tmp);
  hudi_free(tmp);
  if (st == HUDI_OK && !unsynced) st = sync_parent(ls, full, err);
  return st;
}

static hudi_status local_write(hudi_storage *s, const char *path, const void *data, size_t len,
                               unsigned flags, hudi_error *err) {
  local_storage *ls = as_local(s);
  char *full;
  HUDI_TRY(full_path(&full, ls, path, err));
  bool unsynced = (flags & HUDI_WRITE_UNSYNCED_) != 0;
  hudi_status st = (flags & HUDI_WRITE_DIRECT)
                       ? write_direct(ls, full, data, len, unsynced, err)
                       : write_atomic(ls, full, data, len, (flags & HUDI_WRITE_IF_ABSENT) != 0, unsynced, err);
  hudi_free(full);
  return st;
}

static bool same_parent(const char *a, const char *b) {
  size_t an = (size_t)(strrchr(a, '/') - a), bn = (size_t)(strrchr(b, '/') - b);
  return an == bn && memcmp(a, b, an) == 0;
}

static int do_rename(const char *from, const char *to, bool no_replace) {
  if (no_replace) return rename_noreplace(from, to);
  return rename(from, to) == 0 ? 0 : errno;
}

static hudi_status local_rename(hudi_storage *s, const char *from, const char *to, unsigned flags,
                                hudi_error *err) {
  local_storage *ls = as_local(s);
  char *f, *t = NULL;
  HUDI_TRY(full_path(&f, ls, from, err));
  hudi_status st = full_path(&t, ls, to, err);
  bool no_replace = (flags & HUDI_RENAME_NO_REPLACE) != 0;
  if (st == HUDI_OK) {
    int e = do_rename(f, t, no_replace);
    struct stat sb;
    /* ENOENT is either a missing source or a missing destination parent. */
    if (e == ENOENT && lstat(f, &sb) == 0) {
      e = mkdirs_of(ls, t);
      if (!e) e = do_rename(f, t, no_replace);
    }
    if (e == EEXIST && no_replace)
      st = hudi_err_set(err, HUDI_ERR_EXISTS, "rename '%s' to '%s': destination exists", f, t);
    else if (e == ENOENT)
      st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "rename '%s': no such file", f);
    else if (e)
      st = sys_err(err, e, "rename to", t);
  }
  if (st == HUDI_OK) st = sync_parent(ls, t, err);
  /* The source directory lost an entry: make that durable too. */
  if (st == HUDI_OK && !same_parent(f, t)) st = sync_parent(ls, f, err);
  hudi_free(f);
  hudi_free(t);
  return st;
}

/* ---- listing -------------------------------------------------------- */

typedef struct list_ctx {
  unsigned flags;
  hudi_buf rel; /* relative path of the directory being read, NUL-free */
  hudi_file_list *out;
  const char *base;
} list_ctx;

static hudi_status list_dir(list_ctx *c, int dfd, hudi_error *err);

/* Handles one directory entry; rel already ends with its name. */
static hudi_status list_entry(list_ctx *c, int dfd, const char *name, hudi_error *err) {
  const char *rel = (const char *)c->rel.data;
  struct stat st;
  if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? HUDI_OK : sys_err(err, errno, "stat", rel);
  bool is_link = S_ISLNK(st.st_mode);
  if (is_link && fstatat(dfd, name, &st, 0) != 0) /* dangling links are not objects */
    return errno == ENOENT || errno == ELOOP ? HUDI_OK : sys_err(err, errno, "stat", rel);
  if (S_ISREG(st.st_mode))
    return hudi_file_list_push(c->out, rel, c->rel.len, (uint64_t)st.st_size, mtime_ms(&st), false, err);
  if (!S_ISDIR(st.st_mode)) return HUDI_OK; /* fifos, sockets, devices: not objects */
  if (!(c->flags & HUDI_LIST_RECURSIVE))
    return hudi_file_list_push(c->out, rel, c->rel.len, 0, mtime_ms(&st), true, err);
  if (is_link) return HUDI_OK; /* no descent through links: no cycles */
  int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (sub < 0) return errno == ENOENT ? HUDI_OK : sys_err(err, errno, "open directory", rel);
  return list_dir(c, sub, err);
}

/* Lists the directory open as dfd (consumed) into c->out. */
static hudi_status list_dir(list_ctx *c, int dfd, hudi_error *err) {
  DIR *d = fdopendir(dfd);
  if (!d) {
    int e = errno;
    close(dfd);
    return sys_err(err, e, "open directory", c->rel.len ? (const char *)c->rel.data : c->base);
  }
  hudi_status st = HUDI_OK;
  for (;;) {
    errno = 0;
    struct dirent *ent = readdir(d);
    if (!ent) {
      if (errno) st = sys_err(err, errno, "read directory", c->rel.len ? (const char *)c->rel.data : c->base);
      break;
    }
    const char *name = ent->d_name;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
    if (!(c->flags & HUDI_LIST_INCLUDE_TEMP) && hudi_storage_is_temp_name(name)) continue;
    size_t mark = c->rel.len;
    if (mark > 0) st = hudi_buf_append_byte(&c->rel, '/', err);
    if (st == HUDI_OK) st = hudi_buf_append(&c->rel, name, strlen(name) + 1, err);
    if (st == HUDI_OK) {
      c->rel.len--; /* keep the NUL after the bytes, not in them */
      st = list_entry(c, dirfd(d), name, err);
    }
    c->rel.len = mark;
    if (c->rel.data) c->rel.data[mark] = '\0';
    if (st != HUDI_OK) break;
  }
  closedir(d);
  return st;
}

static hudi_status local_list(hudi_storage *s, const char *dir, unsigned flags, hudi_file_list *out,
                              hudi_error *err) {
  char *full;
  HUDI_TRY(full_path(&full, as_local(s), dir, err));
  hudi_status st = HUDI_OK;
  int dfd = open_retry(full, O_RDONLY | O_DIRECTORY, 0);
  if (dfd < 0) {
    /* A missing directory lists as empty, as a prefix with no objects would. */
    if (errno != ENOENT && errno != ENOTDIR) st = sys_err(err, errno, "list", full);
  } else {
    list_ctx c = {flags, {0}, out, full};
    hudi_buf_init(&c.rel, 0);
    st = hudi_buf_append(&c.rel, dir, strlen(dir) + 1, err);
    if (st == HUDI_OK) {
      c.rel.len--;
      st = list_dir(&c, dfd, err);
    } else {
      close(dfd);
    }
    hudi_buf_free(&c.rel);
    if (st != HUDI_OK) hudi_err_context(err, st, "list '%s'", full);
  }
  hudi_free(full);
  return st;
}

/* ---- delete --------------------------------------------------------- */

/* Removes the directory name (relative to parent) and all below it. ENOENT
 * anywhere means a concurrent delete got there first: fine. */
static hudi_status delete_tree(int parent, const char *name, const char *top, hudi_error *err) {
  int dfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return errno == ENOENT ? HUDI_OK : sys_err(err, errno, "delete", top);
  DIR *d = fdopendir(dfd);
  if (!d) {
    int e = errno;
    close(dfd);
    return sys_err(err, e, "delete", top);
  }
  hudi_status st = HUDI_OK;
  for (;;) {
    errno = 0;
    struct dirent *ent = readdir(d);
    if (!ent) {
      if (errno) st = sys_err(err, errno, "read directory under", top);
      break;
    }
    const char *child = ent->d_name;
    if (strcmp(child, ".") == 0 || strcmp(child, "..") == 0) continue;
    struct stat sb;
    if (fstatat(dirfd(d), child, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      st = sys_err(err, errno, "delete under", top);
      break;
    }
    if (S_ISDIR(sb.st_mode)) {
      st = delete_tree(dirfd(d), child, top, err);
    } else if (unlinkat(dirfd(d), child, 0) != 0 && errno != ENOENT) {
      st = sys_err(err, errno, "delete under", top);
    }
    if (st != HUDI_OK) break;
  }
  closedir(d);
  if (st == HUDI_OK && unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
    st = sys_err(err, errno, "delete directory under", top);
  return st;
}

static hudi_status local_remove(hudi_storage *s, const char *path, unsigned flags, hudi_error *err) {
  char *full;
  HUDI_TRY(full_path(&full, as_local(s), path, err));
  hudi_status st = HUDI_OK;
  struct stat sb;
  bool missing_ok = (flags & HUDI_DELETE_MISSING_OK) != 0;
  if (lstat(full, &sb) != 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      st = sys_err(err, errno, "delete", full);
    else if (!missing_ok)
      st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "delete '%s': no such file", full);
  } else if (S_ISDIR(sb.st_mode)) {
    if (!(flags & HUDI_DELETE_RECURSIVE))
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "delete '%s': is a directory (pass HUDI_DELETE_RECURSIVE)", full);
    else
      st = delete_tree(AT_FDCWD, full, full, err);
  } else if (unlink(full) != 0) {
    if (errno != ENOENT)
      st = sys_err(err, errno, "delete", full);
    else if (!missing_ok)
      st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "delete '%s': no such file", full);
  }
  hudi_free(full);
  return st;
}

/* ---- write groups (storage.h) ----------------------------------------- */

/* Makes a file or directory durable: the sync of a write group. */
static hudi_status local_sync(hudi_storage *s, const char *path, hudi_error *err) {
  local_storage *ls = as_local(s);
  if (!ls->fsync) return HUDI_OK;
  char *full;
  HUDI_TRY(full_path(&full, ls, path, err));
  atomic_fetch_add_explicit(&ls->fsyncs, 1, memory_order_relaxed);
  int e = fsync_path(full, 0);
  hudi_status st = e ? sys_err(err, e, "fsync", full) : HUDI_OK;
  hudi_free(full);
  return st;
}

bool hudi_local_storage_syncs(const hudi_storage *s) {
  return s && s->vtable->sync == local_sync && ((const local_storage *)s)->fsync;
}

static hudi_status local_make_parents(hudi_storage *s, const char *path, hudi_error *err) {
  local_storage *ls = as_local(s);
  char *full;
  HUDI_TRY(full_path(&full, ls, path, err));
  int e = mkdirs_of(ls, full);
  hudi_status st = e ? sys_err(err, e, "create directories of", full) : HUDI_OK;
  hudi_free(full);
  return st;
}

static hudi_status local_set_mtime(hudi_storage *s, const char *path, int64_t mtime_ms, hudi_error *err) {
  char *full;
  HUDI_TRY(full_path(&full, as_local(s), path, err));
  /* floor division: a time before 1970 still gets nanoseconds in [0, 1e9) */
  int64_t sec = mtime_ms / 1000 - (mtime_ms % 1000 < 0);
  struct timespec ts[2] = {{0, UTIME_OMIT}, {(time_t)sec, (long)(mtime_ms - sec * 1000) * 1000000L}};
  hudi_status st = utimensat(AT_FDCWD, full, ts, 0) == 0 ? HUDI_OK : sys_err(err, errno, "set the mtime of", full);
  hudi_free(full);
  return st;
}

uint64_t hudi_local_storage_fsyncs(const hudi_storage *s) {
  if (!s || s->vtable->sync != local_sync) return 0;
  return atomic_load_explicit(&((const local_storage *)s)->fsyncs, memory_order_relaxed);
}

/* ---- open / free ---------------------------------------------------- */

static void local_destroy(hudi_storage *s) {
  hudi_free(s->base);
  hudi_free(s);
}

static const hudi_storage_vtable local_vtable = {
    "local",      local_read,   local_read_all, local_stat, local_write, local_rename, local_list,
    local_remove, local_destroy, local_hold,     local_held_read, local_release, local_sync, local_make_parents,
    local_set_mtime,
};

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes %XX escapes in place (RFC 8089 file URIs). */
static bool percent_decode(char *s) {
  char *w = s;
  for (const char *r = s; *r; r++) {
    if (*r != '%') {
      *w++ = *r;
      continue;
    }
    int hi = hex_value(r[1]), lo = hi < 0 ? -1 : hex_value(r[2]);
    if (lo < 0 || (hi == 0 && lo == 0)) return false;
    *w++ = (char)(hi * 16 + lo);
    r += 2;
  }
  *w = '\0';
  return true;
}

/* The local path a base URI names, as given (maybe relative); owned by the
 * caller. */
static hudi_status uri_to_path(char **out, const char *uri, hudi_error *err) {
  *out = NULL;
  const char *p = uri;
  bool is_file_uri = strncasecmp(uri, "file:", 5) == 0;
  if (is_file_uri) {
    p = uri + 5;
    if (strncmp(p, "//", 2) == 0) {
      p += 2;
      const char *slash = strchr(p, '/');
      size_t host = slash ? (size_t)(slash - p) : strlen(p);
      if (host != 0 && !(host == 9 && strncasecmp(p, "localhost", 9) == 0))
        return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "file URI '%s' names host '%.*s'; only local files are supported",
                            uri, (int)host, p);
      p += host;
    }
    if (p[0] != '/')
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "file URI '%s' has no absolute path", uri);
  }
  char *path = hudi_strdup(p);
  if (!path) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening '%s'", uri);
  if (is_file_uri && !percent_decode(path)) {
    hudi_free(path);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "file URI '%s' has a bad %%-escape", uri);
  }
  *out = path;
  return HUDI_OK;
}

/* Makes path absolute against the current directory, so a later chdir
 * cannot move the table. Takes ownership of path. */
static hudi_status absolutize(char **path, hudi_error *err) {
  if ((*path)[0] == '/') return HUDI_OK;
  size_t cap = 256;
  for (;;) {
    char *cwd = hudi_malloc(cap + 1 + strlen(*path) + 1);
    if (!cwd) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory resolving '%s'", *path);
    if (getcwd(cwd, cap)) {
      size_t n = strlen(cwd);
      cwd[n] = '/';
      strcpy(cwd + n + 1, *path);
      hudi_free(*path);
      *path = cwd;
      return HUDI_OK;
    }
    int e = errno;
    hudi_free(cwd);
    if (e != ERANGE || cap > ((size_t)1 << 20)) return sys_err(err, e, "resolve relative path", *path);
    cap *= 2;
  }
}

hudi_status hudi_local_storage_open(hudi_storage **out, const char *uri,
                                    const hudi_storage_option *options, size_t n_options,
                                    hudi_error *err) {
  *out = NULL;
  bool do_fsync;
  HUDI_TRY(hudi_storage_option_bool(options, n_options, "fsync", true, &do_fsync, err));
  char *path;
  HUDI_TRY(uri_to_path(&path, uri, err));
  hudi_status st = absolutize(&path, err);
  if (st != HUDI_OK) {
    hudi_free(path);
    return st;
  }
  hudi_path_normalize_abs(path);
  local_storage *ls = hudi_calloc(1, sizeof *ls);
  if (!ls) {
    hudi_free(path);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening '%s'", uri);
  }
  ls->base.vtable = &local_vtable;
  ls->base.base = path;
  ls->fsync = do_fsync;
  *out = &ls->base;
  return HUDI_OK;
}

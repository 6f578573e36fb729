/* Helpers for the io tests. They use plain POSIX calls, not the storage
 * layer, so they are an independent check of what the storage did. */
#ifndef HUDI_TEST_IO_TEST_H
#define HUDI_TEST_IO_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh directory under $TMPDIR (or /tmp); the caller frees the string
 * after io_rm_rf. */
static inline char *io_make_temp_dir(void) {
  const char *tmp = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof tmpl, "%s/hudi-io-test-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  char *dir = mkdtemp(tmpl);
  if (!dir) {
    perror("mkdtemp");
    abort();
  }
  return strdup(dir);
}

/* rm -rf path; returns 0 when nothing is left. */
static inline int io_rm_rf(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  DIR *d = opendir(path);
  if (!d) return -1;
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char child[4096];
    int n = snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    if (n < 0 || (size_t)n >= sizeof child || io_rm_rf(child) != 0) rc = -1;
  }
  closedir(d);
  return rmdir(path) == 0 ? rc : -1;
}

/* dir + "/" + rel into a static-free buffer the caller provides. */
static inline const char *io_join(char *buf, size_t cap, const char *dir, const char *rel) {
  snprintf(buf, cap, "%s/%s", dir, rel);
  return buf;
}

/* Writes a file with POSIX calls, creating no directories. */
static inline void io_put(const char *dir, const char *rel, const void *data, size_t len) {
  char p[4096];
  io_join(p, sizeof p, dir, rel);
  FILE *f = fopen(p, "wb");
  if (!f) {
    perror(p);
    abort();
  }
  if (len && fwrite(data, 1, len, f) != len) abort();
  fclose(f);
}

static inline void io_mkdir(const char *dir, const char *rel) {
  char p[4096];
  if (mkdir(io_join(p, sizeof p, dir, rel), 0777) != 0 && errno != EEXIST) abort();
}

/* Reads a whole file with POSIX calls into a malloc'ed buffer; NULL (and
 * *len 0) when it does not exist. */
static inline char *io_get(const char *dir, const char *rel, size_t *len) {
  char p[4096];
  io_join(p, sizeof p, dir, rel);
  *len = 0;
  FILE *f = fopen(p, "rb");
  if (!f) return NULL;
  size_t cap = 1024, n = 0;
  char *buf = malloc(cap);
  size_t r;
  while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  *len = n;
  return buf;
}

/* True when rel exists under dir (lstat). */
static inline int io_exists(const char *dir, const char *rel) {
  char p[4096];
  struct stat st;
  return lstat(io_join(p, sizeof p, dir, rel), &st) == 0;
}

/* Number of entries directly in dir/rel whose names end in ".hudi-tmp". */
static inline int io_count_temp(const char *dir, const char *rel) {
  char p[4096];
  DIR *d = opendir(io_join(p, sizeof p, dir, rel));
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l > 9 && !strcmp(e->d_name + l - 9, ".hudi-tmp")) n++;
  }
  closedir(d);
  return n;
}

#endif

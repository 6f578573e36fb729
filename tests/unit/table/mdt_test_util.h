/* Shared helpers of the metadata-table tests: the fixture tables that have
 * a metadata table, and whole-file reads. */
#ifndef MDT_TEST_UTIL_H
#define MDT_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MDT_FIXTURES HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data"
#define MDT_MAX_TABLES 64

typedef struct mdt_tables {
  char *paths[MDT_MAX_TABLES];
  int n;
} mdt_tables;

static inline int mdt_is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Every directory under dir (depth-limited) holding
 * .hoodie/metadata/.hoodie/hoodie.properties, sorted. */
static inline void mdt_find(mdt_tables *t, const char *dir, int depth) {
  char probe[8192];
  snprintf(probe, sizeof probe, "%.4000s/.hoodie/metadata/.hoodie/hoodie.properties", dir);
  if (mdt_is_file(probe)) {
    if (t->n < MDT_MAX_TABLES) t->paths[t->n++] = strdup(dir);
    return;
  }
  if (depth == 0) return;
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "__MACOSX") == 0) continue;
    char sub[8192];
    snprintf(sub, sizeof sub, "%.4000s/%.255s", dir, e->d_name);
    struct stat st;
    if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) mdt_find(t, sub, depth - 1);
  }
  closedir(d);
}

static inline int mdt_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static inline void mdt_tables_find(mdt_tables *t) {
  t->n = 0;
  mdt_find(t, MDT_FIXTURES, 8);
  qsort(t->paths, (size_t)t->n, sizeof t->paths[0], mdt_cmp_str);
}

static inline void mdt_tables_free(mdt_tables *t) {
  for (int i = 0; i < t->n; i++) free(t->paths[i]);
  t->n = 0;
}

static inline unsigned char *mdt_read_file(const char *path, size_t *len) {
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
  if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *len = (size_t)(n > 0 ? n : 0);
  return b;
}

#endif

/* Replays fuzz corpora without libFuzzer: every file named on the command
 * line, or found (non-recursively) in a directory named there, is passed
 * once to LLVMFuzzerTestOneInput. A crash or sanitizer report fails the
 * test; otherwise it prints how many inputs ran. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return -1;
  }
  uint8_t *data = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 4096;
      uint8_t *p = realloc(data, cap);
      if (!p) { free(data); fclose(f); return -1; }
      data = p;
    }
    size_t n = fread(data + len, 1, cap - len, f);
    if (n == 0) break;
    len += n;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(data, len);
  free(data);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int run_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **p = realloc(names, cap * sizeof *names);
      if (!p) break;
      names = p;
    }
    size_t l = strlen(dir) + strlen(e->d_name) + 2;
    names[n] = malloc(l);
    if (!names[n]) break;
    snprintf(names[n], l, "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_str); /* a stable order makes failures reproducible */
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      if (run_file(names[i]) != 0) rc = -1;
      (*count)++;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  int count = 0, rc = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "no such corpus: %s\n", argv[i]);
      return 1;
    }
    if (S_ISDIR(st.st_mode)) {
      if (run_dir(argv[i], &count) != 0) rc = 1;
    } else {
      if (run_file(argv[i]) != 0) rc = 1;
      count++;
    }
  }
  printf("replayed %d inputs\n", count);
  if (count == 0) {
    fprintf(stderr, "empty corpus: nothing was replayed\n");
    return 1;
  }
  return rc;
}

/* Links against an installed libhudi and uses its public API only. */
#include <hudi/hudi.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_table_open(&t, "/nonexistent/hudi-consumer", NULL, 0, &err);
  if (st != HUDI_ERR_NOT_FOUND || t != NULL) {
    fprintf(stderr, "unexpected status %d: %s\n", (int)st, err.message);
    return 1;
  }
  printf("libhudi %s: %s\n", hudi_version(), err.message);
  return strcmp(hudi_version(), HUDI_VERSION_STRING) == 0 ? 0 : 1;
}

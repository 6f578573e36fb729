/* Direct write markers and partition metadata files (hudi-format-core.md
 * §4 and §6). */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/buf.h"
#include "table/write.h"

hudi_status hudi_write_marker(hudi_storage *s, const char *instant, const char *partition, const char *file_name,
                              const char *kind, hudi_error *err) {
  hudi_buf p;
  hudi_buf_init(&p, 8192);
  hudi_status st = hudi_buf_printf(&p, err, ".hoodie/.temp/%s/%s%s%s.marker.%s%c", instant, partition,
                                   *partition ? "/" : "", file_name, kind, '\0');
  /* Grouped: durable with the data files at the commit's group sync
   * (merge_write.c), or at once when no group is open. */
  if (st == HUDI_OK)
    st = hudi_storage_write(s, (const char *)p.data, "", 0, HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED, err);
  hudi_buf_free(&p);
  return st;
}

hudi_status hudi_write_partition_metadata(hudi_storage *s, const char *partition, const char *instant,
                                          hudi_error *err) {
  char path[4200];
  if ((size_t)snprintf(path, sizeof path, "%s%s.hoodie_partition_metadata", partition, *partition ? "/" : "") >=
      sizeof path)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "partition path '%s' is too long", partition);
  bool exists;
  HUDI_TRY(hudi_storage_exists(s, path, &exists, err));
  if (exists) return HUDI_OK;
  int depth = 0;
  if (*partition) {
    depth = 1;
    for (const char *c = partition; *c; c++) depth += *c == '/';
  }
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char date[64], text[256];
  strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
  int n = snprintf(text, sizeof text, "#partition metadata\n#%s\ncommitTime=%s\npartitionDepth=%d\n", date, instant,
                   depth);
  hudi_status st = hudi_storage_write_if_absent(s, path, text, (size_t)n, err);
  if (st == HUDI_ERR_EXISTS) {
    if (err) hudi_error_clear(err);
    return HUDI_OK; /* another writer made it first */
  }
  return st;
}

hudi_status hudi_write_new_file_id(char out[48], hudi_error *err) {
  uint8_t u[16];
  size_t got = 0;
  while (got < sizeof u) {
    ssize_t n = getrandom(u + got, sizeof u - got, 0);
    if (n <= 0) return hudi_err_set(err, HUDI_ERR_IO, "getrandom failed");
    got += (size_t)n;
  }
  u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
  u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
  snprintf(out, 48, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x-0", u[0], u[1], u[2],
           u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  return HUDI_OK;
}

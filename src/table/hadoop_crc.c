/* Hadoop's local checksum files (see hadoop_crc.h). */
#include "table/hadoop_crc.h"

#include <string.h>

#include "base/buf.h"

hudi_status hudi_hadoop_crc_delete(hudi_storage *s, const char *rel, hudi_error *err) {
  if (strcmp(hudi_storage_backend_name(s), "local") != 0) return HUDI_OK;
  const char *slash = strrchr(rel, '/');
  const char *name = slash ? slash + 1 : rel;
  hudi_buf crc;
  hudi_buf_init(&crc, strlen(rel) + 16);
  hudi_status st = hudi_buf_printf(&crc, err, "%.*s.%s.crc%c", (int)(name - rel), rel, name, '\0');
  if (st == HUDI_OK) st = hudi_storage_delete(s, (const char *)crc.data, HUDI_DELETE_MISSING_OK, err);
  hudi_buf_free(&crc);
  return st;
}

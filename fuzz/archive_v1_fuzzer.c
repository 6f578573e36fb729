/* Fuzz target: a layout-1 archive file read back (table/archive_v1.h):
 * log blocks, their SCHEMA headers, the HoodieArchivedMetaEntry records
 * decoded with them. Whatever it returns must be well formed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table/archive_v1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hudi_archive_v1_entries e = {0};
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_archive_v1_read_bytes(&e, data, size, "fuzz", &err) == HUDI_OK) {
    for (size_t i = 0; i < e.count; i++)
      if (!e.items[i].commit_time[0] || !e.items[i].action[0] ||
          strlen(e.items[i].commit_time) >= sizeof e.items[i].commit_time)
        abort();
  } else if (!err.message[0]) {
    abort(); /* every failure says why */
  }
  hudi_archive_v1_entries_free(&e);
  return 0;
}

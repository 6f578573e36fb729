/* Early writeback of local files (io/storage.h). Its own file: the Linux
 * call needs _GNU_SOURCE, which the rest of the io layer does without. */
#if defined(__linux__)
#  define _GNU_SOURCE
#endif
#include <fcntl.h>

#include "io/storage.h"

void hudi_local_start_writeback(int fd, uint64_t offset, uint64_t len) {
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
  /* A hint: failures (e.g. a file system without the call) change when
   * bytes reach the disk, never whether; the fsync still decides that. */
  (void)sync_file_range(fd, (off_t)offset, (off_t)len, SYNC_FILE_RANGE_WRITE);
#else
  (void)fd;
  (void)offset;
  (void)len;
#endif
}

/* The table lock writers take for the whole of a write (hudi-write-semantics.md
 * §6.2, §9.7): a file created if absent, laid out as Hudi's
 * FileSystemBasedLockProvider lays it out, so a Spark writer configured
 * with that provider and the same path serializes with us.
 *
 * Where: <hoodie.write.lock.filesystem.path>/lock, default .hoodie/lock.
 * Held while the file exists. It is stale, and removed by the next writer,
 * when older than hoodie.write.lock.filesystem.expire minutes (0 = never,
 * Hudi's default), or when it names a hudi-c process on this host that no
 * longer runs (a crashed writer must not lock the table forever).
 * Otherwise a writer waits up to hoodie.write.lock.wait_time_ms (default
 * 60000) and then fails with HUDI_ERR_CONFLICT naming the holder. */
#ifndef HUDI_TABLE_LOCK_H
#define HUDI_TABLE_LOCK_H

#include <stdbool.h>

#include "base/error.h"
#include "hudi/common.h"
#include "table/table.h"

typedef struct hudi_table_lock {
  bool held;
  char path[512];
  /* Acquiring re-read the table's metadata partitions from storage
   * (hudi_table_props_refresh_mdt): whether they had changed. */
  bool mdt_changed;
} hudi_table_lock;

HUDI_NODISCARD hudi_status hudi_table_lock_acquire(hudi_table_lock *lock, hudi_table *t, const hudi_option *opts,
                                                   size_t n, hudi_error *err);

/* Deletes the lock file if held; errors are ignored (a leftover file of a
 * live process is a problem only until this process exits). */
void hudi_table_lock_release(hudi_table_lock *lock, hudi_table *t);

/* The lockThreadName hudi-c writes, "hudi-c pid <pid> on <host>". */
void hudi_table_lock_owner(char *out, size_t cap);

#endif

/* Writer heartbeats (hudi-write-semantics.md §6.5): an empty file
 * .hoodie/.heartbeat/<instant> whose mtime says its writer is alive. A
 * pending instant whose heartbeat is missing or older than
 * interval x (tolerable misses + 1) is a failed write that the next writer
 * may roll back; one with a live heartbeat belongs to a running writer. */
#ifndef HUDI_TABLE_HEARTBEAT_H
#define HUDI_TABLE_HEARTBEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "table/table.h"

/* hoodie.client.heartbeat.interval_in_ms and
 * hoodie.client.heartbeat.tolerable.misses defaults. */
#define HUDI_HEARTBEAT_INTERVAL_MS INT64_C(60000)
#define HUDI_HEARTBEAT_TOLERABLE_MISSES 2

/* Creates (or refreshes) the heartbeat of instant. */
HUDI_NODISCARD hudi_status hudi_heartbeat_start(hudi_table *t, const char *instant, hudi_error *err);

/* Deletes it; errors are ignored (a leftover heartbeat only delays the
 * rollback of an instant that completed anyway). */
void hudi_heartbeat_stop(hudi_table *t, const char *instant);

/* Whether instant's writer is alive: its heartbeat exists and was touched
 * within the last interval_ms x (misses + 1) (0, 0: the defaults). */
HUDI_NODISCARD hudi_status hudi_heartbeat_alive(bool *alive, hudi_table *t, const char *instant, int64_t interval_ms,
                                                int misses, hudi_error *err);

#endif

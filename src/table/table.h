/* The table handle's internals, shared by the table layer's files. */
#ifndef HUDI_TABLE_TABLE_H
#define HUDI_TABLE_TABLE_H

#include "hudi/table.h"
#include "io/storage.h"
#include "table/properties.h"
#include "table/timeline.h"

struct hudi_table {
  char *base_uri;
  hudi_storage *storage;
  hudi_props props;   /* hoodie.properties */
  hudi_props options; /* what the caller passed to open */
  const char *name;   /* points into props */
  hudi_table_type type;
  int version;
  int layout;
  hudi_timeline timeline;
  struct hudi_compact_async *compact_async; /* background compaction, compact_async.h */
  /* One metadata-table handle per write (mdt_reader.h hudi_mdt_share_begin):
   * on while a write holds the lock; the handle is opened on first use. */
  bool mdt_sharing;
  struct hudi_mdt *shared_mdt;
  /* The MDT's table version a metadata commit of this write read before
   * the handle was opened (0: none yet), so later ones need not re-read. */
  int shared_mdt_version;
};

/* The table's (first) ordering field copied into buf, or NULL when it has
 * none or orders by commit time (hoodie.record.merge.mode). */
const char *hudi_table_ordering_field(const hudi_table *t, char *buf, size_t cap);

/* Minutes east of UTC of the table's timeline zone: 0 for
 * hoodie.table.timeline.timezone=UTC (what hudi-c creates), else (LOCAL,
 * Hudi's default, or no property) this process's zone now, as a JVM in
 * the same zone formats instant times. */
int32_t hudi_table_timeline_offset_minutes(const hudi_table *t);

#endif

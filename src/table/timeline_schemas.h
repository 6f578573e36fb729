/* The Avro writer schemas Java embeds in timeline files (the avro.schema
 * header entry), byte for byte, one per record type and Hudi line.
 *
 * Java writes Schema.toString() of its generated model class; each string
 * here is copied from a fixture file where one exists, otherwise printed
 * from the generated class of Hudi 1.0.2 (identical in 1.2.0) -- see the
 * comment on each string in timeline_schemas.c. */
#ifndef HUDI_TABLE_TIMELINE_SCHEMAS_H
#define HUDI_TABLE_TIMELINE_SCHEMAS_H

#include <stddef.h>

#include "avro/schema.h"
#include "base/error.h"

typedef enum hudi_tl_schema_id {
  HUDI_TL_COMMIT_METADATA = 0,  /* HoodieCommitMetadata */
  HUDI_TL_REPLACE_COMMIT_METADATA, /* HoodieReplaceCommitMetadata */
  HUDI_TL_COMPACTION_PLAN,      /* HoodieCompactionPlan */
  HUDI_TL_CLEANER_PLAN,         /* HoodieCleanerPlan */
  HUDI_TL_CLEAN_METADATA,       /* HoodieCleanMetadata */
  HUDI_TL_ROLLBACK_PLAN,        /* HoodieRollbackPlan */
  HUDI_TL_ROLLBACK_METADATA,    /* HoodieRollbackMetadata */
  HUDI_TL_REQUESTED_REPLACE,    /* HoodieRequestedReplaceMetadata, Hudi 1.x */
  HUDI_TL_REQUESTED_REPLACE_V6, /* HoodieRequestedReplaceMetadata, Hudi 0.x (table version 6) */
  HUDI_TL_SAVEPOINT_METADATA,   /* HoodieSavepointMetadata */
  HUDI_TL_RESTORE_PLAN,         /* HoodieRestorePlan */
  HUDI_TL_RESTORE_METADATA,     /* HoodieRestoreMetadata */
  HUDI_TL_ARCHIVED_META_ENTRY,  /* HoodieArchivedMetaEntry: a record of the layout-1 archive */
  HUDI_TL_SCHEMA_COUNT
} hudi_tl_schema_id;

/* The schema JSON (not NUL-counted in *len; the string is NUL-terminated). */
const char *hudi_tl_schema_json(hudi_tl_schema_id id, size_t *len);
/* Full name of the root record, e.g. "org.apache.hudi.avro.model.HoodieCleanerPlan". */
const char *hudi_tl_schema_record_name(hudi_tl_schema_id id);
/* Parses the schema; free with hudi_avro_schema_free. */
HUDI_NODISCARD hudi_status hudi_tl_schema_parse(hudi_avro_schema **out, hudi_tl_schema_id id, hudi_error *err);

#endif

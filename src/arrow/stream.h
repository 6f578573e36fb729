/* Arrow C streams made and consumed by libhudi. */
#ifndef HUDI_ARROW_STREAM_H
#define HUDI_ARROW_STREAM_H

#include "arrow/field.h"
#include "base/error.h"
#include "hudi/arrow_abi.h"

/* A stream of one batch: moves *schema and *array (a struct array, as
 * __arrow_c_array__ of a RecordBatch/DataFrame gives) into *out. Takes
 * ownership of both in every case: on failure (a non-struct array, a
 * schema libhudi cannot read) they are released. */
hudi_status hudi_arrow_stream_from_array(struct ArrowArrayStream *out, struct ArrowSchema *schema,
                                         struct ArrowArray *array, hudi_error *err);

/* A stream that reads every batch of *in through libhudi's Arrow import
 * (offsets, absent validity, dictionaries, string views, large types) and
 * rebuilds it with libhudi's builders, so its batches carry the normalised
 * types libhudi stores (see arrow/builder.h). Batches are pulled lazily,
 * one per get_next; errors of *in or of the import are reported through
 * get_last_error. Moves *in into *out (on failure *in is released). Used
 * by the round-trip tests. */
hudi_status hudi_arrow_stream_rebuild(struct ArrowArrayStream *out, struct ArrowArrayStream *in,
                                      hudi_error *err);

/* A stream over batches already built: n struct arrays matching schema (a
 * struct field, copied). Moves every batches[i] into *out (on failure they
 * are released). pyarrow, polars and DuckDB import the result. */
hudi_status hudi_arrow_stream_from_batches(struct ArrowArrayStream *out, const hudi_arrow_field *schema,
                                           struct ArrowArray *batches, int64_t n, hudi_error *err);

/* The errno-style code a stream callback returns for a status. */
int hudi_arrow_status_errno(hudi_status st);

/* The status of a failed get_next of a stream reading stored data (a
 * table's files): the inverse of hudi_arrow_status_errno, EINVAL taken as
 * HUDI_ERR_CORRUPT (bytes that do not follow their format: a read's bad
 * input fails when it is planned, before any batch), ENOENT as
 * HUDI_ERR_NOT_FOUND, anything unknown as HUDI_ERR_IO. */
hudi_status hudi_arrow_stored_read_status(int rc);

#endif

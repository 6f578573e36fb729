/* Arrow C streams made and consumed by libhudi. */
#ifndef HUDI_ARROW_STREAM_H
#define HUDI_ARROW_STREAM_H

#include "base/error.h"
#include "hudi/arrow_abi.h"

/* A stream of one batch: moves *schema and *array (a struct array, as
 * __arrow_c_array__ of a RecordBatch/DataFrame gives) into *out. */
hudi_status hudi_arrow_stream_from_array(struct ArrowArrayStream *out, struct ArrowSchema *schema,
                                         struct ArrowArray *array, hudi_error *err);

/* A stream that reads every batch of *in through libhudi's Arrow import
 * (offsets, absent validity, dictionaries, string views, large types) and
 * rebuilds it with libhudi's builders, so its batches carry the normalised
 * types libhudi stores. Moves *in into *out. Used by the round-trip tests. */
hudi_status hudi_arrow_stream_rebuild(struct ArrowArrayStream *out, struct ArrowArrayStream *in,
                                      hudi_error *err);

#endif

/* An Arrow C stream read ahead on a thread of its own: the thread pulls
 * the wrapped stream's batches (decoding them, for a file slice) while the
 * consumer works on the previous ones, at most `depth` batches ahead, so
 * a consumer that decodes and encodes on one thread (a Copy-on-Write
 * rewrite of a file group) gets the decode off its core. Batches come in
 * the wrapped stream's order; its error ends the stream at that point,
 * reported by get_next and get_last_error as the wrapped stream reported
 * it. */
#ifndef HUDI_ARROW_STREAM_READAHEAD_H
#define HUDI_ARROW_STREAM_READAHEAD_H

#include "base/error.h"
#include "hudi/arrow_abi.h"

#define HUDI_STREAM_READAHEAD_MAX_DEPTH 16

/* Moves *in into *out and starts reading it (in: a stream whose get_next
 * may be called from another thread; its schema is taken here, on this
 * thread). depth 1..HUDI_STREAM_READAHEAD_MAX_DEPTH. On failure *in is
 * released and *out untouched. Releasing *out stops the thread (it
 * finishes the get_next in progress, if any), then releases *in. */
HUDI_NODISCARD hudi_status hudi_arrow_stream_readahead(struct ArrowArrayStream *out, struct ArrowArrayStream *in,
                                                       int depth, hudi_error *err);

#endif

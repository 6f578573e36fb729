/* Sequential read-ahead for the object-store backends.
 *
 * Readers of Parquet base files and log files ask for one byte range after
 * another: a Parquet row group is read column chunk by column chunk, each
 * chunk starting where the previous one ended; the log reader walks its
 * file in windows. Against an object store every such range is one GET,
 * and each GET costs a round trip (tens of milliseconds on a real service)
 * whatever its size. So once a path is read sequentially (a read starts
 * exactly where the previous read of that path ended) and the read is
 * smaller than the window, one GET fetches the whole window and the
 * following reads are served from it. The first read of a path, and any
 * read that does not continue the previous one (a footer, an HFile block
 * lookup, a projection that skips columns) goes to the backend unchanged,
 * so random access fetches no extra bytes.
 *
 * The cache is small (HUDI_READAHEAD_SLOTS paths, at most
 * HUDI_READAHEAD_HELD windows of bytes held at once, a window freed as soon
 * as it has been read to its end) and is dropped whole on any write,
 * rename or delete through the same handle. Objects read by range in a
 * Hudi table (base files, log files, HFiles) are never rewritten in
 * place: their names carry the writing instant.
 *
 * Enabled by the object-store backends at open (storage option
 * "read_ahead_bytes": the window, default 8 MiB; "0" turns it off); the
 * dispatch in storage.c routes hudi_storage_read through it. Thread-safe. */
#ifndef HUDI_IO_READAHEAD_H
#define HUDI_IO_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "io/backend.h"

#define HUDI_READAHEAD_DEFAULT ((uint64_t)8 << 20)
#define HUDI_READAHEAD_MAX ((uint64_t)256 << 20)
#define HUDI_READAHEAD_SLOTS 8
#define HUDI_READAHEAD_HELD 4

typedef struct hudi_readahead hudi_readahead;

typedef struct hudi_readahead_stats {
  uint64_t reads;         /* ranged reads asked for */
  uint64_t hits;          /* served from a window, no request */
  uint64_t fetches;       /* backend reads made */
  uint64_t windows;       /* of which whole-window fetches */
  uint64_t bytes_fetched; /* by all backend reads */
} hudi_readahead_stats;

/* Sets s->readahead from options ("read_ahead_bytes", 0..256 MiB, default
 * HUDI_READAHEAD_DEFAULT); leaves it NULL when the window is 0. Called last
 * by a backend's open. */
HUDI_NODISCARD hudi_status hudi_readahead_enable(hudi_storage *s, const hudi_storage_option *options,
                                                 size_t n_options, hudi_error *err);

void hudi_readahead_free(hudi_readahead *ra);

/* hudi_storage_read's contract (path normalised, len > 0), through the
 * cache; misses call s->vtable->read. */
HUDI_NODISCARD hudi_status hudi_readahead_read(hudi_readahead *ra, hudi_storage *s, const char *path,
                                               uint64_t offset, void *dst, size_t len, size_t *n_read,
                                               hudi_error *err);

/* Forgets every cached byte (after a write, rename or delete). */
void hudi_readahead_clear(hudi_readahead *ra);

void hudi_readahead_get_stats(hudi_readahead *ra, hudi_readahead_stats *out);

#endif

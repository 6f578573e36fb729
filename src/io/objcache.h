/* Request savers for the object-store backends: a per-handle cache of
 * whole small objects that Hudi never rewrites, and of timeline listings
 * while the caller holds the table lock.
 *
 * Against an object store every read and listing is a round trip, and one
 * commit used to fetch the same completed instant file four times (schema,
 * evolution, file slicing, record-size estimate) and the same metadata-table
 * log file two or three times in one merge, and to list the timeline seven
 * times. Local disk needs none of this (its reads are page-cache hits), so
 * only the object-store backends create a cache (storage.c consults it when
 * s->objcache is set); local-disk behaviour is unchanged.
 *
 * Objects: for a path whose last component names a file Hudi writes once
 * (see hudi_objcache_immutable_name), the handle keeps what it learnt: its
 * stat (a HEAD, or its entry in a listing), and its bytes when it was read whole (read_all, at most
 * HUDI_OBJCACHE_OBJECT_MAX bytes) or read by range while its stat said it
 * is at most HUDI_OBJCACHE_WHOLE_MAX bytes (then the first ranged read
 * fetches it whole, one GET, and later ranges are copies): up to
 * HUDI_OBJCACHE_BYTES in all, oldest dropped first. Every write, rename
 * and delete through the handle drops what it holds at or under the path.
 * Such a name can still get other bytes from another process (a rollback
 * deletes a log file, a later writer picks the same version and token), so
 * what is kept lives for one view of the table only: the table layer calls
 * hudi_storage_forget_objects whenever it loads a timeline (io/storage.h).
 *
 * Listings: between hudi_storage_hold_listings and its release, a
 * non-recursive listing of one of the held directories is answered from the
 * previous listing of it, unless a write, rename or delete through the
 * handle touched a path under it since. The caller promises that nothing
 * else changes those directories meanwhile: the table layer holds them
 * while it holds the table lock, under which alone timeline instants are
 * written. Anything listed before the hold is not reused. */
#ifndef HUDI_IO_OBJCACHE_H
#define HUDI_IO_OBJCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/backend.h"

#define HUDI_OBJCACHE_OBJECT_MAX ((size_t)4 << 20)
#define HUDI_OBJCACHE_WHOLE_MAX ((size_t)1 << 20)
#define HUDI_OBJCACHE_BYTES ((size_t)32 << 20)
#define HUDI_OBJCACHE_TAIL_MAX ((size_t)1 << 20)
#define HUDI_OBJCACHE_HELD_DIRS 4
#define HUDI_OBJCACHE_LIST_MAX 100000 /* entries; larger listings are not kept */

typedef struct hudi_objcache hudi_objcache;

typedef struct hudi_objcache_stats {
  size_t object_hits, object_misses, stat_hits, range_hits, tail_hits, list_hits, list_misses;
} hudi_objcache_stats;

HUDI_NODISCARD hudi_status hudi_objcache_new(hudi_objcache **out, hudi_error *err);

/* Sets s->objcache unless the storage option "request_cache" is "false".
 * Called by the object-store backends' open. */
HUDI_NODISCARD hudi_status hudi_objcache_enable(hudi_storage *s, const hudi_storage_option *options,
                                                size_t n_options, hudi_error *err);
void hudi_objcache_free(hudi_objcache *c);

/* Whether the last component of path names a file Hudi writes once: a
 * Parquet base file, an HFile, a log file (".<id>_<instant>.log.<v>_<token>"),
 * or a completed timeline instant ("<requested>_<completed>.<action>").
 * hoodie.properties, requested/inflight instants, markers, locks and
 * heartbeats are not. */
bool hudi_objcache_immutable_name(const char *path);

/* Bumped by every invalidation: callers read it before going to the
 * backend and pass it to the put functions, which keep nothing when a
 * write, rename or delete ran in between (it may have raced the fetch). */
uint64_t hudi_objcache_generation(hudi_objcache *c);

/* A cached copy of path appended to out: true on a hit. A hit larger than
 * max_size is reported as a miss (the backend then gives the error). */
bool hudi_objcache_get_object(hudi_objcache *c, const char *path, size_t max_size, hudi_buf *out);
/* Keeps data[0..len) for path when it qualifies (name, size); silent on
 * failure (a cache). */
void hudi_objcache_put_object(hudi_objcache *c, uint64_t gen, const char *path, const void *data, size_t len);

/* A kept stat of path: true on a hit. */
bool hudi_objcache_get_stat(hudi_objcache *c, const char *path, hudi_file_stat *out);
/* Keeps a file's stat (immutable names only). */
void hudi_objcache_put_stat(hudi_objcache *c, uint64_t gen, const char *path, const hudi_file_stat *st);

/* Copies [offset, offset + len) of a kept object, or of its kept tail,
 * into dst: true on a hit (*n_read short at its end). */
bool hudi_objcache_read(hudi_objcache *c, const char *path, uint64_t offset, void *dst, size_t len,
                        size_t *n_read);
/* Keeps the bytes of a ranged read of path at offset that ended at the
 * object's end (its size known from a kept stat), or that ended where the
 * kept tail starts (then the tail grows by them), at most
 * HUDI_OBJCACHE_TAIL_MAX bytes in all: a larger immutable object's footer
 * (a Parquet file's metadata with Hudi's bloom filter read after its last
 * 64 KiB, an HFile's load-on-open section read after its trailer).
 * One commit opens a base file's footer up to three times (the bloom
 * index, the merge's filter resume, the merge's read): one GET now, the
 * others copies (hudi_objcache_read answers reads inside the kept tail). */
void hudi_objcache_put_tail(hudi_objcache *c, uint64_t gen, const char *path, uint64_t offset, const void *data,
                            size_t len);
/* Whether a ranged read of path should fetch it whole: an immutable name
 * whose kept stat says at most HUDI_OBJCACHE_WHOLE_MAX bytes and whose
 * bytes are not kept yet; *size = that size. */
bool hudi_objcache_wants_whole(hudi_objcache *c, const char *path, uint64_t *size);

/* Keeps the size and mtime a listing reported for a file (immutable names
 * only) as its stat, unless a stat is kept already: a later stat needs no
 * HEAD, and a ranged read of a small one fetches it whole (an HFile reader
 * that knows the size from the metadata table never stats). The mtime is
 * the listing's (S3: milliseconds, where a HEAD has whole seconds); only
 * lock and heartbeat files, never immutable ones, are judged by mtime. */
void hudi_objcache_put_listed(hudi_objcache *c, uint64_t gen, const char *path, uint64_t size, int64_t mtime_ms);

/* One fetch per path at a time: parallel readers of one file (the
 * metadata table's lookups run in threads) would otherwise all miss and
 * all fetch it. Claim returns true when the caller should fetch path (then
 * it must call hudi_objcache_unclaim, fetched or not); false after waiting
 * for another thread's fetch of it: look in the cache again. Paths that
 * are not immutable names are never claimed (true at once). */
bool hudi_objcache_claim(hudi_objcache *c, const char *path);
void hudi_objcache_unclaim(hudi_objcache *c, const char *path);

/* Drops every kept object and stat (held listings stay). */
void hudi_objcache_forget_objects(hudi_objcache *c);

/* Starts (or nests) a hold on the listed directories (normalised paths). */
HUDI_NODISCARD hudi_status hudi_objcache_hold(hudi_objcache *c, const char *const *dirs, size_t n_dirs,
                                              hudi_error *err);
/* Ends one hold; the last one drops the held listings. */
void hudi_objcache_release(hudi_objcache *c);

/* A copy of the held listing of dir into out (empty): true on a hit. */
bool hudi_objcache_get_list(hudi_objcache *c, const char *dir, unsigned flags, hudi_file_list *out);
/* Keeps a copy of list as dir's listing when dir is held. */
void hudi_objcache_put_list(hudi_objcache *c, uint64_t gen, const char *dir, unsigned flags,
                            const hudi_file_list *list);

/* A write, rename or delete of path (normalised) is about to happen. */
void hudi_objcache_invalidate(hudi_objcache *c, const char *path);

void hudi_objcache_get_stats(hudi_objcache *c, hudi_objcache_stats *out);

#endif

/* An ordered pipeline of HFile data blocks: the writer's thread cuts blocks
 * and queues them; worker threads (and the writer's thread itself, while it
 * waits) encode them; the writer takes the results back in queue order.
 * A fixed ring of slots bounds the blocks in flight (and so the memory).
 * What "encode" means (compress, judge the block by spec §3.9) is the
 * writer's callback; this file only moves the jobs between threads. */
#ifndef HUDI_HFILE_BLOCK_PIPE_H
#define HUDI_HFILE_BLOCK_PIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/error.h"
#include "codec/fast_deflate.h"

#define HUDI_HFILE_PIPE_MAX_WORKERS 8

/* One block in flight. The writer fills kv/starts/n before queueing it;
 * the encoder fills enc/misread/status/err. */
typedef struct hudi_hfile_pipe_job {
  hudi_buf kv;    /* the block's key-values, as stored in it */
  size_t *starts; /* offset of each key-value in kv */
  size_t n, cap;  /* key-values; capacity of starts */
  const struct hudi_deflate_codes *codes; /* shared Huffman codes for it, or NULL */
  hudi_buf enc;   /* the encoded block */
  int misread;    /* a reader would mis-read it (spec §3.9): close it earlier */
  hudi_status status;
  hudi_error err;
} hudi_hfile_pipe_job;

/* Encodes job with fast (NULL when the pipe was made with level 0). Runs on
 * any thread, several at once on different jobs: it may only read ctx. */
typedef void (*hudi_hfile_encode_fn)(const void *ctx, hudi_hfile_pipe_job *job, hudi_fast_deflater *fast);

typedef struct hudi_hfile_pipe hudi_hfile_pipe;

/* Starts `workers` threads (1..HUDI_HFILE_PIPE_MAX_WORKERS) over `slots`
 * jobs in flight (at least 2). Each thread, and the caller's, gets its own
 * libdeflate compressor at deflate_level (0: none, fn gets NULL). Slot
 * buffers are capped at max_block bytes of key-values. */
HUDI_NODISCARD hudi_status hudi_hfile_pipe_create(hudi_hfile_pipe **out, int workers, size_t slots,
                                                  int deflate_level, size_t max_block, hudi_hfile_encode_fn fn,
                                                  const void *ctx, hudi_error *err);
/* Stops and joins the workers (jobs still queued are dropped), frees all. */
void hudi_hfile_pipe_free(hudi_hfile_pipe *p);

/* Jobs queued and not yet popped. */
size_t hudi_hfile_pipe_count(const hudi_hfile_pipe *p);
bool hudi_hfile_pipe_full(const hudi_hfile_pipe *p);
/* The free slot to fill and queue next; NULL when full. */
hudi_hfile_pipe_job *hudi_hfile_pipe_next(hudi_hfile_pipe *p);
/* Queues the slot hudi_hfile_pipe_next returned. */
void hudi_hfile_pipe_submit(hudi_hfile_pipe *p);
/* The oldest job once it is encoded; NULL when none is in flight, or when
 * !wait and it is not encoded yet. While waiting, the calling thread
 * encodes queued jobs itself. */
hudi_hfile_pipe_job *hudi_hfile_pipe_head(hudi_hfile_pipe *p, bool wait);
/* Asks an idle worker to pre-fault [addr, addr + len) (MADV_POPULATE_WRITE:
 * the content stays as it is) so that the writer's copies into it do not
 * take the page faults; replaces a request not yet started. Before the
 * range is moved or freed, hudi_hfile_pipe_prefault_wait. A no-op where the
 * kernel cannot (it then stops asking). */
void hudi_hfile_pipe_prefault(hudi_hfile_pipe *p, uint8_t *addr, size_t len);
/* Drops a request not yet started and waits for one running. */
void hudi_hfile_pipe_prefault_wait(hudi_hfile_pipe *p);
/* Frees the oldest job's slot. */
void hudi_hfile_pipe_pop(hudi_hfile_pipe *p);
/* No queued job starts any more; returns once the running ones ended.
 * The jobs in flight are then the caller's to read (hudi_hfile_pipe_at,
 * 0 = oldest, encoded or not) until hudi_hfile_pipe_clear frees them all. */
void hudi_hfile_pipe_cancel(hudi_hfile_pipe *p);
hudi_hfile_pipe_job *hudi_hfile_pipe_at(hudi_hfile_pipe *p, size_t i);
void hudi_hfile_pipe_clear(hudi_hfile_pipe *p);

#endif

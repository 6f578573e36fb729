#include "arrow/stream_readahead.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arrow/field.h"
#include "arrow/stream.h"
#include "base/alloc.h"

typedef struct readahead {
  struct ArrowArrayStream in;
  hudi_arrow_field schema; /* taken before the thread starts: in is the thread's alone after */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct ArrowArray ring[HUDI_STREAM_READAHEAD_MAX_DEPTH];
  int depth, head, count;
  bool done;       /* the thread read the end of in, or its error */
  bool stop;       /* release: the thread stops at its next batch */
  int in_errno;    /* in's get_next failure (0: none) */
  char message[512];
} readahead;

static void *reader_main(void *arg) {
  readahead *ra = arg;
  for (;;) {
    pthread_mutex_lock(&ra->mu);
    while (!ra->stop && ra->count == ra->depth) pthread_cond_wait(&ra->cv, &ra->mu);
    bool stop = ra->stop;
    pthread_mutex_unlock(&ra->mu);
    if (stop) break;
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    int rc = ra->in.get_next(&ra->in, &a);
    pthread_mutex_lock(&ra->mu);
    if (rc != 0) {
      const char *m = ra->in.get_last_error ? ra->in.get_last_error(&ra->in) : NULL;
      snprintf(ra->message, sizeof ra->message, "%s", m ? m : strerror(rc));
      ra->in_errno = rc;
      ra->done = true;
    } else if (!a.release) {
      ra->done = true;
    } else {
      ra->ring[(ra->head + ra->count) % ra->depth] = a;
      ra->count++;
    }
    bool finished = ra->done;
    pthread_cond_broadcast(&ra->cv);
    pthread_mutex_unlock(&ra->mu);
    if (finished) break;
  }
  return NULL;
}

static readahead *ra_of(struct ArrowArrayStream *s) { return s->private_data; }

static int ra_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_arrow_field_export(out, &ra_of(s)->schema, &err);
  return st == HUDI_OK ? 0 : hudi_arrow_status_errno(st);
}

static int ra_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  readahead *ra = ra_of(s);
  pthread_mutex_lock(&ra->mu);
  while (ra->count == 0 && !ra->done) pthread_cond_wait(&ra->cv, &ra->mu);
  int rc = 0;
  if (ra->count > 0) {
    *out = ra->ring[ra->head];
    ra->head = (ra->head + 1) % ra->depth;
    ra->count--;
    pthread_cond_broadcast(&ra->cv);
  } else {
    memset(out, 0, sizeof *out); /* the end, or in's error from here on */
    rc = ra->in_errno;
  }
  pthread_mutex_unlock(&ra->mu);
  return rc;
}

static const char *ra_last_error(struct ArrowArrayStream *s) {
  readahead *ra = ra_of(s);
  pthread_mutex_lock(&ra->mu);
  const char *m = ra->in_errno ? ra->message : NULL;
  pthread_mutex_unlock(&ra->mu);
  return m;
}

static void ra_release(struct ArrowArrayStream *s) {
  readahead *ra = ra_of(s);
  if (!ra) return;
  pthread_mutex_lock(&ra->mu);
  ra->stop = true;
  pthread_cond_broadcast(&ra->cv);
  pthread_mutex_unlock(&ra->mu);
  pthread_join(ra->thread, NULL);
  for (int i = 0; i < ra->count; i++) {
    struct ArrowArray *a = &ra->ring[(ra->head + i) % ra->depth];
    if (a->release) a->release(a);
  }
  if (ra->in.release) ra->in.release(&ra->in);
  hudi_arrow_field_clear(&ra->schema);
  pthread_cond_destroy(&ra->cv);
  pthread_mutex_destroy(&ra->mu);
  hudi_free(ra);
  s->release = NULL;
  s->private_data = NULL;
}

/* The lock, its condition and the thread; on failure none of them. */
static hudi_status start(readahead *ra, hudi_error *err) {
  if (pthread_mutex_init(&ra->mu, NULL) != 0) return hudi_err_set(err, HUDI_ERR_INTERNAL, "read-ahead: no mutex");
  if (pthread_cond_init(&ra->cv, NULL) != 0) {
    pthread_mutex_destroy(&ra->mu);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "read-ahead: no condition variable");
  }
  if (pthread_create(&ra->thread, NULL, reader_main, ra) != 0) {
    pthread_cond_destroy(&ra->cv);
    pthread_mutex_destroy(&ra->mu);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "read-ahead: cannot start a thread");
  }
  return HUDI_OK;
}

hudi_status hudi_arrow_stream_readahead(struct ArrowArrayStream *out, struct ArrowArrayStream *in, int depth,
                                        hudi_error *err) {
  if (depth < 1 || depth > HUDI_STREAM_READAHEAD_MAX_DEPTH) {
    if (in->release) in->release(in);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "read-ahead depth %d: 1 to %d", depth,
                        HUDI_STREAM_READAHEAD_MAX_DEPTH);
  }
  readahead *ra = hudi_calloc(1, sizeof *ra);
  if (!ra) {
    if (in->release) in->release(in);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  ra->in = *in;
  in->release = NULL;
  ra->depth = depth;
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  hudi_status st = HUDI_OK;
  if (ra->in.get_schema(&ra->in, &schema) != 0) {
    const char *m = ra->in.get_last_error ? ra->in.get_last_error(&ra->in) : NULL;
    st = hudi_err_set(err, HUDI_ERR_IO, "reading a stream's schema: %s", m ? m : "error");
  }
  if (st == HUDI_OK) st = hudi_arrow_field_from_schema(&ra->schema, &schema, false, err);
  if (schema.release) schema.release(&schema);
  if (st == HUDI_OK) st = start(ra, err);
  if (st != HUDI_OK) {
    hudi_arrow_field_clear(&ra->schema);
    if (ra->in.release) ra->in.release(&ra->in);
    hudi_free(ra);
    return st;
  }
  memset(out, 0, sizeof *out);
  out->get_schema = ra_get_schema;
  out->get_next = ra_get_next;
  out->get_last_error = ra_last_error;
  out->release = ra_release;
  out->private_data = ra;
  return HUDI_OK;
}

#include "arrow/stream.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/view.h"
#include "base/alloc.h"

int hudi_arrow_status_errno(hudi_status st) {
  switch (st) {
    case HUDI_OK: return 0;
    case HUDI_ERR_NOMEM: return ENOMEM;
    case HUDI_ERR_INVALID_ARG:
    case HUDI_ERR_CORRUPT: return EINVAL;
    case HUDI_ERR_UNSUPPORTED: return ENOTSUP;
    case HUDI_ERR_LIMIT: return EOVERFLOW;
    case HUDI_ERR_NOT_FOUND: return ENOENT;
    case HUDI_ERR_CANCELLED: return ECANCELED;
    default: return EIO;
  }
}

/* The status for an errno a producer's callback returned. */
static hudi_status errno_status(int rc) {
  switch (rc) {
    case ENOMEM: return HUDI_ERR_NOMEM;
    case EINVAL: return HUDI_ERR_INVALID_ARG;
    case ENOTSUP: return HUDI_ERR_UNSUPPORTED;
    case EOVERFLOW: return HUDI_ERR_LIMIT;
    case ECANCELED: return HUDI_ERR_CANCELLED;
    default: return HUDI_ERR_IO;
  }
}

hudi_status hudi_arrow_stored_read_status(int rc) {
  switch (rc) {
    case EINVAL: return HUDI_ERR_CORRUPT;
    case ENOENT: return HUDI_ERR_NOT_FOUND;
    default: return errno_status(rc);
  }
}

/* ---- a stream over batches held in memory ---- */

typedef struct batches_priv {
  hudi_arrow_field schema;
  struct ArrowArray *batches;
  int64_t n, next;
  hudi_error err;
} batches_priv;

static int batches_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  batches_priv *p = s->private_data;
  hudi_status st = hudi_arrow_field_export(out, &p->schema, &p->err);
  return hudi_arrow_status_errno(st);
}

static int batches_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  batches_priv *p = s->private_data;
  if (p->next >= p->n) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  *out = p->batches[p->next];
  p->batches[p->next].release = NULL;
  p->next++;
  return 0;
}

static const char *batches_last_error(struct ArrowArrayStream *s) {
  batches_priv *p = s->private_data;
  return p->err.code != HUDI_OK ? p->err.message : NULL;
}

static void release_batches(struct ArrowArray *batches, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (batches[i].release) batches[i].release(&batches[i]);
}

static void batches_release(struct ArrowArrayStream *s) {
  if (!s->release) return;
  batches_priv *p = s->private_data;
  release_batches(p->batches, p->n);
  hudi_free(p->batches);
  hudi_arrow_field_clear(&p->schema);
  hudi_free(p);
  s->release = NULL;
}

hudi_status hudi_arrow_stream_from_batches(struct ArrowArrayStream *out, const hudi_arrow_field *schema,
                                           struct ArrowArray *batches, int64_t n, hudi_error *err) {
  hudi_status st = HUDI_OK;
  batches_priv *p = NULL;
  if (n < 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "negative batch count");
  if (schema->type.id != HUDI_ARROW_STRUCT || schema->dictionary) {
    st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "a stream's schema must be a struct, got '%s'",
                      schema->format);
    goto fail;
  }
  p = hudi_calloc(1, sizeof *p);
  if (!p || (n && !(p->batches = hudi_calloc((size_t)n, sizeof *p->batches)))) {
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory making an Arrow stream");
    goto fail;
  }
  st = hudi_arrow_field_copy(&p->schema, schema, false, err);
  if (st != HUDI_OK) goto fail;
  for (int64_t i = 0; i < n; i++) {
    p->batches[i] = batches[i];
    batches[i].release = NULL;
  }
  p->n = n;
  out->get_schema = batches_get_schema;
  out->get_next = batches_get_next;
  out->get_last_error = batches_last_error;
  out->release = batches_release;
  out->private_data = p;
  return HUDI_OK;
fail:
  release_batches(batches, n);
  if (p) {
    hudi_arrow_field_clear(&p->schema);
    hudi_free(p->batches);
    hudi_free(p);
  }
  return st;
}

hudi_status hudi_arrow_stream_from_array(struct ArrowArrayStream *out, struct ArrowSchema *schema,
                                         struct ArrowArray *array, hudi_error *err) {
  hudi_arrow_field f;
  hudi_status st = hudi_arrow_field_from_schema(&f, schema, false, err);
  if (schema->release) schema->release(schema);
  if (st != HUDI_OK) {
    if (array->release) array->release(array);
    return st;
  }
  if (f.type.id != HUDI_ARROW_STRUCT || f.dictionary) {
    st = hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "expected a struct array (a record batch), got an array of format '%s'", f.format);
    if (array->release) array->release(array);
  } else {
    st = hudi_arrow_stream_from_batches(out, &f, array, 1, err);
  }
  hudi_arrow_field_clear(&f);
  return st;
}

/* ---- rebuilding stream ---- */

typedef struct rebuild_priv {
  struct ArrowArrayStream in;
  struct ArrowSchema in_schema;
  hudi_arrow_field schema;           /* the normalised schema */
  hudi_arrow_batch_builder *builder; /* NULL after a failed reset */
  hudi_error err;
} rebuild_priv;

static int rebuild_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  rebuild_priv *p = s->private_data;
  hudi_error_clear(&p->err);
  return hudi_arrow_status_errno(hudi_arrow_field_export(out, &p->schema, &p->err));
}

static hudi_status rebuild_batch(rebuild_priv *p, struct ArrowArray *in, struct ArrowArray *out) {
  hudi_arrow_view v;
  HUDI_TRY(hudi_arrow_view_init(&v, &p->in_schema, in, &p->err));
  hudi_status st = hudi_arrow_batch_builder_append_rows(p->builder, &v, 0, v.length, &p->err);
  if (st == HUDI_OK) st = hudi_arrow_batch_builder_finish(p->builder, out, &p->err);
  hudi_arrow_view_clear(&v);
  return st;
}

static int rebuild_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  rebuild_priv *p = s->private_data;
  hudi_error_clear(&p->err);
  if (!p->builder) {
    hudi_err_set(&p->err, HUDI_ERR_NOMEM, "out of memory resetting the Arrow batch builder");
    return ENOMEM;
  }
  struct ArrowArray in;
  memset(&in, 0, sizeof in);
  int rc = p->in.get_next(&p->in, &in);
  if (rc != 0) {
    const char *m = p->in.get_last_error ? p->in.get_last_error(&p->in) : NULL;
    hudi_err_set(&p->err, errno_status(rc), "reading the input Arrow stream: %s",
                 m ? m : strerror(rc));
    return rc;
  }
  if (!in.release) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  hudi_status st = rebuild_batch(p, &in, out);
  in.release(&in);
  if (st != HUDI_OK) {
    /* The builder may hold part of the failed batch; start over clean so a
     * caller that goes on reading gets whole batches. */
    hudi_arrow_batch_builder_free(p->builder);
    p->builder = NULL;
    hudi_error ignored = HUDI_ERROR_INIT;
    if (hudi_arrow_batch_builder_create(&p->builder, &p->schema, &ignored) != HUDI_OK)
      p->builder = NULL;
    return hudi_arrow_status_errno(st);
  }
  return 0;
}

static const char *rebuild_last_error(struct ArrowArrayStream *s) {
  rebuild_priv *p = s->private_data;
  return p->err.code != HUDI_OK ? p->err.message : NULL;
}

static void rebuild_release(struct ArrowArrayStream *s) {
  if (!s->release) return;
  rebuild_priv *p = s->private_data;
  hudi_arrow_batch_builder_free(p->builder);
  hudi_arrow_field_clear(&p->schema);
  if (p->in_schema.release) p->in_schema.release(&p->in_schema);
  if (p->in.release) p->in.release(&p->in);
  hudi_free(p);
  s->release = NULL;
}

static hudi_status rebuild_init(rebuild_priv *p, hudi_error *err) {
  int rc = p->in.get_schema(&p->in, &p->in_schema);
  if (rc != 0) {
    const char *m = p->in.get_last_error ? p->in.get_last_error(&p->in) : NULL;
    memset(&p->in_schema, 0, sizeof p->in_schema);
    return hudi_err_set(err, errno_status(rc), "reading the schema of the input Arrow stream: %s",
                        m ? m : strerror(rc));
  }
  HUDI_TRY(hudi_arrow_field_from_schema(&p->schema, &p->in_schema, true, err));
  return hudi_arrow_batch_builder_create(&p->builder, &p->schema, err);
}

hudi_status hudi_arrow_stream_rebuild(struct ArrowArrayStream *out, struct ArrowArrayStream *in,
                                      hudi_error *err) {
  rebuild_priv *p = hudi_calloc(1, sizeof *p);
  if (!p) {
    if (in->release) in->release(in);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory making an Arrow stream");
  }
  p->in = *in;
  in->release = NULL;
  struct ArrowArrayStream tmp = {rebuild_get_schema, rebuild_get_next, rebuild_last_error,
                                 rebuild_release, p};
  hudi_status st = rebuild_init(p, err);
  if (st != HUDI_OK) {
    rebuild_release(&tmp);
    return st;
  }
  *out = tmp;
  return HUDI_OK;
}

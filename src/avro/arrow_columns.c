#include "avro/arrow_columns.h"

#include "base/alloc.h"

static const char *cname(const hudi_avro_col *c) { return c->field->name ? c->field->name : ""; }

static bool has_offsets(hudi_arrow_type_id id) {
  switch (id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_MAP: return true;
    default: return false;
  }
}

static hudi_status seed(hudi_avro_col *c, hudi_error *err) {
  if (!has_offsets(c->id)) return HUDI_OK;
  int64_t zero = 0;
  return hudi_buf_append(&c->values, &zero, c->large ? 8 : 4, err);
}

hudi_status hudi_avro_col_init(hudi_avro_col *c, const hudi_arrow_field *f, hudi_error *err) {
  memset(c, 0, sizeof *c);
  c->field = f;
  c->id = f->type.id;
  hudi_buf_init(&c->validity, 0);
  hudi_buf_init(&c->values, 0);
  hudi_buf_init(&c->data, 0);
  if (f->dictionary)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "column '%s': cannot decode into a dictionary",
                        cname(c));
  switch (c->id) {
    case HUDI_ARROW_UINT8:
    case HUDI_ARROW_UINT16:
    case HUDI_ARROW_UINT32:
    case HUDI_ARROW_UINT64:
    case HUDI_ARROW_HALF_FLOAT:
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY_VIEW:
    case HUDI_ARROW_DATE64:
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "column '%s': Avro decodes no %s values",
                          cname(c), hudi_arrow_type_name(c->id));
    case HUDI_ARROW_DECIMAL:
      if (f->type.bit_width != 128)
        return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "column '%s': only decimal128 is decoded",
                            cname(c));
      break;
    default: break;
  }
  c->width = c->id == HUDI_ARROW_FIXED_SIZE_BINARY ? f->type.fixed_size : hudi_arrow_type_byte_width(&f->type);
  c->large = c->id == HUDI_ARROW_LARGE_STRING || c->id == HUDI_ARROW_LARGE_BINARY ||
             c->id == HUDI_ARROW_LARGE_LIST;
  HUDI_TRY(seed(c, err));
  if (f->n_children == 0) return HUDI_OK;
  c->children = hudi_calloc((size_t)f->n_children, sizeof *c->children);
  if (!c->children) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory creating columns");
  c->n_children = f->n_children;
  for (int64_t i = 0; i < f->n_children; i++) HUDI_TRY(hudi_avro_col_init(&c->children[i], &f->children[i], err));
  return HUDI_OK;
}

void hudi_avro_col_clear(hudi_avro_col *c) {
  for (int64_t i = 0; i < c->n_children; i++) hudi_avro_col_clear(&c->children[i]);
  hudi_free(c->children);
  hudi_buf_free(&c->validity);
  hudi_buf_free(&c->values);
  hudi_buf_free(&c->data);
  memset(c, 0, sizeof *c);
}

void hudi_avro_col_reset(hudi_avro_col *c) {
  for (int64_t i = 0; i < c->n_children; i++) hudi_avro_col_reset(&c->children[i]);
  hudi_buf_reset(&c->validity);
  hudi_buf_reset(&c->data);
  hudi_buf_reset(&c->values); /* hudi_avro_col_reseed puts the first offset back */
  c->length = c->null_count = 0;
  c->has_validity = false;
}

hudi_status hudi_avro_col_offset_overflow(hudi_avro_col *c, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s': %s offsets would pass 2^31-1 (use a large type)",
                      cname(c), hudi_arrow_type_name(c->id));
}

/* Sets (v) or clears bits [at, at + n) of b, growing it as needed. */
static hudi_status bits_put(hudi_buf *b, int64_t at, int64_t n, bool v, hudi_error *err) {
  size_t bytes = (size_t)((at + n + 7) / 8);
  if (bytes > b->len) {
    HUDI_TRY(hudi_avro_need(b, bytes - b->len, err));
    memset(b->data + b->len, 0, bytes - b->len);
    b->len = bytes;
  }
  int64_t i = at, end = at + n;
  while (i < end && (i & 7)) {
    if (v) b->data[i >> 3] |= (uint8_t)(1u << (i & 7));
    else b->data[i >> 3] &= (uint8_t)~(1u << (i & 7));
    i++;
  }
  if (end - i >= 8) {
    memset(b->data + (i >> 3), v ? 0xFF : 0, (size_t)((end - i) >> 3));
    i += (end - i) & ~(int64_t)7;
  }
  for (; i < end; i++) {
    if (v) b->data[i >> 3] |= (uint8_t)(1u << (i & 7));
    else b->data[i >> 3] &= (uint8_t)~(1u << (i & 7));
  }
  return HUDI_OK;
}

hudi_status hudi_avro_col_valid_bits(hudi_avro_col *c, int64_t n, hudi_error *err) {
  if (c->has_validity) HUDI_TRY(bits_put(&c->validity, c->length, n, true, err));
  c->length += n;
  return HUDI_OK;
}

hudi_status hudi_avro_col_start_validity(hudi_avro_col *c, hudi_error *err) {
  hudi_buf_reset(&c->validity);
  HUDI_TRY(bits_put(&c->validity, 0, c->length, true, err));
  c->has_validity = true;
  return HUDI_OK;
}

hudi_status hudi_avro_col_put_bool(hudi_avro_col *c, bool v, hudi_error *err) {
  HUDI_TRY(bits_put(&c->values, c->length, 1, v, err));
  return hudi_avro_col_push_valid(c, err);
}

hudi_status hudi_avro_col_append_null(hudi_avro_col *c, hudi_error *err) {
  if (c->id == HUDI_ARROW_NA) {
    c->length++;
    c->null_count++;
    return HUDI_OK;
  }
  if (!c->has_validity) HUDI_TRY(hudi_avro_col_start_validity(c, err));
  switch (c->id) {
    case HUDI_ARROW_BOOL: HUDI_TRY(bits_put(&c->values, c->length, 1, false, err)); break;
    case HUDI_ARROW_STRUCT:
      for (int64_t k = 0; k < c->n_children; k++) HUDI_TRY(hudi_avro_col_append_null(&c->children[k], err));
      break;
    case HUDI_ARROW_FIXED_SIZE_LIST:
      for (int32_t k = 0; k < c->field->type.fixed_size; k++)
        HUDI_TRY(hudi_avro_col_append_null(&c->children[0], err));
      break;
    default:
      if (has_offsets(c->id)) {
        size_t w = c->large ? 8 : 4;
        HUDI_TRY(hudi_avro_need(&c->values, w, err));
        memcpy(c->values.data + c->values.len, c->values.data + c->values.len - w, w);
        c->values.len += w;
      } else {
        HUDI_TRY(hudi_avro_need(&c->values, (size_t)c->width, err));
        memset(c->values.data + c->values.len, 0, (size_t)c->width);
        c->values.len += (size_t)c->width;
      }
  }
  HUDI_TRY(bits_put(&c->validity, c->length, 1, false, err));
  c->length++;
  c->null_count++;
  return HUDI_OK;
}

/* ---- export ---- */

typedef struct col_priv {
  uint8_t *owned[3];
  const void *buffers[3];
  struct ArrowArray *child_storage;
  struct ArrowArray **children;
  int64_t n_children;
} col_priv;

static void release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  col_priv *p = a->private_data;
  if (p) {
    for (int64_t i = 0; i < p->n_children; i++)
      if (p->child_storage[i].release) p->child_storage[i].release(&p->child_storage[i]);
    for (int k = 0; k < 3; k++) hudi_free(p->owned[k]);
    hudi_free(p->child_storage);
    hudi_free(p->children);
    hudi_free(p);
  }
  a->release = NULL;
}

static int n_buffers(hudi_arrow_type_id id) {
  switch (id) {
    case HUDI_ARROW_NA: return 0;
    case HUDI_ARROW_STRUCT:
    case HUDI_ARROW_FIXED_SIZE_LIST: return 1;
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: return 3;
    default: return 2;
  }
}

/* Phase 1: every allocation (private parts, a byte in each buffer so no
 * exported pointer is NULL, the next batch's seed offsets). */
static hudi_status prepare(hudi_avro_col *c, struct ArrowArray *out, hudi_error *err) {
  memset(out, 0, sizeof *out);
  HUDI_TRY(hudi_buf_reserve(&c->values, 1, err));
  HUDI_TRY(hudi_buf_reserve(&c->data, 1, err));
  col_priv *p = hudi_calloc(1, sizeof *p);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory exporting column '%s'", cname(c));
  out->private_data = p;
  out->release = release;
  if (c->n_children) {
    p->child_storage = hudi_calloc((size_t)c->n_children, sizeof *p->child_storage);
    p->children = hudi_calloc((size_t)c->n_children, sizeof *p->children);
    if (!p->child_storage || !p->children)
      return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory exporting column '%s'", cname(c));
    for (int64_t i = 0; i < c->n_children; i++) {
      p->children[i] = &p->child_storage[i];
      p->n_children = i + 1;
      HUDI_TRY(prepare(&c->children[i], &p->child_storage[i], err));
    }
  }
  return HUDI_OK;
}

static uint8_t *take(hudi_buf *b) {
  uint8_t *d = b->data;
  hudi_buf_init(b, b->max);
  return d;
}

/* Phase 2: moves the buffers (cannot fail); the columns restart empty. */
static void commit(hudi_avro_col *c, struct ArrowArray *out) {
  col_priv *p = out->private_data;
  out->length = c->length;
  out->null_count = c->null_count;
  out->n_buffers = n_buffers(c->id);
  out->buffers = p->buffers;
  out->n_children = c->n_children;
  out->children = c->n_children ? p->children : NULL;
  if (out->n_buffers > 0) {
    if (c->null_count > 0 && c->has_validity) p->owned[0] = take(&c->validity);
    p->buffers[0] = p->owned[0];
  }
  if (out->n_buffers > 1) p->buffers[1] = p->owned[1] = take(&c->values);
  if (out->n_buffers > 2) p->buffers[2] = p->owned[2] = take(&c->data);
  for (int64_t i = 0; i < c->n_children; i++) commit(&c->children[i], &p->child_storage[i]);
}

static void reseed_after_commit(hudi_avro_col *c) {
  for (int64_t i = 0; i < c->n_children; i++) reseed_after_commit(&c->children[i]);
  c->length = c->null_count = 0;
  c->has_validity = false;
  hudi_buf_reset(&c->validity);
  hudi_buf_reset(&c->data);
  if (n_buffers(c->id) > 1) hudi_buf_init(&c->values, c->values.max); /* taken */
}

hudi_status hudi_avro_col_reseed(hudi_avro_col *c, hudi_error *err) {
  for (int64_t i = 0; i < c->n_children; i++) HUDI_TRY(hudi_avro_col_reseed(&c->children[i], err));
  if (c->values.len == 0) return seed(c, err);
  return HUDI_OK;
}

hudi_status hudi_avro_col_finish(hudi_avro_col *c, struct ArrowArray *out, hudi_error *err) {
  struct ArrowArray tmp;
  hudi_status st = prepare(c, &tmp, err);
  if (st != HUDI_OK) {
    release(&tmp);
    return st;
  }
  commit(c, &tmp);
  reseed_after_commit(c);
  *out = tmp;
  return HUDI_OK;
}

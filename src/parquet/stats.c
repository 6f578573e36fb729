/* Typed column-chunk statistics (see stats.h). */
#include "parquet/stats.h"

#include <math.h>
#include <string.h>

hudi_pq_stat_kind hudi_pq_stat_kind_of(const hudi_pq_leaf *leaf, const hudi_pq_node *node) {
  switch (node->conv) {
    case HUDI_PQ_RCONV_BOOL: return HUDI_PQ_STAT_BOOL;
    case HUDI_PQ_RCONV_INT96: return HUDI_PQ_STAT_NONE;
    case HUDI_PQ_RCONV_DEC_I32:
    case HUDI_PQ_RCONV_DEC_I64:
    case HUDI_PQ_RCONV_DEC_BE: return node->out_width == 16 ? HUDI_PQ_STAT_DECIMAL : HUDI_PQ_STAT_NONE;
    case HUDI_PQ_RCONV_BYTES: return HUDI_PQ_STAT_BYTES;
    default: break;
  }
  switch (leaf->type) {
    case HUDI_PQ_FLOAT:
    case HUDI_PQ_DOUBLE: return HUDI_PQ_STAT_DOUBLE;
    case HUDI_PQ_FIXED_LEN_BYTE_ARRAY: return node->format[0] == 'e' ? HUDI_PQ_STAT_NONE : HUDI_PQ_STAT_BYTES;
    case HUDI_PQ_INT32:
    case HUDI_PQ_INT64: {
      char f = node->format[0];
      return f == 'C' || f == 'S' || f == 'I' || f == 'L' ? HUDI_PQ_STAT_UINT : HUDI_PQ_STAT_INT;
    }
    default: return HUDI_PQ_STAT_NONE;
  }
}

static int64_t le_int(const uint8_t *p, size_t n) {
  if (n == 4) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* One bound; false when it cannot be used. */
static bool decode_value(hudi_pq_stat_value *out, hudi_pq_stat_kind kind, const hudi_pq_leaf *leaf,
                         const hudi_pq_node *node, const hudi_pq_bytes *b, bool is_min) {
  size_t w = leaf->type == HUDI_PQ_INT32 || leaf->type == HUDI_PQ_FLOAT ? 4 : 8;
  switch (kind) {
    case HUDI_PQ_STAT_BOOL:
      if (b->len != 1) return false;
      out->v.b = b->data[0] & 1;
      return true;
    case HUDI_PQ_STAT_INT:
      if (b->len != w) return false;
      out->v.i = le_int(b->data, w);
      return true;
    case HUDI_PQ_STAT_UINT:
      if (b->len != w) return false;
      out->v.u = w == 4 ? (uint32_t)le_int(b->data, 4) : (uint64_t)le_int(b->data, 8);
      return true;
    case HUDI_PQ_STAT_DOUBLE: {
      double d;
      if (b->len != w) return false;
      if (w == 4) {
        float f;
        memcpy(&f, b->data, 4);
        d = f;
      } else {
        memcpy(&d, b->data, 8);
      }
      if (isnan(d)) return false;
      if (d == 0) d = is_min ? -0.0 : 0.0;
      out->v.d = d;
      return true;
    }
    case HUDI_PQ_STAT_DECIMAL:
      if (node->conv == HUDI_PQ_RCONV_DEC_BE) {
        if (b->len == 0 || b->len > 16) return false;
        hudi_pq_i128 v = (b->data[0] & 0x80) ? -1 : 0;
        for (size_t i = 0; i < b->len; i++) v = (hudi_pq_i128)(((unsigned __int128)v << 8) | b->data[i]);
        out->v.dec = v;
        return true;
      }
      if (b->len != w) return false;
      out->v.dec = le_int(b->data, w);
      return true;
    case HUDI_PQ_STAT_BYTES:
      out->v.bytes.data = b->data;
      out->v.bytes.len = b->len;
      return true;
    default: return false;
  }
}

void hudi_pq_col_stats_decode(hudi_pq_col_stats *out, const hudi_pq_file_meta *m, uint32_t leaf_index,
                              const hudi_pq_leaf *leaf, const hudi_pq_node *node, const hudi_pq_column_chunk *cc) {
  memset(out, 0, sizeof *out);
  out->null_count = -1;
  out->nan_count = -1;
  out->num_values = -1;
  out->kind = hudi_pq_stat_kind_of(leaf, node);
  if (!cc->has_meta_data) return;
  out->num_values = cc->meta.num_values;
  if (!cc->meta.has_statistics) return;
  const hudi_pq_statistics *s = &cc->meta.statistics;
  if (s->has_null_count && s->null_count >= 0) out->null_count = s->null_count;
  if (s->has_nan_count && s->nan_count >= 0) out->nan_count = s->nan_count;
  hudi_pq_stat_kind k = out->kind;
  if (k == HUDI_PQ_STAT_NONE) return;
  bool numeric = k == HUDI_PQ_STAT_BOOL || k == HUDI_PQ_STAT_INT || k == HUDI_PQ_STAT_DOUBLE ||
                 k == HUDI_PQ_STAT_UINT || (k == HUDI_PQ_STAT_DECIMAL && node->conv != HUDI_PQ_RCONV_DEC_BE);
  bool type_order = m->has_column_orders && leaf_index < m->num_column_orders && m->column_orders[leaf_index] == 1;
  bool new_ok = type_order || (!m->has_column_orders && numeric);
  /* The legacy fields used signed comparisons everywhere. */
  bool legacy_ok = k == HUDI_PQ_STAT_BOOL || k == HUDI_PQ_STAT_INT || k == HUDI_PQ_STAT_DOUBLE ||
                   (k == HUDI_PQ_STAT_DECIMAL && node->conv != HUDI_PQ_RCONV_DEC_BE);
  const hudi_pq_bytes *lo = NULL, *hi = NULL;
  if (new_ok && s->has_min_value) lo = &s->min_value;
  else if (legacy_ok && s->has_min) lo = &s->min;
  if (new_ok && s->has_max_value) hi = &s->max_value;
  else if (legacy_ok && s->has_max) hi = &s->max;
  if (lo) out->has_min = decode_value(&out->min, k, leaf, node, lo, true);
  if (hi) out->has_max = decode_value(&out->max, k, leaf, node, hi, false);
}

int hudi_pq_stat_compare(hudi_pq_stat_kind kind, const hudi_pq_stat_value *a, const hudi_pq_stat_value *b) {
  switch (kind) {
    case HUDI_PQ_STAT_BOOL: return (int)a->v.b - (int)b->v.b;
    case HUDI_PQ_STAT_INT: return (a->v.i > b->v.i) - (a->v.i < b->v.i);
    case HUDI_PQ_STAT_UINT: return (a->v.u > b->v.u) - (a->v.u < b->v.u);
    case HUDI_PQ_STAT_DECIMAL: return (a->v.dec > b->v.dec) - (a->v.dec < b->v.dec);
    case HUDI_PQ_STAT_DOUBLE: {
      bool na = isnan(a->v.d), nb = isnan(b->v.d);
      if (na || nb) return (int)na - (int)nb;
      return (a->v.d > b->v.d) - (a->v.d < b->v.d);
    }
    case HUDI_PQ_STAT_BYTES: {
      size_t n = a->v.bytes.len < b->v.bytes.len ? a->v.bytes.len : b->v.bytes.len;
      int c = n ? memcmp(a->v.bytes.data, b->v.bytes.data, n) : 0;
      if (c) return c < 0 ? -1 : 1;
      return (a->v.bytes.len > b->v.bytes.len) - (a->v.bytes.len < b->v.bytes.len);
    }
    default: return 0;
  }
}

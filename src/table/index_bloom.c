/* The BLOOM index (HoodieBloomIndex without range pruning trees): footer
 * min/max keys and bloom filters pick candidate file groups, whose keys are
 * then read to confirm. */
#include <string.h>

#include "arrow/view.h"
#include "arrow/stream.h"
#include "base/alloc.h"
#include "base/hashmap.h"
#include "hudi/read.h"
#include "table/base_footer.h"
#include "table/bloom.h"
#include "table/index.h"
#include "table/schema_resolve.h"
#include "table/write.h"
#include "table/write_rows.h"

#define BLOOM_MAX_TEXT ((size_t)1 << 28)

typedef struct bloom_index {
  hudi_index base;
  hudi_table *t;
  hudi_file_slice_list *slices; /* latest slices, projected to _hoodie_record_key */
} bloom_index;

/* ---- bloom filter text ---------------------------------------------- */

static int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

static hudi_status b64_decode(hudi_buf *out, const char *s, size_t len, hudi_error *err) {
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '=' || s[i] == '\n' || s[i] == '\r') continue;
    int v = b64_value(s[i]);
    if (v < 0) return hudi_err_set(err, HUDI_ERR_CORRUPT, "bloom filter: bad base64 byte at %zu", i);
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      HUDI_TRY(hudi_buf_append_byte(out, (uint8_t)(acc >> bits), err));
    }
  }
  return HUDI_OK;
}

typedef struct rd {
  const uint8_t *p;
  size_t len, pos;
} rd;

static bool rd32(rd *r, int32_t *v) {
  if (r->len - r->pos < 4) return false;
  const uint8_t *p = r->p + r->pos;
  *v = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
  r->pos += 4;
  return true;
}

/* Filter.readFields: version -1, nbHash, hashType, vectorSize. */
static bool rd_filter_header(rd *r, int32_t *nb_hash, int32_t *vector_size) {
  int32_t version;
  if (!rd32(r, &version) || version != -1 || !rd32(r, nb_hash)) return false;
  if (r->pos >= r->len || r->p[r->pos] != 1) return false; /* murmur */
  r->pos++;
  return rd32(r, vector_size) && *nb_hash > 0 && *nb_hash <= 64 && *vector_size > 0;
}

static hudi_status parse_bloom(hudi_bloom *b, rd *r, bool dynamic, hudi_error *err) {
  int32_t nb, vs, nr = 0, cur = 0, rows = 1;
  if (!rd_filter_header(r, &nb, &vs)) return hudi_err_set(err, HUDI_ERR_CORRUPT, "bloom filter header");
  if (dynamic && (!rd32(r, &nr) || !rd32(r, &cur) || !rd32(r, &rows) || rows <= 0 || rows > 4096))
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "dynamic bloom filter header");
  b->nb_hash = nb;
  b->vector_size = vs;
  b->nr = nr;
  b->current = cur;
  size_t bytes = ((size_t)vs + 7) / 8;
  b->rows = hudi_calloc((size_t)rows, sizeof *b->rows);
  if (!b->rows) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (int32_t i = 0; i < rows; i++) {
    if (dynamic) {
      int32_t nb2, vs2;
      if (!rd_filter_header(r, &nb2, &vs2) || nb2 != nb || vs2 != vs)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "bloom filter row %d header", i);
    }
    if (r->len - r->pos < bytes) return hudi_err_set(err, HUDI_ERR_CORRUPT, "bloom filter row %d truncated", i);
    b->rows[i] = hudi_malloc(bytes);
    if (!b->rows[i]) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    b->n_rows = i + 1;
    memcpy(b->rows[i], r->p + r->pos, bytes);
    r->pos += bytes;
  }
  return HUDI_OK;
}

hudi_status hudi_bloom_deserialize(hudi_bloom *b, const char *text, size_t len, bool dynamic, hudi_error *err) {
  memset(b, 0, sizeof *b);
  if (len > BLOOM_MAX_TEXT) return hudi_err_set(err, HUDI_ERR_LIMIT, "bloom filter of %zu bytes", len);
  hudi_buf raw;
  hudi_buf_init(&raw, BLOOM_MAX_TEXT);
  hudi_status st = b64_decode(&raw, text, len, err);
  if (st == HUDI_OK) {
    rd r = {raw.data, raw.len, 0};
    st = parse_bloom(b, &r, dynamic, err);
  }
  hudi_buf_free(&raw);
  if (st != HUDI_OK) hudi_bloom_free(b);
  return st;
}

/* ---- lookup ----------------------------------------------------------- */

/* Marks in cand[] the unfound keys the base file may hold. Any footer
 * problem makes every key a candidate (the read then decides). */
static size_t footer_candidates(bloom_index *ix, const char *path, bool *cand, const hudi_index_loc *out,
                                const char *const *keys, const size_t *lens, size_t n) {
  hudi_base_footer f;
  hudi_base_footer_open(&f, ix->t->storage, path); /* unread: all fields NULL */
  size_t count = 0;
  hudi_error ignored = HUDI_ERROR_INIT;
  hudi_bloom bloom;
  bool have_bloom = false;
  if (f.bloom) {
    bool dynamic = !(f.bloom_type && f.bloom_type_len == 6 && !memcmp(f.bloom_type, "SIMPLE", 6));
    have_bloom = hudi_bloom_deserialize(&bloom, f.bloom, f.bloom_len, dynamic, &ignored) == HUDI_OK;
  }
  for (size_t i = 0; i < n; i++) {
    cand[i] = false;
    if (out[i].partition) continue;
    if (f.min_key && hudi_java_string_cmp(keys[i], lens[i], f.min_key, f.min_len) < 0) continue;
    if (f.max_key && hudi_java_string_cmp(keys[i], lens[i], f.max_key, f.max_len) > 0) continue;
    ix->base.bloom_checks += have_bloom;
    if (have_bloom && !hudi_bloom_might_contain(&bloom, keys[i], lens[i])) continue;
    cand[i] = true;
    count++;
  }
  if (have_bloom) hudi_bloom_free(&bloom);
  hudi_base_footer_close(&f);
  return count;
}

/* Reads the record keys of slice i into set. */
static hudi_status read_keys(bloom_index *ix, size_t i, hudi_hashmap *set, hudi_error *err) {
  struct ArrowArrayStream s;
  HUDI_TRY(hudi_table_read_file_slice(&s, ix->t, ix->slices, i, err));
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  hudi_status st = HUDI_OK;
  if (s.get_schema(&s, &schema) != 0) st = hudi_err_set(err, HUDI_ERR_IO, "reading a file slice's schema");
  while (st == HUDI_OK) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    int rc = s.get_next(&s, &a);
    if (rc != 0) {
      const char *m = s.get_last_error ? s.get_last_error(&s) : NULL;
      st = hudi_err_set(err, hudi_arrow_stored_read_status(rc), "reading record keys: %s", m ? m : "error");
      break;
    }
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    st = hudi_arrow_view_init(&v, &schema, &a, err);
    if (st == HUDI_OK && v.n_children < 1) st = hudi_err_set(err, HUDI_ERR_INTERNAL, "no record key column");
    for (int64_t r = 0; st == HUDI_OK && r < v.length; r++) {
      const hudi_arrow_view *kc = &v.children[0];
      int64_t row = hudi_arrow_view_struct_row(&v, r);
      if (hudi_arrow_view_is_null(kc, row)) continue;
      int64_t len;
      const uint8_t *k = hudi_arrow_view_bytes(kc, row, &len);
      st = hudi_hashmap_put(set, k, (size_t)len, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err);
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  if (schema.release) schema.release(&schema);
  s.release(&s);
  return st;
}

static hudi_status bloom_lookup(hudi_index *base, hudi_index_loc *out, const char *const *keys, const size_t *lens,
                                size_t n, hudi_error *err) {
  bloom_index *ix = (bloom_index *)base;
  for (size_t i = 0; i < n; i++) out[i] = (hudi_index_loc){NULL, NULL};
  ix->base.files_considered = ix->base.files_read = ix->base.bloom_checks = 0;
  if (n == 0 || !ix->slices) return HUDI_OK;
  bool *cand = hudi_calloc(n, sizeof *cand);
  if (!cand) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_status st = HUDI_OK;
  size_t count = hudi_file_slice_list_count(ix->slices), unfound = n;
  for (size_t s = 0; st == HUDI_OK && s < count && unfound; s++) {
    hudi_file_slice_info info;
    hudi_file_slice_list_at(ix->slices, s, &info);
    ix->base.files_considered++;
    size_t nc;
    if (info.base_file) {
      nc = footer_candidates(ix, info.base_file, cand, out, keys, lens, n);
    } else {
      nc = 0;
      for (size_t i = 0; i < n; i++) nc += (cand[i] = !out[i].partition);
    }
    if (!nc) continue;
    ix->base.files_read++;
    hudi_hashmap set;
    hudi_hashmap_init(&set, 0);
    st = read_keys(ix, s, &set, err);
    for (size_t i = 0; st == HUDI_OK && i < n; i++)
      if (cand[i] && hudi_hashmap_get(&set, keys[i], lens[i], NULL)) {
        out[i] = (hudi_index_loc){info.partition, info.file_id};
        unfound--;
      }
    hudi_hashmap_free(&set);
  }
  hudi_free(cand);
  return st;
}

static void bloom_free(hudi_index *base) {
  bloom_index *ix = (bloom_index *)base;
  hudi_file_slice_list_free(ix->slices);
  hudi_free(ix);
}

static const hudi_index_ops bloom_ops = {"BLOOM", bloom_lookup, bloom_free};

hudi_status hudi_index_bloom_create(hudi_index **out, hudi_table *t, hudi_error *err) {
  *out = NULL;
  bloom_index *ix = hudi_calloc(1, sizeof *ix);
  if (!ix) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  ix->base.ops = &bloom_ops;
  ix->t = t;
  /* A table without completed writes has no records (and no schema to
   * project). */
  bool any = false;
  for (size_t i = 0; i < t->timeline.count && !any; i++)
    any = t->timeline.items[i].state == HUDI_INSTANT_COMPLETED && hudi_instant_is_write(&t->timeline.items[i]);
  if (!any) {
    *out = &ix->base;
    return HUDI_OK;
  }
  static const char *const cols[] = {"_hoodie_record_key"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.options = hudi_write_snapshot_options;
  ro.n_options = hudi_write_n_snapshot_options;
  ro.projection = cols;
  ro.n_projection = 1;
  hudi_status st = hudi_table_file_slices(&ix->slices, t, &ro, err);
  if (st != HUDI_OK) {
    hudi_free(ix);
    return st;
  }
  *out = &ix->base;
  return HUDI_OK;
}

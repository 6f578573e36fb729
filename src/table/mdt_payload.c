/* HoodieMetadataRecord decode and encode (spec hudi-metadata-table.md §2). */
#include "table/mdt_payload.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "avro/binary.h"
#include "base/hashmap.h"

static const char *const META_FIELDS[HUDI_MDT_META_FIELDS] = {
    "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
    "_hoodie_file_name"};

void hudi_mdt_record_init(hudi_mdt_record *r) {
  memset(r, 0, sizeof *r);
  hudi_avro_arena_init(&r->arena, HUDI_AVRO_ARENA_DEFAULT_MAX);
  r->value_key = "";
}

void hudi_mdt_record_free(hudi_mdt_record *r) {
  if (!r) return;
  hudi_avro_arena_free(&r->arena);
  memset(r, 0, sizeof *r);
}

/* ---- decoding ---- */

typedef struct ctx {
  const char *where;
  const char *key;
} ctx;

static hudi_status bad(const ctx *c, hudi_error *err, const char *what) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: metadata record '%.200s': %s", c->where, c->key, what);
}

/* A field's value unwrapped from its union; NULL when the field is absent
 * from the schema or null. */
static const hudi_avro_value *opt_field(const hudi_avro_value *rec, const char *name) {
  const hudi_avro_value *f = hudi_avro_value_field(rec, name);
  if (!f || hudi_avro_value_is_null(f)) return NULL;
  return hudi_avro_value_unwrap(f);
}

static bool is_type(const hudi_avro_value *v, hudi_avro_type t) { return v && v->node && v->node->type == t; }

static hudi_status get_string(const ctx *c, const hudi_avro_value *rec, const char *name, const char **out,
                              hudi_error *err) {
  const hudi_avro_value *v = opt_field(rec, name);
  *out = NULL;
  if (!v) return HUDI_OK;
  if (!is_type(v, HUDI_AVRO_STRING)) return bad(c, err, name);
  *out = (const char *)v->v.bytes.data;
  return HUDI_OK;
}

/* A nullable long or int field; *has false when null or absent. */
static hudi_status get_long(const ctx *c, const hudi_avro_value *rec, const char *name, bool *has, int64_t *out,
                            hudi_error *err) {
  const hudi_avro_value *v = opt_field(rec, name);
  *has = v != NULL;
  *out = 0;
  if (!v) return HUDI_OK;
  if (is_type(v, HUDI_AVRO_LONG))
    *out = v->v.l;
  else if (is_type(v, HUDI_AVRO_INT))
    *out = v->v.i;
  else
    return bad(c, err, name);
  return HUDI_OK;
}

static hudi_status get_bool(const ctx *c, const hudi_avro_value *rec, const char *name, bool *has, bool *out,
                            hudi_error *err) {
  const hudi_avro_value *v = opt_field(rec, name);
  *has = v != NULL;
  *out = false;
  if (!v) return HUDI_OK;
  if (!is_type(v, HUDI_AVRO_BOOLEAN)) return bad(c, err, name);
  *out = v->v.boolean != 0;
  return HUDI_OK;
}

static hudi_status decode_files(hudi_mdt_record *r, const ctx *c, const hudi_avro_value *map, hudi_error *err) {
  if (!is_type(map, HUDI_AVRO_MAP)) return bad(c, err, "filesystemMetadata is not a map");
  r->has_files = true;
  r->n_files = r->cap_files = map->v.map.n;
  if (!r->n_files) return HUDI_OK;
  void *p;
  HUDI_TRY(hudi_avro_arena_array(&r->arena, r->n_files, sizeof *r->files, &p, err));
  r->files = p;
  for (size_t i = 0; i < r->n_files; i++) {
    const hudi_avro_value *info = &map->v.map.values[i];
    bool has_size, has_del;
    hudi_mdt_file_entry *e = &r->files[i];
    e->name = map->v.map.keys[i].data;
    e->name_len = map->v.map.keys[i].len;
    HUDI_TRY(get_long(c, info, "size", &has_size, &e->size, err));
    HUDI_TRY(get_bool(c, info, "isDeleted", &has_del, &e->is_deleted, err));
    if (!has_size || !has_del) return bad(c, err, "file entry without size or isDeleted");
  }
  return HUDI_OK;
}

static hudi_status decode_rli(hudi_mdt_record *r, const ctx *c, const hudi_avro_value *v, hudi_error *err) {
  hudi_mdt_rli *x = &r->rli;
  int64_t l;
  bool has;
  r->has_rli = true;
  HUDI_TRY(get_string(c, v, "partitionName", &x->partition, err));
  HUDI_TRY(get_long(c, v, "fileIdHighBits", &x->has_high, &x->high_bits, err));
  HUDI_TRY(get_long(c, v, "fileIdLowBits", &x->has_low, &x->low_bits, err));
  HUDI_TRY(get_long(c, v, "fileIndex", &x->has_file_index, &l, err));
  x->file_index = (int32_t)l;
  HUDI_TRY(get_string(c, v, "fileId", &x->file_id, err));
  HUDI_TRY(get_long(c, v, "instantTime", &x->has_instant, &x->instant_ms, err));
  HUDI_TRY(get_long(c, v, "fileIdEncoding", &has, &l, err));
  x->encoding = (int32_t)l;
  HUDI_TRY(get_long(c, v, "position", &x->has_position, &x->position, err));
  return HUDI_OK;
}

static hudi_status decode_stats(hudi_mdt_record *r, const ctx *c, const hudi_avro_value *v, hudi_error *err) {
  hudi_mdt_column_stats *s = &r->column_stats;
  bool has;
  r->has_column_stats = true;
  HUDI_TRY(get_string(c, v, "fileName", &s->file_name, err));
  HUDI_TRY(get_string(c, v, "columnName", &s->column_name, err));
  s->min_value = opt_field(v, "minValue");
  s->max_value = opt_field(v, "maxValue");
  HUDI_TRY(get_long(c, v, "nullCount", &s->has_null_count, &s->null_count, err));
  HUDI_TRY(get_long(c, v, "valueCount", &s->has_value_count, &s->value_count, err));
  HUDI_TRY(get_long(c, v, "totalSize", &s->has_total_size, &s->total_size, err));
  HUDI_TRY(get_long(c, v, "totalUncompressedSize", &s->has_total_uncompressed_size, &s->total_uncompressed_size,
                    err));
  HUDI_TRY(get_bool(c, v, "isDeleted", &has, &s->is_deleted, err));
  HUDI_TRY(get_bool(c, v, "isTightBound", &s->has_is_tight_bound, &s->is_tight_bound, err));
  return HUDI_OK;
}

static hudi_status decode_fields(hudi_mdt_record *r, const ctx *c, hudi_error *err) {
  const hudi_avro_value *root = r->value;
  if (!is_type(root, HUDI_AVRO_RECORD)) return bad(c, err, "the schema is not a record");
  for (int i = 0; i < HUDI_MDT_META_FIELDS; i++) HUDI_TRY(get_string(c, root, META_FIELDS[i], &r->meta[i], err));
  HUDI_TRY(get_string(c, root, "key", &r->value_key, err));
  if (!r->value_key) return bad(c, err, "no key field");
  bool has;
  int64_t type;
  HUDI_TRY(get_long(c, root, "type", &has, &type, err));
  if (!has) return bad(c, err, "no type field");
  r->type = (int32_t)type;
  const hudi_avro_value *v;
  if ((v = opt_field(root, "filesystemMetadata"))) HUDI_TRY(decode_files(r, c, v, err));
  if ((v = opt_field(root, "recordIndexMetadata"))) HUDI_TRY(decode_rli(r, c, v, err));
  if ((v = opt_field(root, "ColumnStatsMetadata"))) HUDI_TRY(decode_stats(r, c, v, err));
  return HUDI_OK;
}

hudi_status hudi_mdt_record_decode(hudi_mdt_record *out, const hudi_avro_node *writer, const char *key,
                                   size_t key_len, const uint8_t *data, size_t len, const char *where,
                                   hudi_error *err) {
  hudi_mdt_record_init(out);
  ctx c = {where ? where : "metadata table", ""};
  if (key_len > HUDI_MDT_MAX_PAYLOAD || len > HUDI_MDT_MAX_PAYLOAD)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: metadata record of %zu bytes", c.where, len);
  char *k;
  HUDI_TRY(hudi_avro_arena_strndup(&out->arena, key ? key : "", key ? key_len : 0, &k, err));
  out->key = k;
  out->key_len = key ? key_len : 0;
  c.key = k;
  void *p;
  HUDI_TRY(hudi_avro_arena_alloc(&out->arena, sizeof(hudi_avro_value), &p, err));
  out->value = p;
  hudi_avro_cursor cur;
  hudi_avro_cursor_init(&cur, data, len, 0, c.where);
  HUDI_TRY(hudi_avro_decode(out->value, &out->arena, writer, NULL, &cur, err));
  if (hudi_avro_cursor_left(&cur))
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: metadata record '%.200s': %zu bytes after the value at byte %zu",
                        c.where, k, hudi_avro_cursor_left(&cur), cur.pos);
  return decode_fields(out, &c, err);
}

/* ---- building ---- */

hudi_status hudi_mdt_record_set_key(hudi_mdt_record *r, const char *key, size_t len, int32_t type,
                                    hudi_error *err) {
  char *k;
  HUDI_TRY(hudi_avro_arena_strndup(&r->arena, key, len, &k, err));
  r->key = k;
  r->key_len = len;
  r->type = type;
  return HUDI_OK;
}

hudi_status hudi_mdt_record_add_file(hudi_mdt_record *r, const char *name, size_t len, int64_t size,
                                     bool is_deleted, hudi_error *err) {
  /* Grow by doubling inside the arena (old arrays stay until the record is freed). */
  size_t n = r->n_files;
  if (n == r->cap_files) {
    size_t cap = n ? n * 2 : 8;
    void *p;
    HUDI_TRY(hudi_avro_arena_array(&r->arena, cap, sizeof *r->files, &p, err));
    if (n) memcpy(p, r->files, n * sizeof *r->files);
    r->files = p;
    r->cap_files = cap;
  }
  char *nm;
  HUDI_TRY(hudi_avro_arena_strndup(&r->arena, name, len, &nm, err));
  r->files[n].name = nm;
  r->files[n].name_len = len;
  r->files[n].size = size;
  r->files[n].is_deleted = is_deleted;
  r->n_files = n + 1;
  r->has_files = true;
  return HUDI_OK;
}

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

bool hudi_mdt_parse_uuid(const char *s, size_t len, int64_t *high, int64_t *low) {
  if (len != 36) return false;
  uint64_t w[2] = {0, 0};
  int nib = 0;
  for (size_t i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
      continue;
    }
    int h = hexval(s[i]);
    if (h < 0) return false;
    w[nib / 16] = (w[nib / 16] << 4) | (uint64_t)h;
    nib++;
  }
  *high = (int64_t)w[0];
  *low = (int64_t)w[1];
  return true;
}

/* True for a canonical lower-case UUID, the only form new UUID(..)
 * .toString() gives back unchanged. */
static bool is_canonical_uuid(const char *s, size_t len, int64_t *hi, int64_t *lo) {
  if (!hudi_mdt_parse_uuid(s, len, hi, lo)) return false;
  for (size_t i = 0; i < len; i++)
    if (s[i] >= 'A' && s[i] <= 'F') return false;
  return true;
}

/* A decimal int that Integer.toString gives back unchanged (no sign, no
 * leading zero, fits in int32). */
static bool canonical_index(const char *s, size_t len, int32_t *out) {
  if (len == 0 || len > 10 || (s[0] == '0' && len > 1)) return false;
  int64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  if (v > INT32_MAX) return false;
  *out = (int32_t)v;
  return true;
}

hudi_status hudi_mdt_record_set_rli(hudi_mdt_record *r, const char *partition, const char *file_id,
                                    int64_t instant_ms, hudi_error *err) {
  hudi_mdt_rli *x = &r->rli;
  memset(x, 0, sizeof *x);
  char *p, *f;
  HUDI_TRY(hudi_avro_arena_strndup(&r->arena, partition, strlen(partition), &p, err));
  x->partition = p;
  x->has_high = x->has_low = x->has_file_index = x->has_instant = true;
  x->instant_ms = instant_ms;
  size_t n = strlen(file_id);
  int64_t hi, lo;
  int32_t index = -1;
  bool uuid = is_canonical_uuid(file_id, n, &hi, &lo);
  if (!uuid && n > 37 && file_id[36] == '-')
    uuid = is_canonical_uuid(file_id, 36, &hi, &lo) && canonical_index(file_id + 37, n - 37, &index);
  if (uuid) {
    x->encoding = 0;
    x->high_bits = hi;
    x->low_bits = lo;
    x->file_index = index;
    x->file_id = "";
  } else {
    HUDI_TRY(hudi_avro_arena_strndup(&r->arena, file_id, n, &f, err));
    x->encoding = 1;
    x->high_bits = x->low_bits = -1;
    x->file_index = -1;
    x->file_id = f;
  }
  r->has_rli = true;
  r->type = HUDI_MDT_TYPE_RECORD_INDEX;
  return HUDI_OK;
}

hudi_status hudi_mdt_rli_file_id(const hudi_mdt_rli *rli, hudi_buf *out, hudi_error *err) {
  if (rli->encoding != 0) {
    if (!rli->file_id) return hudi_err_set(err, HUDI_ERR_CORRUPT, "record index entry with fileIdEncoding %d and no fileId",
                                           (int)rli->encoding);
    return hudi_buf_append(out, rli->file_id, strlen(rli->file_id), err);
  }
  if (!rli->has_high || !rli->has_low || !rli->has_file_index)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "record index entry with fileIdEncoding 0 and a null UUID part");
  /* java.util.UUID.toString: 8-4-4-4-12 lower-case hex digits. */
  char s[64];
  uint64_t hi = (uint64_t)rli->high_bits, lo = (uint64_t)rli->low_bits;
  int n = snprintf(s, sizeof s, "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64, hi >> 32,
                   (hi >> 16) & 0xffff, hi & 0xffff, lo >> 48, (uint64_t)(lo & 0xffffffffffffULL));
  if (rli->file_index != -1) n += snprintf(s + n, sizeof s - (size_t)n, "-%" PRId32, rli->file_index);
  return hudi_buf_append(out, s, (size_t)n, err);
}

/* ---- encoding ---- */

static hudi_status set_opt_string(hudi_avro_value *rec, hudi_avro_arena *a, const char *name, const char *s,
                                  hudi_error *err) {
  hudi_avro_value *f = hudi_avro_value_field(rec, name);
  if (!f) return s ? hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the metadata schema has no field %s", name) : HUDI_OK;
  if (!s) return hudi_avro_value_set_null(f, a, err);
  return hudi_avro_value_set_string(f, a, s, strlen(s), err);
}

static hudi_status set_opt_long(hudi_avro_value *rec, hudi_avro_arena *a, const char *name, bool has, int64_t v,
                                hudi_error *err) {
  hudi_avro_value *f = hudi_avro_value_field(rec, name);
  if (!f) return has ? hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the metadata schema has no field %s", name) : HUDI_OK;
  if (!has) return hudi_avro_value_set_null(f, a, err);
  return hudi_avro_value_set_long(f, a, v, err);
}

/* Selects the record branch of a ["null", record] field. */
static hudi_status select_record(hudi_avro_value *rec, hudi_avro_arena *a, const char *name, hudi_avro_value **out,
                                 hudi_error *err) {
  hudi_avro_value *f = hudi_avro_value_field(rec, name);
  if (!f) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the metadata schema has no field %s", name);
  if (f->node->type != HUDI_AVRO_UNION) {
    *out = f;
    return HUDI_OK;
  }
  for (uint32_t b = 0; b < f->node->n_branches; b++)
    if (f->node->branches[b]->type == HUDI_AVRO_RECORD || f->node->branches[b]->type == HUDI_AVRO_MAP)
      return hudi_avro_value_select(f, a, b, out, err);
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata schema field %s has no record branch", name);
}

static hudi_status build_files(const hudi_mdt_record *r, hudi_avro_value *root, hudi_avro_arena *a,
                               hudi_error *err) {
  hudi_avro_value *map;
  HUDI_TRY(select_record(root, a, "filesystemMetadata", &map, err));
  for (size_t i = 0; i < r->n_files; i++) {
    const hudi_mdt_file_entry *e = &r->files[i];
    if (memchr(e->name, 0, e->name_len))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "file name with a NUL byte in metadata record '%s'", r->key);
    hudi_avro_value *info;
    HUDI_TRY(hudi_avro_value_put(map, a, e->name, &info, err));
    HUDI_TRY(set_opt_long(info, a, "size", true, e->size, err));
    hudi_avro_value *d = hudi_avro_value_field(info, "isDeleted");
    if (!d) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HoodieMetadataFileInfo has no isDeleted");
    HUDI_TRY(hudi_avro_value_set_boolean(d, a, e->is_deleted, err));
  }
  return HUDI_OK;
}

static hudi_status build_rli(const hudi_mdt_rli *x, hudi_avro_value *root, hudi_avro_arena *a, hudi_error *err) {
  hudi_avro_value *v;
  HUDI_TRY(select_record(root, a, "recordIndexMetadata", &v, err));
  HUDI_TRY(set_opt_string(v, a, "partitionName", x->partition, err));
  HUDI_TRY(set_opt_long(v, a, "fileIdHighBits", x->has_high, x->high_bits, err));
  HUDI_TRY(set_opt_long(v, a, "fileIdLowBits", x->has_low, x->low_bits, err));
  HUDI_TRY(set_opt_long(v, a, "fileIndex", x->has_file_index, x->file_index, err));
  HUDI_TRY(set_opt_string(v, a, "fileId", x->file_id, err));
  HUDI_TRY(set_opt_long(v, a, "instantTime", x->has_instant, x->instant_ms, err));
  HUDI_TRY(set_opt_long(v, a, "fileIdEncoding", true, x->encoding, err));
  return set_opt_long(v, a, "position", x->has_position, x->position, err);
}

static hudi_status build_value(const hudi_mdt_record *r, const hudi_avro_node *schema, hudi_avro_value *root,
                               hudi_avro_arena *a, hudi_error *err) {
  HUDI_TRY(hudi_avro_value_init(root, a, schema, err));
  if (schema->type != HUDI_AVRO_RECORD)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the metadata schema is not a record");
  for (int i = 0; i < HUDI_MDT_META_FIELDS; i++) HUDI_TRY(set_opt_string(root, a, META_FIELDS[i], r->meta[i], err));
  hudi_avro_value *k = hudi_avro_value_field(root, "key");
  hudi_avro_value *t = hudi_avro_value_field(root, "type");
  if (!k || !t) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the metadata schema has no key or type field");
  const char *vk = r->value_key ? r->value_key : "";
  HUDI_TRY(hudi_avro_value_set_string(k, a, vk, strlen(vk), err));
  HUDI_TRY(hudi_avro_value_set_long(t, a, r->type, err));
  if (r->has_files) HUDI_TRY(build_files(r, root, a, err));
  if (r->has_rli) HUDI_TRY(build_rli(&r->rli, root, a, err));
  return HUDI_OK;
}

hudi_status hudi_mdt_record_encode(const hudi_mdt_record *r, const hudi_avro_node *schema, hudi_buf *out,
                                   hudi_error *err) {
  bool typed = r->type == HUDI_MDT_TYPE_PARTITION_LIST || r->type == HUDI_MDT_TYPE_FILE_LIST ||
               r->type == HUDI_MDT_TYPE_RECORD_INDEX;
  if (!typed) {
    if (!r->value)
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "metadata record '%s' of type %d: only decoded records re-encode",
                          r->key ? r->key : "", (int)r->type);
    return hudi_avro_encode(r->value, out, err);
  }
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, HUDI_AVRO_ARENA_DEFAULT_MAX);
  hudi_avro_value root;
  hudi_status st = build_value(r, schema, &root, &a, err);
  if (st == HUDI_OK) st = hudi_avro_encode(&root, out, err);
  hudi_avro_arena_free(&a);
  return st;
}

/* ---- merging ---- */

static void move_record(hudi_mdt_record *out, hudi_mdt_record *from) {
  if (out == from) return;
  *out = *from;
  memset(from, 0, sizeof *from);
}

/* Merges newer's entries into a copy of older's, in newer's arena. */
static hudi_status merge_files(hudi_mdt_record *older, hudi_mdt_record *newer, hudi_error *err) {
  size_t cap = older->n_files + newer->n_files;
  hudi_mdt_file_entry *merged = NULL;
  bool *gone = NULL;
  hudi_hashmap idx;
  hudi_hashmap_init(&idx, 0);
  hudi_status st = HUDI_OK;
  void *p;
  if (cap) {
    st = hudi_avro_arena_array(&newer->arena, cap, sizeof *merged, &p, err);
    merged = p;
    if (st == HUDI_OK) st = hudi_avro_arena_array(&newer->arena, cap, sizeof *gone, &p, err);
    gone = p;
    if (st == HUDI_OK) st = hudi_hashmap_reserve(&idx, cap, err);
  }
  size_t n = 0;
  for (size_t i = 0; st == HUDI_OK && i < older->n_files; i++) {
    const hudi_mdt_file_entry *e = &older->files[i];
    char *nm;
    st = hudi_avro_arena_strndup(&newer->arena, e->name, e->name_len, &nm, err);
    if (st != HUDI_OK) break;
    hudi_hashmap_value v = {.u64 = n};
    merged[n] = *e;
    merged[n].name = nm;
    int replaced = 0;
    hudi_hashmap_value old;
    st = hudi_hashmap_put(&idx, nm, e->name_len, v, &old, &replaced, err);
    if (st == HUDI_OK && replaced) gone[old.u64] = true; /* a repeated name: the later one stands */
    n++;
  }
  for (size_t i = 0; st == HUDI_OK && i < newer->n_files; i++) {
    const hudi_mdt_file_entry *e = &newer->files[i];
    hudi_hashmap_value at;
    if (hudi_hashmap_get(&idx, e->name, e->name_len, &at) && !gone[at.u64]) {
      hudi_mdt_file_entry *m = &merged[at.u64];
      if (e->is_deleted) {
        gone[at.u64] = true;
      } else {
        m->size = e->size > m->size ? e->size : m->size;
        m->is_deleted = false;
      }
      continue;
    }
    merged[n] = *e;
    hudi_hashmap_value v = {.u64 = n};
    st = hudi_hashmap_put(&idx, e->name, e->name_len, v, NULL, NULL, err);
    n++;
  }
  hudi_hashmap_free(&idx);
  if (st != HUDI_OK) return st;
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (!gone[i]) merged[w++] = merged[i];
  newer->files = merged;
  newer->n_files = newer->cap_files = w;
  newer->has_files = true;
  newer->value = NULL; /* the decoded tree no longer matches */
  return HUDI_OK;
}

hudi_status hudi_mdt_record_combine(hudi_mdt_record *out, hudi_mdt_record *older, hudi_mdt_record *newer,
                                    hudi_error *err) {
  bool files = older && (newer->type == HUDI_MDT_TYPE_PARTITION_LIST || newer->type == HUDI_MDT_TYPE_FILE_LIST) &&
               older->type == newer->type;
  hudi_status st = files ? merge_files(older, newer, err) : HUDI_OK;
  if (older) hudi_mdt_record_free(older);
  if (st != HUDI_OK) {
    hudi_mdt_record_free(newer);
    return st;
  }
  move_record(out, newer);
  return HUDI_OK;
}

static hudi_status dup_opt(hudi_avro_arena *a, const char *s, const char **out, hudi_error *err) {
  char *c = NULL;
  if (s) HUDI_TRY(hudi_avro_arena_strndup(a, s, strlen(s), &c, err));
  *out = c;
  return HUDI_OK;
}

hudi_status hudi_mdt_record_copy(hudi_mdt_record *dst, const hudi_mdt_record *src, hudi_error *err) {
  hudi_mdt_record_init(dst);
  hudi_avro_arena *a = &dst->arena;
  HUDI_TRY(hudi_mdt_record_set_key(dst, src->key ? src->key : "", src->key ? src->key_len : 0, src->type, err));
  HUDI_TRY(dup_opt(a, src->value_key, &dst->value_key, err));
  for (int i = 0; i < HUDI_MDT_META_FIELDS; i++) HUDI_TRY(dup_opt(a, src->meta[i], &dst->meta[i], err));
  for (size_t i = 0; i < src->n_files; i++)
    HUDI_TRY(hudi_mdt_record_add_file(dst, src->files[i].name, src->files[i].name_len, src->files[i].size,
                                      src->files[i].is_deleted, err));
  dst->has_files = src->has_files;
  dst->has_rli = src->has_rli;
  dst->rli = src->rli;
  HUDI_TRY(dup_opt(a, src->rli.partition, &dst->rli.partition, err));
  HUDI_TRY(dup_opt(a, src->rli.file_id, &dst->rli.file_id, err));
  dst->has_column_stats = src->has_column_stats;
  dst->column_stats = src->column_stats;
  dst->column_stats.min_value = dst->column_stats.max_value = NULL;
  HUDI_TRY(dup_opt(a, src->column_stats.file_name, &dst->column_stats.file_name, err));
  return dup_opt(a, src->column_stats.column_name, &dst->column_stats.column_name, err);
}

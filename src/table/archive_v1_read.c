/* Reading the layout-1 archive back (archive_v1.h): the entries' times,
 * actions and states, enough to tell which instants an archival already
 * recorded (archive.c finishes an archival cut short between writing the
 * archive and deleting the instants' files). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avro/value.h"
#include "base/alloc.h"
#include "table/archive_v1.h"
#include "table/log_avro_block.h"
#include "table/log_reader.h"

#define ARCHIVE_PREFIX ".commits_.archive."
/* Arena bytes one decoded record may take (a plan or commit metadata). */
#define RECORD_ARENA_MAX ((size_t)256 << 20)

void hudi_archive_v1_entries_free(hudi_archive_v1_entries *e) {
  hudi_free(e->items);
  memset(e, 0, sizeof *e);
}

bool hudi_archive_v1_has(const hudi_archive_v1_entries *e, const char *time, const char *action,
                         hudi_instant_state state) {
  for (size_t i = 0; i < e->count; i++)
    if (e->items[i].state == state && !strcmp(e->items[i].commit_time, time) && !strcmp(e->items[i].action, action))
      return true;
  return false;
}

/* A string field of the record (null or absent: ""), checked to fit cap. */
static hudi_status str_field(char *out, size_t cap, const hudi_avro_value *rec, const char *name, const char *where,
                             hudi_error *err) {
  out[0] = 0;
  const hudi_avro_value *f = hudi_avro_value_field(rec, name);
  if (!f || hudi_avro_value_is_null(f)) return HUDI_OK;
  const hudi_avro_value *v = hudi_avro_value_unwrap(f);
  if (v->node->type != HUDI_AVRO_STRING && v->node->type != HUDI_AVRO_BYTES)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: field %s is not a string", where, name);
  if (v->v.bytes.len >= cap)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: field %s has %zu bytes (at most %zu)", where, name,
                        v->v.bytes.len, cap - 1);
  memcpy(out, v->v.bytes.data, v->v.bytes.len);
  out[v->v.bytes.len] = 0;
  return HUDI_OK;
}

static hudi_status add_entry(hudi_archive_v1_entries *e, const hudi_avro_value *rec, const char *where,
                             hudi_error *err) {
  hudi_archive_v1_entry x;
  char state[32];
  HUDI_TRY(str_field(x.commit_time, sizeof x.commit_time, rec, "commitTime", where, err));
  HUDI_TRY(str_field(x.action, sizeof x.action, rec, "actionType", where, err));
  HUDI_TRY(str_field(state, sizeof state, rec, "actionState", where, err));
  if (!x.commit_time[0] || !x.action[0])
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: an entry without commitTime or actionType", where);
  x.state = !strcmp(state, "REQUESTED") ? HUDI_INSTANT_REQUESTED
            : !strcmp(state, "INFLIGHT") ? HUDI_INSTANT_INFLIGHT
                                          : HUDI_INSTANT_COMPLETED;
  if (e->count == e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 64;
    hudi_archive_v1_entry *items = hudi_realloc(e->items, cap * sizeof *items);
    if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for archive entries");
    e->items = items;
    e->cap = cap;
  }
  e->items[e->count++] = x;
  return HUDI_OK;
}

/* The records of one AVRO_DATA block, decoded with its SCHEMA header. */
static hudi_status read_block(hudi_archive_v1_entries *e, const hudi_log_block *b, const char *path,
                              hudi_error *err) {
  char where[600];
  snprintf(where, sizeof where, "%s: block at byte %llu", path, (unsigned long long)b->offset);
  size_t schema_len = 0;
  const char *schema_json = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_SCHEMA, &schema_len);
  if (!schema_json) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: no SCHEMA header", where);
  hudi_avro_schema *schema = NULL;
  hudi_status st = hudi_avro_schema_parse(&schema, schema_json, schema_len, err);
  hudi_log_avro_records it;
  if (st == HUDI_OK) st = hudi_log_avro_records_open(&it, b->content, b->content_len, b->content_offset, where, err);
  hudi_avro_arena arena;
  hudi_avro_arena_init(&arena, RECORD_ARENA_MAX);
  for (bool has = true; st == HUDI_OK;) {
    const uint8_t *datum;
    size_t len;
    st = hudi_log_avro_records_next(&it, &datum, &len, &has, err);
    if (st != HUDI_OK || !has) break;
    hudi_avro_cursor c;
    hudi_avro_cursor_init(&c, datum, len, 0, where);
    hudi_avro_value rec;
    hudi_avro_arena_free(&arena);
    hudi_avro_arena_init(&arena, RECORD_ARENA_MAX);
    st = hudi_avro_decode(&rec, &arena, schema->root, NULL, &c, err);
    if (st == HUDI_OK) st = add_entry(e, &rec, where, err);
  }
  hudi_avro_arena_free(&arena);
  hudi_avro_schema_free(schema);
  return st;
}

hudi_status hudi_archive_v1_read_bytes(hudi_archive_v1_entries *e, const uint8_t *data, size_t len, const char *name,
                                       hudi_error *err) {
  hudi_log_reader *r = NULL;
  hudi_status st = hudi_log_reader_open_memory(&r, data, len, name, err);
  for (bool has = true; st == HUDI_OK;) {
    hudi_log_block b;
    st = hudi_log_reader_next(r, &b, &has, err);
    if (st != HUDI_OK || !has) break;
    if (b.type == HUDI_LOG_BLOCK_AVRO_DATA) st = read_block(e, &b, name, err);
    hudi_log_block_free(&b);
  }
  hudi_log_reader_free(r);
  return st;
}

static hudi_status read_file(hudi_archive_v1_entries *e, hudi_storage *s, const char *path, hudi_error *err) {
  hudi_buf bytes;
  hudi_buf_init(&bytes, HUDI_ARCHIVE_V1_MAX_FILE);
  hudi_status st = hudi_storage_read_all(s, path, HUDI_ARCHIVE_V1_MAX_FILE, &bytes, err);
  if (st == HUDI_OK) st = hudi_archive_v1_read_bytes(e, bytes.data, bytes.len, path, err);
  hudi_buf_free(&bytes);
  return st;
}

static int cmp_path(const void *a, const void *b) {
  return strcmp(((const hudi_file_info *)a)->path, ((const hudi_file_info *)b)->path);
}

hudi_status hudi_archive_v1_load(hudi_archive_v1_entries *out, hudi_storage *s, const hudi_props *props,
                                 hudi_error *err) {
  char dir[600];
  hudi_archive_v1_dir(dir, sizeof dir, props);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, dir, 0, &l, err));
  qsort(l.items, l.count, sizeof *l.items, cmp_path);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l.count; i++) {
    const char *slash = strrchr(l.items[i].path, '/');
    const char *name = slash ? slash + 1 : l.items[i].path;
    if (l.items[i].is_dir || strncmp(name, ARCHIVE_PREFIX, strlen(ARCHIVE_PREFIX)) != 0) continue;
    st = read_file(out, s, l.items[i].path, err);
  }
  hudi_file_list_free(&l);
  if (st != HUDI_OK) hudi_archive_v1_entries_free(out);
  return st;
}

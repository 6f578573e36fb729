/* Shared pieces of the metadata-table writers (see mdt_write_common.h). */
#include "table/mdt_write_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/instant.h"
#include "hfile/hfile.h"
#include "table/instant_file.h"
#include "table/log_delete_block.h"
#include "table/log_format.h"
#include "table/mdt_schema.h"
#include "table/properties.h"

hudi_status hudi_mdt_w_resolve(hudi_mdt_write_options *out, const hudi_mdt_write_options *in, hudi_error *err) {
  hudi_mdt_write_options d = HUDI_MDT_WRITE_OPTIONS_INIT;
  *out = in ? *in : d;
  if (out->table_version != 0 && out->table_version != 8 && out->table_version != 9)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "metadata table writer: table version %d (only 8 and 9 are written)", out->table_version);
  if (out->hfile_block_size == 0) out->hfile_block_size = HUDI_MDT_DEFAULT_HFILE_BLOCK_SIZE;
  if (out->record_index_shards < -1 || out->record_index_shards > HUDI_MDT_MAX_RLI_SHARDS)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table writer: %d record-index shards",
                        (int)out->record_index_shards);
  if (out->timeline_utc_offset_minutes < -14 * 60 || out->timeline_utc_offset_minutes > 14 * 60)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table writer: timeline offset %d minutes",
                        (int)out->timeline_utc_offset_minutes);
  return HUDI_OK;
}

hudi_status hudi_mdt_w_schema(hudi_avro_schema **out, int table_version, hudi_error *err) {
  size_t len = 0;
  const char *json = hudi_mdt_schema_json(table_version, &len);
  return hudi_avro_schema_parse(out, json, len, err);
}

hudi_status hudi_mdt_w_instant(hudi_storage *s, const char *instant, const char *completion, hudi_instant_state state,
                               const void *data, size_t len, hudi_error *err) {
  return hudi_mdt_w_instant_action(s, instant, completion, "deltacommit", state, data, len, err);
}

hudi_status hudi_mdt_w_instant_action(hudi_storage *s, const char *instant, const char *completion, const char *action,
                                      hudi_instant_state state, const void *data, size_t len, hudi_error *err) {
  char name[128], path[256];
  if (hudi_instant_file_name(name, sizeof name, instant, completion, action, state, 2) < 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table: no instant file name for %s", instant);
  snprintf(path, sizeof path, "%s/%s", HUDI_MDT_W_TIMELINE, name);
  hudi_status st = hudi_storage_write_if_absent(s, path, data, len, err);
  if (st == HUDI_ERR_EXISTS)
    return hudi_err_set(err, HUDI_ERR_CONFLICT, "%s already exists: metadata-table instant %s is taken", path,
                        instant);
  return st;
}

hudi_status hudi_mdt_w_completion(hudi_storage *s, const hudi_mdt_write_options *opts, const char *instant,
                                  char out[HUDI_INSTANT_TIME_BUF], hudi_error *err) {
  if (opts->completion_time) {
    if (strlen(opts->completion_time) != HUDI_INSTANT_TIME_LEN)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "completion time '%s' is not 17 digits", opts->completion_time);
    memcpy(out, opts->completion_time, HUDI_INSTANT_TIME_BUF);
    return HUDI_OK;
  }
  hudi_instant_gen gen;
  hudi_instant_gen_init(&gen, NULL, NULL);
  hudi_instant_gen_set_offset(&gen, (int64_t)opts->timeline_utc_offset_minutes * 60000);
  int64_t ms;
  if (hudi_instant_time_to_millis(&ms, instant, strlen(instant), NULL) == HUDI_OK) hudi_instant_gen_observe(&gen, ms);
  /* Completion times on the MDT timeline only grow. */
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, HUDI_MDT_W_TIMELINE, 0, &list, err));
  for (size_t i = 0; i < list.count; i++) {
    const char *base = strrchr(list.items[i].path, '/');
    hudi_instant_file f;
    if (hudi_instant_file_parse(&f, base ? base + 1 : list.items[i].path, 2) && f.completion_time[0] &&
        hudi_instant_time_to_millis(&ms, f.completion_time, strlen(f.completion_time), NULL) == HUDI_OK)
      hudi_instant_gen_observe(&gen, ms);
  }
  hudi_file_list_free(&list);
  return hudi_instant_gen_next(&gen, out, NULL, err);
}

hudi_status hudi_mdt_w_partition_metadata(hudi_storage *s, const char *partition, const char *instant,
                                          hudi_error *err) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s/.hoodie_partition_metadata", HUDI_MDT_W_BASE, partition);
  bool exists = false;
  HUDI_TRY(hudi_storage_exists(s, path, &exists, err));
  if (exists) return HUDI_OK;
  /* Java Properties.store: a comment line, the date line, then the keys. */
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char date[64];
  strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
  hudi_buf b;
  hudi_buf_init(&b, 4096);
  hudi_status st = hudi_buf_printf(&b, err, "#partition metadata\n#%s\ncommitTime=%s\npartitionDepth=1\n", date,
                                   instant);
  if (st == HUDI_OK) st = hudi_storage_write(s, path, b.data, b.len, 0, err);
  hudi_buf_free(&b);
  return st;
}

static int cmp_record_key(const void *a, const void *b) {
  const hudi_mdt_record *x = *(hudi_mdt_record *const *)a, *y = *(hudi_mdt_record *const *)b;
  size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
  int c = memcmp(x->key, y->key, n);
  if (c) return c;
  return x->key_len < y->key_len ? -1 : x->key_len > y->key_len;
}

hudi_status hudi_mdt_w_hfile(hudi_mdt_record **recs, size_t n, const hudi_avro_node *schema, const char *schema_json,
                             size_t schema_len, const hudi_mdt_write_options *opts, bool with_base_info,
                             uint8_t **out, size_t *out_len, hudi_error *err) {
  *out = NULL;
  *out_len = 0;
  if (n > 1) qsort(recs, n, sizeof *recs, cmp_record_key);
  for (size_t i = 1; i < n; i++)
    if (cmp_record_key(&recs[i - 1], &recs[i]) == 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table: key '%.*s' appears twice in one HFile",
                          (int)(recs[i]->key_len > 200 ? 200 : recs[i]->key_len), recs[i]->key);
  hudi_hfile_writer *w = NULL;
  bool index_cells = n > 0 && (recs[0]->type == HUDI_MDT_TYPE_RECORD_INDEX || recs[0]->type == HUDI_MDT_TYPE_SECONDARY_INDEX);
  HUDI_TRY(hudi_mdt_w_hfile_open(&w, schema_json, schema_len, opts, index_cells, err));
  hudi_buf val;
  hudi_buf_init(&val, HUDI_MDT_MAX_PAYLOAD);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n; i++) st = hudi_mdt_w_hfile_put(w, recs[i], schema, &val, err);
  if (st == HUDI_OK && with_base_info && n > 0) {
    /* What HoodieAvroHFileWriter adds to a base file besides its bloom
     * filter (which we do not write; readers use it only with
     * hoodie.metadata.bloom.filter.enable). */
    st = hudi_hfile_writer_add_file_info(w, "minRecordKey", (const uint8_t *)recs[0]->key, recs[0]->key_len, err);
    if (st == HUDI_OK)
      st = hudi_hfile_writer_add_file_info(w, "maxRecordKey", (const uint8_t *)recs[n - 1]->key,
                                           recs[n - 1]->key_len, err);
  }
  if (st == HUDI_OK) st = hudi_hfile_writer_finish(w, out, out_len, err);
  hudi_buf_free(&val);
  hudi_hfile_writer_free(w);
  return st;
}

hudi_status hudi_mdt_w_hfile_open(hudi_hfile_writer **out, const char *schema_json, size_t schema_len,
                                  const hudi_mdt_write_options *opts, bool index_cells, hudi_error *err) {
  hudi_hfile_writer_options ho = HUDI_HFILE_WRITER_OPTIONS_INIT;
  ho.cell_deflate = index_cells;
  ho.block_size = opts->hfile_block_size;
  ho.create_time_ms = opts->hfile_create_time_ms;
  ho.java_exact_bytes = opts->hfile_java_exact_bytes;
  ho.compress_threads = opts->hfile_compress_threads;
  HUDI_TRY(hudi_hfile_writer_create(out, &ho, err));
  hudi_status st = hudi_hfile_writer_add_file_info(*out, "schema", (const uint8_t *)schema_json, schema_len, err);
  if (st != HUDI_OK) {
    hudi_hfile_writer_free(*out);
    *out = NULL;
  }
  return st;
}

hudi_status hudi_mdt_w_hfile_put(hudi_hfile_writer *w, const hudi_mdt_record *r, const hudi_avro_node *schema,
                                 hudi_buf *scratch, hudi_error *err) {
  hudi_buf_reset(scratch);
  HUDI_TRY(hudi_mdt_record_encode(r, schema, scratch, err));
  return hudi_hfile_writer_append(w, (const uint8_t *)r->key, r->key_len, scratch->data, scratch->len, err);
}

/* An HFILE_DATA block's header: SCHEMA then INSTANT_TIME. */
static hudi_status hfile_block_header(hudi_log_meta *h, const char *schema_json, size_t schema_len,
                                      const char *instant, hudi_error *err) {
  HUDI_TRY(hudi_log_meta_append(h, HUDI_LOG_HEADER_SCHEMA, schema_json, schema_len, err));
  return hudi_log_meta_append(h, HUDI_LOG_HEADER_INSTANT_TIME, instant, strlen(instant), err);
}

hudi_status hudi_mdt_w_hfile_block(hudi_buf *out, const uint8_t *hfile, size_t len, const char *schema_json,
                                   size_t schema_len, const char *instant, hudi_error *err) {
  hudi_log_meta h = HUDI_LOG_META_INIT;
  hudi_status st = hfile_block_header(&h, schema_json, schema_len, instant, err);
  if (st == HUDI_OK) st = hudi_log_block_encode(out, HUDI_LOG_BLOCK_HFILE_DATA, &h, NULL, hfile, len, err);
  hudi_log_meta_free(&h);
  return st;
}

hudi_status hudi_mdt_w_hfile_block_wrap(hudi_buf *buf, const char *schema_json, size_t schema_len,
                                        const char *instant, hudi_error *err) {
  hudi_log_meta h = HUDI_LOG_META_INIT;
  hudi_status st = hfile_block_header(&h, schema_json, schema_len, instant, err);
  if (st == HUDI_OK) st = hudi_log_block_wrap(buf, HUDI_LOG_BLOCK_HFILE_DATA, &h, NULL, err);
  hudi_log_meta_free(&h);
  return st;
}

hudi_status hudi_mdt_w_delete_block(hudi_buf *out, const char *const *keys, const size_t *key_lens, size_t n,
                                    bool with_schema, const char *schema_json, size_t schema_len, const char *instant,
                                    hudi_error *err) {
  return hudi_mdt_w_delete_block_in(out, "record_index", keys, key_lens, n, with_schema, schema_json, schema_len,
                                    instant, err);
}

hudi_status hudi_mdt_w_delete_block_in(hudi_buf *out, const char *partition, const char *const *keys,
                                       const size_t *key_lens, size_t n, bool with_schema, const char *schema_json,
                                       size_t schema_len, const char *instant, hudi_error *err) {
  hudi_log_delete_record *recs = NULL;
  if (n) {
    recs = hudi_calloc(n, sizeof *recs);
    if (!recs) return hudi_err_set(err, HUDI_ERR_NOMEM, "delete block of %zu keys", n);
  }
  for (size_t i = 0; i < n; i++) {
    recs[i].record_key = keys[i];
    recs[i].record_key_len = key_lens[i];
    recs[i].partition_path = partition;
    recs[i].partition_path_len = strlen(partition);
    /* Java's DeleteRecord default ordering value: the Integer 0. */
    recs[i].ordering.kind = HUDI_LOG_ORDERING_INT;
    recs[i].ordering.v.i = 0;
  }
  hudi_buf content;
  hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
  hudi_log_meta h = HUDI_LOG_META_INIT;
  hudi_status st = hudi_log_delete_block_encode(&content, recs, n, err);
  if (st == HUDI_OK && with_schema) st = hudi_log_meta_append(&h, HUDI_LOG_HEADER_SCHEMA, schema_json, schema_len, err);
  if (st == HUDI_OK) st = hudi_log_meta_append(&h, HUDI_LOG_HEADER_INSTANT_TIME, instant, strlen(instant), err);
  if (st == HUDI_OK) st = hudi_log_block_encode(out, HUDI_LOG_BLOCK_DELETE, &h, NULL, content.data, content.len, err);
  hudi_log_meta_free(&h);
  hudi_buf_free(&content);
  hudi_free(recs);
  return st;
}

hudi_status hudi_mdt_w_commit_metadata(hudi_commit_metadata **out, const char *operation, const char *schema_json,
                                       hudi_error *err) {
  HUDI_TRY(hudi_commit_metadata_new(out, 0, err));
  hudi_status st = hudi_commit_metadata_set_operation(*out, operation, err);
  if (st == HUDI_OK && schema_json) st = hudi_commit_metadata_set_schema(*out, schema_json, err);
  if (st == HUDI_OK) {
    (*out)->compacted = (hudi_tl_bool){0, 1};
    (*out)->partition_to_write_stats.has = 1;
    (*out)->extra_metadata.has = 1;
  }
  if (st != HUDI_OK) {
    hudi_commit_metadata_free(*out);
    *out = NULL;
  }
  return st;
}

hudi_status hudi_mdt_w_complete(hudi_storage *s, const hudi_commit_metadata *m, const char *instant,
                                const char *completion, hudi_error *err) {
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_commit_metadata_to_avro(m, NULL, &avro, err);
  if (st == HUDI_OK) st = hudi_mdt_w_instant(s, instant, completion, HUDI_INSTANT_COMPLETED, avro.data, avro.len, err);
  hudi_buf_free(&avro);
  return st;
}

hudi_status hudi_mdt_w_base_finish(hudi_hfile_writer *w, hudi_bloom *bloom, const uint8_t *min_key, size_t min_len,
                                   uint8_t **out, size_t *out_len, hudi_error *err) {
  hudi_buf text;
  hudi_buf_init(&text, (size_t)1 << 30);
  hudi_status st = hudi_bloom_serialize(bloom, &text, err);
  /* The entries HoodieAvroHFileWriter adds (empty keys when there are no
   * records, as in [F9]'s empty record-index shard). */
  if (st == HUDI_OK)
    st = hudi_hfile_writer_add_file_info(w, "bloomFilterTypeCode", (const uint8_t *)"DYNAMIC_V0", 10, err);
  if (st == HUDI_OK) st = hudi_hfile_writer_add_file_info(w, "minRecordKey", min_key, min_len, err);
  size_t max_len = 0;
  const uint8_t *max_key = st == HUDI_OK ? hudi_hfile_writer_last_key(w, &max_len) : NULL;
  if (st == HUDI_OK) st = hudi_hfile_writer_add_file_info(w, "maxRecordKey", max_key, max_len, err);
  if (st == HUDI_OK) st = hudi_hfile_writer_add_meta_block(w, "bloomFilter", text.data, text.len, err);
  if (st == HUDI_OK) st = hudi_hfile_writer_finish(w, out, out_len, err);
  hudi_buf_free(&text);
  return st;
}

hudi_status hudi_mdt_w_read_version(hudi_storage *s, int *out, hudi_error *err) {
  *out = 0;
  hudi_buf text;
  hudi_buf_init(&text, HUDI_PROPS_MAX_BYTES);
  hudi_status st = hudi_storage_read_all(s, HUDI_MDT_W_PROPS, HUDI_PROPS_MAX_BYTES, &text, err);
  if (st == HUDI_ERR_NOT_FOUND) {
    hudi_buf_free(&text);
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "%s: no metadata table", HUDI_MDT_W_PROPS);
  }
  hudi_props p;
  hudi_props_init(&p);
  if (st == HUDI_OK) st = hudi_props_parse(&p, (const char *)text.data, text.len, HUDI_MDT_W_PROPS, err);
  hudi_buf_free(&text);
  const char *v = st == HUDI_OK ? hudi_props_get(&p, "hoodie.table.version") : NULL;
  int version = v ? atoi(v) : 0;
  if (st == HUDI_OK && version != 8 && version != 9)
    st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: hoodie.table.version=%s (the writer handles 8 and 9)",
                      HUDI_MDT_W_PROPS, v ? v : "(missing)");
  hudi_props_free(&p);
  if (st == HUDI_OK) *out = version;
  return st;
}

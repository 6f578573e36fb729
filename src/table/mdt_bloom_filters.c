/* bloom_filters records: mdt_bloom_filters.h. */
#include "table/mdt_bloom_filters.h"

#include <string.h>

#include "avro/value.h"
#include "base/alloc.h"
#include "table/base_footer.h"
#include "table/log_file_name.h"
#include "table/mdt_payload.h"
#include "table/mdt_write_common.h"
#include "table/properties.h"
#include "table/table.h"

bool hudi_bf_listed(const hudi_table *t) {
  return hudi_props_list_has(hudi_props_get(&t->props, "hoodie.table.metadata.partitions"), "bloom_filters");
}

bool hudi_bf_maintains(const hudi_table *t) {
  size_t groups;
  return hudi_bf_listed(t) && (t->version == 8 || t->version == 9) &&
         hudi_cs_count_groups(t->storage, "bloom_filters", &groups, NULL) == HUDI_OK;
}

static hudi_status set_field(hudi_avro_value *rec, hudi_avro_arena *a, const char *name, const char *s, size_t n,
                             hudi_error *err) {
  hudi_avro_value *f = hudi_avro_value_field(rec, name);
  if (!f) return hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata schema lacks BloomFilterMetadata.%s", name);
  return hudi_avro_value_set_string(f, a, s, n, err);
}

/* The record of one base file: {key "", type 4, BloomFilterMetadata {type,
 * timestamp, bloomFilter, isDeleted false}}, the other payloads null. */
static hudi_status build_record(hudi_mdt_record *out, const hudi_avro_node *schema, const char *partition,
                                const char *name, const char *instant, const hudi_base_footer *f, hudi_error *err) {
  hudi_buf key;
  hudi_buf_init(&key, 4096);
  hudi_status st = hudi_cs_file_key(&key, partition, name, err);
  if (st == HUDI_OK)
    st = hudi_mdt_record_set_key(out, (const char *)key.data, key.len, HUDI_MDT_TYPE_BLOOM_FILTER, err);
  hudi_buf_free(&key);
  HUDI_TRY(st);
  void *mem;
  HUDI_TRY(hudi_avro_arena_alloc(&out->arena, sizeof(hudi_avro_value), &mem, err));
  hudi_avro_value *root = mem;
  HUDI_TRY(hudi_avro_value_init(root, &out->arena, schema, err));
  hudi_avro_value *k = hudi_avro_value_field(root, "key"), *type = hudi_avro_value_field(root, "type");
  hudi_avro_value *u = hudi_avro_value_field(root, "BloomFilterMetadata");
  if (!k || !type || !u || u->node->type != HUDI_AVRO_UNION)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata schema lacks key, type or BloomFilterMetadata");
  HUDI_TRY(hudi_avro_value_set_string(k, &out->arena, "", 0, err));
  HUDI_TRY(hudi_avro_value_set_long(type, &out->arena, HUDI_MDT_TYPE_BLOOM_FILTER, err));
  hudi_avro_value *bf = NULL;
  for (uint32_t b = 0; !bf && b < u->node->n_branches; b++)
    if (u->node->branches[b]->type != HUDI_AVRO_NULL) HUDI_TRY(hudi_avro_value_select(u, &out->arena, b, &bf, err));
  if (!bf) return hudi_err_set(err, HUDI_ERR_INTERNAL, "BloomFilterMetadata has no record branch");
  const char *code = f->bloom_type ? f->bloom_type : "DYNAMIC_V0";
  size_t code_len = f->bloom_type ? f->bloom_type_len : strlen(code);
  HUDI_TRY(set_field(bf, &out->arena, "type", code, code_len, err));
  HUDI_TRY(set_field(bf, &out->arena, "timestamp", instant, strlen(instant), err));
  HUDI_TRY(set_field(bf, &out->arena, "bloomFilter", f->bloom, f->bloom_len, err));
  hudi_avro_value *del = hudi_avro_value_field(bf, "isDeleted");
  if (!del) return hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata schema lacks BloomFilterMetadata.isDeleted");
  HUDI_TRY(hudi_avro_value_set_boolean(del, &out->arena, false, err));
  out->value = root;
  return HUDI_OK;
}

/* One base file's record, from its footer (none without a bloom filter). */
static hudi_status file_record(hudi_cs_records *out, hudi_table *t, const char *instant,
                               const hudi_mdt_file_change *fc, hudi_buf *path, hudi_error *err) {
  hudi_buf_reset(path);
  if (*fc->partition) HUDI_TRY(hudi_buf_printf(path, err, "%s/", fc->partition));
  HUDI_TRY(hudi_buf_append_str(path, fc->name, err));
  HUDI_TRY(hudi_buf_append_byte(path, 0, err));
  hudi_base_footer f;
  if (!hudi_base_footer_open(&f, t->storage, (const char *)path->data))
    return hudi_err_set(err, HUDI_ERR_IO, "bloom_filters: cannot read the footer of %s", (const char *)path->data);
  hudi_status st = HUDI_OK;
  if (f.bloom && f.bloom_len) {
    hudi_mdt_record *rec = NULL;
    st = hudi_cs_records_grow(out, err);
    if (st == HUDI_OK && !(rec = hudi_malloc(sizeof *rec))) st = hudi_err_set(err, HUDI_ERR_NOMEM, "bloom_filters record");
    if (rec) hudi_mdt_record_init(rec);
    if (st == HUDI_OK) st = build_record(rec, out->schema->root, fc->partition, fc->name, instant, &f, err);
    if (st == HUDI_OK) {
      out->items[out->n++] = rec;
    } else if (rec) {
      hudi_mdt_record_free(rec);
      hudi_free(rec);
    }
  }
  hudi_base_footer_close(&f);
  return st;
}

hudi_status hudi_bf_commit_records(hudi_cs_records *out, hudi_table *t, const char *instant,
                                   const hudi_mdt_file_change *files, size_t n_files, hudi_error *err) {
  if (!hudi_bf_listed(t)) return HUDI_OK;
  if (t->version != 8 && t->version != 9)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s: hudi-c keeps the bloom_filters index of tables of version 8 and 9 only (it is %d)",
                        t->base_uri, t->version);
  if (!out->schema) HUDI_TRY(hudi_mdt_w_schema(&out->schema, t->version, err));
  hudi_buf path;
  hudi_buf_init(&path, 8192);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n_files; i++) {
    const hudi_mdt_file_change *fc = &files[i];
    if (fc->deleted || hudi_log_file_name_matches(fc->name, strlen(fc->name))) continue;
    st = file_record(out, t, instant, fc, &path, err);
  }
  hudi_buf_free(&path);
  return st;
}

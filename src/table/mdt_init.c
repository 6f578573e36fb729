/* Initialising the metadata table of an empty data table (mdt_init.h). */
#include "table/mdt_init.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "table/log_writer.h"
#include "table/mdt_schema.h"
#include "table/mdt_shard.h"
#include "table/mdt_write_common.h"

#define INIT_TOKEN "0-0-0"

hudi_status hudi_mdt_properties_text(hudi_buf *out, const char *table_name, const char *database_name,
                                     int table_version, hudi_error *err) {
  HUDI_UNUSED(database_name); /* the MDT has no hoodie.database.name: its checksum uses "" */
  if (!table_name || !*table_name)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table: the data table name is required");
  for (const char *p = table_name; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\\' || *p == '=' || *p == ':' || *p == '#' || *p == '!' || *p == ' ')
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table: table name '%s' needs escaping", table_name);
  char name[1024];
  if (snprintf(name, sizeof name, "%s_metadata", table_name) >= (int)sizeof name)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table: table name too long");
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct tm tm;
  time_t secs = tv.tv_sec;
  gmtime_r(&secs, &tm);
  char iso[64], date[64];
  strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S", &tm);
  strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
  /* The keys in the order Hudi 1.x's Properties store writes them (the
   * fixtures' order; Java's HashMap order for these keys). */
  return hudi_buf_printf(out, err,
                         "#Properties saved on %s.%06ldZ\n"
                         "#%s\n"
                         "hoodie.compaction.payload.class=org.apache.hudi.metadata.HoodieMetadataPayload\n"
                         "hoodie.table.initial.version=%d\n"
                         "hoodie.table.keygenerator.type=HOODIE_TABLE_METADATA\n"
                         "hoodie.table.type=MERGE_ON_READ\n"
                         "hoodie.archivelog.folder=history\n"
                         "hoodie.timeline.layout.version=2\n"
                         "hoodie.timeline.history.path=history\n"
                         "hoodie.table.checksum=%u\n"
                         "hoodie.datasource.write.drop.partition.columns=false\n"
                         "hoodie.record.merge.strategy.id=00000000-0000-0000-0000-000000000000\n"
                         "hoodie.table.recordkey.fields=key\n"
                         "hoodie.table.name=%s\n"
                         "hoodie.timeline.path=timeline\n"
                         "hoodie.populate.meta.fields=false\n"
                         "hoodie.table.base.file.format=HFILE\n"
                         "hoodie.record.merge.mode=CUSTOM\n"
                         "hoodie.table.version=%d\n",
                         iso, (long)tv.tv_usec, date, table_version, hudi_table_checksum("", name), name,
                         table_version);
}

/* Writes dir/.<file_id>_<instant>.log.1_0-0-0 with one empty DELETE block
 * (HoodieBackedTableMetadataWriter.initializeFileGroups). */
static hudi_status write_init_log(hudi_storage *s, const char *partition, const char *file_id, const char *instant,
                                  hudi_error *err) {
  hudi_buf block;
  hudi_buf_init(&block, HUDI_BUF_DEFAULT_MAX);
  char dir[128];
  snprintf(dir, sizeof dir, "%s/%s", HUDI_MDT_W_BASE, partition);
  hudi_status st = hudi_mdt_w_delete_block(&block, NULL, NULL, 0, false, NULL, 0, instant, err);
  if (st == HUDI_OK)
    st = hudi_log_file_create(s, dir, file_id, instant, 1, INIT_TOKEN, block.data, block.len, NULL, NULL, err);
  hudi_buf_free(&block);
  return st;
}

/* files: the init log, then a base HFile holding __all_partitions__ with
 * an empty map, committed by deltacommit 00000000000000000. */
static hudi_status init_files(hudi_storage *s, const hudi_mdt_write_options *o, const hudi_avro_schema *schema,
                              hudi_error *err) {
  const char *t = HUDI_MDT_INIT_FILES_INSTANT;
  size_t schema_len = 0;
  const char *schema_json = hudi_mdt_schema_json(o->table_version, &schema_len);
  HUDI_TRY(hudi_mdt_w_instant(s, t, "", HUDI_INSTANT_REQUESTED, "", 0, err));
  HUDI_TRY(hudi_mdt_w_instant(s, t, "", HUDI_INSTANT_INFLIGHT, "", 0, err));
  HUDI_TRY(hudi_mdt_w_partition_metadata(s, "files", t, err));
  HUDI_TRY(write_init_log(s, "files", "files-0000-0", t, err));

  hudi_mdt_record rec;
  hudi_mdt_record_init(&rec);
  hudi_mdt_record *one = &rec;
  uint8_t *hf = NULL;
  size_t hf_len = 0;
  hudi_status st = hudi_mdt_record_set_key(&rec, HUDI_MDT_ALL_PARTITIONS_KEY, strlen(HUDI_MDT_ALL_PARTITIONS_KEY),
                                           HUDI_MDT_TYPE_PARTITION_LIST, err);
  rec.has_files = true; /* an empty map, not null */
  if (st == HUDI_OK) st = hudi_mdt_w_hfile(&one, 1, schema->root, schema_json, schema_len, o, true, &hf, &hf_len, err);
  hudi_mdt_record_free(&rec);
  char rel[256];
  snprintf(rel, sizeof rel, "files/files-0000-0_%s_%s.hfile", INIT_TOKEN, t);
  char path[300];
  snprintf(path, sizeof path, "%s/%s", HUDI_MDT_W_BASE, rel);
  if (st == HUDI_OK) st = hudi_storage_write(s, path, hf, hf_len, 0, err);
  hudi_free(hf);

  hudi_commit_metadata *m = NULL;
  if (st == HUDI_OK) st = hudi_mdt_w_commit_metadata(&m, "BULK_INSERT_PREPPED", schema_json, err);
  hudi_write_stat *ws = NULL;
  if (st == HUDI_OK) st = hudi_commit_metadata_add_stat(m, "files", &ws, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(m, "files-0000-0", &ws->file_id, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(m, rel, &ws->path, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(m, "null", &ws->prev_commit, err);
  if (st == HUDI_OK) {
    ws->num_writes = ws->num_inserts = (hudi_tl_long){1, 1};
    ws->total_write_bytes = ws->file_size_in_bytes = (hudi_tl_long){(int64_t)hf_len, 1};
    hudi_write_stat_zero_unset(ws);
  }
  char done[HUDI_INSTANT_TIME_BUF];
  if (st == HUDI_OK) st = hudi_mdt_w_completion(s, o, t, done, err);
  if (st == HUDI_OK) st = hudi_mdt_w_complete(s, m, t, done, err);
  hudi_commit_metadata_free(m);
  return st;
}

/* An index partition (record_index, column_stats, partition_stats): an
 * init log per file group, committed (without write stats, as Hudi lists
 * none for an empty index) by its own deltacommit at instant t. */
static hudi_status init_index_partition(hudi_storage *s, const hudi_mdt_write_options *o, const char *partition,
                                        int32_t n_groups, const char *t, hudi_error *err) {
  size_t schema_len = 0;
  const char *schema_json = hudi_mdt_schema_json(o->table_version, &schema_len);
  HUDI_TRY(hudi_mdt_w_instant(s, t, "", HUDI_INSTANT_REQUESTED, "", 0, err));
  HUDI_TRY(hudi_mdt_w_instant(s, t, "", HUDI_INSTANT_INFLIGHT, "", 0, err));
  HUDI_TRY(hudi_mdt_w_partition_metadata(s, partition, t, err));
  hudi_buf id;
  hudi_buf_init(&id, 256);
  hudi_status st = HUDI_OK;
  for (int32_t i = 0; st == HUDI_OK && i < n_groups; i++) {
    hudi_buf_reset(&id);
    st = hudi_mdt_file_id(&id, partition, i, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(&id, 0, err);
    if (st == HUDI_OK) st = write_init_log(s, partition, (const char *)id.data, t, err);
  }
  hudi_buf_free(&id);
  hudi_commit_metadata *m = NULL;
  if (st == HUDI_OK) st = hudi_mdt_w_commit_metadata(&m, "BULK_INSERT_PREPPED", schema_json, err);
  char done[HUDI_INSTANT_TIME_BUF];
  if (st == HUDI_OK) st = hudi_mdt_w_completion(s, o, t, done, err);
  if (st == HUDI_OK) st = hudi_mdt_w_complete(s, m, t, done, err);
  hudi_commit_metadata_free(m);
  return st;
}

hudi_status hudi_mdt_init_index_partition(hudi_storage *s, const hudi_mdt_write_options *opts, const char *partition,
                                          int32_t n_groups, const char *instant, hudi_error *err) {
  hudi_mdt_write_options o;
  HUDI_TRY(hudi_mdt_w_resolve(&o, opts, err));
  if (o.table_version == 0) o.table_version = 8;
  return init_index_partition(s, &o, partition, n_groups, instant, err);
}

/* The index partitions after files, in Hudi's initialisation order
 * (HoodieBackedTableMetadataWriter: column_stats, record_index,
 * partition_stats), each at the next instant after files' 00..0 (Java's
 * SOLO_COMMIT_TIMESTAMP plus the first free millisecond). */
static hudi_status init_indexes(hudi_storage *s, const hudi_mdt_write_options *o, hudi_error *err) {
  int32_t rli = o->record_index_shards == -1 ? 0
                : o->record_index_shards == 0 ? HUDI_MDT_DEFAULT_RLI_SHARDS
                                              : o->record_index_shards;
  const struct {
    const char *partition;
    int32_t groups;
  } order[] = {{"column_stats", o->column_stats_groups},
               {"record_index", rli},
               {"partition_stats", o->partition_stats_groups}};
  char t[HUDI_INSTANT_TIME_BUF] = HUDI_MDT_INIT_FILES_INSTANT;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    if (order[i].groups <= 0) continue;
    t[HUDI_INSTANT_TIME_BUF - 2]++; /* ...001, ...002, ...003 */
    HUDI_TRY(init_index_partition(s, o, order[i].partition, order[i].groups, t, err));
  }
  return HUDI_OK;
}

/* hoodie.table.metadata.partitions: the partitions in name order, as Hudi
 * stores the set. */
static hudi_status partitions_list(hudi_buf *out, const hudi_mdt_write_options *o, hudi_error *err) {
  const char *names[] = {o->column_stats_groups > 0 ? "column_stats" : NULL, "files",
                         o->partition_stats_groups > 0 ? "partition_stats" : NULL,
                         o->record_index_shards != -1 ? "record_index" : NULL};
  bool first = true;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!names[i]) continue;
    if (!first) HUDI_TRY(hudi_buf_append_byte(out, ',', err));
    HUDI_TRY(hudi_buf_append_str(out, names[i], err));
    first = false;
  }
  return HUDI_OK;
}

hudi_status hudi_mdt_init(hudi_storage *s, const hudi_mdt_write_options *opts, hudi_buf *out_partitions,
                          hudi_error *err) {
  hudi_mdt_write_options o;
  HUDI_TRY(hudi_mdt_w_resolve(&o, opts, err));
  if (o.table_version == 0) o.table_version = 8;
  bool exists = false;
  HUDI_TRY(hudi_storage_exists(s, HUDI_MDT_W_PROPS, &exists, err));
  if (exists) return hudi_err_set(err, HUDI_ERR_EXISTS, "%s already exists", HUDI_MDT_W_PROPS);

  hudi_buf props;
  hudi_buf_init(&props, 1 << 16);
  hudi_status st = hudi_mdt_properties_text(&props, o.table_name, o.database_name, o.table_version, err);
  /* Properties first, as Hudi's initializeMetaClient: until the data table
   * lists the partitions, readers ignore a half-built MDT. */
  if (st == HUDI_OK) st = hudi_storage_write_if_absent(s, HUDI_MDT_W_PROPS, props.data, props.len, err);
  hudi_buf_free(&props);
  HUDI_TRY(st);

  hudi_avro_schema *schema = NULL;
  HUDI_TRY(hudi_mdt_w_schema(&schema, o.table_version, err));
  st = init_files(s, &o, schema, err);
  hudi_avro_schema_free(schema);
  if (st == HUDI_OK) st = init_indexes(s, &o, err);
  HUDI_TRY(st);
  return out_partitions ? partitions_list(out_partitions, &o, err) : HUDI_OK;
}

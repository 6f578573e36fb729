/* hudi_table_append: bulk insert into new file groups, committed with the
 * write protocol of hudi-format-core.md §6:
 *   validate + read the input, extract keys and partitions (nothing written
 *   yet, so bad input leaves no trace) -> T.<action>.requested -> inflight
 *   -> per file: marker, partition metadata, base file -> T_C.<action>
 *   (write-if-absent) -> delete the markers.
 * Each partition's rows become ceil(compressed size / max.file.size) files
 * of equal row counts (write_plan.h); the files are written on up to
 * HUDI_WRITE_DEFAULT_BULK_THREADS threads and their write stats listed in
 * task order, as a sequential write lists them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arrow/builder.h"
#include "arrow/field.h"
#include "arrow/view.h"
#include "avro/arrow_schema.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/instant.h"
#include "base/threadpool.h"
#include "parquet/writer.h"
#include "parquet/writer_feed.h"
#include "table/base_file.h"
#include "table/base_footer.h"
#include "table/bloom.h"
#include "table/commit_metadata.h"
#include "table/heartbeat.h"
#include "table/instant_v6.h"
#include "table/keygen.h"
#include "table/mdt_drop.h"
#include "table/mdt_reader.h"
#include "table/rollback.h"
#include "table/schema_resolve.h"
#include "table/services.h"
#include "table/write.h"
#include "table/write_convert.h"
#include "table/write_gather.h"
#include "table/insert_dup.h"
#include "table/write_keys.h"
#include "table/write_mdt.h"
#include "table/write_plan.h"
#include "table/write_rows.h"
#include "table/write_schema.h"

/* ---- options ---------------------------------------------------------- */

const hudi_option hudi_write_snapshot_options[] = {{"hoodie.read.query.type", "snapshot"},
                                                  {"hoodie.read.as.of.timestamp", ""},
                                                  {"hoodie.read.start.timestamp", ""},
                                                  {"hoodie.read.end.timestamp", ""},
                                                  {"hoodie.read.use.read_optimized.mode", "false"}};
const size_t hudi_write_n_snapshot_options = sizeof hudi_write_snapshot_options / sizeof hudi_write_snapshot_options[0];

const char *hudi_write_option(const hudi_table *t, const hudi_option *opts, size_t n, const char *key) {
  for (size_t i = n; i-- > 0;)
    if (opts[i].key && opts[i].value && !strcmp(opts[i].key, key)) return opts[i].value;
  const char *v = hudi_props_get(&t->options, key);
  return v ? v : hudi_props_get(&t->props, key);
}

hudi_status hudi_option_parse_int(const char *key, const char *v, int64_t lo, int64_t hi, int64_t *out,
                                  hudi_error *err) {
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (!*v || *end || errno || x < lo || x > hi) {
    if (hi == INT64_MAX)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option %s is '%s' (a whole number >= %" PRId64 " expected)", key,
                          v, lo);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "option %s is '%s' (a whole number in %" PRId64 "..%" PRId64 " expected)", key, v, lo, hi);
  }
  *out = x;
  return HUDI_OK;
}

hudi_status hudi_write_int_option(const hudi_table *t, const hudi_option *o, size_t n, const char *key, int64_t dflt,
                                  int64_t min, int64_t *out, hudi_error *err) {
  const char *v = hudi_write_option(t, o, n, key);
  *out = dflt;
  return v ? hudi_option_parse_int(key, v, min, INT64_MAX, out, err) : HUDI_OK;
}

/* The Parquet codec of base files when hoodie.parquet.compression.codec is
 * unset: zstd (Hudi's storage default since PR 19685, for Spark 3.5+ and
 * Flink) on tables of version 8 and later; gzip (the default of Hudi 0.x
 * and 1.0-1.2, and of Spark 3.3/3.4, whose readers can leak off-heap
 * memory on zstd, PARQUET-2160) on version-6 tables, which older engines
 * read. docs/compatibility.md item 20. */
static hudi_pq_codec default_codec(const hudi_table *t) {
  return t->version >= 8 ? HUDI_PQ_CODEC_ZSTD : HUDI_PQ_CODEC_GZIP;
}

hudi_status hudi_write_pq_options(hudi_pq_writer_options *pq, const hudi_table *t, const hudi_option *o, size_t n,
                                  const char *root_name, bool *codec_set, hudi_error *err) {
  hudi_pq_writer_options d = HUDI_PQ_WRITER_OPTIONS_INIT;
  *pq = d;
  HUDI_TRY(hudi_write_int_option(t, o, n, "hoodie.parquet.block.size", HUDI_WRITE_DEFAULT_BLOCK_SIZE, 1,
                                 &pq->row_group_bytes, err));
  HUDI_TRY(hudi_write_int_option(t, o, n, "hoodie.parquet.page.size", 1 << 20, 1024, &pq->page_bytes, err));
  const char *v = hudi_write_option(t, o, n, "hoodie.parquet.compression.codec");
  if (codec_set) *codec_set = v != NULL;
  if (!v) pq->codec = default_codec(t);
  else if (!strcasecmp(v, "gzip")) pq->codec = HUDI_PQ_CODEC_GZIP;
  else if (!strcasecmp(v, "snappy")) pq->codec = HUDI_PQ_CODEC_SNAPPY;
  else if (!strcasecmp(v, "zstd")) pq->codec = HUDI_PQ_CODEC_ZSTD;
  else if (!strcasecmp(v, "uncompressed") || !strcasecmp(v, "none")) pq->codec = HUDI_PQ_CODEC_UNCOMPRESSED;
  else
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "hoodie.parquet.compression.codec=%s: use gzip, snappy, zstd or uncompressed", v);
  int64_t level;
  HUDI_TRY(hudi_write_int_option(t, o, n, "parquet.compression.codec.zstd.level", HUDI_WRITE_DEFAULT_ZSTD_LEVEL, 1,
                                 &level, err));
  if (level > 22)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option parquet.compression.codec.zstd.level is %" PRId64
                        " (1 to 22)", level);
  pq->codec_level = (int)level; /* for zstd pages (log blocks may be zstd under a gzip base codec) */
  pq->schema.list_style = HUDI_PQ_LIST_2LEVEL;
  pq->schema.map_key_value_legacy = true;
  pq->schema.root_name = root_name;
  return HUDI_OK;
}

static hudi_status check_table_format(const hudi_table *t, bool mdt_off, hudi_error *err);

hudi_status hudi_write_check_table(const hudi_table *t, hudi_error *err) {
  const char *mdt = hudi_props_get(&t->props, "hoodie.table.metadata.partitions");
  if (mdt && *mdt)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has a metadata table (hoodie.table.metadata.partitions=%s), which hudi-c cannot "
                        "update on this operation yet (only on append); writing would hide the new files from "
                        "readers",
                        t->base_uri, mdt);
  return check_table_format(t, false, err);
}

/* Writers that keep the MDT current (write_mdt.h), unless the write's
 * options turn it off: then the write deletes it first (mdt_drop.h) and
 * what it holds does not matter. */
hudi_status hudi_write_check_table_mdt(const hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  HUDI_TRY(hudi_mdt_check_enable_option(opts, n, err));
  bool off = hudi_mdt_drop_requested(opts, n);
  if (!off) HUDI_TRY(hudi_write_mdt_check(t, opts, n, err));
  return check_table_format(t, off, err);
}

static hudi_status check_table_format(const hudi_table *t, bool mdt_off, hudi_error *err) {
  if (t->version != 6 && t->version < 8)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "table %s has table version %d; hudi-c writes versions 6, 8 and 9",
                        t->base_uri, t->version);
  /* The version-6 metadata table (layout 1, 0.x instants) is not written
   * (create.c); writing past one would hide the new files from readers. */
  const char *mdt6 = t->version == 6 ? hudi_props_get(&t->props, "hoodie.table.metadata.partitions") : NULL;
  if (mdt6 && *mdt6 && !mdt_off)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s (table version 6) has a metadata table (%s), which hudi-c cannot update in "
                        "version 6; pass hoodie.metadata.enable=false in the write's options to delete it first, as "
                        "Apache Hudi's writers do (readers then list storage; a Hudi writer with the metadata table "
                        "on rebuilds it)",
                        t->base_uri, mdt6);
  const char *meta = hudi_props_get(&t->props, "hoodie.populate.meta.fields");
  if (meta && !strcasecmp(meta, "false"))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "table %s has hoodie.populate.meta.fields=false", t->base_uri);
  const char *fmt = hudi_props_get(&t->props, "hoodie.table.base.file.format");
  if (fmt && strcasecmp(fmt, "PARQUET") != 0)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "table %s stores %s base files; hudi-c writes Parquet",
                        t->base_uri, fmt);
  const char *tz = hudi_props_get(&t->props, "hoodie.table.timeline.timezone");
  /* UTC, or LOCAL (no property: Hudi's default): instants in the process's
   * zone (hudi_table_timeline_offset_minutes). */
  if (tz && strcasecmp(tz, "UTC") != 0 && strcasecmp(tz, "LOCAL") != 0)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s: hoodie.table.timeline.timezone=%s is neither UTC nor LOCAL", t->base_uri, tz);
  return HUDI_OK;
}

hudi_status hudi_write_reload_timeline(hudi_table *t, hudi_error *err) {
  hudi_timeline fresh;
  memset(&fresh, 0, sizeof fresh);
  HUDI_TRY(hudi_timeline_load(&fresh, t->storage, "", t->layout, err));
  hudi_timeline_free(&t->timeline);
  t->timeline = fresh;
  return HUDI_OK;
}

/* ---- schema ----------------------------------------------------------- */

/* ---- the write -------------------------------------------------------- */

typedef struct append_ctx {
  hudi_table *t;
  const hudi_option *opts;
  size_t n_opts;
  hudi_write_rows rows;          /* the input, keys, partitions, in write order */
  hudi_arrow_field out_schema;   /* meta columns + stored columns */
  bool *same;                    /* per data column: copy without conversion */
  int key_twin;                  /* the data column _hoodie_record_key repeats value for value, or -1 */
  char *schema_json;             /* extraMetadata.schema */
  char *avro_with_meta;          /* parquet.avro.schema */
  char root_name[600];
  int64_t max_file_size;
  int64_t small_file_limit; /* hoodie.parquet.small.file.limit: the file layout avoids all-small files */
  hudi_pq_writer_options pq;
  hudi_bloom_cfg bloom; /* footer bloom filter and key range */
  char instant[HUDI_INSTANT_TIME_BUF];
  hudi_commit_metadata *meta;
  hudi_write_result *res;
  /* Segments (hudi_c.append.segment.bytes): the stream the rows come
   * from while more remains (eof false), and with a record index the
   * entries of the segments written so far (keys_on). */
  struct ArrowArrayStream *stream;
  hudi_keygen *kg;
  int64_t segment_bytes;
  bool eof;
  bool keys_on;
  hudi_write_keys keys;
  int64_t rows_written;
  /* A one-segment stream into a table with a record index: the index is
   * built while the files are written (write_mdt.h). */
  bool build_rli;
  hudi_write_mdt_bulk_rli *rli;
  /* hoodie.datasource.insert.dup.policy (insert_dup.h): the index that
   * finds keys already in the table, opened for the first segment. */
  hudi_dup_policy dup_policy;
  hudi_index *dup_index;
} append_ctx;

/* The data column whose values are the record keys as they are (a
 * simple key on one string column, copied without conversion): the
 * Parquet writer then encodes the keys once for both columns
 * (hudi_pq_writer_twin). -1 when there is none. */
static int key_twin(const append_ctx *c) {
  const hudi_keygen *kg = c->kg;
  if (!kg || kg->n_keys != 1 || kg->key_with_names) return -1;
  int k = kg->key_index[0];
  const hudi_arrow_field *f = k >= 0 && k < c->rows.stored.n_children ? &c->rows.stored.children[k] : NULL;
  if (!f || !c->same[k] || !f->name || strcmp(f->name, kg->key_fields[0]) != 0 || f->dictionary) return -1;
  hudi_arrow_type_id id = f->type.id;
  bool text = id == HUDI_ARROW_STRING || id == HUDI_ARROW_LARGE_STRING || id == HUDI_ARROW_STRING_VIEW;
  return text && (f->flags & ARROW_FLAG_NULLABLE) ? k : -1;
}

static hudi_status build_schemas(append_ctx *c, hudi_error *err) {
  const char *name = c->t->name;
  const hudi_arrow_field *stored = &c->rows.stored;
  hudi_buf b;
  hudi_buf_init(&b, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_avro_schema_from_arrow(&b, stored, name, false, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&b, 0, err);
  if (st == HUDI_OK) {
    c->schema_json = hudi_strdup((const char *)b.data);
    hudi_buf_reset(&b);
    st = hudi_avro_schema_from_arrow(&b, stored, name, true, err);
  }
  if (st == HUDI_OK) st = hudi_buf_append_byte(&b, 0, err);
  if (st == HUDI_OK) c->avro_with_meta = hudi_strdup((const char *)b.data);
  hudi_buf_free(&b);
  HUDI_TRY(st);
  if (!c->schema_json || !c->avro_with_meta) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  snprintf(c->root_name, sizeof c->root_name, "hoodie.%s.%s_record", name, name);

  /* The Parquet schema: five nullable strings, then the stored columns. */
  HUDI_TRY(hudi_arrow_field_init(&c->out_schema, "", "+s", 0, err));
  HUDI_TRY(hudi_arrow_field_alloc_children(&c->out_schema, HUDI_AVRO_N_META_FIELDS + stored->n_children, err));
  for (int i = 0; i < HUDI_AVRO_N_META_FIELDS; i++)
    HUDI_TRY(hudi_arrow_field_init(&c->out_schema.children[i], hudi_avro_meta_field_names[i], "u",
                                   ARROW_FLAG_NULLABLE, err));
  for (int64_t i = 0; i < stored->n_children; i++)
    HUDI_TRY(hudi_arrow_field_copy(&c->out_schema.children[HUDI_AVRO_N_META_FIELDS + i], &stored->children[i], false,
                                   err));
  c->same = hudi_calloc((size_t)stored->n_children + 1, sizeof *c->same);
  if (!c->same) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < stored->n_children; i++)
    c->same[i] = hudi_write_same_storage(&stored->children[i], &c->rows.input.children[i]);
  c->key_twin = key_twin(c);
  return HUDI_OK;
}

/* ---- copying rows into the builders ---- */

/* Rows per Arrow batch handed to the Parquet writer. */
#define CHUNK_ROWS HUDI_GATHER_ROWS

/* A base file's writer and batch builder over c->out_schema: into storage
 * path `path`, or (path NULL) appended to *mem. */
static hudi_status open_writer(append_ctx *c, const char *path, hudi_buf *mem, int encode_threads,
                               hudi_arrow_batch_builder **bb, hudi_pq_writer **w, hudi_error *err) {
  hudi_pq_writer_options o = c->pq;
  o.encode_threads = encode_threads;
  HUDI_TRY(hudi_arrow_batch_builder_create(bb, &c->out_schema, err));
  struct ArrowSchema pq_schema;
  memset(&pq_schema, 0, sizeof pq_schema);
  hudi_status st = hudi_arrow_batch_builder_export_schema(*bb, &pq_schema, err);
  if (st == HUDI_OK)
    st = path ? hudi_pq_writer_open_storage(w, &pq_schema, &o, c->t->storage, path, err)
              : hudi_pq_writer_open_buf(w, &pq_schema, &o, mem, err);
  if (pq_schema.release) pq_schema.release(&pq_schema);
  /* Column 2 is _hoodie_record_key. Declining changes nothing but time. */
  if (st == HUDI_OK && c->key_twin >= 0)
    (void)hudi_pq_writer_twin(*w, 2, (uint32_t)(HUDI_AVRO_N_META_FIELDS + c->key_twin));
  return st;
}

/* Files of at least this many rows are encoded on a second thread
 * (writer_feed.h) while this one gathers the next chunk. */
#define FEED_MIN_ROWS (8 * CHUNK_ROWS)

/* Encodes ordered rows [from, to) into w, chunk by chunk (the last one as
 * HUDI_PQ_WRITE_LAST); with `feed`, on a writer thread of its own. With
 * bloom: adds their keys and finds the rows of the least and greatest key. */
static hudi_status encode_rows(append_ctx *c, hudi_arrow_batch_builder *bb, hudi_pq_writer *w, hudi_bloom *bloom,
                               bool feed, size_t from, size_t to, int task, const char *partition,
                               const char *file_name, size_t *min_row, size_t *max_row, hudi_error *err) {
  hudi_write_rows *r = &c->rows;
  size_t min_i = from, max_i = to - 1;
  hudi_gather src;
  memset(&src, 0, sizeof src);
  hudi_gather_file gf = {.rows = r, .same = c->same, .n_cols = r->stored.n_children, .instant = c->instant,
                         .task = task, .partition = partition, .file_name = file_name};
  hudi_pq_feed *f = NULL;
  hudi_status st = hudi_gather_init(&src, err);
  if (st == HUDI_OK && feed) st = hudi_pq_feed_start(&f, w, err);
  for (size_t a = from; st == HUDI_OK && a < to; a += CHUNK_ROWS) {
    size_t m = to - a < CHUNK_ROWS ? to - a : CHUNK_ROWS;
    st = hudi_gather_rows(&src, bb, &gf, NULL, a, m, (uint64_t)(a - from), err);
    /* src.keys holds the chunk's keys for the filter. */
    for (size_t i = a; st == HUDI_OK && bloom && i < a + m; i++) {
      /* In key order (a sorting mode) the first and last rows win; in
       * input order the key prefixes settle most comparisons. */
      if (hudi_write_rows_key_cmp(r, i, min_i) < 0) min_i = i;
      if (hudi_write_rows_key_cmp(r, i, max_i) > 0) max_i = i;
    }
    if (st == HUDI_OK && bloom) st = hudi_bloom_add_many(bloom, src.keys, src.key_lens, m, err);
    if (st == HUDI_OK) {
      struct ArrowArray arr;
      st = hudi_arrow_batch_builder_finish(bb, &arr, err);
      if (st == HUDI_OK) {
        /* The last batch: the writer writes the final row group column by
         * column instead of holding all its chunks. */
        unsigned flags = a + m == to ? HUDI_PQ_WRITE_LAST : 0;
        if (f) {
          st = hudi_pq_feed_push(f, &arr, flags, err);
        } else {
          st = hudi_pq_writer_write_batch(w, &arr, flags, err);
          arr.release(&arr);
        }
      }
    }
  }
  /* Joined in every case: w is the caller's again after this. */
  hudi_error feed_err = HUDI_ERROR_INIT;
  hudi_status fst = hudi_pq_feed_finish(f, &feed_err);
  if (st == HUDI_OK && fst != HUDI_OK) {
    st = fst;
    if (err) *err = feed_err;
  }
  hudi_gather_free(&src);
  *min_row = min_i;
  *max_row = max_i;
  return st;
}

/* The compressed column-chunk bytes (pages and their headers, no footer:
 * what Hudi's canWrite counts) of ordered rows [from, to) written the way
 * write_file writes them, into memory (write_plan.h). */
static hudi_status sample_bytes(append_ctx *c, size_t from, size_t to, int task, int64_t *out, hudi_error *err) {
  *out = 0;
  const char *partition = hudi_write_rows_partition(&c->rows, from);
  /* A file name of the real one's length: the column is one dictionary
   * value either way. */
  char file_name[256];
  if (hudi_base_file_name_format(file_name, sizeof file_name, "00000000-0000-4000-8000-000000000000-0", "0-1-0",
                                 c->instant, "parquet") < 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "base file name too long");
  hudi_buf mem;
  hudi_buf_init(&mem, HUDI_BUF_DEFAULT_MAX);
  hudi_arrow_batch_builder *bb = NULL;
  hudi_pq_writer *w = NULL;
  hudi_pq_write_summary sum;
  memset(&sum, 0, sizeof sum);
  size_t min_i, max_i;
  hudi_status st = open_writer(c, NULL, &mem, 1, &bb, &w, err);
  if (st == HUDI_OK)
    st = encode_rows(c, bb, w, NULL, false, from, to, task, partition, file_name, &min_i, &max_i, err);
  if (st == HUDI_OK) st = hudi_pq_writer_close(w, &sum, err);
  if (st == HUDI_OK) {
    for (uint32_t k = 0; k < sum.num_columns; k++) *out += sum.columns[k].compressed_size;
    hudi_pq_write_summary_free(&sum);
  }
  hudi_pq_writer_free(w);
  hudi_arrow_batch_builder_free(bb);
  hudi_buf_free(&mem);
  return st;
}

/* One written file group, for its commit-metadata write stat. */
typedef struct file_out {
  char file_id[48];
  hudi_buf path;
  size_t from;     /* its first row (write order) */
  int64_t rows, size;
} file_out;

/* Writes one file group: rows [from, to) in write order, all in
 * partition p, its columns encoded by encode_threads (writer.h). Touches
 * nothing of c but its storage (out gets the stat). */
static hudi_status write_file(append_ctx *c, size_t from, size_t to, int task, int encode_threads, file_out *out,
                              hudi_error *err) {
  hudi_write_rows *r = &c->rows;
  const char *partition = hudi_write_rows_partition(r, from);
  const char *file_id = out->file_id; /* chosen by the plan (write_files) */
  char token[64], file_name[256];
  snprintf(token, sizeof token, "%d-1-%d", task, task);
  if (hudi_base_file_name_format(file_name, sizeof file_name, file_id, token, c->instant, "parquet") < 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "base file name too long");
  hudi_buf *path = &out->path;
  hudi_status st = hudi_buf_printf(path, err, "%s%s%s%c", partition, *partition ? "/" : "", file_name, '\0');
  /* Marker first: a crash after this leaves something rollback can find. */
  if (st == HUDI_OK) st = hudi_write_marker(c->t->storage, c->instant, partition, file_name, "CREATE", err);
  if (st == HUDI_OK) st = hudi_write_partition_metadata(c->t->storage, partition, c->instant, err);

  hudi_arrow_batch_builder *bb = NULL;
  hudi_pq_writer *w = NULL;
  hudi_bloom bloom;
  memset(&bloom, 0, sizeof bloom);
  hudi_pq_write_summary sum;
  memset(&sum, 0, sizeof sum);
  if (st == HUDI_OK && c->bloom.on)
    st = hudi_bloom_init_for(&bloom, &c->bloom, err);
  if (st == HUDI_OK) st = open_writer(c, (const char *)path->data, NULL, encode_threads, &bb, &w, err);
  size_t min_i = from, max_i = to - 1;
  if (st == HUDI_OK)
    st = encode_rows(c, bb, w, c->bloom.on ? &bloom : NULL, to - from >= FEED_MIN_ROWS && hudi_cpu_count() > 1, from,
                     to, task, partition, file_name, &min_i, &max_i, err);
  size_t min_len, max_len;
  const char *min_key = hudi_write_rows_key(r, min_i, &min_len);
  const char *max_key = hudi_write_rows_key(r, max_i, &max_len);
  if (st == HUDI_OK)
    st = hudi_base_footer_write(w, c->bloom.on ? &bloom : NULL, min_key, min_len, max_key, max_len, c->avro_with_meta,
                                err);
  if (st == HUDI_OK) st = hudi_pq_writer_close(w, &sum, err);
  if (st == HUDI_OK) {
    out->from = from;
    out->rows = (int64_t)(to - from);
    out->size = sum.file_size;
    hudi_pq_write_summary_free(&sum);
  }
  hudi_pq_writer_free(w);
  hudi_arrow_batch_builder_free(bb);
  hudi_bloom_free(&bloom);
  return st;
}

/* The write stat of a written file group (in task order: the commit
 * metadata lists them so). */
static hudi_status add_stat(append_ctx *c, const file_out *f, hudi_error *err) {
  const char *path = (const char *)f->path.data;
  const char *partition = hudi_write_rows_partition(&c->rows, f->from);
  hudi_write_stat *ws = NULL;
  HUDI_TRY(hudi_commit_metadata_add_stat(c->meta, partition, &ws, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, f->file_id, &ws->file_id, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, path, &ws->path, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, "null", &ws->prev_commit, err));
  ws->num_writes = (hudi_tl_long){f->rows, 1};
  ws->num_inserts = (hudi_tl_long){f->rows, 1};
  ws->total_write_bytes = (hudi_tl_long){f->size, 1};
  ws->file_size_in_bytes = (hudi_tl_long){f->size, 1};
  hudi_write_stat_zero_unset(ws);
  c->res->files_written++;
  c->res->bytes_written += f->size;
  return HUDI_OK;
}

/* A partition of the ordered rows and the files it becomes. */
typedef struct part_plan {
  size_t from, to;
  hudi_write_plan_layout layout;
} part_plan;

typedef struct file_job {
  size_t from, to;
  int task;
  int encode_threads;
  file_out out;
} file_job;

typedef struct files_run {
  append_ctx *c;
  part_plan *parts;
  file_job *jobs;
  hudi_storage_group *group; /* the files' write group (NULL: none) */
} files_run;

/* How many files partition p becomes (write_plan.h): its compressed size
 * estimated from a sample of its first rows. The sample's seqno column
 * uses task 0 whatever the partition, so the plan does not depend on the
 * order partitions are planned in. */
static hudi_status plan_partition(void *ctx, size_t p, hudi_error *err) {
  files_run *run = ctx;
  append_ctx *c = run->c;
  part_plan *pp = &run->parts[p];
  size_t n = pp->to - pp->from;
  size_t s = hudi_write_plan_sample_rows(n, hudi_write_rows_bytes_per_row(&c->rows), c->max_file_size);
  pp->layout = (hudi_write_plan_layout){1, 0};
  if (s == 0) return HUDI_OK;
  int64_t bytes;
  HUDI_TRY(sample_bytes(c, pp->from, pp->from + s, 0, &bytes, err));
  pp->layout = hudi_write_plan_layout_for(n, hudi_write_plan_estimate(n, s, bytes), c->max_file_size,
                                          c->small_file_limit);
  return HUDI_OK;
}

static hudi_status write_job(void *ctx, size_t i, hudi_error *err) {
  files_run *run = ctx;
  file_job *j = &run->jobs[i];
  /* A pool thread joins the caller's group: its marker and base file wait
   * for the group's sync (the caller's own jobs are in it already). */
  bool joined = hudi_storage_group_join(run->group);
  hudi_status st = write_file(run->c, j->from, j->to, j->task, j->encode_threads, &j->out, err);
  hudi_storage_group_leave(run->group, joined);
  return st;
}

/* Threads for the file writes: hoodie.bulkinsert.shuffle.parallelism
 * (Spark's bulk-insert task count in Hudi; here the files written at once,
 * each holding its row group's compressed chunks), by default 2; never
 * more than the cores or the items to share out. */
static hudi_status write_threads(append_ctx *c, size_t files, int *out, hudi_error *err) {
  int64_t v;
  HUDI_TRY(hudi_write_int_option(c->t, c->opts, c->n_opts, "hoodie.bulkinsert.shuffle.parallelism", 0, 0, &v, err));
  if (v <= 0) v = HUDI_WRITE_DEFAULT_BULK_THREADS;
  int cores = hudi_cpu_count();
  if (v > cores) v = cores;
  if (v > HUDI_THREADPOOL_MAX_THREADS) v = HUDI_THREADPOOL_MAX_THREADS;
  if ((size_t)v > files) v = files ? (int64_t)files : 1;
  *out = (int)v;
  return HUDI_OK;
}

/* Starts building the record index of the planned files' rows (write_mdt.h). */
static hudi_status start_rli(append_ctx *c, const file_job *jobs, size_t n_jobs, hudi_error *err) {
  hudi_write_file_span *spans = hudi_calloc(n_jobs ? n_jobs : 1, sizeof *spans);
  if (!spans) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < n_jobs; i++)
    if (jobs[i].to > jobs[i].from)
      spans[n++] = (hudi_write_file_span){jobs[i].from, hudi_write_rows_partition(&c->rows, jobs[i].from),
                                          jobs[i].out.file_id};
  hudi_status st = hudi_write_mdt_bulk_rli_start(&c->rli, c->t, c->opts, c->n_opts, c->instant, &c->rows, spans, n, err);
  hudi_free(spans);
  return st;
}

/* Plans every partition, writes every file (on the pool's threads and this
 * one), then adds the write stats in task order: the commit metadata and
 * counters are the same as a sequential write's. */
static hudi_status write_files(append_ctx *c, hudi_error *err) {
  hudi_write_rows *r = &c->rows;
  files_run run = {c, NULL, NULL, NULL};
  size_t n_parts = 0, n_files = 0;
  /* Rows are ordered by partition: one partition when the first and last
   * rows share it (no pass over every row). */
  bool one = r->n && hudi_write_rows_same_partition(r, 0, r->n - 1);
  if (one) n_parts = 1;
  else
    for (size_t i = 0; i < r->n; i++) n_parts += i == 0 || !hudi_write_rows_same_partition(r, i - 1, i);
  run.parts = hudi_calloc(n_parts ? n_parts : 1, sizeof *run.parts);
  if (!run.parts) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0, p = 0; i < r->n; p++) {
    size_t end = one ? r->n : i + 1;
    while (end < r->n && hudi_write_rows_same_partition(r, i, end)) end++;
    run.parts[p] = (part_plan){i, end, {1, 0}};
    i = end;
  }
  c->res->partitions_written += (int64_t)n_parts;
  /* One pool for both steps: sampling runs across partitions, writing
   * across files (a step with fewer items than threads leaves one idle). */
  int threads;
  hudi_threadpool *pool = NULL;
  hudi_status st = write_threads(c, r->n > 1 ? r->n : 1, &threads, err);
  if (st == HUDI_OK && threads > 1) st = hudi_threadpool_create(&pool, threads - 1, err);
  if (st == HUDI_OK) st = hudi_parallel_for(pool, n_parts, plan_partition, &run, err);
  for (size_t p = 0; st == HUDI_OK && p < n_parts; p++) n_files += run.parts[p].layout.files;
  if (st == HUDI_OK) {
    run.jobs = hudi_calloc(n_files ? n_files : 1, sizeof *run.jobs);
    if (!run.jobs) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  size_t k = 0;
  for (size_t p = 0; st == HUDI_OK && p < n_parts; p++) {
    const part_plan *pp = &run.parts[p];
    size_t n = pp->to - pp->from;
    for (size_t f = 0; f < pp->layout.files; f++, k++) {
      file_job *j = &run.jobs[k];
      j->from = pp->from + hudi_write_plan_layout_start(&pp->layout, n, f);
      j->to = pp->from + hudi_write_plan_layout_start(&pp->layout, n, f + 1);
      j->task = (int)k;
      hudi_buf_init(&j->out.path, 1 << 16);
      if (st == HUDI_OK) st = hudi_write_new_file_id(j->out.file_id, err);
    }
  }
  if (st == HUDI_OK && c->build_rli) st = start_rli(c, run.jobs, k, err);
  /* A file written alone leaves cores idle: its columns are then encoded
   * on them too (writer.h encode_threads). So are the last files of a
   * write whose files do not share out evenly among the threads (5 files
   * on 2 threads: the fifth is written alone, ~1.5 s at 1.4 cores). */
  size_t alone = threads > 1 && n_files > (size_t)threads ? n_files % (size_t)threads : 0;
  for (size_t i = 0; st == HUDI_OK && i < n_files; i++)
    run.jobs[i].encode_threads = n_files == 1 ? hudi_pq_encode_threads_share(1)
                                 : i >= n_files - alone ? hudi_pq_encode_threads_share((int)alone)
                                                        : 1;
  /* The files' markers and base files are fsynced together once all are
   * written (8 at a time, group.c), before anything lists them. A thread
   * with a group open already (none of ours) writes them ungrouped. */
  if (st == HUDI_OK && hudi_storage_group_begin(c->t->storage, &run.group, NULL) != HUDI_OK) run.group = NULL;
  if (st == HUDI_OK) st = hudi_parallel_for(pool, n_files, write_job, &run, err);
  if (st == HUDI_OK) st = hudi_storage_group_sync(run.group, err);
  hudi_storage_group_end(run.group);
  if (st != HUDI_OK) hudi_write_mdt_bulk_rli_cancel(c->rli);
  hudi_threadpool_free(pool);
  for (size_t i = 0; st == HUDI_OK && i < n_files; i++) st = add_stat(c, &run.jobs[i].out, err);
  for (size_t i = 0; st == HUDI_OK && c->keys_on && i < n_files; i++)
    st = hudi_write_keys_add_file(&c->keys, r, run.jobs[i].from, run.jobs[i].to, run.jobs[i].out.file_id, err);
  if (st == HUDI_OK) c->rows_written += (int64_t)r->n;
  for (size_t i = 0; run.jobs && i < k; i++) hudi_buf_free(&run.jobs[i].out.path);
  hudi_free(run.jobs);
  hudi_free(run.parts);
  return st;
}

/* A layout-1 name has no completion time: Java 1.x reads the completed
 * file's modification time as one (hudi-format-v6-and-archive.md A1), and
 * assigns a log file to the file slice whose base instant is the latest at
 * or before the completion of the log's base instant. The kernel stamps
 * files from a clock that lags the wall clock by up to a tick, so a commit
 * done within a few milliseconds could look completed before it was
 * requested, and Spark would attach the next log files to the slice
 * before it (rows deleted there reappear). Hence the mtime is set to the
 * completion time we generated, as Hudi's EightToSevenDowngradeHandler
 * does. Object stores stamp objects themselves: nothing to set there.
 * Best effort: the instant has completed when this runs, so a failure
 * here must not report the commit as failed. */
void hudi_write_stamp_completion(hudi_table *t, const char *path, const char *completion) {
  int64_t ms;
  hudi_error e2 = HUDI_ERROR_INIT;
  if (hudi_instant_time_to_millis(&ms, completion, strlen(completion), &e2) != HUDI_OK) return;
  ms -= (int64_t)hudi_table_timeline_offset_minutes(t) * 60000;
  if (hudi_storage_set_mtime(t->storage, path, ms, &e2) != HUDI_OK) return; /* left as the store stamped it */
}

hudi_status hudi_write_instant_file(hudi_table *t, const char *instant, const char *action, const char *completion,
                                    hudi_instant_state state, const void *data, size_t len, hudi_error *err) {
  char name[128], path[200];
  /* Layout 1 (table version 6): .hoodie/T.<action>, JSON commit metadata (instant_v6.h). */
  int layout = t->layout >= 2 ? 2 : 1;
  if (layout == 1) action = hudi_instant_v6_action(action);
  if (hudi_instant_file_name(name, sizeof name, instant, completion, action, state, layout) < 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "instant file name");
  snprintf(path, sizeof path, "%s/%s", layout == 2 ? ".hoodie/timeline" : ".hoodie", name);
  /* The heartbeat says the instant's writer is alive (§6.5): written before
   * the instant appears, deleted once it completed. */
  if (state == HUDI_INSTANT_REQUESTED) HUDI_TRY(hudi_heartbeat_start(t, instant, err));
  hudi_buf v6;
  hudi_buf_init(&v6, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = layout == 1 ? hudi_instant_v6_content(&v6, &data, &len, action, state, data, len, err) : HUDI_OK;
  if (st == HUDI_OK) st = hudi_storage_write_if_absent(t->storage, path, data, len, err);
  hudi_buf_free(&v6);
  if (st == HUDI_ERR_EXISTS)
    return hudi_err_set(err, HUDI_ERR_CONFLICT, "timeline file %s already exists: another writer used instant %s",
                        path, instant);
  if (st == HUDI_OK && layout == 1 && state == HUDI_INSTANT_COMPLETED) hudi_write_stamp_completion(t, path, completion);
  if (st == HUDI_OK && state == HUDI_INSTANT_COMPLETED) hudi_heartbeat_stop(t, instant);
  return st;
}

static hudi_status write_instant(append_ctx *c, const char *completion, hudi_instant_state state, const void *data,
                                 size_t len, hudi_error *err) {
  const char *action = c->t->type == HUDI_MERGE_ON_READ ? "deltacommit" : "commit";
  return hudi_write_instant_file(c->t, c->instant, action, completion, state, data, len, err);
}

hudi_status hudi_write_pick_instant(hudi_instant_gen *gen, const hudi_table *t, char out[HUDI_INSTANT_TIME_BUF],
                                    hudi_error *err) {
  hudi_instant_gen_init(gen, NULL, NULL);
  hudi_instant_gen_set_offset(gen, (int64_t)hudi_table_timeline_offset_minutes(t) * 60000);
  hudi_timeline_observe_times(&t->timeline, gen);
  return hudi_instant_gen_next(gen, out, NULL, err);
}

/* hoodie.bulkinsert.sort.mode: NONE (Hudi's default since 0.12, HUDI-4071)
 * and PARTITION_PATH_REPARTITION keep the input's order within each
 * partition; GLOBAL_SORT, PARTITION_SORT and
 * PARTITION_PATH_REPARTITION_AND_SORT order each partition's rows by
 * record key (tighter min/max key ranges for bloom-index lookups, better
 * compression of ordered keys). Rows are grouped by partition either way:
 * one set of files per partition, as Spark's repartitioning gives. */
static hudi_status bulk_sort_mode(const hudi_table *t, const hudi_option *opts, size_t n, bool *key_order,
                                  hudi_error *err) {
  const char *v = hudi_write_option(t, opts, n, "hoodie.bulkinsert.sort.mode");
  *key_order = false;
  if (!v || !strcasecmp(v, "NONE") || !strcasecmp(v, "PARTITION_PATH_REPARTITION")) return HUDI_OK;
  if (!strcasecmp(v, "GLOBAL_SORT") || !strcasecmp(v, "PARTITION_SORT") ||
      !strcasecmp(v, "PARTITION_PATH_REPARTITION_AND_SORT")) {
    *key_order = true;
    return HUDI_OK;
  }
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "hoodie.bulkinsert.sort.mode='%s': expected NONE, GLOBAL_SORT, PARTITION_SORT, "
                      "PARTITION_PATH_REPARTITION or PARTITION_PATH_REPARTITION_AND_SORT",
                      v);
}

/* Keys of this segment already in the table, as the write's
 * hoodie.datasource.insert.dup.policy says (insert_dup.h). */
static hudi_status apply_dup_policy(append_ctx *c, hudi_error *err) {
  return hudi_insert_dup_apply(&c->dup_index, c->t, &c->rows, c->dup_policy, err);
}

/* The next segment of the stream, made ready as the first was (schema
 * evolution; a duplicate key inside it is found before its files). */
static hudi_status next_segment(append_ctx *c, hudi_error *err) {
  HUDI_TRY(hudi_write_rows_next(&c->rows, c->stream, c->kg, c->segment_bytes, &c->eof, err));
  HUDI_TRY(hudi_write_rows_evolve(&c->rows, c->t, c->opts, c->n_opts, NULL, err));
  HUDI_TRY(hudi_write_mdt_check_rows(c->t, &c->rows, err));
  return apply_dup_policy(c, err);
}

/* Every segment's files, then one duplicate check over all their keys;
 * *mdt_started once the MDT deltacommit T is being written. */
static hudi_status segments_then_mdt(append_ctx *c, hudi_instant_gen *gen, bool *mdt_started, hudi_error *err) {
  for (;;) {
    HUDI_TRY(write_files(c, err));
    if (c->eof) break;
    HUDI_TRY(next_segment(c, err));
  }
  hudi_mdt_key_change *keys = NULL;
  hudi_status st = c->keys_on ? hudi_write_keys_changes(&c->keys, &keys, err) : HUDI_OK;
  if (st == HUDI_OK && c->keys_on) st = hudi_write_mdt_check_keys(c->t, keys, c->keys.n, err);
  if (st == HUDI_OK) {
    *mdt_started = true;
    st = hudi_write_mdt_bulk_insert_keys(c->t, c->opts, c->n_opts, c->instant, c->meta, keys,
                                         c->keys_on ? c->keys.n : 0, gen, err);
  }
  hudi_free(keys);
  return st;
}

static bool delete_ok(hudi_storage *s, const char *path, unsigned flags) {
  hudi_error e = HUDI_ERROR_INIT;
  bool ok = hudi_storage_delete(s, path, flags | HUDI_DELETE_MISSING_OK, &e) == HUDI_OK;
  if (!ok) hudi_error_clear(&e);
  return ok;
}

/* Undoes T before it reached the metadata table: every file a marker of T
 * names, the markers, then T's inflight and requested files, so the table
 * is as it was and nothing is left to roll back (Hudi 1.x writes no
 * metadata instant for rolling back a write the metadata table never saw).
 * Best effort: whatever a failed delete leaves, the next writer rolls back
 * as a failed write. */
static void abort_before_mdt(append_ctx *c) {
  hudi_storage *s = c->t->storage;
  char temp[64];
  snprintf(temp, sizeof temp, ".hoodie/.temp/%s/", c->instant);
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  hudi_error e = HUDI_ERROR_INIT;
  bool ok = hudi_storage_list(s, temp, HUDI_LIST_RECURSIVE, &list, &e) == HUDI_OK;
  if (!ok) hudi_error_clear(&e);
  size_t skip = strlen(temp);
  for (size_t i = 0; ok && i < list.count; i++) {
    const char *m = list.items[i].path, *dot = strstr(m, ".marker.");
    if (list.items[i].is_dir || !dot || strncmp(m, temp, skip) != 0) continue;
    char data[4200];
    int n = snprintf(data, sizeof data, "%.*s", (int)(dot - m - skip), m + skip);
    ok = n > 0 && (size_t)n < sizeof data && delete_ok(s, data, 0);
  }
  hudi_file_list_free(&list);
  temp[strlen(temp) - 1] = '\0';
  if (ok) ok = delete_ok(s, temp, HUDI_DELETE_RECURSIVE);
  const char *action = c->t->type == HUDI_MERGE_ON_READ ? "deltacommit" : "commit";
  int layout = c->t->layout >= 2 ? 2 : 1;
  if (layout == 1) action = hudi_instant_v6_action(action);
  hudi_instant_state states[2] = {HUDI_INSTANT_INFLIGHT, HUDI_INSTANT_REQUESTED};
  for (int k = 0; ok && k < 2; k++) {
    char name[128], path[200];
    ok = hudi_instant_file_name(name, sizeof name, c->instant, "", action, states[k], layout) > 0;
    snprintf(path, sizeof path, "%s/%s", layout == 2 ? ".hoodie/timeline" : ".hoodie", name);
    if (ok) ok = delete_ok(s, path, 0);
  }
  if (ok) hudi_heartbeat_stop(c->t, c->instant);
}

/* A stream larger than one segment: its segments one after the other in
 * one commit. Input that turns out bad in a later segment (or a write that
 * fails) leaves files of the earlier ones: T is undone at once (or, once
 * the metadata table has T, rolled back as the next writer would, with a
 * rollback instant), so the table reads as before and the error stands. */
static hudi_status write_segments(append_ctx *c, hudi_instant_gen *gen, hudi_error *err) {
  bool mdt_started = false;
  hudi_status st = segments_then_mdt(c, gen, &mdt_started, err);
  if (st == HUDI_OK) {
    /* Segments meet a partition more than once: count it once. */
    size_t n_parts = 0;
    (void)hudi_commit_metadata_partitions(c->meta, &n_parts);
    c->res->partitions_written = (int64_t)n_parts;
    return HUDI_OK;
  }
  if (!mdt_started) {
    abort_before_mdt(c);
    return st;
  }
  hudi_rollback_result rr;
  hudi_error ignored = HUDI_ERROR_INIT;
  if (hudi_rollback_run_instant(&rr, c->t, c->instant, &ignored) != HUDI_OK) hudi_error_clear(&ignored);
  return st;
}

static hudi_status commit(append_ctx *c, hudi_error *err) {
  hudi_instant_gen gen;
  HUDI_TRY(hudi_write_pick_instant(&gen, c->t, c->instant, err));
  snprintf(c->res->requested_time, sizeof c->res->requested_time, "%s", c->instant);
  HUDI_TRY(hudi_commit_metadata_new(&c->meta, 0, err));
  HUDI_TRY(hudi_commit_metadata_set_schema(c->meta, c->schema_json, err));
  HUDI_TRY(hudi_commit_metadata_set_operation(c->meta, "BULK_INSERT", err));
  c->meta->compacted = (hudi_tl_bool){0, 1};

  HUDI_TRY(write_instant(c, "", HUDI_INSTANT_REQUESTED, "", 0, err));
  HUDI_TRY(write_instant(c, "", HUDI_INSTANT_INFLIGHT, "", 0, err));
  if (c->eof) {
    c->build_rli = true;
    HUDI_TRY(write_files(c, err));
    /* The MDT deltacommit T; gen then completes T after it. */
    HUDI_TRY(hudi_write_mdt_bulk_insert(c->t, c->opts, c->n_opts, c->instant, c->meta, &c->rows, c->rli, &gen, err));
  } else {
    HUDI_TRY(write_segments(c, &gen, err));
  }

  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_commit_metadata_to_avro(c->meta, NULL, &avro, err);
  char done[HUDI_INSTANT_TIME_BUF];
  if (st == HUDI_OK) st = hudi_instant_gen_next(&gen, done, NULL, err);
  if (st == HUDI_OK) st = write_instant(c, done, HUDI_INSTANT_COMPLETED, avro.data, avro.len, err);
  hudi_buf_free(&avro);
  HUDI_TRY(st);
  snprintf(c->res->completion_time, sizeof c->res->completion_time, "%s", done);
  /* The commit is done; leftover markers only bother the checker. */
  char temp[64];
  snprintf(temp, sizeof temp, ".hoodie/.temp/%s", c->instant);
  hudi_error ignored = HUDI_ERROR_INIT;
  hudi_status del = hudi_storage_delete(c->t->storage, temp, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, &ignored);
  (void)del;
  /* T is committed: a failed reload must not report the write as failed
   * (a retry would apply it twice); the next write reloads anyway. */
  if (hudi_write_reload_timeline(c->t, &ignored) != HUDI_OK) hudi_error_clear(&ignored);
  return HUDI_OK;
}

hudi_status hudi_table_append(hudi_write_result *result, hudi_table *table, struct ArrowArrayStream *stream,
                              const hudi_option *options, size_t n_options, hudi_error *err) {
  hudi_write_result dummy;
  hudi_write_result *res = result ? result : &dummy;
  memset(res, 0, sizeof *res);
  if (!table || !stream || !stream->release) {
    if (stream && stream->release) stream->release(stream);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_append needs a table and a stream");
  }
  append_ctx c;
  memset(&c, 0, sizeof c);
  c.t = table;
  c.opts = options;
  c.n_opts = options ? n_options : 0;
  c.res = res;
  hudi_keygen kg;
  memset(&kg, 0, sizeof kg);
  hudi_table_lock lock = {0};
  hudi_status st = hudi_write_check_table_mdt(table, c.opts, c.n_opts, err);
  if (st == HUDI_OK) st = hudi_write_begin(&lock, table, c.opts, c.n_opts, err);
  /* One metadata-table handle for the metadata commit and the services
   * (mdt_reader.h), as upserts share it. */
  bool sharing = st == HUDI_OK;
  if (sharing) hudi_mdt_share_begin(table);
  if (st == HUDI_OK)
    st = hudi_write_int_option(table, c.opts, c.n_opts, "hoodie.parquet.max.file.size",
                               HUDI_WRITE_DEFAULT_MAX_FILE_SIZE, 1, &c.max_file_size, err);
  if (st == HUDI_OK)
    st = hudi_write_int_option(table, c.opts, c.n_opts, "hoodie.parquet.small.file.limit",
                               HUDI_WRITE_DEFAULT_SMALL_FILE_LIMIT, INT64_MIN, &c.small_file_limit, err);
  if (st == HUDI_OK) st = hudi_write_pq_options(&c.pq, table, c.opts, c.n_opts, c.root_name, NULL, err);
  int threads; /* checked here, before anything is written; used by write_files */
  if (st == HUDI_OK) st = write_threads(&c, 1, &threads, err);
  if (st == HUDI_OK) st = hudi_bloom_cfg_read(&c.bloom, table, c.opts, c.n_opts, err);
  if (st == HUDI_OK) st = hudi_keygen_init(&kg, &table->props, table->version, err);
  bool key_order = false;
  if (st == HUDI_OK) st = bulk_sort_mode(table, c.opts, c.n_opts, &key_order, err);
  if (st == HUDI_OK)
    st = hudi_write_int_option(table, c.opts, c.n_opts, "hudi_c.append.segment.bytes",
                               HUDI_WRITE_DEFAULT_SEGMENT_BYTES, 1, &c.segment_bytes, err);
  /* Everything the input can get wrong is found here, before any write;
   * in a stream of several segments, before the segment's own files. */
  if (st == HUDI_OK) st = hudi_write_rows_open(&c.rows, stream, key_order, err);
  if (st == HUDI_OK) st = hudi_write_rows_next(&c.rows, stream, &kg, c.segment_bytes, &c.eof, err);
  c.stream = stream;
  c.kg = &kg;
  c.key_twin = -1;
  hudi_write_keys_init(&c.keys);
  if (st == HUDI_OK) {
    /* Schema evolution (write_schema.h): rows then carry the writer schema. */
    st = hudi_write_rows_evolve(&c.rows, table, c.opts, c.n_opts, NULL, err);
  }
  if (st == HUDI_OK) st = build_schemas(&c, err);
  if (st == HUDI_OK) st = hudi_write_mdt_check_rows(table, &c.rows, err);
  if (st == HUDI_OK) st = hudi_insert_dup_policy(table, c.opts, c.n_opts, &c.dup_policy, err);
  if (st == HUDI_OK) st = apply_dup_policy(&c, err);
  c.keys_on = !c.eof && hudi_write_mdt_has_record_index(table);
  snprintf(res->action, sizeof res->action, "%s", table->type == HUDI_MERGE_ON_READ ? "deltacommit" : "commit");
  snprintf(res->operation, sizeof res->operation, "BULK_INSERT");
  if (st == HUDI_OK && (c.rows.n > 0 || !c.eof)) {
    res->num_writes = res->num_inserts = (int64_t)c.rows.n;
    st = commit(&c, err);
    hudi_write_mdt_bulk_rli_free(c.rli); /* joined before the lock goes */
    c.rli = NULL;
    if (st == HUDI_OK) res->num_writes = res->num_inserts = c.rows_written;
    if (st != HUDI_OK) res->completion_time[0] = '\0'; /* the instant, if written, is still pending */
    /* The commit is visible from here on, whatever the services report. */
    else st = hudi_services_after_commit(table, c.opts, c.n_opts, res, err);
  }
  hudi_index_free(c.dup_index); /* before the shared metadata-table handle goes */
  if (sharing) hudi_mdt_share_end(table);
  hudi_write_end(&lock, table);
  hudi_commit_metadata_free(c.meta);
  hudi_write_rows_free(&c.rows);
  hudi_write_keys_free(&c.keys);
  stream->release(stream);
  hudi_arrow_field_clear(&c.out_schema);
  hudi_free(c.same);
  hudi_free(c.schema_json);
  hudi_free(c.avro_with_meta);
  hudi_keygen_free(&kg);
  return st;
}

/* The layout-1 archive file (archive_v1.h), after Apache Hudi 1.x's
 * TimelineArchiverV1 and MetadataConversionUtils.createMetaWrapper. */
#include "table/archive_v1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avro/container.h"
#include "avro/value.h"
#include "base/alloc.h"
#include "base/instant.h"
#include "table/commit_metadata.h"
#include "table/instant_file.h"
#include "table/log_avro_block.h"
#include "table/log_format.h"
#include "table/timeline_schemas.h"

#define ARCHIVE_PREFIX ".commits_.archive."
#define DEFAULT_TOKEN "1-0-1" /* HoodieLogFormat.UNKNOWN_WRITE_TOKEN */

void hudi_archive_v1_dir(char *out, size_t cap, const hudi_props *props) {
  const char *f = hudi_props_get(props, "hoodie.archivelog.folder");
  snprintf(out, cap, ".hoodie/%s", f && *f ? f : "archived");
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* ---- the file name ---------------------------------------------------- */

/* ".commits_.archive.<version>_<token>": 1 and the parts, else 0. */
static int parse_archive_name(const char *name, long *version, const char **token) {
  size_t pl = strlen(ARCHIVE_PREFIX);
  if (strncmp(name, ARCHIVE_PREFIX, pl) != 0) return 0;
  char *end;
  long v = strtol(name + pl, &end, 10);
  if (end == name + pl || *end != '_' || v < 0 || v > 1000000000) return 0;
  *version = v;
  *token = end + 1;
  return 1;
}

/* The next archive file: FSUtils.getLatestLogVersion's latest (version,
 * token), rolled over to version + 1, as HoodieLogFormatWriter does when
 * the latest file exists; the first is version 1 with the default token. */
static hudi_status next_name(char *out, size_t cap, hudi_storage *s, const char *dir, hudi_error *err) {
  /* A missing folder lists as empty. */
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, dir, 0, &l, err));
  long best = 0;
  char token[64] = DEFAULT_TOKEN;
  for (size_t i = 0; i < l.count; i++) {
    long v;
    const char *tk;
    if (l.items[i].is_dir || !parse_archive_name(base_name(l.items[i].path), &v, &tk)) continue;
    if (v > best && strlen(tk) < sizeof token && *tk) {
      best = v;
      snprintf(token, sizeof token, "%s", tk);
    }
  }
  hudi_file_list_free(&l);
  snprintf(out, cap, "%s/%s%ld_%s", dir, ARCHIVE_PREFIX, best + 1, token);
  return HUDI_OK;
}

/* ---- one record ------------------------------------------------------- */

typedef struct entry_ctx {
  hudi_storage *s;
  const hudi_avro_node *root; /* HoodieArchivedMetaEntry */
  bool utc;                   /* hoodie.table.timeline.timezone=UTC */
} entry_ctx;

static hudi_status set_str(hudi_avro_value *rec, hudi_avro_arena *a, const char *field, const char *v,
                           hudi_error *err) {
  hudi_avro_value *f = hudi_avro_value_field(rec, field);
  if (!f) return hudi_err_set(err, HUDI_ERR_INTERNAL, "archived entry schema lacks %s", field);
  return hudi_avro_value_set_string(f, a, v, strlen(v), err);
}

/* The record branch of a nullable record field, selected. */
static hudi_status record_slot(hudi_avro_value *rec, hudi_avro_arena *a, const char *field, hudi_avro_value **slot,
                               hudi_error *err) {
  hudi_avro_value *f = hudi_avro_value_field(rec, field);
  const hudi_avro_node *u = f ? f->node : NULL;
  for (uint32_t b = 0; u && u->type == HUDI_AVRO_UNION && b < u->n_branches; b++)
    if (u->branches[b]->type == HUDI_AVRO_RECORD) return hudi_avro_value_select(f, a, b, slot, err);
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "archived entry field %s is not a nullable record", field);
}

/* An Avro container file with one record (plans, clean, rollback and
 * savepoint metadata) nested into `field`, resolved to its schema there. */
static hudi_status nest_avro(hudi_avro_value *rec, hudi_avro_arena *a, const char *field, const hudi_buf *bytes,
                             const char *name, hudi_error *err) {
  hudi_avro_value *slot;
  HUDI_TRY(record_slot(rec, a, field, &slot, err));
  hudi_avro_file f;
  HUDI_TRY(hudi_avro_file_open(&f, bytes->data, bytes->len, name, err));
  hudi_avro_value *vals = NULL;
  size_t nv = 0;
  hudi_status st = hudi_avro_file_read_all(&f, a, slot->node, &vals, &nv, NULL, NULL, err);
  if (st == HUDI_OK && nv != 1)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: holds %zu records, expected 1", name, nv);
  if (st == HUDI_OK) *slot = vals[0];
  hudi_avro_file_close(&f);
  return st;
}

/* Layout-1 commit metadata (Jackson JSON) nested into `field` as Avro
 * HoodieCommitMetadata / HoodieReplaceCommitMetadata, as
 * convertCommitMetadataToAvro maps it by field name. Metadata without an
 * operation type (empty files, UNKNOWN) stays null, as Java leaves it.
 * *m receives the parsed document: its strings must outlive the value. */
static hudi_status nest_commit(hudi_avro_value *rec, hudi_avro_arena *a, const char *field, const hudi_buf *bytes,
                               int replace, const char *name, hudi_commit_metadata **m, hudi_error *err) {
  HUDI_TRY(hudi_commit_metadata_parse(m, bytes->data, bytes->len, replace, name, err));
  const char *op = (*m)->operation_type;
  if (!op || !*op || !strcmp(op, "UNKNOWN")) return HUDI_OK;
  hudi_avro_value *slot;
  HUDI_TRY(record_slot(rec, a, field, &slot, err));
  return hudi_tl_to_value(slot, a, slot->node, *m, &hudi_commit_metadata_type, err);
}

static hudi_status read_named(hudi_buf *out, hudi_storage *s, const char *path, hudi_error *err) {
  hudi_buf_reset(out);
  hudi_error tmp = HUDI_ERROR_INIT;
  hudi_status st = hudi_storage_read_all(s, path, HUDI_TL_MAX_FILE, out, &tmp);
  if (st == HUDI_ERR_NOT_FOUND) {
    hudi_error_clear(&tmp);
    return HUDI_OK; /* read as empty */
  }
  if (st != HUDI_OK && err) *err = tmp;
  return st;
}

/* The payload createMetaWrapper nests for this state file (none for empty
 * files, as createMetaWrapperForEmptyInstant). The clean's requested and
 * inflight records both carry the plan, read from the requested file. */
static hudi_status add_payload(hudi_avro_value *rec, hudi_avro_arena *a, const entry_ctx *c, const char *path,
                               const hudi_instant_file *f, hudi_commit_metadata **m, hudi_error *err) {
  const char *act = f->action;
  hudi_instant_state st = f->state;
  char src[700];
  snprintf(src, sizeof src, "%s", path);
  if (!strcmp(act, "clean") && st != HUDI_INSTANT_COMPLETED) {
    const char *slash = strrchr(path, '/');
    snprintf(src, sizeof src, "%.*s%s.clean.requested", slash ? (int)(slash - path + 1) : 0, path, f->requested_time);
  }
  hudi_buf b;
  hudi_buf_init(&b, HUDI_TL_MAX_FILE);
  hudi_status s = read_named(&b, c->s, src, err);
  bool done = s != HUDI_OK || b.len == 0;
  const char *name = base_name(src);
  if (!done && (!strcmp(act, "commit") || !strcmp(act, "deltacommit")))
    s = nest_commit(rec, a, "hoodieCommitMetadata", &b, 0, name, m, err);
  else if (!done && !strcmp(act, "replacecommit")) {
    if (st == HUDI_INSTANT_REQUESTED) s = nest_avro(rec, a, "hoodieRequestedReplaceMetadata", &b, name, err);
    else if (st == HUDI_INSTANT_INFLIGHT) s = nest_commit(rec, a, "HoodieInflightReplaceMetadata", &b, 0, name, m, err);
    else s = nest_commit(rec, a, "hoodieReplaceCommitMetadata", &b, 1, name, m, err);
  } else if (!done && !strcmp(act, "clean"))
    s = nest_avro(rec, a, st == HUDI_INSTANT_COMPLETED ? "hoodieCleanMetadata" : "hoodieCleanerPlan", &b, name, err);
  else if (!done && !strcmp(act, "rollback") && st == HUDI_INSTANT_COMPLETED)
    s = nest_avro(rec, a, "hoodieRollbackMetadata", &b, name, err);
  else if (!done && !strcmp(act, "savepoint"))
    s = nest_avro(rec, a, "hoodieSavePointMetadata", &b, name, err);
  else if (!done && (!strcmp(act, "compaction") || !strcmp(act, "logcompaction")) && st == HUDI_INSTANT_REQUESTED)
    s = nest_avro(rec, a, "hoodieCompactionPlan", &b, name, err);
  hudi_buf_free(&b);
  return s;
}

static const char *state_name(hudi_instant_state s) {
  return s == HUDI_INSTANT_REQUESTED ? "REQUESTED" : s == HUDI_INSTANT_INFLIGHT ? "INFLIGHT" : "COMPLETED";
}

/* Appends the encoded HoodieArchivedMetaEntry of one state file. */
static hudi_status entry_datum(hudi_buf *out, const entry_ctx *c, const hudi_file_info *fi, const hudi_instant_file *f,
                               hudi_error *err) {
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, 0);
  hudi_commit_metadata *m = NULL;
  hudi_avro_value rec;
  char when[HUDI_INSTANT_TIME_BUF];
  hudi_status st = hudi_avro_value_init(&rec, &a, c->root, err);
  if (st == HUDI_OK) st = add_payload(&rec, &a, c, fi->path, f, &m, err);
  if (st == HUDI_OK) st = set_str(&rec, &a, "commitTime", f->requested_time, err);
  if (st == HUDI_OK) st = set_str(&rec, &a, "actionType", f->action, err);
  if (st == HUDI_OK) st = set_str(&rec, &a, "actionState", state_name(f->state), err);
  /* Java leaves version unset: null, not the schema's default 1. */
  if (st == HUDI_OK) st = hudi_avro_value_set_null(hudi_avro_value_field(&rec, "version"), &a, err);
  /* The file's modification time (InstantGeneratorV1.createNewInstant). */
  if (st == HUDI_OK) st = hudi_instant_time_format_zone(when, fi->mtime_ms, c->utc, err);
  if (st == HUDI_OK) st = set_str(&rec, &a, "stateTransitionTime", when, err);
  if (st == HUDI_OK) st = hudi_avro_encode(&rec, out, err);
  if (m) hudi_commit_metadata_free(m);
  hudi_avro_arena_free(&a);
  if (st != HUDI_OK) hudi_err_context(err, st, "archiving %s", fi->path);
  return st;
}

/* ---- the file ---------------------------------------------------------- */

typedef struct state_file {
  const hudi_file_info *fi;
  hudi_instant_file f;
} state_file;

static int cmp_state(const void *x, const void *y) {
  const state_file *a = x, *b = y;
  int c = strcmp(a->f.requested_time, b->f.requested_time);
  if (c) return c;
  return (int)a->f.state - (int)b->f.state;
}

/* Every state file of the chosen instants, in (time, state) order:
 * compaction.requested and .inflight travel with their completed .commit
 * (InstantComparatorV1 compares compaction as commit). */
static hudi_status collect(state_file **out, size_t *n_out, const hudi_timeline *tl, const size_t *idx, size_t n,
                           const hudi_file_list *files, hudi_error *err) {
  *out = hudi_calloc(files->count + 1, sizeof **out);
  if (!*out) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < files->count; i++) {
    hudi_instant_file f;
    if (files->items[i].is_dir || !hudi_instant_file_parse(&f, base_name(files->items[i].path), 1)) continue;
    for (size_t j = 0; j < n; j++) {
      const hudi_instant *in = &tl->items[idx[j]];
      if (strcmp(f.requested_time, in->requested_time) ||
          strcmp(hudi_instant_completed_action(f.action), hudi_instant_completed_action(in->requested_action)))
        continue;
      (*out)[k].fi = &files->items[i];
      (*out)[k].f = f;
      k++;
      break;
    }
  }
  qsort(*out, k, sizeof **out, cmp_state);
  *n_out = k;
  return HUDI_OK;
}

static hudi_status flush_block(hudi_buf *file, hudi_buf *content, hudi_log_avro_records_writer *w, const char *schema,
                               size_t schema_len, hudi_error *err) {
  HUDI_TRY(hudi_log_avro_records_finish(w, err));
  hudi_log_meta h = HUDI_LOG_META_INIT;
  hudi_status st = hudi_log_meta_set(&h, HUDI_LOG_HEADER_SCHEMA, schema, schema_len, err);
  if (st == HUDI_OK)
    st = hudi_log_block_encode(file, HUDI_LOG_BLOCK_AVRO_DATA, &h, NULL, content->data, content->len, err);
  hudi_log_meta_free(&h);
  hudi_buf_reset(content);
  return st;
}

hudi_status hudi_archive_v1_write(hudi_storage *s, const hudi_props *props, const hudi_timeline *tl,
                                  const size_t *idx, size_t n, const hudi_file_list *files, int batch,
                                  size_t *n_records, hudi_error *err) {
  *n_records = 0;
  if (batch < 1) batch = HUDI_ARCHIVE_V1_BATCH;
  hudi_avro_schema *schema = NULL;
  HUDI_TRY(hudi_tl_schema_parse(&schema, HUDI_TL_ARCHIVED_META_ENTRY, err));
  size_t schema_len;
  const char *schema_json = hudi_tl_schema_json(HUDI_TL_ARCHIVED_META_ENTRY, &schema_len);
  const char *tz = hudi_props_get(props, "hoodie.table.timeline.timezone");
  entry_ctx c = {s, schema->root, tz && !strcmp(tz, "UTC")};
  state_file *sf = NULL;
  size_t nsf = 0;
  hudi_buf file, content;
  hudi_buf_init(&file, SIZE_MAX);
  hudi_buf_init(&content, SIZE_MAX);
  hudi_log_avro_records_writer w;
  hudi_status st = collect(&sf, &nsf, tl, idx, n, files, err);
  int in_block = 0;
  for (size_t i = 0; st == HUDI_OK && i < nsf; i++) {
    if (in_block == 0) st = hudi_log_avro_records_begin(&w, &content, err);
    if (st == HUDI_OK) st = hudi_log_avro_records_record_begin(&w, err);
    if (st == HUDI_OK) st = entry_datum(&content, &c, sf[i].fi, &sf[i].f, err);
    if (st == HUDI_OK) st = hudi_log_avro_records_record_end(&w, err);
    if (st == HUDI_OK && ++in_block == batch) {
      st = flush_block(&file, &content, &w, schema_json, schema_len, err);
      in_block = 0;
    }
  }
  if (st == HUDI_OK && in_block) st = flush_block(&file, &content, &w, schema_json, schema_len, err);
  char dir[600], path[700];
  hudi_archive_v1_dir(dir, sizeof dir, props);
  if (st == HUDI_OK && nsf) st = next_name(path, sizeof path, s, dir, err);
  /* Atomic, and never over an archive file a concurrent archiver wrote. */
  if (st == HUDI_OK && nsf) st = hudi_storage_write_if_absent(s, path, file.data, file.len, err);
  if (st == HUDI_OK) *n_records = nsf;
  hudi_buf_free(&file);
  hudi_buf_free(&content);
  hudi_free(sf);
  hudi_avro_schema_free(schema);
  return st;
}

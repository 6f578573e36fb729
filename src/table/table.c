/* Opening a table: hoodie.properties, its validation, the timeline. */
#include "table/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/alloc.h"
#include "base/instant.h"
#include "table/compact_async.h"

#define PROPS_BACKUP_PATH ".hoodie/hoodie.properties.backup"

const char *hudi_table_type_name(hudi_table_type type) {
  return type == HUDI_MERGE_ON_READ ? "MERGE_ON_READ" : "COPY_ON_WRITE";
}

const char *hudi_instant_state_name(hudi_instant_state_t state) {
  switch (state) {
    case HUDI_STATE_REQUESTED: return "REQUESTED";
    case HUDI_STATE_INFLIGHT: return "INFLIGHT";
    case HUDI_STATE_COMPLETED: return "COMPLETED";
  }
  return "UNKNOWN";
}

/* Reads and validates one properties file. */
static hudi_status load_props_file(hudi_props *out, hudi_storage *s, const char *path, hudi_error *err) {
  hudi_buf text;
  hudi_buf_init(&text, HUDI_PROPS_MAX_BYTES);
  hudi_status st = hudi_storage_read_all(s, path, HUDI_PROPS_MAX_BYTES, &text, err);
  if (st == HUDI_OK) st = hudi_props_parse(out, (const char *)text.data, text.len, path, err);
  hudi_buf_free(&text);
  if (st != HUDI_OK) return st;
  st = hudi_props_validate_checksum(out, path, err);
  if (st != HUDI_OK) hudi_props_free(out);
  return st;
}

/* As HoodieTableConfig does: the main file, else the backup left by an
 * interrupted update. */
static hudi_status load_props(hudi_table *t, hudi_error *err) {
  hudi_error first = HUDI_ERROR_INIT;
  hudi_status st = load_props_file(&t->props, t->storage, HUDI_PROPS_PATH, &first);
  if (st == HUDI_OK) return HUDI_OK;
  if (st != HUDI_ERR_NOT_FOUND && st != HUDI_ERR_CORRUPT) {
    *err = first;
    return hudi_err_context(err, st, "opening table %s", t->base_uri);
  }
  hudi_error second = HUDI_ERROR_INIT;
  if (load_props_file(&t->props, t->storage, PROPS_BACKUP_PATH, &second) == HUDI_OK) return HUDI_OK;
  if (st == HUDI_ERR_NOT_FOUND)
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "no Hudi table at %s: %s does not exist", t->base_uri,
                        HUDI_PROPS_PATH);
  if (err) *err = first;
  return hudi_err_context(err, st, "opening table %s", t->base_uri);
}

static hudi_status parse_type(hudi_table *t, hudi_error *err) {
  const char *v = hudi_props_get(&t->props, "hoodie.table.type");
  if (!v) v = "COPY_ON_WRITE"; /* Hudi's default */
  if (!strcasecmp(v, "COPY_ON_WRITE") || !strcasecmp(v, "COW")) t->type = HUDI_COPY_ON_WRITE;
  else if (!strcasecmp(v, "MERGE_ON_READ") || !strcasecmp(v, "MOR")) t->type = HUDI_MERGE_ON_READ;
  else
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "%s: hoodie.table.type is '%s' (expected COPY_ON_WRITE or MERGE_ON_READ)", HUDI_PROPS_PATH, v);
  return HUDI_OK;
}

static hudi_status parse_int_prop(const hudi_table *t, const char *key, int dflt, int *out, hudi_error *err) {
  const char *v = hudi_props_get(&t->props, key);
  if (!v) {
    *out = dflt;
    return HUDI_OK;
  }
  char *end;
  long n = strtol(v, &end, 10);
  if (!*v || *end || n < 0 || n > 1000)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: %s is '%s', not a version number", HUDI_PROPS_PATH, key, v);
  *out = (int)n;
  return HUDI_OK;
}

/* Versions 6 (layout 1), 8 and 9 (layout 2), as hudi-rs and Hudi 1.x read. */
static hudi_status parse_versions(hudi_table *t, hudi_error *err) {
  HUDI_TRY(parse_int_prop(t, "hoodie.table.version", 0, &t->version, err));
  if (!hudi_props_get(&t->props, "hoodie.table.version"))
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: hoodie.table.version is missing", HUDI_PROPS_PATH);
  if (t->version != 6 && t->version != 8 && t->version != 9)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has table version %d; hudi-c reads versions 6, 8 and 9", t->base_uri,
                        t->version);
  int want = t->version >= 8 ? 2 : 1;
  HUDI_TRY(parse_int_prop(t, "hoodie.timeline.layout.version", want, &t->layout, err));
  if (t->layout != want)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "%s: table version %d needs timeline layout %d, but hoodie.timeline.layout.version is %d",
                        HUDI_PROPS_PATH, t->version, want, t->layout);
  return HUDI_OK;
}

/* Storage options are the ones that are not Hudi's. */
static hudi_status open_storage(hudi_table *t, hudi_error *err) {
  hudi_storage_option *so = hudi_calloc(t->options.len ? t->options.len : 1, sizeof *so);
  if (!so) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < t->options.len; i++) {
    if (strncmp(t->options.entries[i].key, "hoodie.", 7) == 0) continue;
    so[n].key = t->options.entries[i].key;
    so[n].value = t->options.entries[i].value;
    n++;
  }
  hudi_status st = hudi_storage_open(&t->storage, t->base_uri, so, n, err);
  hudi_free(so);
  return st;
}

hudi_status hudi_table_open(hudi_table **out, const char *base_uri, const hudi_option *options,
                            size_t n_options, hudi_error *err) {
  *out = NULL;
  if (!base_uri || !*base_uri) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the table's base URI is empty");
  hudi_table *t = hudi_calloc(1, sizeof *t);
  if (!t) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_props_init(&t->props);
  hudi_props_init(&t->options);
  hudi_status st = HUDI_OK;
  t->base_uri = hudi_strdup(base_uri);
  if (!t->base_uri) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < n_options; i++) {
    if (!options[i].key || !options[i].value)
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option %zu has a NULL key or value", i);
    else
      st = hudi_props_set(&t->options, options[i].key, options[i].value, err);
  }
  if (st == HUDI_OK) st = open_storage(t, err);
  if (st == HUDI_OK) st = load_props(t, err);
  if (st == HUDI_OK) {
    t->name = hudi_props_get(&t->props, "hoodie.table.name");
    if (!t->name) st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: hoodie.table.name is missing", HUDI_PROPS_PATH);
  }
  if (st == HUDI_OK) st = parse_type(t, err);
  if (st == HUDI_OK) st = parse_versions(t, err);
  if (st == HUDI_OK) st = hudi_timeline_load(&t->timeline, t->storage, "", t->layout, err);
  if (st != HUDI_OK) {
    hudi_table_free(t);
    return st;
  }
  *out = t;
  return HUDI_OK;
}

void hudi_table_free(hudi_table *t) {
  if (!t) return;
  hudi_compact_async_free(t); /* joins the background compaction */
  hudi_timeline_free(&t->timeline);
  hudi_props_free(&t->props);
  hudi_props_free(&t->options);
  if (t->storage) hudi_storage_free(t->storage);
  hudi_free(t->base_uri);
  hudi_free(t);
}

const char *hudi_table_base_uri(const hudi_table *t) { return t->base_uri; }
const char *hudi_table_name(const hudi_table *t) { return t->name; }
hudi_table_type hudi_table_get_type(const hudi_table *t) { return t->type; }
int hudi_table_version(const hudi_table *t) { return t->version; }
int hudi_table_timeline_layout(const hudi_table *t) { return t->layout; }
const char *hudi_table_property(const hudi_table *t, const char *key) { return hudi_props_get(&t->props, key); }
size_t hudi_table_property_count(const hudi_table *t) { return t->props.len; }

int32_t hudi_table_timeline_offset_minutes(const hudi_table *t) {
  const char *tz = hudi_props_get(&t->props, "hoodie.table.timeline.timezone");
  if (tz && !strcasecmp(tz, "UTC")) return 0;
  time_t now = time(NULL);
  struct tm local;
  if (!localtime_r(&now, &local)) return 0;
  return (int32_t)(local.tm_gmtoff / 60);
}

void hudi_table_property_at(const hudi_table *t, size_t i, const char **key, const char **value) {
  *key = i < t->props.len ? t->props.entries[i].key : NULL;
  *value = i < t->props.len ? t->props.entries[i].value : NULL;
}

const char *hudi_table_option(const hudi_table *t, const char *key) { return hudi_props_get(&t->options, key); }

size_t hudi_table_instant_count(const hudi_table *t) { return t->timeline.count; }

hudi_status hudi_table_instant_at(const hudi_table *t, size_t i, hudi_instant_info *out, hudi_error *err) {
  if (i >= t->timeline.count)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "instant index %zu is past the timeline's %zu instants", i,
                        t->timeline.count);
  const hudi_instant *in = &t->timeline.items[i];
  out->requested_time = in->requested_time;
  out->completion_time = in->completion_time;
  out->action = in->action;
  out->requested_action = in->requested_action;
  out->state = (hudi_instant_state_t)in->state;
  return hudi_instant_time_to_millis(&out->requested_epoch_ms, in->requested_time, strlen(in->requested_time),
                                     err);
}

const char *hudi_table_ordering_field(const hudi_table *t, char *buf, size_t cap) {
  const char *mode = hudi_props_get(&t->props, "hoodie.record.merge.mode");
  if (mode && strcmp(mode, "COMMIT_TIME_ORDERING") == 0) return NULL;
  const char *f = hudi_props_get(&t->props, "hoodie.table.ordering.fields");
  if (!f || !*f) f = hudi_props_get(&t->props, "hoodie.table.precombine.field");
  if (!f || !*f) return NULL;
  size_t n = strcspn(f, ",");
  if (n >= cap) n = cap - 1;
  memcpy(buf, f, n);
  buf[n] = 0;
  return buf;
}

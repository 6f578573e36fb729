/* hudi_table_create: a new table's hoodie.properties and the directories
 * Spark lays out, then the table opened. hoodie.write.table.version picks
 * the version: 8 (default; HoodieTableMetaClient.TableBuilder of Hudi 1.0,
 * hudi-format-core.md §2), 9 (Hudi 1.1/1.2: the same table with renamed
 * and dropped merge keys, checked key by key against the v9 fixtures and
 * Spark 1.2) or 6 (Hudi 0.14/0.15, timeline layout 1, key generator class,
 * payload class; hudi-format-v6-and-archive.md A3; no metadata table). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/hash.h"
#include "hudi/write.h"
#include "io/storage.h"
#include "table/create.h"
#include "table/create_mdt.h"
#include "table/properties.h"


static const char *const EVENT_TIME_STRATEGY = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5";
static const char *const COMMIT_TIME_STRATEGY = "ce9acb64-bde0-424c-9b91-f6ebba25356d";

static bool ident_char(char c, bool first) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') return true;
  return !first && c >= '0' && c <= '9';
}

/* A comma-separated list of column names: every name non-empty and made of
 * characters that survive hoodie.properties and Avro unescaped. */
static hudi_status check_field_list(const char *what, const char *list, size_t *n_fields, hudi_error *err) {
  size_t n = 0, len = 0;
  for (const char *p = list;; p++) {
    if (*p == ',' || *p == '\0') {
      if (len == 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s '%s' has an empty field name", what, list);
      n++;
      len = 0;
      if (*p == '\0') break;
      continue;
    }
    if (!ident_char(*p, false) && *p != '.')
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "%s '%s': field names may only hold letters, digits, '_' and '.'", what, list);
    len++;
  }
  *n_fields = n;
  return HUDI_OK;
}

const char *hudi_create_option(const hudi_create_options *o, const char *key) {
  for (size_t i = 0; i < o->n_options; i++)
    if (o->options[i].key && strcmp(o->options[i].key, key) == 0) return o->options[i].value;
  return NULL;
}

static hudi_status bool_option(const hudi_create_options *o, const char *key, bool dflt, bool *out,
                               hudi_error *err) {
  const char *v = hudi_create_option(o, key);
  if (!v) {
    *out = dflt;
    return HUDI_OK;
  }
  if (!strcasecmp(v, "true")) *out = true;
  else if (!strcasecmp(v, "false")) *out = false;
  else return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option %s is '%s', expected true or false", key, v);
  return HUDI_OK;
}

/* The table name Hudi would get from the path: its last segment, made an
 * Avro name (the commit schema is "<name>_record" in "hoodie.<name>"). */
hudi_status hudi_create_default_name(char *out, size_t cap, const char *base_uri, hudi_error *err) {
  size_t end = strlen(base_uri);
  while (end > 0 && base_uri[end - 1] == '/') end--;
  size_t start = end;
  while (start > 0 && base_uri[start - 1] != '/' && base_uri[start - 1] != ':') start--;
  if (start == end) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot take a table name from '%s'", base_uri);
  size_t n = 0;
  for (size_t i = start; i < end; i++) {
    if (n + 2 >= cap) return hudi_err_set(err, HUDI_ERR_LIMIT, "table name from '%s' is too long", base_uri);
    char c = base_uri[i];
    if (n == 0 && !ident_char(c, true)) out[n++] = '_';
    out[n++] = ident_char(c, false) ? c : '_';
  }
  out[n] = '\0';
  return HUDI_OK;
}

static hudi_status check_name(const char *what, const char *name, hudi_error *err) {
  if (!*name || !ident_char(name[0], true))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s '%s' must start with a letter or '_'", what, name);
  for (const char *p = name; *p; p++)
    if (!ident_char(*p, false))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s '%s' may only hold letters, digits and '_'", what, name);
  if (strlen(name) > 200) return hudi_err_set(err, HUDI_ERR_LIMIT, "%s '%s' is too long", what, name);
  return HUDI_OK;
}

/* Key generator type as KeyGenUtils.inferKeyGeneratorType infers it. */
static const char *keygen_type(size_t n_keys, size_t n_parts) {
  if (n_parts == 0) return "NON_PARTITION";
  if (n_parts == 1 && n_keys <= 1) return "SIMPLE";
  return "COMPLEX";
}

static hudi_status put(hudi_buf *b, const char *k, const char *v, hudi_error *err) {
  return hudi_buf_printf(b, err, "%s=%s\n", k, v);
}

/* The key generator class a table version 6 names (the v6 fixtures'
 * org.apache.hudi.keygen.* classes; v8 stores the type instead). */
static const char *keygen_class(const char *type) {
  if (!strcmp(type, "NON_PARTITION")) return "org.apache.hudi.keygen.NonpartitionedKeyGenerator";
  if (!strcmp(type, "SIMPLE")) return "org.apache.hudi.keygen.SimpleKeyGenerator";
  return "org.apache.hudi.keygen.ComplexKeyGenerator";
}

/* Table version 6 (Hudi 0.14/0.15, timeline layout 1): the keys of the v6
 * fixtures (hudi-format-v6-and-archive.md A3). The payload class carries
 * the merge behaviour: Hudi 1.x infers EVENT_TIME_ORDERING from
 * DefaultHoodieRecordPayload and COMMIT_TIME_ORDERING from
 * OverwriteWithLatestAvroPayload for tables before version 8, and 0.x
 * merges with the class itself. */
static hudi_status render_v6_keys(hudi_buf *b, const hudi_create_options *o, size_t n_keys, size_t n_parts,
                                  bool event_time, hudi_error *err) {
  HUDI_TRY(put(b, "hoodie.table.version", "6", err));
  HUDI_TRY(put(b, "hoodie.timeline.layout.version", "1", err));
  HUDI_TRY(put(b, "hoodie.archivelog.folder", "archived", err));
  HUDI_TRY(put(b, "hoodie.table.recordkey.fields", o->record_key_fields, err));
  if (n_parts) HUDI_TRY(put(b, "hoodie.table.partition.fields", o->partition_fields, err));
  if (event_time) HUDI_TRY(put(b, "hoodie.table.precombine.field", o->ordering_fields, err));
  HUDI_TRY(put(b, "hoodie.table.keygenerator.class", keygen_class(keygen_type(n_keys, n_parts)), err));
  return HUDI_OK;
}

/* Table versions 8 and 9 (timeline layout 2). Version 9 (Hudi 1.1/1.2)
 * differs only here: the ordering field is hoodie.table.ordering.fields,
 * no payload class or merge strategy id for the built-in merge modes, and
 * hoodie.table.format=native (v9 fixtures; what Spark 1.2 writes for the
 * same CREATE TABLE, with and without a preCombineField). */
static hudi_status render_v8_keys(hudi_buf *b, const hudi_create_options *o, const char *ver, size_t n_keys,
                                  size_t n_parts, bool event_time, hudi_error *err) {
  bool v9 = strcmp(ver, "9") == 0;
  HUDI_TRY(put(b, "hoodie.table.version", ver, err));
  HUDI_TRY(put(b, "hoodie.table.initial.version", ver, err));
  HUDI_TRY(put(b, "hoodie.timeline.layout.version", "2", err));
  HUDI_TRY(put(b, "hoodie.timeline.path", "timeline", err));
  HUDI_TRY(put(b, "hoodie.timeline.history.path", "history", err));
  HUDI_TRY(put(b, "hoodie.archivelog.folder", "archived", err));
  if (v9) HUDI_TRY(put(b, "hoodie.table.format", "native", err));
  HUDI_TRY(put(b, "hoodie.table.recordkey.fields", o->record_key_fields, err));
  if (n_parts) HUDI_TRY(put(b, "hoodie.table.partition.fields", o->partition_fields, err));
  if (event_time)
    HUDI_TRY(put(b, v9 ? "hoodie.table.ordering.fields" : "hoodie.table.precombine.field", o->ordering_fields, err));
  HUDI_TRY(put(b, "hoodie.table.keygenerator.type", keygen_type(n_keys, n_parts), err));
  return HUDI_OK;
}

/* Values go out unescaped (hudi-rs does not unescape); everything we put
 * there is ASCII without '\\' or line breaks, which check_* guaranteed. */
static hudi_status render(hudi_buf *b, const hudi_create_options *o, const char *name, int version,
                          size_t n_keys, size_t n_parts, bool hive, bool urlencode, const char *mdt_parts,
                          hudi_error *err) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char iso[40], javadate[64], ver[8], sum[16];
  strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
  strftime(javadate, sizeof javadate, "%a %b %d %H:%M:%S UTC %Y", &tm);
  snprintf(ver, sizeof ver, "%d", version);
  snprintf(sum, sizeof sum, "%u", (unsigned)hudi_table_checksum(o->database_name ? o->database_name : "", name));
  bool event_time = o->ordering_fields && *o->ordering_fields;
  HUDI_TRY(hudi_buf_printf(b, err, "#Properties saved on %s\n#%s\n", iso, javadate));
  HUDI_TRY(put(b, "hoodie.table.name", name, err));
  if (o->database_name) HUDI_TRY(put(b, "hoodie.database.name", o->database_name, err));
  HUDI_TRY(put(b, "hoodie.table.type", o->type == HUDI_MERGE_ON_READ ? "MERGE_ON_READ" : "COPY_ON_WRITE", err));
  if (version == 6) HUDI_TRY(render_v6_keys(b, o, n_keys, n_parts, event_time, err));
  else HUDI_TRY(render_v8_keys(b, o, ver, n_keys, n_parts, event_time, err));
  HUDI_TRY(put(b, "hoodie.datasource.write.hive_style_partitioning", hive ? "true" : "false", err));
  HUDI_TRY(put(b, "hoodie.datasource.write.partitionpath.urlencode", urlencode ? "true" : "false", err));
  HUDI_TRY(put(b, "hoodie.datasource.write.drop.partition.columns", "false", err));
  const char *payload = event_time ? "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
                                   : "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload";
  if (version == 6) {
    HUDI_TRY(put(b, "hoodie.compaction.payload.class", payload, err));
    /* 0.x's default merger strategy, as every v6 MOR fixture stores it. */
    HUDI_TRY(put(b, "hoodie.compaction.record.merger.strategy", EVENT_TIME_STRATEGY, err));
  } else {
    HUDI_TRY(put(b, "hoodie.record.merge.mode", event_time ? "EVENT_TIME_ORDERING" : "COMMIT_TIME_ORDERING", err));
    if (version == 8) {
      HUDI_TRY(put(b, "hoodie.compaction.payload.class", payload, err));
      HUDI_TRY(put(b, "hoodie.record.merge.strategy.id", event_time ? EVENT_TIME_STRATEGY : COMMIT_TIME_STRATEGY, err));
    }
  }
  HUDI_TRY(put(b, "hoodie.table.base.file.format", "PARQUET", err));
  HUDI_TRY(put(b, "hoodie.table.timeline.timezone", "UTC", err));
  if (*mdt_parts) { /* the metadata table (create_mdt.h) */
    HUDI_TRY(put(b, "hoodie.table.metadata.partitions", mdt_parts, err));
    HUDI_TRY(put(b, "hoodie.table.metadata.partitions.inflight", "", err));
    if ((version == 9 && strstr(mdt_parts, "record_index")) || strstr(mdt_parts, "column_stats")) /* create_mdt.h */
      HUDI_TRY(put(b, "hoodie.table.index.defs.path", ".hoodie/.index_defs/index.json", err));
  }
  return put(b, "hoodie.table.checksum", sum, err);
}

/* Spark's empty directories (fixture v8_empty). Object stores have no
 * directories, and no reader needs them, so only the local backend gets
 * them, best effort. */
static void make_local_dirs(hudi_storage *s, int version) {
  if (strcmp(hudi_storage_backend_name(s), "local") != 0) return;
  /* Version 6 keeps its timeline in .hoodie itself and archives to
   * .hoodie/archived (hudi-format-v6-and-archive.md A2). */
  static const char *const dirs[] = {"", ".hoodie", ".hoodie/.temp", ".hoodie/.aux", ".hoodie/.aux/.bootstrap",
                                     ".hoodie/.aux/.bootstrap/.partitions", ".hoodie/.aux/.bootstrap/.fileids",
                                     ".hoodie/.schema", ".hoodie/timeline", ".hoodie/timeline/history"};
  static const char *const dirs6[] = {"", ".hoodie", ".hoodie/.temp", ".hoodie/.aux", ".hoodie/.aux/.bootstrap",
                                      ".hoodie/.aux/.bootstrap/.partitions", ".hoodie/.aux/.bootstrap/.fileids",
                                      ".hoodie/.schema", ".hoodie/archived"};
  const char *const *list = version == 6 ? dirs6 : dirs;
  size_t n = version == 6 ? sizeof dirs6 / sizeof dirs6[0] : sizeof dirs / sizeof dirs[0];
  char path[4096];
  for (size_t i = 0; i < n; i++) {
    if ((size_t)snprintf(path, sizeof path, "%s%s%s", hudi_storage_base(s), *list[i] ? "/" : "", list[i]) >=
        sizeof path)
      return;
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return;
  }
}

static hudi_status validate(const hudi_create_options *o, int *version, size_t *n_keys, size_t *n_parts,
                            bool *hive, bool *urlencode, hudi_error *err) {
  if (o->type != HUDI_COPY_ON_WRITE && o->type != HUDI_MERGE_ON_READ)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "unknown table type %d", (int)o->type);
  if (!o->record_key_fields || !*o->record_key_fields)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "a record key field is required");
  HUDI_TRY(check_field_list("record key fields", o->record_key_fields, n_keys, err));
  *n_parts = 0;
  if (o->partition_fields && *o->partition_fields)
    HUDI_TRY(check_field_list("partition fields", o->partition_fields, n_parts, err));
  if (o->ordering_fields && *o->ordering_fields) {
    size_t n_ord;
    HUDI_TRY(check_field_list("ordering fields", o->ordering_fields, &n_ord, err));
    if (n_ord != 1) /* hudi-rs reads one ordering field only (write semantics §1.2) */
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "ordering fields '%s': only one ordering field is supported",
                          o->ordering_fields);
  }
  if (o->database_name) HUDI_TRY(check_name("database name", o->database_name, err));
  hudi_mdt_create_plan plan;
  HUDI_TRY(hudi_create_mdt_plan(o, &plan, err)); /* hudi_create_mdt acts on it */
  const char *v = hudi_create_option(o, "hoodie.write.table.version");
  *version = 8;
  if (v && !strcmp(v, "6")) *version = 6;
  else if (v && !strcmp(v, "9")) *version = 9;
  else if (v && strcmp(v, "8") != 0)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "hoodie.write.table.version=%s: hudi-c creates table versions 6, 8 and 9", v);
  if (*version == 6 && plan.mdt) /* create_mdt.h: the v6 metadata table is not written */
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table version 6: hudi-c creates version 6 tables without a metadata table (record "
                        "index); turn record_index_enabled off (upserts then use the bloom index)");
  v = hudi_create_option(o, "hoodie.table.timeline.timezone");
  if (v && strcasecmp(v, "UTC") != 0)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "hoodie.table.timeline.timezone=%s: only UTC is written", v);
  HUDI_TRY(bool_option(o, "hoodie.datasource.write.hive_style_partitioning", true, hive, err));
  HUDI_TRY(bool_option(o, "hoodie.datasource.write.partitionpath.urlencode", false, urlencode, err));
  /* v8 writers (1.0.x) wrote a COMPLEX key of one field as the bare value,
   * v9 as "f:v"; a table carrying that ambiguity is refused (§9.1). */
  if (*n_keys == 1 && *n_parts > 1)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "one record key field with several partition fields needs the COMPLEX key generator, "
                        "whose key format differs between Hudi versions for table version 8; add a second "
                        "record key field");
  return HUDI_OK;
}

hudi_status hudi_table_create(hudi_table **out, const char *base_uri, const hudi_create_options *opts,
                              hudi_error *err) {
  *out = NULL;
  if (!base_uri || !*base_uri) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the table's base URI is empty");
  hudi_create_options dflt = HUDI_CREATE_OPTIONS_INIT;
  const hudi_create_options *o = opts ? opts : &dflt;
  int version = 8;
  size_t n_keys, n_parts;
  bool hive, urlencode;
  HUDI_TRY(validate(o, &version, &n_keys, &n_parts, &hive, &urlencode, err));
  char name[256];
  if (o->table_name) {
    HUDI_TRY(check_name("table name", o->table_name, err));
    snprintf(name, sizeof name, "%s", o->table_name);
  } else {
    HUDI_TRY(hudi_create_default_name(name, sizeof name, base_uri, err));
  }

  /* Storage options: everything that is not a Hudi option. */
  hudi_storage_option *so = hudi_calloc(o->n_options ? o->n_options : 1, sizeof *so);
  if (!so) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t n_so = 0;
  for (size_t i = 0; i < o->n_options; i++) {
    if (!o->options[i].key || !o->options[i].value) {
      hudi_free(so);
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option %zu has a NULL key or value", i);
    }
    if (strncmp(o->options[i].key, "hoodie.", 7) == 0) continue;
    so[n_so].key = o->options[i].key;
    so[n_so].value = o->options[i].value;
    n_so++;
  }
  hudi_storage *s = NULL;
  hudi_status st = hudi_storage_open(&s, base_uri, so, n_so, err);
  hudi_free(so);
  HUDI_TRY(st);

  bool exists = false;
  st = hudi_storage_exists(s, HUDI_PROPS_PATH, &exists, err);
  if (st == HUDI_OK && !exists) st = hudi_storage_exists(s, ".hoodie/hoodie.properties.backup", &exists, err);
  if (st == HUDI_OK && exists)
    st = hudi_err_set(err, HUDI_ERR_EXISTS, "a Hudi table already exists at %s", base_uri);
  hudi_buf text, mdt_parts;
  hudi_buf_init(&text, 1 << 20);
  hudi_buf_init(&mdt_parts, 256);
  if (st == HUDI_OK) make_local_dirs(s, version);
  /* The MDT before hoodie.properties: the table appears (write-if-absent
   * below) with its MDT complete. */
  if (st == HUDI_OK) st = hudi_create_mdt(s, o, name, version, &mdt_parts, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&mdt_parts, 0, err);
  if (st == HUDI_OK)
    st = render(&text, o, name, version, n_keys, n_parts, hive, urlencode, (const char *)mdt_parts.data, err);
  hudi_buf_free(&mdt_parts);
  if (st == HUDI_OK) {
    st = hudi_storage_write_if_absent(s, HUDI_PROPS_PATH, text.data, text.len, err);
    if (st == HUDI_ERR_EXISTS) st = hudi_err_set(err, HUDI_ERR_EXISTS, "a Hudi table already exists at %s", base_uri);
  }
  hudi_buf_free(&text);
  hudi_storage_free(s);
  HUDI_TRY(st);
  /* Storage options again for the open (the caller's full list). */
  return hudi_table_open(out, base_uri, o->options, o->n_options, err);
}

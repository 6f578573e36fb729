/* HoodieMetadataRecord decode/encode against every payload of the
 * fixtures' metadata tables (base HFiles and HFILE_DATA log blocks), the
 * spec's worked example, Java UUID vectors and the merge rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hfile/hfile.h"
#include "table/log_reader.h"
#include "table/mdt_payload.h"
#include "table/mdt_schema.h"
#include "mdt_test_util.h"

/* ------------------------------------------------------------ fixtures */

typedef struct tally {
  int by_type[10]; /* type + 1 (type -1 at 0) */
  int payloads, typed_rebuilt, rli_rebuilt, hfiles, log_hfiles;
} tally;

static tally seen;
static unsigned char *first_of_type[10];
static size_t first_len[10];
static hudi_avro_schema *first_schema[10];

typedef struct scan_ctx {
  const hudi_avro_node *schema;
  hudi_avro_schema *owner;
  bool kept; /* owner is referenced by first_schema[] */
  const char *where;
} scan_ctx;

/* Rebuilds the record from its typed fields only, as a writer would. */
static void rebuild_typed(const hudi_mdt_record *r, const hudi_avro_node *schema, const uint8_t *want, size_t len) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt_record b;
  hudi_mdt_record_init(&b);
  assert_int_equal(hudi_mdt_record_set_key(&b, r->key, r->key_len, r->type, &err), HUDI_OK);
  for (int i = 0; i < HUDI_MDT_META_FIELDS; i++) b.meta[i] = r->meta[i];
  b.value_key = r->value_key;
  if (r->has_rli) {
    /* Through the file id string, as the write path gets it. */
    hudi_buf id;
    hudi_buf_init(&id, 1 << 20);
    assert_int_equal(hudi_mdt_rli_file_id(&r->rli, &id, &err), HUDI_OK);
    assert_int_equal(hudi_buf_append_byte(&id, 0, &err), HUDI_OK);
    assert_int_equal(hudi_mdt_record_set_rli(&b, r->rli.partition, (const char *)id.data, r->rli.instant_ms, &err),
                     HUDI_OK);
    assert_int_equal(b.rli.encoding, r->rli.encoding);
    b.rli.has_position = r->rli.has_position;
    b.rli.position = r->rli.position;
    hudi_buf_free(&id);
    seen.rli_rebuilt++;
  }
  if (r->has_files) {
    b.has_files = true;
    for (size_t i = 0; i < r->n_files; i++)
      assert_int_equal(hudi_mdt_record_add_file(&b, r->files[i].name, r->files[i].name_len, r->files[i].size,
                                                r->files[i].is_deleted, &err),
                       HUDI_OK);
  }
  hudi_buf out;
  hudi_buf_init(&out, 1 << 30);
  if (hudi_mdt_record_encode(&b, schema, &out, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(out.len, len);
  assert_memory_equal(out.data, want, len);
  hudi_buf_free(&out);
  hudi_mdt_record_free(&b);
  seen.typed_rebuilt++;
}

static void check_fields(const hudi_mdt_record *r, const char *where) {
  assert_string_equal(r->value_key, ""); /* Hudi writes "" inside the value */
  switch (r->type) {
    case HUDI_MDT_TYPE_PARTITION_LIST:
      assert_string_equal(r->key, HUDI_MDT_ALL_PARTITIONS_KEY);
      assert_true(r->has_files);
      break;
    case HUDI_MDT_TYPE_FILE_LIST:
      assert_true(r->has_files);
      for (size_t i = 0; i < r->n_files; i++)
        if (!r->files[i].is_deleted && r->files[i].size <= 0) fail_msg("%s: %s: live file of size 0", where, r->key);
      break;
    case HUDI_MDT_TYPE_RECORD_INDEX:
      assert_true(r->has_rli);
      assert_true(r->rli.has_instant);
      assert_non_null(r->rli.partition);
      if (r->rli.encoding == 0) assert_string_equal(r->rli.file_id, "");
      break;
    case HUDI_MDT_TYPE_COLUMN_STATS:
    case HUDI_MDT_TYPE_PARTITION_STATS:
      assert_true(r->has_column_stats);
      assert_non_null(r->column_stats.column_name);
      assert_true(r->column_stats.has_value_count && r->column_stats.value_count >= 0);
      assert_true(r->column_stats.has_null_count && r->column_stats.null_count >= 0);
      break;
    default:
      break;
  }
}

static int on_kv(void *vctx, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len) {
  scan_ctx *c = vctx;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt_record r;
  if (hudi_mdt_record_decode(&r, c->schema, (const char *)key, key_len, value, value_len, c->where, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  check_fields(&r, c->where);
  int slot = r.type + 1;
  assert_true(slot >= 0 && slot < 10);
  seen.by_type[slot]++;
  seen.payloads++;
  if (!first_of_type[slot]) {
    first_of_type[slot] = malloc(value_len ? value_len : 1);
    memcpy(first_of_type[slot], value, value_len);
    first_len[slot] = value_len;
    first_schema[slot] = c->owner;
    c->kept = true;
  }
  /* Byte-exact re-encode. */
  hudi_buf out;
  hudi_buf_init(&out, 1 << 30);
  if (hudi_mdt_record_encode(&r, c->schema, &out, &err) != HUDI_OK) fail_msg("%s: %s", c->where, err.message);
  if (out.len != value_len || memcmp(out.data, value, value_len) != 0)
    fail_msg("%s: key %.*s (type %d) re-encodes to different bytes", c->where, (int)key_len, key, (int)r.type);
  hudi_buf_free(&out);
  if (r.type == HUDI_MDT_TYPE_PARTITION_LIST || r.type == HUDI_MDT_TYPE_FILE_LIST ||
      r.type == HUDI_MDT_TYPE_RECORD_INDEX)
    rebuild_typed(&r, c->schema, value, value_len);
  hudi_mdt_record_free(&r);
  return 0;
}

static void scan_hfile(const uint8_t *data, size_t len, const hudi_log_block *b, const char *where) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_hfile_reader *r;
  if (hudi_hfile_reader_open_buffer(&r, data, len, where, &err) != HUDI_OK) fail_msg("%s", err.message);
  const uint8_t *sv;
  size_t sl;
  const char *json;
  if (hudi_hfile_reader_file_info(r, "schema", &sv, &sl)) {
    json = (const char *)sv;
  } else {
    assert_non_null(b);
    json = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_SCHEMA, &sl);
    assert_non_null(json);
  }
  /* The embedded schema strings are the ones Hudi writes. */
  size_t l8, l9;
  const char *s8 = hudi_mdt_schema_json(8, &l8), *s9 = hudi_mdt_schema_json(9, &l9);
  bool is8 = sl == l8 && memcmp(json, s8, l8) == 0, is9 = sl == l9 && memcmp(json, s9, l9) == 0;
  if (!is8 && !is9) fail_msg("%s: a schema of %zu bytes that is neither embedded one", where, sl);
  if (strstr(where, "/v8_")) assert_true(is8);
  else assert_true(is9);
  scan_ctx c = {NULL, NULL, false, where};
  if (hudi_avro_schema_parse(&c.owner, json, sl, &err) != HUDI_OK) fail_msg("%s: %s", where, err.message);
  c.schema = c.owner->root;
  if (hudi_hfile_reader_scan(r, on_kv, &c, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (!c.kept) hudi_avro_schema_free(c.owner);
  hudi_hfile_reader_free(r);
}

static void scan_log(const char *path) {
  size_t len;
  unsigned char *data = mdt_read_file(path, &len);
  assert_non_null(data);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_log_reader *lr;
  if (hudi_log_reader_open_memory(&lr, data, len, path, &err) != HUDI_OK) fail_msg("%s", err.message);
  for (;;) {
    hudi_log_block b;
    bool has;
    if (hudi_log_reader_next(lr, &b, &has, &err) != HUDI_OK) fail_msg("%s", err.message);
    if (!has) break;
    if (b.type == HUDI_LOG_BLOCK_HFILE_DATA) {
      scan_hfile(b.content, (size_t)b.content_len, &b, path);
      seen.log_hfiles++;
    }
    hudi_log_block_free(&b);
  }
  hudi_log_reader_free(lr);
  free(data);
}

static void scan_dir(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    char path[8192];
    if ((size_t)snprintf(path, sizeof path, "%s/%.255s", dir, e->d_name) >= sizeof path) continue;
    size_t n = strlen(e->d_name);
    if (n > 6 && strcmp(e->d_name + n - 6, ".hfile") == 0) {
      size_t len;
      unsigned char *data = mdt_read_file(path, &len);
      assert_non_null(data);
      scan_hfile(data, len, NULL, path);
      free(data);
      seen.hfiles++;
    } else if (e->d_name[0] == '.' && strstr(e->d_name, ".log.")) {
      scan_log(path);
    }
  }
  closedir(d);
}

static void every_fixture_payload_reencodes(void **state) {
  (void)state;
  mdt_tables t;
  mdt_tables_find(&t);
  assert_true(t.n >= 18);
  for (int i = 0; i < t.n; i++) {
    char mdt[4096];
    snprintf(mdt, sizeof mdt, "%s/.hoodie/metadata", t.paths[i]);
    DIR *d = opendir(mdt);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char sub[8192];
      snprintf(sub, sizeof sub, "%s/%s", mdt, e->d_name);
      struct stat st;
      if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) scan_dir(sub);
    }
    closedir(d);
  }
  mdt_tables_free(&t);
  print_message("payloads %d (typed rebuilt %d, rli %d), base hfiles %d, log hfiles %d; by type: 1=%d 2=%d 3=%d 4=%d "
                "5=%d 6=%d 7=%d\n",
                seen.payloads, seen.typed_rebuilt, seen.rli_rebuilt, seen.hfiles, seen.log_hfiles, seen.by_type[2],
                seen.by_type[3], seen.by_type[4], seen.by_type[5], seen.by_type[6], seen.by_type[7], seen.by_type[8]);
  for (int type = 1; type <= 7; type++)
    if (type != 4) assert_true(seen.by_type[type + 1] > 0);
  assert_true(seen.hfiles > 0 && seen.log_hfiles > 0 && seen.rli_rebuilt > 0);
}

/* Every strict prefix of a real payload of each type fails cleanly; so do
 * one more byte and single-byte flips that the decoder must bound. */
static void truncated_and_mutated_payloads(void **state) {
  (void)state;
  int checked = 0;
  for (int slot = 0; slot < 10; slot++) {
    if (!first_of_type[slot]) continue;
    const hudi_avro_node *schema = first_schema[slot]->root;
    for (size_t n = 0; n < first_len[slot]; n++) {
      hudi_mdt_record r;
      hudi_error err = HUDI_ERROR_INIT;
      assert_int_not_equal(hudi_mdt_record_decode(&r, schema, "k", 1, first_of_type[slot], n, "prefix", &err), HUDI_OK);
      hudi_mdt_record_free(&r);
    }
    unsigned char *longer = malloc(first_len[slot] + 1);
    memcpy(longer, first_of_type[slot], first_len[slot]);
    longer[first_len[slot]] = 0;
    hudi_mdt_record r;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_mdt_record_decode(&r, schema, "k", 1, longer, first_len[slot] + 1, "longer", &err),
                     HUDI_ERR_CORRUPT);
    hudi_mdt_record_free(&r);
    for (size_t i = 0; i < first_len[slot]; i++) {
      memcpy(longer, first_of_type[slot], first_len[slot]);
      longer[i] ^= 0xff;
      hudi_status rc = hudi_mdt_record_decode(&r, schema, "k", 1, longer, first_len[slot], "flip", &err);
      (void)rc; /* either way: no crash, no leak */
      hudi_mdt_record_free(&r);
    }
    free(longer);
    free(first_of_type[slot]);
    first_of_type[slot] = NULL;
    checked++;
  }
  assert_true(checked >= 6);
  for (int slot = 0; slot < 10; slot++) {
    if (!first_schema[slot]) continue;
    for (int later = slot + 1; later < 10; later++)
      if (first_schema[later] == first_schema[slot]) first_schema[later] = NULL;
    hudi_avro_schema_free(first_schema[slot]);
    first_schema[slot] = NULL;
  }
}

/* ------------------------------------------------------------ spec and Java vectors */

/* The record-index schema of [F9]: the payload's own key schema from a
 * v9 fixture log block. */
static hudi_avro_schema *v9_schema(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/sample_table/mor/avro/v9_txns_simple_meta/v9_txns_simple_meta/.hoodie/metadata/files",
           MDT_FIXTURES);
  DIR *d = opendir(path);
  assert_non_null(d);
  struct dirent *e;
  hudi_avro_schema *s = NULL;
  while (!s && (e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 6, ".hfile") != 0) continue;
    char f[8192];
    snprintf(f, sizeof f, "%s/%s", path, e->d_name);
    size_t len;
    unsigned char *data = mdt_read_file(f, &len);
    hudi_error err = HUDI_ERROR_INIT;
    hudi_hfile_reader *r;
    assert_int_equal(hudi_hfile_reader_open_buffer(&r, data, len, f, &err), HUDI_OK);
    const uint8_t *sv;
    size_t sl;
    assert_true(hudi_hfile_reader_file_info(r, "schema", &sv, &sl));
    assert_int_equal(hudi_avro_schema_parse(&s, (const char *)sv, sl, &err), HUDI_OK);
    hudi_hfile_reader_free(r);
    free(data);
  }
  closedir(d);
  assert_non_null(s);
  return s;
}

/* Spec §2 "Example: an RLI value" (key TXN-009 of [F9]) and the two files
 * examples, built from typed fields. */
static void spec_examples(void **state) {
  (void)state;
  hudi_avro_schema *s = v9_schema();
  hudi_error err = HUDI_ERROR_INIT;
  static const uint8_t rli[] = {0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0x02, 0x02, 0x12, 'r', 'e', 'g', 'i', 'o', 'n', '=',
                                'e', 'u', 0x02, 0xc8, 0x84, 0x92, 0xa8, 0xef, 0xcc, 0xb8, 0xa2, 0xbf, 0x01, 0x02, 0xa1,
                                0x9c, 0x80, 0xe7, 0xe7, 0xda, 0xba, 0x94, 0xcb, 0x01, 0x02, 0x00, 0x02, 0x00, 0x02,
                                0xfc, 0x86, 0xc4, 0xa6, 0x99, 0x67, 0x00, 0x00, 0x00};
  assert_int_equal(sizeof rli, 58);
  hudi_mdt_record r;
  hudi_mdt_record_init(&r);
  assert_int_equal(hudi_mdt_record_set_key(&r, "TXN-009", 7, HUDI_MDT_TYPE_RECORD_INDEX, &err), HUDI_OK);
  assert_int_equal(
      hudi_mdt_record_set_rli(&r, "region=eu", "5fa27133-7a82-4124-9a6b-8a94c18ff8ef-0", 1772922372542LL, &err),
      HUDI_OK);
  assert_int_equal(r.rli.high_bits, 6891194845742907684LL);
  assert_int_equal(r.rli.low_bits, -7319604397853378321LL);
  assert_int_equal(r.rli.file_index, 0);
  hudi_buf out;
  hudi_buf_init(&out, 1 << 20);
  assert_int_equal(hudi_mdt_record_encode(&r, s->root, &out, &err), HUDI_OK);
  assert_int_equal(out.len, sizeof rli);
  assert_memory_equal(out.data, rli, sizeof rli);
  hudi_mdt_record_free(&r);

  /* __all_partitions__ at initialisation, then with one partition. */
  static const uint8_t empty[] = {0, 0, 0, 0, 0, 0, 0x02, 0x02, 0x00, 0, 0, 0, 0};
  static const uint8_t one[] = {0, 0, 0, 0, 0, 0, 0x02, 0x02, 0x02, 0x12, 'r', 'e', 'g', 'i', 'o', 'n',
                                '=', 'u', 's', 0, 0, 0, 0, 0, 0, 0};
  hudi_mdt_record_init(&r);
  assert_int_equal(hudi_mdt_record_set_key(&r, "__all_partitions__", 18, HUDI_MDT_TYPE_PARTITION_LIST, &err), HUDI_OK);
  r.has_files = true;
  hudi_buf_reset(&out);
  assert_int_equal(hudi_mdt_record_encode(&r, s->root, &out, &err), HUDI_OK);
  assert_int_equal(out.len, sizeof empty);
  assert_memory_equal(out.data, empty, sizeof empty);
  assert_int_equal(hudi_mdt_record_add_file(&r, "region=us", 9, 0, false, &err), HUDI_OK);
  hudi_buf_reset(&out);
  assert_int_equal(hudi_mdt_record_encode(&r, s->root, &out, &err), HUDI_OK);
  assert_int_equal(out.len, sizeof one);
  assert_memory_equal(out.data, one, sizeof one);
  hudi_mdt_record_free(&r);
  hudi_buf_free(&out);
  hudi_avro_schema_free(s);
}

/* java.util.UUID(hi, lo).toString(), from Python's uuid module (the same
 * big-endian layout): uuid.UUID(bytes=struct.pack(">qq", hi, lo)). */
static void uuid_vectors(void **state) {
  (void)state;
  static const struct {
    int64_t hi, lo;
    const char *s;
  } v[] = {{6891194845742907684LL, -7319604397853378321LL, "5fa27133-7a82-4124-9a6b-8a94c18ff8ef"},
           {-1, -1, "ffffffff-ffff-ffff-ffff-ffffffffffff"},
           {0, 0, "00000000-0000-0000-0000-000000000000"},
           {INT64_MIN, INT64_MAX, "80000000-0000-0000-7fff-ffffffffffff"},
           {1, -2, "00000000-0000-0001-ffff-fffffffffffe"},
           {81985529216486895LL, -81985529216486895LL, "01234567-89ab-cdef-fedc-ba9876543211"}};
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    hudi_mdt_rli rli = {0};
    rli.has_high = rli.has_low = rli.has_file_index = true;
    rli.high_bits = v[i].hi;
    rli.low_bits = v[i].lo;
    rli.file_index = -1;
    hudi_buf b;
    hudi_buf_init(&b, 1024);
    assert_int_equal(hudi_mdt_rli_file_id(&rli, &b, &err), HUDI_OK);
    assert_int_equal(b.len, 36);
    assert_memory_equal(b.data, v[i].s, 36);
    rli.file_index = 17;
    hudi_buf_reset(&b);
    assert_int_equal(hudi_mdt_rli_file_id(&rli, &b, &err), HUDI_OK);
    assert_int_equal(b.len, 39);
    assert_memory_equal(b.data + 36, "-17", 3);
    hudi_buf_free(&b);
    int64_t hi, lo;
    assert_true(hudi_mdt_parse_uuid(v[i].s, 36, &hi, &lo));
    assert_int_equal(hi, v[i].hi);
    assert_int_equal(lo, v[i].lo);
  }
  /* Encoding choice: UUID ids -> 0, anything else -> 1 with the raw id. */
  static const struct {
    const char *id;
    int enc;
    int32_t index;
  } ids[] = {{"5fa27133-7a82-4124-9a6b-8a94c18ff8ef-0", 0, 0},
             {"5fa27133-7a82-4124-9a6b-8a94c18ff8ef", 0, -1},
             {"5fa27133-7a82-4124-9a6b-8a94c18ff8ef-12", 0, 12},
             {"5FA27133-7A82-4124-9A6B-8A94C18FF8EF-0", 1, -1}, /* would not round-trip in lower case */
             {"5fa27133-7a82-4124-9a6b-8a94c18ff8ef-007", 1, -1},
             {"5fa27133-7a82-4124-9a6b-8a94c18ff8ef-x", 1, -1},
             {"files-0000-0", 1, -1},
             {"my-file-group", 1, -1}};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    hudi_mdt_record r;
    hudi_mdt_record_init(&r);
    assert_int_equal(hudi_mdt_record_set_rli(&r, "p", ids[i].id, 0, &err), HUDI_OK);
    assert_int_equal(r.rli.encoding, ids[i].enc);
    assert_int_equal(r.rli.file_index, ids[i].index);
    if (ids[i].enc == 1) {
      assert_string_equal(r.rli.file_id, ids[i].id);
      assert_int_equal(r.rli.high_bits, -1);
      assert_int_equal(r.rli.low_bits, -1);
    }
    hudi_buf b;
    hudi_buf_init(&b, 1024);
    assert_int_equal(hudi_mdt_rli_file_id(&r.rli, &b, &err), HUDI_OK);
    assert_int_equal(b.len, strlen(ids[i].id));
    assert_memory_equal(b.data, ids[i].id, b.len);
    hudi_buf_free(&b);
    hudi_mdt_record_free(&r);
  }
  hudi_mdt_rli bad = {0};
  hudi_buf b;
  hudi_buf_init(&b, 64);
  assert_int_equal(hudi_mdt_rli_file_id(&bad, &b, &err), HUDI_ERR_CORRUPT); /* encoding 0, null bits */
  bad.encoding = 1;
  assert_int_equal(hudi_mdt_rli_file_id(&bad, &b, &err), HUDI_ERR_CORRUPT); /* encoding 1, null fileId */
  hudi_buf_free(&b);
}

/* ------------------------------------------------------------ merging */

static void files_record(hudi_mdt_record *r, int type, const char *spec) {
  /* spec: "name:size[:d] ..." */
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt_record_init(r);
  assert_int_equal(hudi_mdt_record_set_key(r, "p", 1, type, &err), HUDI_OK);
  r->has_files = true;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
    char *c1 = strchr(tok, ':');
    *c1 = 0;
    long long size = atoll(c1 + 1);
    bool del = strstr(c1 + 1, ":d") != NULL;
    assert_int_equal(hudi_mdt_record_add_file(r, tok, strlen(tok), size, del, &err), HUDI_OK);
  }
}

static void render(const hudi_mdt_record *r, char *out, size_t cap) {
  out[0] = 0;
  for (size_t i = 0; i < r->n_files; i++) {
    char one[64];
    snprintf(one, sizeof one, "%s%.*s:%lld%s", i ? " " : "", (int)r->files[i].name_len, r->files[i].name,
             (long long)r->files[i].size, r->files[i].is_deleted ? ":d" : "");
    strncat(out, one, cap - strlen(out) - 1);
  }
}

/* HoodieMetadataPayload.combineFileSystemMetadata: Map.merge semantics. */
static void combine_rules(void **state) {
  (void)state;
  static const struct {
    const char *older, *newer, *want;
  } cases[] = {
      {"a:10 b:20", "b:25 c:5", "a:10 b:25 c:5"},   /* union, max size */
      {"a:10 b:20", "b:15", "a:10 b:20"},           /* sizes only grow */
      {"a:10 b:20", "a:0:d", "b:20"},               /* delete removes a live entry */
      {"a:10", "x:0:d", "a:10 x:0:d"},              /* tombstone kept when nothing to delete */
      {"a:0:d", "a:0:d", ""},                       /* a tombstone over a tombstone drops both */
      {"a:0:d", "a:7", "a:7"},                      /* a live file over a tombstone */
      {"", "a:1", "a:1"},
  };
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hudi_mdt_record o, n, out;
    files_record(&o, HUDI_MDT_TYPE_FILE_LIST, cases[i].older);
    files_record(&n, HUDI_MDT_TYPE_FILE_LIST, cases[i].newer);
    assert_int_equal(hudi_mdt_record_combine(&out, &o, &n, &err), HUDI_OK);
    char got[256];
    render(&out, got, sizeof got);
    assert_string_equal(got, cases[i].want);
    hudi_mdt_record_free(&out);
  }
  /* Other types: the newer record wins whole. */
  hudi_mdt_record a, b, out;
  hudi_mdt_record_init(&a);
  hudi_mdt_record_init(&b);
  assert_int_equal(hudi_mdt_record_set_rli(&a, "p", "5fa27133-7a82-4124-9a6b-8a94c18ff8ef-0", 1, &err), HUDI_OK);
  assert_int_equal(hudi_mdt_record_set_rli(&b, "q", "other", 2, &err), HUDI_OK);
  assert_int_equal(hudi_mdt_record_combine(&out, &a, &b, &err), HUDI_OK);
  assert_string_equal(out.rli.partition, "q");
  assert_string_equal(out.rli.file_id, "other");
  hudi_mdt_record_free(&out);
  /* NULL older, and out aliasing an input. */
  files_record(&a, HUDI_MDT_TYPE_FILE_LIST, "a:1");
  files_record(&b, HUDI_MDT_TYPE_FILE_LIST, "a:2 b:3");
  assert_int_equal(hudi_mdt_record_combine(&b, &a, &b, &err), HUDI_OK);
  char got[256];
  render(&b, got, sizeof got);
  assert_string_equal(got, "a:2 b:3");
  hudi_mdt_record_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_fixture_payload_reencodes),
      cmocka_unit_test(truncated_and_mutated_payloads),
      cmocka_unit_test(spec_examples),
      cmocka_unit_test(uuid_vectors),
      cmocka_unit_test(combine_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

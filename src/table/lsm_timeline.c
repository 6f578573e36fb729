/* The LSM history of layout-2 timelines (see lsm_timeline.h). */
#include "table/lsm_timeline.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/view.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "parquet/reader.h"
#include "table/hadoop_crc.h"

#define VERSION_FILE "_version_"
#define MAX_VERSION_FILE 64
#define MAX_ROW_BYTES ((size_t)256 << 20)

void hudi_lsm_manifest_free(hudi_lsm_manifest *m) {
  hudi_free(m->files);
  memset(m, 0, sizeof *m);
}

void hudi_lsm_rows_free(hudi_lsm_rows *r) {
  for (size_t i = 0; i < r->count; i++) {
    hudi_free(r->items[i].metadata);
    hudi_free(r->items[i].plan);
  }
  hudi_free(r->items);
  memset(r, 0, sizeof *r);
}

static hudi_status manifest_add(hudi_lsm_manifest *m, const char *name, size_t name_len, int64_t len,
                                hudi_error *err) {
  if (name_len >= HUDI_LSM_NAME_MAX) return hudi_err_set(err, HUDI_ERR_CORRUPT, "archive file name too long");
  if (m->count >= HUDI_LSM_MAX_FILES) return hudi_err_set(err, HUDI_ERR_LIMIT, "archive manifest lists too many files");
  if (m->count == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    hudi_lsm_file *f = hudi_realloc(m->files, cap * sizeof *f);
    if (!f) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    m->files = f;
    m->cap = cap;
  }
  memcpy(m->files[m->count].name, name, name_len);
  m->files[m->count].name[name_len] = 0;
  m->files[m->count].len = len;
  m->count++;
  return HUDI_OK;
}

static bool all_digits(const char *s, size_t n) {
  if (!n) return false;
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)s[i])) return false;
  return true;
}

int hudi_lsm_parse_file_name(const char *name, char *min, char *max, int *level) {
  const char *u1 = strchr(name, '_');
  if (!u1) return 0;
  const char *u2 = strchr(u1 + 1, '_');
  if (!u2) return 0;
  size_t n1 = (size_t)(u1 - name), n2 = (size_t)(u2 - u1 - 1);
  if (!all_digits(name, n1) || !all_digits(u1 + 1, n2) || n1 >= HUDI_INSTANT_TIME_MAX || n2 >= HUDI_INSTANT_TIME_MAX)
    return 0;
  if (!isdigit((unsigned char)u2[1]) || strncmp(u2 + 2, ".parquet", 8) != 0) return 0;
  if (min) memcpy(min, name, n1), min[n1] = 0;
  if (max) memcpy(max, u1 + 1, n2), max[n2] = 0;
  if (level) *level = u2[1] - '0';
  return 1;
}

/* ---- version and manifests ------------------------------------------------ */

static int parse_version(const char *s, size_t n) {
  if (!all_digits(s, n) || n > 9) return -1;
  int v = 0;
  for (size_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
  return v;
}

static void path_in(char *out, size_t cap, const char *hist, const char *name) {
  snprintf(out, cap, "%s/%s", hist, name);
}

hudi_status hudi_lsm_latest_version(int *out, hudi_storage *s, const char *hist, hudi_error *err) {
  *out = -1;
  char p[600];
  path_in(p, sizeof p, hist, VERSION_FILE);
  hudi_buf b;
  hudi_buf_init(&b, MAX_VERSION_FILE);
  hudi_error tmp = HUDI_ERROR_INIT;
  hudi_status st = hudi_storage_read_all(s, p, MAX_VERSION_FILE, &b, &tmp);
  if (st == HUDI_OK) {
    size_t n = b.len;
    while (n && isspace(b.data[n - 1])) n--;
    *out = parse_version((const char *)b.data, n);
  }
  hudi_buf_free(&b);
  if (st != HUDI_OK && st != HUDI_ERR_NOT_FOUND && st != HUDI_ERR_LIMIT) {
    if (err) *err = tmp;
    return st;
  }
  if (*out >= 0) return HUDI_OK;
  /* No usable _version_: the largest manifest_N (Hudi's fallback). */
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, hist, 0, &l, err));
  for (size_t i = 0; i < l.count; i++) {
    const char *slash = strrchr(l.items[i].path, '/');
    const char *name = slash ? slash + 1 : l.items[i].path;
    if (l.items[i].is_dir || strncmp(name, "manifest_", 9) != 0) continue;
    int v = parse_version(name + 9, strlen(name + 9));
    if (v > *out) *out = v;
  }
  hudi_file_list_free(&l);
  return HUDI_OK;
}

/* A small JSON scanner: enough to walk the manifest's objects and arrays
 * and pick out "fileName" / "fileLen" from each object of "files". */
typedef struct jscan {
  const char *p, *end, *name;
} jscan;

static void jws(jscan *j) {
  while (j->p < j->end && isspace((unsigned char)*j->p)) j->p++;
}

static hudi_status jerr(const jscan *j, const char *what, const char *base, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: %s at byte %zu", j->name, what, (size_t)(j->p - base));
}

/* A string without escapes beyond \" \\ \/ (file names have none). */
static int jstring(jscan *j, const char **s, size_t *n) {
  if (j->p >= j->end || *j->p != '"') return 0;
  const char *start = ++j->p;
  while (j->p < j->end && *j->p != '"') {
    if (*j->p == '\\') return 0;
    j->p++;
  }
  if (j->p >= j->end) return 0;
  *s = start;
  *n = (size_t)(j->p - start);
  j->p++;
  return 1;
}

/* Skips any JSON value (depth-capped). */
static int jskip(jscan *j, int depth) {
  jws(j);
  if (j->p >= j->end || depth > 64) return 0;
  char c = *j->p;
  if (c == '"') {
    const char *s;
    size_t n;
    return jstring(j, &s, &n);
  }
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    j->p++;
    jws(j);
    if (j->p < j->end && *j->p == close) return j->p++, 1;
    for (;;) {
      if (c == '{') {
        const char *s;
        size_t n;
        jws(j);
        if (!jstring(j, &s, &n)) return 0;
        jws(j);
        if (j->p >= j->end || *j->p++ != ':') return 0;
      }
      if (!jskip(j, depth + 1)) return 0;
      jws(j);
      if (j->p >= j->end) return 0;
      if (*j->p == ',') {
        j->p++;
        continue;
      }
      if (*j->p == close) return j->p++, 1;
      return 0;
    }
  }
  while (j->p < j->end && (isalnum((unsigned char)*j->p) || *j->p == '-' || *j->p == '+' || *j->p == '.')) j->p++;
  return 1;
}

static hudi_status parse_entry(hudi_lsm_manifest *m, jscan *j, const char *base, hudi_error *err) {
  const char *fname = NULL;
  size_t fname_len = 0;
  int64_t flen = -1;
  j->p++; /* '{' */
  jws(j);
  if (j->p < j->end && *j->p == '}') return j->p++, jerr(j, "a file entry without fileName", base, err);
  for (;;) {
    const char *k;
    size_t kn;
    jws(j);
    if (!jstring(j, &k, &kn)) return jerr(j, "expected a key", base, err);
    jws(j);
    if (j->p >= j->end || *j->p++ != ':') return jerr(j, "expected ':'", base, err);
    jws(j);
    if (kn == 8 && memcmp(k, "fileName", 8) == 0) {
      if (!jstring(j, &fname, &fname_len)) return jerr(j, "fileName is not a string", base, err);
    } else if (kn == 7 && memcmp(k, "fileLen", 7) == 0) {
      char *endp;
      errno = 0;
      long long v = strtoll(j->p, &endp, 10);
      if (endp == j->p || endp > j->end || errno || v < 0) return jerr(j, "fileLen is not a length", base, err);
      flen = v;
      j->p = endp;
    } else if (!jskip(j, 1)) {
      return jerr(j, "malformed value", base, err);
    }
    jws(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    if (j->p < j->end && *j->p == '}') {
      j->p++;
      break;
    }
    return jerr(j, "expected ',' or '}'", base, err);
  }
  if (!fname) return jerr(j, "a file entry without fileName", base, err);
  return manifest_add(m, fname, fname_len, flen < 0 ? 0 : flen, err);
}

hudi_status hudi_lsm_manifest_parse(hudi_lsm_manifest *out, const char *json, size_t len, const char *name,
                                    hudi_error *err) {
  memset(out, 0, sizeof *out);
  jscan j = {json, json + len, name};
  jws(&j);
  if (j.p >= j.end || *j.p != '{') return jerr(&j, "expected '{'", json, err);
  j.p++;
  hudi_status st = HUDI_OK;
  jws(&j);
  if (j.p < j.end && *j.p == '}') return HUDI_OK;
  while (st == HUDI_OK) {
    const char *k;
    size_t kn;
    jws(&j);
    if (!jstring(&j, &k, &kn)) {
      st = jerr(&j, "expected a key", json, err);
      break;
    }
    jws(&j);
    if (j.p >= j.end || *j.p++ != ':') {
      st = jerr(&j, "expected ':'", json, err);
      break;
    }
    jws(&j);
    if (kn == 5 && memcmp(k, "files", 5) == 0 && j.p < j.end && *j.p == '[') {
      j.p++;
      jws(&j);
      if (j.p < j.end && *j.p == ']') j.p++;
      else
        for (;;) {
          jws(&j);
          if (j.p >= j.end || *j.p != '{') {
            st = jerr(&j, "expected a file entry", json, err);
            break;
          }
          st = parse_entry(out, &j, json, err);
          if (st != HUDI_OK) break;
          jws(&j);
          if (j.p < j.end && *j.p == ',') {
            j.p++;
            continue;
          }
          if (j.p < j.end && *j.p == ']') {
            j.p++;
            break;
          }
          st = jerr(&j, "expected ',' or ']'", json, err);
          break;
        }
    } else if (!jskip(&j, 1)) {
      st = jerr(&j, "malformed value", json, err);
    }
    if (st != HUDI_OK) break;
    jws(&j);
    if (j.p < j.end && *j.p == ',') {
      j.p++;
      continue;
    }
    if (j.p < j.end && *j.p == '}') break;
    st = jerr(&j, "expected ',' or '}'", json, err);
  }
  if (st != HUDI_OK) hudi_lsm_manifest_free(out);
  return st;
}

hudi_status hudi_lsm_manifest_read(hudi_lsm_manifest *out, hudi_storage *s, const char *hist, int version,
                                   hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (version < 0) return HUDI_OK;
  char name[32], p[600];
  snprintf(name, sizeof name, "manifest_%d", version);
  path_in(p, sizeof p, hist, name);
  hudi_buf b;
  hudi_buf_init(&b, HUDI_LSM_MAX_MANIFEST);
  hudi_status st = hudi_storage_read_all(s, p, HUDI_LSM_MAX_MANIFEST, &b, err);
  if (st == HUDI_OK) st = hudi_lsm_manifest_parse(out, (const char *)b.data, b.len, p, err);
  hudi_buf_free(&b);
  return st;
}

hudi_status hudi_lsm_manifest_json(hudi_buf *out, const hudi_lsm_manifest *m, hudi_error *err) {
  /* Jackson's default pretty printer: "key" : value, two-space indent,
   * array items on the bracket's line. */
  if (!m->count) return hudi_buf_append_str(out, "{\n  \"files\" : [ ]\n}", err);
  HUDI_TRY(hudi_buf_append_str(out, "{\n  \"files\" : [ ", err));
  for (size_t i = 0; i < m->count; i++)
    HUDI_TRY(hudi_buf_printf(out, err, "%s{\n    \"fileName\" : \"%s\",\n    \"fileLen\" : %lld\n  }",
                             i ? ", " : "", m->files[i].name, (long long)m->files[i].len));
  return hudi_buf_append_str(out, " ]\n}", err);
}

hudi_status hudi_lsm_publish(hudi_storage *s, const char *hist, int cur, const hudi_lsm_manifest *m,
                             hudi_error *err) {
  int v = cur < 0 ? 1 : cur + 1;
  char name[32], p[600];
  snprintf(name, sizeof name, "manifest_%d", v);
  path_in(p, sizeof p, hist, name);
  hudi_buf b;
  hudi_buf_init(&b, HUDI_LSM_MAX_MANIFEST);
  hudi_status st = hudi_lsm_manifest_json(&b, m, err);
  /* A leftover of a failed publish is replaced (write replaces). */
  if (st == HUDI_OK) st = hudi_storage_write(s, p, b.data, b.len, 0, err);
  hudi_buf_free(&b);
  HUDI_TRY(st);
  char vs[16];
  int n = snprintf(vs, sizeof vs, "%d", v);
  path_in(p, sizeof p, hist, VERSION_FILE);
  /* Spark's checksum of the _version_ it wrote would no longer match
   * (hadoop_crc.h; Hudi's reader then falls back to listing, with a
   * warning). */
  HUDI_TRY(hudi_hadoop_crc_delete(s, p, err));
  return hudi_storage_write(s, p, vs, (size_t)n, 0, err);
}

/* ---- data files ----------------------------------------------------------- */

static hudi_status copy_str(char *dst, size_t cap, const hudi_arrow_view *v, int64_t i, const char *col,
                            const char *path, hudi_error *err) {
  dst[0] = 0;
  if (!v || hudi_arrow_view_is_null(v, i)) return HUDI_OK;
  int64_t n;
  const uint8_t *p = hudi_arrow_view_bytes(v, i, &n);
  if (n < 0 || (size_t)n >= cap)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: row %lld: %s is %lld bytes long", path, (long long)i, col,
                        (long long)n);
  if (n) memcpy(dst, p, (size_t)n);
  dst[n] = 0;
  return HUDI_OK;
}

static hudi_status copy_bytes(uint8_t **dst, size_t *len, const hudi_arrow_view *v, int64_t i, hudi_error *err) {
  *dst = NULL;
  *len = 0;
  if (!v || hudi_arrow_view_is_null(v, i)) return HUDI_OK;
  int64_t n;
  const uint8_t *p = hudi_arrow_view_bytes(v, i, &n);
  if (n < 0 || (size_t)n > MAX_ROW_BYTES) return hudi_err_set(err, HUDI_ERR_LIMIT, "archived value of %lld bytes", (long long)n);
  *dst = hudi_malloc(n ? (size_t)n : 1);
  if (!*dst) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (n) memcpy(*dst, p, (size_t)n);
  *len = (size_t)n;
  return HUDI_OK;
}

static const hudi_arrow_view *child(const hudi_arrow_view *v, const char *name) {
  for (int64_t i = 0; i < v->n_children; i++)
    if (v->children[i].name && strcmp(v->children[i].name, name) == 0) return &v->children[i];
  return NULL;
}

static hudi_status rows_reserve(hudi_lsm_rows *out, size_t extra, hudi_error *err) {
  if (out->count + extra <= out->cap) return HUDI_OK;
  size_t cap = out->cap ? out->cap : 64;
  while (cap < out->count + extra) cap *= 2;
  hudi_lsm_row *r = hudi_realloc(out->items, cap * sizeof *r);
  if (!r) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  out->items = r;
  out->cap = cap;
  return HUDI_OK;
}

static hudi_status add_rows(hudi_lsm_rows *out, const hudi_arrow_view *v, const char *path, hudi_error *err) {
  const hudi_arrow_view *it = child(v, "instantTime"), *ct = child(v, "completionTime"), *ac = child(v, "action");
  const hudi_arrow_view *md = child(v, "metadata"), *pl = child(v, "plan"), *ve = child(v, "version");
  if (!it || !ct || !ac) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: not an archived timeline file", path);
  HUDI_TRY(rows_reserve(out, (size_t)v->length, err));
  for (int64_t i = 0; i < v->length; i++) {
    hudi_lsm_row *r = &out->items[out->count];
    memset(r, 0, sizeof *r);
    hudi_status st = copy_str(r->instant_time, sizeof r->instant_time, it, i, "instantTime", path, err);
    if (st == HUDI_OK) st = copy_str(r->completion_time, sizeof r->completion_time, ct, i, "completionTime", path, err);
    if (st == HUDI_OK) st = copy_str(r->action, sizeof r->action, ac, i, "action", path, err);
    if (st == HUDI_OK) st = copy_bytes(&r->metadata, &r->metadata_len, md, i, err);
    if (st == HUDI_OK) st = copy_bytes(&r->plan, &r->plan_len, pl, i, err);
    r->version = ve && !hudi_arrow_view_is_null(ve, i) ? (int32_t)hudi_arrow_view_int(ve, i) : 1;
    if (st == HUDI_OK && !r->instant_time[0])
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: row %lld has no instantTime", path, (long long)i);
    out->count++; /* owned now, freed with the rows on error too */
    HUDI_TRY(st);
  }
  return HUDI_OK;
}

hudi_status hudi_lsm_read_file(hudi_lsm_rows *out, hudi_storage *s, const char *path, unsigned flags,
                               hudi_error *err) {
  const char *cols[6];
  size_t nc = 0;
  cols[nc++] = "instantTime";
  cols[nc++] = "completionTime";
  cols[nc++] = "action";
  if (flags & HUDI_LSM_READ_METADATA) cols[nc++] = "metadata";
  if (flags & HUDI_LSM_READ_PLAN) cols[nc++] = "plan";
  cols[nc++] = "version";
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.columns = cols;
  o.n_columns = nc;
  hudi_pq_reader *r = NULL;
  HUDI_TRY(hudi_pq_reader_open(&r, s, path, &o, err));
  struct ArrowSchema schema = {0};
  hudi_status st = hudi_arrow_field_export(&schema, hudi_pq_reader_schema(r), err);
  while (st == HUDI_OK) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_pq_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    hudi_arrow_view v;
    st = hudi_arrow_view_init(&v, &schema, &a, err);
    if (st == HUDI_OK) st = add_rows(out, &v, path, err);
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  if (schema.release) schema.release(&schema);
  hudi_pq_reader_free(r);
  return st;
}

/* ---- snapshots ------------------------------------------------------------ */

typedef struct ordered_file {
  const char *name;
  int level;
} ordered_file;

static int cmp_file_newest_level_first(const void *a, const void *b) {
  const ordered_file *x = a, *y = b;
  if (x->level != y->level) return y->level - x->level;
  return strcmp(x->name, y->name);
}

static int cmp_row(const void *a, const void *b) {
  const hudi_lsm_row *x = a, *y = b;
  int c = strcmp(x->instant_time, y->instant_time);
  return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Keeps the first row (in reading order) per instant time. */
static void dedupe(hudi_lsm_rows *r) {
  size_t n = r->count, k = 0;
  for (size_t i = 0; i < n; i++) r->items[i].seq = i;
  qsort(r->items, n, sizeof *r->items, cmp_row);
  for (size_t i = 0; i < n; i++) {
    if (k && strcmp(r->items[k - 1].instant_time, r->items[i].instant_time) == 0) {
      hudi_free(r->items[i].metadata);
      hudi_free(r->items[i].plan);
      continue;
    }
    r->items[k++] = r->items[i];
  }
  r->count = k;
}

hudi_status hudi_lsm_load(hudi_lsm_rows *out, hudi_storage *s, const char *hist, unsigned flags,
                          hudi_error *err) {
  memset(out, 0, sizeof *out);
  int v;
  HUDI_TRY(hudi_lsm_latest_version(&v, s, hist, err));
  if (v < 0) return HUDI_OK;
  hudi_lsm_manifest m;
  HUDI_TRY(hudi_lsm_manifest_read(&m, s, hist, v, err));
  ordered_file *of = hudi_calloc(m.count ? m.count : 1, sizeof *of);
  if (!of) {
    hudi_lsm_manifest_free(&m);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < m.count; i++) {
    int level;
    if (!hudi_lsm_parse_file_name(m.files[i].name, NULL, NULL, &level)) continue;
    of[n].name = m.files[i].name;
    of[n++].level = level;
  }
  qsort(of, n, sizeof *of, cmp_file_newest_level_first);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < n && st == HUDI_OK; i++) {
    char p[600];
    path_in(p, sizeof p, hist, of[i].name);
    st = hudi_lsm_read_file(out, s, p, flags, err);
  }
  hudi_free(of);
  hudi_lsm_manifest_free(&m);
  if (st != HUDI_OK) {
    hudi_lsm_rows_free(out);
    return st;
  }
  /* Overlapping files hold the same action twice only after an
   * interrupted compaction; rows of one time are identical then. */
  dedupe(out);
  return HUDI_OK;
}

static bool manifest_has(const hudi_lsm_manifest *m, const char *name) {
  for (size_t i = 0; i < m->count; i++)
    if (strcmp(m->files[i].name, name) == 0) return true;
  return false;
}

static hudi_status file_len(int64_t *out, hudi_storage *s, const char *path, hudi_error *err) {
  hudi_file_stat st;
  HUDI_TRY(hudi_storage_stat(s, path, &st, err));
  *out = (int64_t)st.size;
  return HUDI_OK;
}

hudi_status hudi_lsm_append(hudi_storage *s, const char *hist, const hudi_lsm_row *rows, size_t n, hudi_error *err) {
  if (!n) return HUDI_OK;
  char name[HUDI_LSM_NAME_MAX], p[600];
  snprintf(name, sizeof name, "%s_%s_0.parquet", rows[0].instant_time, rows[n - 1].instant_time);
  path_in(p, sizeof p, hist, name);
  int v;
  HUDI_TRY(hudi_lsm_latest_version(&v, s, hist, err));
  hudi_lsm_manifest m;
  HUDI_TRY(hudi_lsm_manifest_read(&m, s, hist, v, err));
  /* Already committed by an earlier attempt that failed later on. */
  if (manifest_has(&m, name)) {
    hudi_lsm_manifest_free(&m);
    return HUDI_OK;
  }
  int64_t len = 0;
  hudi_status st = hudi_lsm_write_file(s, p, rows, n, err);
  if (st == HUDI_OK) st = file_len(&len, s, p, err);
  if (st == HUDI_OK) st = manifest_add(&m, name, strlen(name), len, err);
  if (st == HUDI_OK) st = hudi_lsm_publish(s, hist, v, &m, err);
  hudi_lsm_manifest_free(&m);
  return st;
}

/* ---- compaction and cleaning ------------------------------------------------ */

static int cmp_lsm_file(const void *a, const void *b) {
  return strcmp(((const hudi_lsm_file *)a)->name, ((const hudi_lsm_file *)b)->name);
}

/* Merges the oldest files of one level if there are enough; *merged is the
 * number of inputs (0: nothing done). */
static hudi_status compact_level(size_t *merged, hudi_storage *s, const char *hist, int level, int batch,
                                 int64_t max_bytes, hudi_error *err) {
  *merged = 0;
  int v;
  HUDI_TRY(hudi_lsm_latest_version(&v, s, hist, err));
  hudi_lsm_manifest m;
  HUDI_TRY(hudi_lsm_manifest_read(&m, s, hist, v, err));
  hudi_lsm_file *files = hudi_calloc(m.count ? m.count : 1, sizeof *files);
  if (!files) {
    hudi_lsm_manifest_free(&m);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < m.count; i++) {
    int l;
    if (hudi_lsm_parse_file_name(m.files[i].name, NULL, NULL, &l) && l == level) files[n++] = m.files[i];
  }
  hudi_status st = HUDI_OK;
  size_t k = 0;
  if (n >= (size_t)batch) {
    qsort(files, n, sizeof *files, cmp_lsm_file);
    /* LSMTimelineWriter.getCandidateFiles: consecutive, at most batch,
     * under max_bytes, at least 2. */
    int64_t total = 0;
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
      total += files[i].len;
      k = i + 1 - start;
      if (k >= (size_t)batch) break;
      if (total > max_bytes) {
        if (k < 2) {
          total = 0;
          start = i + 1;
          k = 0;
        } else {
          break;
        }
      }
    }
    if (k >= 2) {
      char lo[HUDI_INSTANT_TIME_MAX], hi[HUDI_INSTANT_TIME_MAX], mn[HUDI_INSTANT_TIME_MAX], mx[HUDI_INSTANT_TIME_MAX];
      lo[0] = hi[0] = 0;
      hudi_lsm_rows rows = {0};
      for (size_t i = start; i < start + k && st == HUDI_OK; i++) {
        (void)hudi_lsm_parse_file_name(files[i].name, mn, mx, NULL);
        if (!lo[0] || strcmp(mn, lo) < 0) strcpy(lo, mn);
        if (!hi[0] || strcmp(mx, hi) > 0) strcpy(hi, mx);
        char p[600];
        path_in(p, sizeof p, hist, files[i].name);
        st = hudi_lsm_read_file(&rows, s, p, HUDI_LSM_READ_METADATA | HUDI_LSM_READ_PLAN, err);
      }
      char name[HUDI_LSM_NAME_MAX], p[600];
      snprintf(name, sizeof name, "%s_%s_%d.parquet", lo, hi, level + 1);
      path_in(p, sizeof p, hist, name);
      int64_t len = 0;
      if (st == HUDI_OK) st = hudi_lsm_write_file(s, p, rows.items, rows.count, err);
      if (st == HUDI_OK) st = file_len(&len, s, p, err);
      hudi_lsm_rows_free(&rows);
      if (st == HUDI_OK) {
        /* New manifest: the old one minus the inputs plus the output. */
        hudi_lsm_manifest nm = {0};
        for (size_t i = 0; i < m.count && st == HUDI_OK; i++) {
          bool input = false;
          for (size_t j = start; j < start + k; j++) input |= strcmp(m.files[i].name, files[j].name) == 0;
          if (!input) st = manifest_add(&nm, m.files[i].name, strlen(m.files[i].name), m.files[i].len, err);
        }
        if (st == HUDI_OK) st = manifest_add(&nm, name, strlen(name), len, err);
        if (st == HUDI_OK) st = hudi_lsm_publish(s, hist, v, &nm, err);
        hudi_lsm_manifest_free(&nm);
      }
      if (st == HUDI_OK) *merged = k;
    }
  }
  hudi_free(files);
  hudi_lsm_manifest_free(&m);
  return st;
}

static int cmp_int_desc(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x < y) - (x > y);
}

/* LSMTimelineWriter.clean: keep the newest `keep` manifests and the files
 * they list. */
static hudi_status clean(hudi_storage *s, const char *hist, int keep, hudi_error *err) {
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, hist, 0, &l, err));
  int *versions = hudi_calloc(l.count ? l.count : 1, sizeof *versions);
  if (!versions) {
    hudi_file_list_free(&l);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  size_t nv = 0;
  for (size_t i = 0; i < l.count; i++) {
    const char *slash = strrchr(l.items[i].path, '/');
    const char *name = slash ? slash + 1 : l.items[i].path;
    if (!l.items[i].is_dir && strncmp(name, "manifest_", 9) == 0) {
      int v = parse_version(name + 9, strlen(name + 9));
      if (v >= 0) versions[nv++] = v;
    }
  }
  hudi_status st = HUDI_OK;
  if (nv > (size_t)keep) {
    qsort(versions, nv, sizeof *versions, cmp_int_desc);
    hudi_lsm_manifest kept = {0};
    for (int i = 0; i < keep && st == HUDI_OK; i++) {
      hudi_lsm_manifest m;
      st = hudi_lsm_manifest_read(&m, s, hist, versions[i], err);
      for (size_t j = 0; st == HUDI_OK && j < m.count; j++)
        if (!manifest_has(&kept, m.files[j].name))
          st = manifest_add(&kept, m.files[j].name, strlen(m.files[j].name), m.files[j].len, err);
      if (st == HUDI_OK) hudi_lsm_manifest_free(&m);
    }
    for (size_t i = (size_t)keep; i < nv && st == HUDI_OK; i++) {
      char name[32], p[600];
      snprintf(name, sizeof name, "manifest_%d", versions[i]);
      path_in(p, sizeof p, hist, name);
      st = hudi_storage_delete(s, p, HUDI_DELETE_MISSING_OK, err);
    }
    for (size_t i = 0; i < l.count && st == HUDI_OK; i++) {
      const char *slash = strrchr(l.items[i].path, '/');
      const char *name = slash ? slash + 1 : l.items[i].path;
      if (l.items[i].is_dir || !hudi_lsm_parse_file_name(name, NULL, NULL, NULL) || manifest_has(&kept, name))
        continue;
      st = hudi_storage_delete(s, l.items[i].path, HUDI_DELETE_MISSING_OK, err);
    }
    hudi_lsm_manifest_free(&kept);
  }
  hudi_free(versions);
  hudi_file_list_free(&l);
  return st;
}

hudi_status hudi_lsm_compact_and_clean(size_t *n_compacted, hudi_storage *s, const char *hist, int batch,
                                       int64_t max_bytes, hudi_error *err) {
  *n_compacted = 0;
  if (batch < 2) batch = 2;
  int level = 0;
  for (; level < 9; level++) {
    size_t merged;
    HUDI_TRY(compact_level(&merged, s, hist, level, batch, max_bytes, err));
    if (!merged) break;
    *n_compacted += merged;
  }
  /* hoodie.timeline.compaction... retained manifest versions: 3. */
  return clean(s, hist, 3 + level, err);
}

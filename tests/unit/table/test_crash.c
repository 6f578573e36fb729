/* Crash safety of the write protocol and of rollback. For an append, an
 * upsert (COW and MOR) and a delete, on tables with and without the
 * metadata table, a fault is injected at every storage operation N of the
 * write in turn (io/faulty.h):
 *   crash mode:     operation N and every later one fail (the process died
 *                   there: nothing after N reaches storage);
 *   transient mode: only operation N fails (an I/O error the write sees).
 * After each: a fresh reader sees exactly the table before the write (or,
 * when the write still reported success, the table after it); the next
 * write succeeds, rolling the failed one back (eager rollback of failed
 * writes); the result is the expected table; no instant is left pending
 * on either timeline; and no base or log file is left whose instant is not
 * completed (no orphans: the rollback found every file the failed write
 * made). The same is then done for a rollback itself (crash at every
 * operation of hudi_table_rollback; the next write finishes it).
 *
 * Table version 6 (timeline layout 1, no metadata table) too: there a log
 * file is named by its slice's base instant and a failed write's log file
 * stays, so every data or delete block of an instant that is not
 * completed must be answered by a rollback command block in its slice
 * (rollback_log_blocks.h), or Java would read it once archival passed it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "arrow/view.h"
#include "hudi/read.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "io/faulty.h"
#include "io/storage.h"
#include "table/base_file.h"
#include "table/log_command_block.h"
#include "table/log_file_name.h"
#include "table/log_reader.h"
#include "table/table.h"
#include "table/timeline.h"

static char dir[256];
/* Scratch tables: no fsync (the faults, not the disk, make the crashes). */
static const hudi_option nofsync[] = {{"fsync", "false"}};
static const hudi_storage_option nofsync_s[] = {{"fsync", "false"}};
/* Version 6: writes append updates to logs (no small-file merges). */
static const hudi_option v6_opts[] = {{"fsync", "false"}, {"hoodie.parquet.small.file.limit", "0"}};
/* The scenario's timeline layout and write options. */
static int g_layout = 2;
static const hudi_option *g_opts = nofsync;
static size_t g_n_opts = 1;

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-crash-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void sh(const char *fmt, ...) {
  char cmd[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  assert_int_equal(system(cmd), 0);
}

/* id (string), city (string), ts (int64), v (int32). */
static void make_stream(struct ArrowArrayStream *out, const char *const *ids, const char *const *cities,
                        const int64_t *ts, const int32_t *v, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 4, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "ts", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[3], "v", "i", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), ids[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), cities[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), ts[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 3), v[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

typedef struct kv {
  char id[32], part[32];
  int32_t v;
} kv;

/* Filler rows ("x000000".., see make_base) are summed up per partition:
 * their count and a hash of their ids and values. */
typedef struct filler_sum {
  char part[32];
  uint64_t n, h;
} filler_sum;

static void add_filler(filler_sum *f, size_t *nf, const char *part, const uint8_t *id, int64_t len, int32_t v) {
  size_t i = 0;
  while (i < *nf && strcmp(f[i].part, part)) i++;
  if (i == *nf) {
    assert_true(i < 8);
    snprintf(f[i].part, sizeof f[i].part, "%s", part);
    f[i].n = f[i].h = 0;
    (*nf)++;
  }
  uint64_t h = 1469598103934665603ull;
  for (int64_t k = 0; k < len; k++) h = (h ^ id[k]) * 1099511628211ull;
  f[i].n++;
  f[i].h += h * (uint64_t)(uint32_t)v; /* order-free: rows come in file order */
}

static int kv_cmp(const void *a, const void *b) { return strcmp(((const kv *)a)->id, ((const kv *)b)->id); }

/* "id:partition:v;..." of the table at path read by a fresh reader. */
static void snapshot(char *out, size_t cap, const char *path) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, nofsync, 1, &err), HUDI_OK);
  static const char *const cols[] = {"_hoodie_partition_path", "id", "v"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.projection = cols;
  ro.n_projection = 3;
  struct ArrowArrayStream s;
  hudi_status st = hudi_table_read(&s, t, &ro, &err);
  if (st != HUDI_OK) fail_msg("read of %s: %s", path, err.message);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  kv rows[64];
  size_t n = 0;
  filler_sum fill[8];
  size_t nf = 0;
  for (;;) {
    struct ArrowArray a;
    if (s.get_next(&s, &a) != 0) fail_msg("read of %s: %s", path, s.get_last_error(&s));
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
    for (int64_t i = 0; i < v.length; i++) {
      assert_true(n < 64);
      int64_t len, r = hudi_arrow_view_struct_row(&v, i);
      const uint8_t *p = hudi_arrow_view_bytes(&v.children[0], r, &len);
      snprintf(rows[n].part, sizeof rows[n].part, "%.*s", (int)len, (const char *)p);
      p = hudi_arrow_view_bytes(&v.children[1], r, &len);
      if (len > 1 && p[0] == 'x') {
        add_filler(fill, &nf, rows[n].part, p, len, ((const int32_t *)v.children[2].values)[v.children[2].offset + r]);
        continue;
      }
      snprintf(rows[n].id, sizeof rows[n].id, "%.*s", (int)len, (const char *)p);
      rows[n].v = ((const int32_t *)v.children[2].values)[v.children[2].offset + r];
      n++;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  hudi_table_free(t);
  qsort(rows, n, sizeof *rows, kv_cmp);
  size_t off = 0;
  out[0] = 0;
  for (size_t i = 0; i < n; i++)
    off += (size_t)snprintf(out + off, cap - off, "%s:%s:%d;", rows[i].id, rows[i].part, rows[i].v);
  for (size_t i = 0; i < nf; i++)
    off += (size_t)snprintf(out + off, cap - off, "x*:%s:%llu/%016llx;", fill[i].part, (unsigned long long)fill[i].n,
                            (unsigned long long)fill[i].h);
  assert_true(off < cap);
}

/* ---- the writes ----------------------------------------------------------- */

typedef enum { OP_APPEND, OP_UPSERT, OP_DELETE, OP_ROLLBACK } op_kind;

/* *committed: the call reported a completed instant (a write whose
 * after-commit services failed returns an error but is committed). */
static hudi_status do_write(hudi_table *t, op_kind op, const char *rollback_instant, bool *committed,
                            hudi_error *err) {
  hudi_write_result r;
  memset(&r, 0, sizeof r);
  struct ArrowArrayStream s;
  hudi_status st;
  if (op == OP_APPEND) {
    static const char *const ids[] = {"e", "f", "g"};
    static const char *const cities[] = {"sf", "nyc", "la"};
    static const int64_t ts[] = {5, 5, 5};
    static const int32_t v[] = {5, 6, 7};
    make_stream(&s, ids, cities, ts, v, 3);
    st = hudi_table_append(&r, t, &s, NULL, 0, err);
    *committed = r.completion_time[0] != 0;
    return st;
  }
  if (op == OP_UPSERT) {
    /* a updated, c moves to sf, h new in a new partition. */
    static const char *const ids[] = {"a", "c", "h"};
    static const char *const cities[] = {"sf", "sf", "la"};
    static const int64_t ts[] = {9, 9, 9};
    static const int32_t v[] = {10, 30, 80};
    make_stream(&s, ids, cities, ts, v, 3);
    st = hudi_table_upsert(&r, t, &s, NULL, 0, err);
    *committed = r.completion_time[0] != 0;
    return st;
  }
  if (op == OP_DELETE) {
    static const char *const keys[] = {"b", "d"};
    st = hudi_table_delete_keys(&r, t, keys, 2, NULL, 0, err);
    *committed = r.completion_time[0] != 0;
    return st;
  }
  hudi_rollback_result rr;
  memset(&rr, 0, sizeof rr);
  st = hudi_table_rollback(&rr, t, rollback_instant, NULL, 0, err);
  *committed = rr.completion_time[0] != 0;
  return st;
}

/* A small write that must succeed after a failure (it runs the eager
 * rollback first) and whose effect is known: v of a becomes 99. */
static void next_write(const char *path) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, g_opts, g_n_opts, &err), HUDI_OK);
  static const char *const ids[] = {"a"};
  static const char *const cities[] = {"sf"};
  static const int64_t ts[] = {50};
  static const int32_t v[] = {99};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, v, 1);
  hudi_write_result r;
  hudi_status st = hudi_table_upsert(&r, t, &s, NULL, 0, &err);
  if (st != HUDI_OK) fail_msg("write after the failure in %s: %s", path, err.message);
  hudi_table_free(t);
}

/* The snapshot string s (which starts with a, in sf) with a's value 99. */
static void with_a99(char *out, size_t cap, const char *s) {
  assert_true(!strncmp(s, "a:city=sf:", 10));
  snprintf(out, cap, "a:city=sf:99%s", strchr(s, ';'));
}

/* ---- the checks ----------------------------------------------------------- */

/* Nothing pending on the timeline of table_dir, except the MDT's own
 * initialisation instants. */
static void no_pending(hudi_storage *s, const char *table_dir, const char *what) {
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_timeline_load(&tl, s, table_dir, *table_dir ? 2 : g_layout, &err), HUDI_OK);
  for (size_t i = 0; i < tl.count; i++)
    if (tl.items[i].state != HUDI_INSTANT_COMPLETED)
      fail_msg("%s: instant %s (%s) left pending on %s", what, tl.items[i].requested_time, tl.items[i].action,
               *table_dir ? table_dir : "the data timeline");
  hudi_timeline_free(&tl);
}

/* The instant named by a base or log file name, or "" for other files. */
static void file_instant(char *out, size_t cap, const char *name) {
  hudi_base_file_name b;
  out[0] = 0;
  if (hudi_base_file_name_parse(&b, name)) {
    snprintf(out, cap, "%s", b.instant);
    return;
  }
  hudi_log_file_name l = HUDI_LOG_FILE_NAME_INIT;
  if (hudi_log_file_name_matches(name, strlen(name)) &&
      hudi_log_file_name_parse(&l, name, strlen(name), NULL) == HUDI_OK) {
    snprintf(out, cap, "%s", l.instant);
    hudi_log_file_name_free(&l);
  }
}

/* Every base and log file of the data table and of its MDT belongs to a
 * completed instant of its timeline. */
static void no_orphans(hudi_storage *s, const char *what) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_timeline data, mdt;
  memset(&data, 0, sizeof data);
  memset(&mdt, 0, sizeof mdt);
  assert_int_equal(hudi_timeline_load(&data, s, "", g_layout, &err), HUDI_OK);
  assert_int_equal(hudi_timeline_load(&mdt, s, ".hoodie/metadata", 2, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(s, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  for (size_t i = 0; i < l.count; i++) {
    const char *p = l.items[i].path;
    bool in_mdt = !strncmp(p, ".hoodie/metadata/", 17);
    if (!in_mdt && !strncmp(p, ".hoodie/", 8)) continue;
    if (in_mdt && !strncmp(p, ".hoodie/metadata/.hoodie/", 25)) continue;
    const char *slash = strrchr(p, '/');
    char inst[64];
    file_instant(inst, sizeof inst, slash ? slash + 1 : p);
    if (!*inst) continue;
    const hudi_instant *in = hudi_timeline_find(in_mdt ? &mdt : &data, inst);
    if (!in || in->state != HUDI_INSTANT_COMPLETED)
      fail_msg("%s: file %s of instant %s, which is not completed", what, p, inst);
  }
  hudi_file_list_free(&l);
  hudi_timeline_free(&data);
  hudi_timeline_free(&mdt);
}

/* One slice's view of its log blocks: instants of data/delete blocks not
 * completed, and rollback targets. */
typedef struct slice_blocks {
  char slice[128];
  char failed[8][24], targets[8][24];
  int n_failed, n_targets;
} slice_blocks;

/* Layout 1: every data or delete block of an instant that is not
 * completed has a command block rolling it back in the same slice. */
static void failed_blocks_rolled_back(hudi_storage *s, const char *what) {
  if (g_layout != 1) return;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  assert_int_equal(hudi_timeline_load(&tl, s, "", 1, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(s, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  slice_blocks sb[16];
  int nsb = 0;
  for (size_t i = 0; i < l.count; i++) {
    const char *p = l.items[i].path, *slash = strrchr(p, '/'), *name = slash ? slash + 1 : p;
    if (!strncmp(p, ".hoodie/", 8) || !hudi_log_file_name_matches(name, strlen(name))) continue;
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    assert_int_equal(hudi_log_file_name_parse(&n, name, strlen(name), &err), HUDI_OK);
    char key[128];
    snprintf(key, sizeof key, "%.*s/%s_%s", slash ? (int)(slash - p) : 0, p, n.file_id, n.instant);
    hudi_log_file_name_free(&n);
    int k = 0;
    while (k < nsb && strcmp(sb[k].slice, key)) k++;
    if (k == nsb) {
      assert_true(nsb < 16);
      memset(&sb[nsb], 0, sizeof sb[nsb]);
      snprintf(sb[nsb++].slice, sizeof sb[k].slice, "%s", key);
    }
    hudi_log_reader *r = NULL;
    assert_int_equal(hudi_log_reader_open(&r, s, p, &err), HUDI_OK);
    for (;;) {
      hudi_log_block b;
      bool has = false;
      assert_int_equal(hudi_log_reader_next(r, &b, &has, &err), HUDI_OK);
      if (!has) break;
      if (b.type == HUDI_LOG_BLOCK_COMMAND) {
        hudi_log_command c;
        assert_int_equal(hudi_log_command_block_read(&c, &b, p, &err), HUDI_OK);
        assert_true(sb[k].n_targets < 8);
        snprintf(sb[k].targets[sb[k].n_targets++], 24, "%s", c.target_instant);
      } else {
        const char *in = hudi_log_meta_get(&b.header, HUDI_LOG_HEADER_INSTANT_TIME, NULL);
        assert_non_null(in);
        const hudi_instant *x = hudi_timeline_find(&tl, in);
        if (!x || x->state != HUDI_INSTANT_COMPLETED) {
          assert_true(sb[k].n_failed < 8);
          snprintf(sb[k].failed[sb[k].n_failed++], 24, "%s", in);
        }
      }
      hudi_log_block_free(&b);
    }
    hudi_log_reader_free(r);
  }
  for (int k = 0; k < nsb; k++)
    for (int f = 0; f < sb[k].n_failed; f++) {
      bool covered = false;
      for (int c = 0; c < sb[k].n_targets && !covered; c++) covered = !strcmp(sb[k].targets[c], sb[k].failed[f]);
      if (!covered) fail_msg("%s: slice %s holds blocks of failed instant %s and no command block", what, sb[k].slice,
                             sb[k].failed[f]);
    }
  hudi_file_list_free(&l);
  hudi_timeline_free(&tl);
}

static void check_clean(const char *path, const char *what) {
  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_open(&s, path, nofsync_s, 1, &err), HUDI_OK);
  no_pending(s, "", what);
  no_pending(s, ".hoodie/metadata", what);
  no_orphans(s, what);
  failed_blocks_rolled_back(s, what);
  hudi_storage_free(s);
}

/* ---- the loop ------------------------------------------------------------- */

typedef struct scenario {
  const char *name;
  hudi_table_type type;
  bool rli;
  op_kind op;
  /* Filler rows per partition of the base table: past one reader batch
   * (8192 rows), a COW rewrite writes the file on a feed thread, which
   * also closes it while the next file is merged (merge_write.c). */
  int filler;
  int version; /* 0: the default (8); 6: timeline layout 1, no metadata table */
} scenario;

static void make_base(const char *path, const scenario *sc) {
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = sc->type;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  o.record_index_enabled = sc->rli;
  static const hudi_option v6[] = {{"hoodie.write.table.version", "6"}};
  if (sc->version == 6) {
    o.options = v6;
    o.n_options = 1;
  }
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  static const char *const ids[] = {"a", "b", "c", "d"};
  static const char *const cities[] = {"sf", "sf", "nyc", "nyc"};
  static const int64_t ts[] = {5, 5, 5, 5};
  static const int32_t v[] = {1, 2, 3, 4};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, v, 4);
  hudi_write_result r;
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);
  if (sc->filler > 0) {
    int n = 2 * sc->filler;
    char (*fid)[16] = malloc(sizeof *fid * (size_t)n);
    const char **fids = malloc(sizeof *fids * (size_t)n), **fcities = malloc(sizeof *fcities * (size_t)n);
    int64_t *fts = malloc(sizeof *fts * (size_t)n);
    int32_t *fv = malloc(sizeof *fv * (size_t)n);
    assert_true(fid && fids && fcities && fts && fv);
    for (int i = 0; i < n; i++) {
      snprintf(fid[i], sizeof fid[i], "x%06d", i);
      fids[i] = fid[i];
      fcities[i] = i % 2 ? "nyc" : "sf";
      fts[i] = 5;
      fv[i] = i;
    }
    make_stream(&s, fids, fcities, fts, fv, n);
    assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);
    free(fid);
    free(fids);
    free(fcities);
    free(fts);
    free(fv);
  }
  hudi_table_free(t);
}

/* Opens path with its storage wrapped in a fault-injecting one. */
static hudi_table *open_faulty(const char *path) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, g_opts, g_n_opts, &err), HUDI_OK);
  hudi_storage *f = NULL;
  assert_int_equal(hudi_faulty_storage_wrap(&f, t->storage, true, &err), HUDI_OK);
  t->storage = f;
  return t;
}

/* The latest completed write of the table at path (for OP_ROLLBACK). */
static void latest_write(char *out, size_t cap, const char *path) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, nofsync, 1, &err), HUDI_OK);
  out[0] = 0;
  for (size_t i = 0; i < t->timeline.count; i++)
    if (t->timeline.items[i].state == HUDI_INSTANT_COMPLETED && strcmp(t->timeline.items[i].action, "rollback"))
      snprintf(out, cap, "%s", t->timeline.items[i].requested_time);
  hudi_table_free(t);
}

/* After a failed rollback of T: whether T is still completed, and
 * whether a rollback is pending. */
static void rollback_state(const char *path, const char *instant, bool *t_done, bool *r_pending) {
  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_open(&s, path, nofsync_s, 1, &err), HUDI_OK);
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  assert_int_equal(hudi_timeline_load(&tl, s, "", g_layout, &err), HUDI_OK);
  const hudi_instant *in = hudi_timeline_find(&tl, instant);
  *t_done = in && in->state == HUDI_INSTANT_COMPLETED;
  *r_pending = false;
  for (size_t i = 0; i < tl.count; i++)
    if (!strcmp(tl.items[i].action, "rollback") && tl.items[i].state != HUDI_INSTANT_COMPLETED) *r_pending = true;
  hudi_timeline_free(&tl);
  hudi_storage_free(s);
}

static void run_scenario(const scenario *sc) {
  char base[400], run[400], before[4096], after[4096], snap[4096], want[4096], what[600], rb[64] = "";
  snprintf(base, sizeof base, "%s/%s-base", dir, sc->name);
  snprintf(run, sizeof run, "%s/%s-run", dir, sc->name);
  g_layout = sc->version == 6 ? 1 : 2;
  g_opts = sc->version == 6 ? v6_opts : nofsync;
  g_n_opts = sc->version == 6 ? 2 : 1;
  make_base(base, sc);
  if (sc->op == OP_ROLLBACK) {
    /* The rollback undoes an upsert made on top of the base table. */
    sh("cp -a '%s' '%s.pre'", base, base);
    hudi_table *t = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_table_open(&t, base, NULL, 0, &err), HUDI_OK);
    bool done;
    assert_int_equal(do_write(t, OP_UPSERT, NULL, &done, &err), HUDI_OK);
    hudi_table_free(t);
    latest_write(rb, sizeof rb, base);
  }
  snapshot(before, sizeof before, base);

  /* The write without faults: its result and how many operations it makes. */
  sh("rm -rf '%s' && cp -a '%s' '%s'", run, base, run);
  hudi_table *t = open_faulty(run);
  hudi_error err = HUDI_ERROR_INIT;
  bool committed = false;
  assert_int_equal(do_write(t, sc->op, rb, &committed, &err), HUDI_OK);
  assert_true(committed);
  uint64_t ops = hudi_faulty_storage_calls(t->storage, HUDI_STORAGE_OP_ANY);
  hudi_table_free(t);
  snapshot(after, sizeof after, run);
  assert_string_not_equal(before, after);
  if (sc->op == OP_ROLLBACK) {
    char pre[420];
    snprintf(pre, sizeof pre, "%s.pre", base);
    snapshot(snap, sizeof snap, pre);
    assert_string_equal(after, snap); /* the rollback undid the upsert */
  }
  assert_true(ops > 5);

  for (int mode = 0; mode < 2; mode++) {
    for (uint64_t n = 1; n <= ops; n++) {
      snprintf(what, sizeof what, "%s, %s at operation %llu of %llu", sc->name, mode ? "transient fault" : "crash",
               (unsigned long long)n, (unsigned long long)ops);
      sh("rm -rf '%s' && cp -a '%s' '%s'", run, base, run);
      t = open_faulty(run);
      hudi_fault f = {HUDI_FAULT_FAIL, HUDI_STORAGE_OP_ANY, n, 0, mode == 0};
      assert_int_equal(hudi_faulty_storage_arm(t->storage, &f, &err), HUDI_OK);
      hudi_error werr = HUDI_ERROR_INIT;
      hudi_status st = do_write(t, sc->op, rb, &committed, &werr);
      assert_true(hudi_faulty_storage_fired(t->storage) > 0);
      hudi_table_free(t);
      /* A crashed process's lock file stays; lock.c removes it as stale
       * when its process is gone, but this process is still alive. */
      sh("rm -f '%s/.hoodie/lock'", run);

      /* What a reader must see now, and after the next write. A write
       * that failed is invisible and is rolled back. A rollback is visible
       * once T's completed file is gone, and is finished by the next write
       * once its plan (R.rollback.requested) exists. */
      if (st == HUDI_OK) assert_true(committed);
      const char *now = committed ? after : before, *later = now;
      if (sc->op == OP_ROLLBACK && !committed) {
        bool t_done, r_pending;
        rollback_state(run, rb, &t_done, &r_pending);
        now = t_done ? before : after;
        later = r_pending || !t_done ? after : before;
      }
      snapshot(snap, sizeof snap, run);
      if (strcmp(snap, now) != 0)
        fail_msg("%s (write returned %d: %s): reader sees %s, expected %s", what, (int)st, werr.message, snap, now);
      next_write(run);
      with_a99(want, sizeof want, later);
      snapshot(snap, sizeof snap, run);
      if (strcmp(snap, want) != 0) fail_msg("%s: after the next write reader sees %s, expected %s", what, snap, want);
      check_clean(run, what);
    }
  }
}

static void test_append_cow(void **s) {
  (void)s;
  scenario sc = {"append-cow", HUDI_COPY_ON_WRITE, true, OP_APPEND, 0, 0};
  run_scenario(&sc);
}

static void test_append_mor_nomdt(void **s) {
  (void)s;
  scenario sc = {"append-mor-nomdt", HUDI_MERGE_ON_READ, false, OP_APPEND, 0, 0};
  run_scenario(&sc);
}

static void test_upsert_cow(void **s) {
  (void)s;
  scenario sc = {"upsert-cow", HUDI_COPY_ON_WRITE, true, OP_UPSERT, 0, 0};
  run_scenario(&sc);
}

static void test_upsert_mor(void **s) {
  (void)s;
  scenario sc = {"upsert-mor", HUDI_MERGE_ON_READ, true, OP_UPSERT, 0, 0};
  run_scenario(&sc);
}

/* Two base files of 9,002 rows (two reader batches each) and a new one:
 * the rewrites are closed on their feed threads, one while the other is
 * merged. */
static void test_upsert_cow_big_files(void **s) {
  (void)s;
  scenario sc = {"upsert-cow-big", HUDI_COPY_ON_WRITE, true, OP_UPSERT, 9000, 0};
  run_scenario(&sc);
}

static void test_upsert_cow_nomdt(void **s) {
  (void)s;
  scenario sc = {"upsert-cow-nomdt", HUDI_COPY_ON_WRITE, false, OP_UPSERT, 0, 0};
  run_scenario(&sc);
}

static void test_delete_mor(void **s) {
  (void)s;
  scenario sc = {"delete-mor", HUDI_MERGE_ON_READ, true, OP_DELETE, 0, 0};
  run_scenario(&sc);
}

static void test_delete_cow(void **s) {
  (void)s;
  scenario sc = {"delete-cow", HUDI_COPY_ON_WRITE, true, OP_DELETE, 0, 0};
  run_scenario(&sc);
}

static void test_rollback_mor(void **s) {
  (void)s;
  scenario sc = {"rollback-mor", HUDI_MERGE_ON_READ, true, OP_ROLLBACK, 0, 0};
  run_scenario(&sc);
}

static void test_rollback_cow(void **s) {
  (void)s;
  scenario sc = {"rollback-cow", HUDI_COPY_ON_WRITE, true, OP_ROLLBACK, 0, 0};
  run_scenario(&sc);
}

/* Version 6: log appends (updates, deletes) and base-file rewrites. */
static void test_upsert_mor_v6(void **s) {
  (void)s;
  scenario sc = {"upsert-mor-v6", HUDI_MERGE_ON_READ, false, OP_UPSERT, 0, 6};
  run_scenario(&sc);
}

static void test_delete_mor_v6(void **s) {
  (void)s;
  scenario sc = {"delete-mor-v6", HUDI_MERGE_ON_READ, false, OP_DELETE, 0, 6};
  run_scenario(&sc);
}

static void test_upsert_cow_v6(void **s) {
  (void)s;
  scenario sc = {"upsert-cow-v6", HUDI_COPY_ON_WRITE, false, OP_UPSERT, 0, 6};
  run_scenario(&sc);
}

static void test_rollback_mor_v6(void **s) {
  (void)s;
  scenario sc = {"rollback-mor-v6", HUDI_MERGE_ON_READ, false, OP_ROLLBACK, 0, 6};
  run_scenario(&sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_append_cow),   cmocka_unit_test(test_append_mor_nomdt), cmocka_unit_test(test_upsert_cow),
      cmocka_unit_test(test_upsert_mor),   cmocka_unit_test(test_upsert_cow_nomdt), cmocka_unit_test(test_delete_mor),
      cmocka_unit_test(test_delete_cow),   cmocka_unit_test(test_rollback_mor),     cmocka_unit_test(test_rollback_cow),
      cmocka_unit_test(test_upsert_cow_big_files), cmocka_unit_test(test_upsert_mor_v6), cmocka_unit_test(test_delete_mor_v6),
      cmocka_unit_test(test_upsert_cow_v6),        cmocka_unit_test(test_rollback_mor_v6),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

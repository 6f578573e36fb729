/* Test helpers shared by the compaction tests (test_compact.c,
 * test_compact_async.c): a batch of (id, city, ts, v) rows as a stream,
 * and a read of a table as sorted text lines to compare whole snapshots.
 * Included by one test program each, hence static. */
#ifndef HUDI_TEST_COMPACT_ROWS_H
#define HUDI_TEST_COMPACT_ROWS_H

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

/* One batch: id (string), city (string), ts (int64), v (int32). */
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

static int line_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The rows of a read, one "col=value|..." line per row over `cols`, sorted,
 * joined by '\n'. opt: one read option (key, value) or NULL. Caller frees. */
static char *read_lines(hudi_table *t, const char *const *cols, size_t n_cols, const char *k1, const char *v1,
                        const char *k2, const char *v2) {
  hudi_option opts[2] = {{k1, v1}, {k2, v2}};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.projection = cols;
  ro.n_projection = n_cols;
  ro.options = opts;
  ro.n_options = k2 ? 2 : k1 ? 1 : 0;
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_read(&s, t, &ro, &err) != HUDI_OK) fail_msg("%s", err.message);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  char **lines = NULL;
  size_t n = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
    for (int64_t i = 0; i < v.length; i++) {
      char line[1024];
      size_t off = 0;
      int64_t r = hudi_arrow_view_struct_row(&v, i);
      for (size_t c = 0; c < n_cols; c++) {
        const hudi_arrow_view *cv = &v.children[c];
        const char *fmt = schema.children[c]->format;
        if (hudi_arrow_view_is_null(cv, r)) off += (size_t)snprintf(line + off, sizeof line - off, "%s=null|", cols[c]);
        else if (!strcmp(fmt, "u")) {
          int64_t len;
          const uint8_t *p = hudi_arrow_view_bytes(cv, r, &len);
          off += (size_t)snprintf(line + off, sizeof line - off, "%s=%.*s|", cols[c], (int)len, (const char *)p);
        } else if (!strcmp(fmt, "i")) {
          off += (size_t)snprintf(line + off, sizeof line - off, "%s=%d|", cols[c],
                                  ((const int32_t *)cv->values)[cv->offset + r]);
        } else if (!strcmp(fmt, "l")) {
          off += (size_t)snprintf(line + off, sizeof line - off, "%s=%lld|", cols[c],
                                  (long long)((const int64_t *)cv->values)[cv->offset + r]);
        } else if (!strcmp(fmt, "g")) {
          off += (size_t)snprintf(line + off, sizeof line - off, "%s=%g|", cols[c],
                                  ((const double *)cv->values)[cv->offset + r]);
        } else {
          fail_msg("column %s has format %s", cols[c], fmt);
        }
      }
      lines = realloc(lines, (n + 1) * sizeof *lines);
      lines[n++] = strdup(line);
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  if (n) qsort(lines, n, sizeof *lines, line_cmp);
  size_t total = 1;
  for (size_t i = 0; i < n; i++) total += strlen(lines[i]) + 1;
  char *out = malloc(total), *end = out;
  /* Appended at a moving end: strcat would rescan the whole text per line
   * (quadratic, half an hour under valgrind for 20k lines). */
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(lines[i]);
    memcpy(end, lines[i], len);
    end += len;
    *end++ = '\n';
    free(lines[i]);
  }
  *end = 0;
  free(lines);
  return out;
}

#endif

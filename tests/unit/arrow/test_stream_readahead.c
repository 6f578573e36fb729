/* hudi_arrow_stream_readahead: batches in the wrapped stream's order, its
 * schema, its error at the point it happened, and a release in the middle
 * of the stream (every batch produced is released: ASan/valgrind tiers). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/stream_readahead.h"

/* A stream of n one-column batches (int64 "n": batch i holds 3i, 3i+1,
 * 3i+2); with fail_at >= 0 its get_next fails there with EIO. */
typedef struct counting {
  int n, next, fail_at;
  atomic_int live; /* batches handed out and not yet released */
  hudi_arrow_field f;
} counting;

typedef struct tracked {
  counting *c;
  void (*release)(struct ArrowArray *);
  void *private_data;
} tracked;

static void tracked_release(struct ArrowArray *a) {
  tracked *t = a->private_data;
  a->private_data = t->private_data;
  a->release = t->release;
  atomic_fetch_sub(&t->c->live, 1);
  a->release(a);
  free(t);
}

static int c_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  counting *c = s->private_data;
  hudi_error err = HUDI_ERROR_INIT;
  return hudi_arrow_field_export(out, &c->f, &err) == HUDI_OK ? 0 : EINVAL;
}

static int c_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  counting *c = s->private_data;
  memset(out, 0, sizeof *out);
  if (c->next == c->fail_at) return EIO;
  if (c->next == c->n) return 0;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_batch_builder *bb;
  if (hudi_arrow_batch_builder_create(&bb, &c->f, &err) != HUDI_OK) return ENOMEM;
  hudi_arrow_builder *col = hudi_arrow_batch_builder_column(bb, 0);
  for (int i = 0; i < 3; i++)
    if (hudi_arrow_builder_append_int(col, 3 * c->next + i, &err) != HUDI_OK) return ENOMEM;
  if (hudi_arrow_batch_builder_end_rows(bb, 3, &err) != HUDI_OK ||
      hudi_arrow_batch_builder_finish(bb, out, &err) != HUDI_OK)
    return ENOMEM;
  hudi_arrow_batch_builder_free(bb);
  tracked *t = malloc(sizeof *t);
  *t = (tracked){c, out->release, out->private_data};
  out->release = tracked_release;
  out->private_data = t;
  atomic_fetch_add(&c->live, 1);
  c->next++;
  return 0;
}

static const char *c_error(struct ArrowArrayStream *s) {
  counting *c = s->private_data;
  return c->next == c->fail_at ? "boom at the failing batch" : NULL;
}

static void c_release(struct ArrowArrayStream *s) { s->release = NULL; }

static void counting_stream(struct ArrowArrayStream *s, counting *c, int n, int fail_at) {
  memset(c, 0, sizeof *c);
  c->n = n;
  c->fail_at = fail_at;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_field_init(&c->f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&c->f, 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&c->f.children[0], "n", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  memset(s, 0, sizeof *s);
  s->get_schema = c_schema;
  s->get_next = c_next;
  s->get_last_error = c_error;
  s->release = c_release;
  s->private_data = c;
}

static void in_order(void **state) {
  (void)state;
  for (int depth = 1; depth <= 3; depth++) {
    counting c;
    struct ArrowArrayStream in, out;
    counting_stream(&in, &c, 50, -1);
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_arrow_stream_readahead(&out, &in, depth, &err), HUDI_OK);
    assert_null(in.release); /* moved */
    struct ArrowSchema sch;
    assert_int_equal(out.get_schema(&out, &sch), 0);
    assert_string_equal(sch.format, "+s");
    assert_int_equal(sch.n_children, 1);
    assert_string_equal(sch.children[0]->name, "n");
    assert_string_equal(sch.children[0]->format, "l");
    sch.release(&sch);
    int64_t want = 0;
    for (;;) {
      struct ArrowArray a;
      assert_int_equal(out.get_next(&out, &a), 0);
      if (!a.release) break;
      assert_int_equal(a.length, 3);
      const int64_t *v = a.children[0]->buffers[1];
      for (int i = 0; i < 3; i++) assert_int_equal(v[i], want++);
      a.release(&a);
      assert_true(atomic_load(&c.live) <= depth + 1); /* at most depth ahead, plus the one being made */
    }
    assert_int_equal(want, 150);
    struct ArrowArray end; /* the end stays the end */
    assert_int_equal(out.get_next(&out, &end), 0);
    assert_null(end.release);
    assert_null(out.get_last_error(&out));
    out.release(&out);
    assert_int_equal(atomic_load(&c.live), 0);
    hudi_arrow_field_clear(&c.f);
  }
}

static void error_where_it_happened(void **state) {
  (void)state;
  counting c;
  struct ArrowArrayStream in, out;
  counting_stream(&in, &c, 10, 4);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_stream_readahead(&out, &in, 2, &err), HUDI_OK);
  for (int i = 0; i < 4; i++) {
    struct ArrowArray a;
    assert_int_equal(out.get_next(&out, &a), 0);
    assert_non_null(a.release);
    assert_int_equal(((const int64_t *)a.children[0]->buffers[1])[0], 3 * i);
    a.release(&a);
  }
  struct ArrowArray a;
  assert_int_equal(out.get_next(&out, &a), EIO);
  assert_null(a.release);
  assert_non_null(strstr(out.get_last_error(&out), "boom"));
  out.release(&out);
  assert_int_equal(atomic_load(&c.live), 0);
  hudi_arrow_field_clear(&c.f);
}

static void released_midway(void **state) {
  (void)state;
  counting c;
  struct ArrowArrayStream in, out;
  counting_stream(&in, &c, 1000, -1);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_stream_readahead(&out, &in, 4, &err), HUDI_OK);
  struct ArrowArray a;
  assert_int_equal(out.get_next(&out, &a), 0);
  a.release(&a);
  out.release(&out); /* the thread stops; batches it queued are released */
  assert_null(out.release);
  assert_int_equal(atomic_load(&c.live), 0);
  assert_true(c.next < 1000);
  hudi_arrow_field_clear(&c.f);
}

static void bad_depth(void **state) {
  (void)state;
  counting c;
  struct ArrowArrayStream in, out;
  counting_stream(&in, &c, 1, -1);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_stream_readahead(&out, &in, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "depth"));
  assert_null(in.release);
  hudi_arrow_field_clear(&c.f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(in_order),
      cmocka_unit_test(error_where_it_happened),
      cmocka_unit_test(released_midway),
      cmocka_unit_test(bad_depth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

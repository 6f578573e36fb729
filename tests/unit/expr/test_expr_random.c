/* Random tables x random predicates: the selection must equal what an
 * independent reference evaluator (plain C over plain arrays, SQL
 * three-valued logic written out by hand below) computes, and min/max
 * pruning of row groups must never skip a group holding a selected row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "expr_test.h"

#define N 256
#define GROUP 16

enum { F = 0, T = 1, U = 2 };

static int a_v[N], x_v[N];
static bool a_null[N], b_null[N], c_null[N], s_null[N], x_null[N];
static const char *b_v[N];
static double c_v[N];
static unsigned u_v[N];
static const char *words[] = {"", "a", "ab", "b", "doc1", "doc3", "dac", "abc"};

static uint64_t rng = 42;
static unsigned rnd(unsigned n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rng >> 33) % n;
}

/* ---- the reference ---- */

typedef enum { R_AND, R_OR, R_NOT, R_CMP_A, R_CMP_U, R_CMP_B, R_CMP_C, R_CMP_X, R_CMP_AX, R_IN_A, R_IN_B,
               R_NULL, R_LIKE } rkind;

typedef struct ref {
  rkind kind;
  int op;          /* 0 = 1 != 2 < 3 <= 4 > 5 >= */
  double k;        /* numeric literal */
  const char *s;   /* string literal / LIKE pattern */
  int col;         /* R_NULL: 0 a, 1 b, 2 c, 3 s.x */
  bool neg;
  double in[4];
  const char *ins[4];
  int n_in;
  bool in_null;
  struct ref *kids[3];
  int n_kids;
} ref;

static const char *ops[] = {"=", "!=", "<", "<=", ">", ">="};

static int holds(int op, int c) {
  switch (op) {
    case 0: return c == 0;
    case 1: return c != 0;
    case 2: return c < 0;
    case 3: return c <= 0;
    case 4: return c > 0;
    default: return c >= 0;
  }
}
static int cmpd(double x, double y) { /* NaN greatest */
  if (isnan(x) || isnan(y)) return isnan(x) == isnan(y) ? 0 : (isnan(x) ? 1 : -1);
  return x < y ? -1 : x > y;
}
static int tv(bool b) { return b ? T : F; }
static int not3(int v) { return v == U ? U : !v; }

static bool like(const char *s, const char *p) { /* recursive: fine for tiny inputs */
  if (!*p) return !*s;
  if (*p == '%') return like(s, p + 1) || (*s && like(s + 1, p));
  if (!*s) return false;
  if (*p == '_' || *p == *s) return like(s + 1, p + 1);
  return false;
}

static int ref_eval(const ref *r, int i) {
  switch (r->kind) {
    case R_AND: {
      int v = T;
      for (int k = 0; k < r->n_kids; k++) {
        int c = ref_eval(r->kids[k], i);
        if (c == F) v = F;
        else if (c == U && v == T) v = U;
      }
      return v;
    }
    case R_OR: {
      int v = F;
      for (int k = 0; k < r->n_kids; k++) {
        int c = ref_eval(r->kids[k], i);
        if (c == T) v = T;
        else if (c == U && v == F) v = U;
      }
      return v;
    }
    case R_NOT: return not3(ref_eval(r->kids[0], i));
    case R_CMP_A: return a_null[i] ? U : tv(holds(r->op, cmpd(a_v[i], r->k)));
    case R_CMP_U: return tv(holds(r->op, cmpd(u_v[i], r->k)));
    case R_CMP_B: return b_null[i] ? U : tv(holds(r->op, strcmp(b_v[i], r->s)));
    case R_CMP_C: return c_null[i] ? U : tv(holds(r->op, cmpd(c_v[i], r->k)));
    case R_CMP_X: return (s_null[i] || x_null[i]) ? U : tv(holds(r->op, cmpd(x_v[i], r->k)));
    case R_CMP_AX:
      return (a_null[i] || s_null[i] || x_null[i]) ? U : tv(holds(r->op, cmpd(a_v[i], x_v[i])));
    case R_IN_A:
    case R_IN_B: {
      bool isnull = r->kind == R_IN_A ? a_null[i] : b_null[i];
      int v;
      if (isnull) v = U;
      else {
        bool found = false;
        for (int k = 0; k < r->n_in; k++)
          found |= r->kind == R_IN_A ? a_v[i] == r->in[k] : strcmp(b_v[i], r->ins[k]) == 0;
        v = found ? T : (r->in_null ? U : F);
      }
      return r->neg ? not3(v) : v;
    }
    case R_NULL: {
      bool n = r->col == 0 ? a_null[i] : r->col == 1 ? b_null[i] : r->col == 2 ? c_null[i] : (s_null[i] || x_null[i]);
      return tv(n != r->neg);
    }
    case R_LIKE: return b_null[i] ? U : tv(like(b_v[i], r->s) != r->neg);
  }
  return U;
}

/* ---- random predicates: SQL text and reference together ---- */

static ref pool[4096];
static int pool_n;

static double rand_num(bool halves) {
  double k = (double)((int)rnd(15) - 7);
  if (halves && rnd(3) == 0) k += 0.5;
  return k;
}

static void fmt_num(char *out, double k) {
  if (k == floor(k)) sprintf(out, "%d", (int)k);
  else sprintf(out, "%.1f", k);
}

static ref *gen(char *buf, size_t *len, int depth) {
  ref *r = &pool[pool_n++];
  memset(r, 0, sizeof *r);
  char num[32];
#define OUT(...) (*len += (size_t)sprintf(buf + *len, __VA_ARGS__))
  unsigned pick = depth < 3 ? rnd(14) : 3 + rnd(11);
  switch (pick) {
    case 0:
    case 1: {
      r->kind = pick == 0 ? R_AND : R_OR;
      r->n_kids = 2 + (int)rnd(2);
      for (int k = 0; k < r->n_kids; k++) {
        if (k) OUT(pick == 0 ? " AND " : " OR ");
        OUT("(");
        r->kids[k] = gen(buf, len, depth + 1);
        OUT(")");
      }
      return r;
    }
    case 2:
      r->kind = R_NOT;
      OUT("NOT (");
      r->kids[0] = gen(buf, len, depth + 1);
      OUT(")");
      r->n_kids = 1;
      return r;
    case 3:
    case 4:
      r->kind = R_CMP_A, r->op = (int)rnd(6), r->k = rand_num(true);
      fmt_num(num, r->k);
      if (rnd(4) == 0) { /* literal first: flip the operator */
        static const int flipped[] = {0, 1, 4, 5, 2, 3};
        OUT("%s %s a", num, ops[flipped[r->op]]);
      } else {
        OUT("a %s %s", ops[r->op], num);
      }
      return r;
    case 5:
      r->kind = R_CMP_U, r->op = (int)rnd(6), r->k = rand_num(true) * 40;
      fmt_num(num, r->k);
      OUT("u %s %s", ops[r->op], num);
      return r;
    case 6:
      r->kind = R_CMP_B, r->op = (int)rnd(6), r->s = words[rnd(8)];
      OUT("b %s '%s'", ops[r->op], r->s);
      return r;
    case 7:
      r->kind = R_CMP_C, r->op = (int)rnd(6), r->k = rnd(8) == 0 ? NAN : rand_num(true);
      if (isnan(r->k)) OUT("c %s 'NaN'", ops[r->op]);
      else {
        fmt_num(num, r->k);
        OUT("c %s %s", ops[r->op], num);
      }
      return r;
    case 8:
      r->kind = R_IN_A, r->neg = rnd(2), r->n_in = 1 + (int)rnd(4), r->in_null = rnd(4) == 0;
      OUT("a %sIN (", r->neg ? "NOT " : "");
      for (int k = 0; k < r->n_in; k++) {
        r->in[k] = rand_num(true);
        fmt_num(num, r->in[k]);
        OUT("%s%s", k ? ", " : "", num);
      }
      OUT("%s)", r->in_null ? ", NULL" : "");
      return r;
    case 9:
      r->kind = R_IN_B, r->neg = rnd(2), r->n_in = 1 + (int)rnd(4), r->in_null = rnd(4) == 0;
      OUT("b %sIN (", r->neg ? "NOT " : "");
      for (int k = 0; k < r->n_in; k++) {
        r->ins[k] = words[rnd(8)];
        OUT("%s'%s'", k ? ", " : "", r->ins[k]);
      }
      OUT("%s)", r->in_null ? ", NULL" : "");
      return r;
    case 10: {
      static const char *cols[] = {"a", "b", "c", "s.x"};
      r->kind = R_NULL, r->col = (int)rnd(4), r->neg = rnd(2);
      OUT("%s IS %sNULL", cols[r->col], r->neg ? "NOT " : "");
      return r;
    }
    case 11: {
      static const char *pats[] = {"a%", "%b", "d_c%", "%", "_", "doc_", "ab", "%c%", ""};
      r->kind = R_LIKE, r->neg = rnd(2), r->s = pats[rnd(9)];
      OUT("b %sLIKE '%s'", r->neg ? "NOT " : "", r->s);
      return r;
    }
    case 12:
      r->kind = R_CMP_X, r->op = (int)rnd(6), r->k = rand_num(true);
      fmt_num(num, r->k);
      OUT("s.x %s %s", ops[r->op], num);
      return r;
    default:
      if (rnd(2)) {
        r->kind = R_CMP_AX, r->op = (int)rnd(6);
        OUT("a %s s.x", ops[r->op]);
        return r;
      }
      /* BETWEEN is AND of two comparisons in the reference. */
      r->kind = R_AND, r->n_kids = 2;
      double lo = rand_num(true), hi = lo + rnd(6);
      ref *l = &pool[pool_n++], *h = &pool[pool_n++];
      memset(l, 0, sizeof *l), memset(h, 0, sizeof *h);
      l->kind = h->kind = R_CMP_A;
      l->op = 5, l->k = lo, h->op = 3, h->k = hi;
      r->kids[0] = l, r->kids[1] = h;
      char n2[32];
      fmt_num(num, lo), fmt_num(n2, hi);
      bool neg = rnd(2);
      OUT("a %sBETWEEN %s AND %s", neg ? "NOT " : "", num, n2);
      if (neg) {
        ref *nr = &pool[pool_n++];
        memset(nr, 0, sizeof *nr);
        nr->kind = R_NOT, nr->kids[0] = r, nr->n_kids = 1;
        return nr;
      }
      return r;
  }
#undef OUT
}

/* ---- the table ---- */

static void fill_data(void) {
  for (int i = 0; i < N; i++) {
    /* Row groups of GROUP rows have narrow value ranges so pruning bites. */
    int g = i / GROUP;
    a_null[i] = rnd(8) == 0;
    a_v[i] = (g % 5) - 4 + (int)rnd(4);
    b_null[i] = rnd(8) == 0;
    b_v[i] = words[(g + rnd(3)) % 8];
    c_null[i] = rnd(8) == 0;
    c_v[i] = rnd(10) == 0 ? NAN : (double)((g % 7) - 3) + 0.5 * rnd(3);
    u_v[i] = (unsigned)((g * 37 + rnd(50)) % 256);
    s_null[i] = rnd(10) == 0;
    x_null[i] = rnd(10) == 0;
    x_v[i] = (int)rnd(9) - 4;
  }
}

static void build(tbl *t) {
  static const char *names[] = {"a", "b", "c", "u", "s"};
  static const char *formats[] = {"i", "u", "g", "C", "+s"};
  tbl_schema(&t->field, names, formats, 5);
  hudi_arrow_field *s = &t->field.children[4];
  assert_int_equal(hudi_arrow_field_alloc_children(s, 1, NULL), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&s->children[0], "x", "l", ARROW_FLAG_NULLABLE, NULL), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &t->field, NULL), HUDI_OK);
  for (int i = 0; i < N; i++) {
    hudi_arrow_builder *c;
    c = hudi_arrow_batch_builder_column(bb, 0);
    assert_int_equal(a_null[i] ? hudi_arrow_builder_append_null(c, NULL) : hudi_arrow_builder_append_int(c, a_v[i], NULL), HUDI_OK);
    c = hudi_arrow_batch_builder_column(bb, 1);
    assert_int_equal(b_null[i] ? hudi_arrow_builder_append_null(c, NULL) : hudi_arrow_builder_append_str(c, b_v[i], NULL), HUDI_OK);
    c = hudi_arrow_batch_builder_column(bb, 2);
    assert_int_equal(c_null[i] ? hudi_arrow_builder_append_null(c, NULL) : hudi_arrow_builder_append_double(c, c_v[i], NULL), HUDI_OK);
    c = hudi_arrow_batch_builder_column(bb, 3);
    assert_int_equal(hudi_arrow_builder_append_uint(c, u_v[i], NULL), HUDI_OK);
    c = hudi_arrow_batch_builder_column(bb, 4);
    if (s_null[i]) {
      assert_int_equal(hudi_arrow_builder_append_null(c, NULL), HUDI_OK);
    } else {
      hudi_arrow_builder *x = hudi_arrow_builder_child(c, 0);
      assert_int_equal(x_null[i] ? hudi_arrow_builder_append_null(x, NULL) : hudi_arrow_builder_append_int(x, x_v[i], NULL), HUDI_OK);
      assert_int_equal(hudi_arrow_builder_end_element(c, NULL), HUDI_OK);
    }
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, NULL), HUDI_OK);
  }
  tbl_finish(t, bb);
  hudi_arrow_batch_builder_free(bb);
}

/* Statistics of column `name` over rows [lo, hi), from the plain arrays. */
static void stats_of(hudi_col_stats *st, const char *name, int lo, int hi) {
  memset(st, 0, sizeof *st);
  st->null_count = 0;
  st->nan_count = 0;
  for (int i = lo; i < hi; i++) {
    hudi_value v = {0};
    bool isnull = false;
    if (!strcmp(name, "a")) isnull = a_null[i], v.cls = HUDI_VC_INT, v.v.i = a_v[i];
    else if (!strcmp(name, "b")) {
      isnull = b_null[i], v.cls = HUDI_VC_BYTES;
      v.v.bytes.data = (const uint8_t *)b_v[i], v.v.bytes.len = strlen(b_v[i]);
    } else if (!strcmp(name, "c")) {
      isnull = c_null[i], v.cls = HUDI_VC_DOUBLE, v.v.d = c_v[i];
      if (!isnull && isnan(c_v[i])) {
        st->nan_count++;
        continue; /* as Parquet writers do: NaN stays out of min/max */
      }
    } else if (!strcmp(name, "u")) isnull = false, v.cls = HUDI_VC_UINT, v.v.u = u_v[i];
    else if (!strcmp(name, "s.x")) isnull = s_null[i] || x_null[i], v.cls = HUDI_VC_INT, v.v.i = x_v[i];
    else fail_msg("unexpected column %s", name);
    if (isnull) {
      st->null_count++;
      continue;
    }
    if (!st->has_min || hudi_value_cmp(&v, &st->min) < 0) st->min = v, st->has_min = true;
    if (!st->has_max || hudi_value_cmp(&v, &st->max) > 0) st->max = v, st->has_max = true;
  }
}

static void test_random_against_reference(void **state) {
  (void)state;
  fill_data();
  tbl t;
  memset(&t, 0, sizeof t);
  build(&t);
  char buf[8192];
  int pruned = 0, groups = 0, selected_total = 0;
  for (int iter = 0; iter < 3000; iter++) {
    pool_n = 0;
    size_t len = 0;
    ref *r = gen(buf, &len, 0);
    hudi_pred *p = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    if (hudi_pred_compile(&p, buf, &t.field, &err) != HUDI_OK) fail_msg("%s: %s", buf, err.message);
    hudi_selection sel;
    assert_int_equal(hudi_pred_eval(&sel, p, &t.view, &err), HUDI_OK);
    int count = 0;
    for (int i = 0; i < N; i++) {
      int want = ref_eval(r, i);
      if (hudi_selection_get(&sel, i) != (want == T))
        fail_msg("%s\n row %d: a=%d%s b=%s%s c=%g%s u=%u s.x=%d%s%s: reference %d", buf, i, a_v[i],
                 a_null[i] ? "(null)" : "", b_v[i], b_null[i] ? "(null)" : "", c_v[i], c_null[i] ? "(null)" : "",
                 u_v[i], x_v[i], x_null[i] ? "(null)" : "", s_null[i] ? "(s null)" : "", want);
      count += want == T;
    }
    assert_int_equal(sel.n_selected, count);
    selected_total += count;
    /* Pruning soundness: per row group, "cannot match" means no TRUE row. */
    size_t nc = hudi_pred_n_columns(p);
    hudi_col_stats st[8];
    assert_true(nc <= 8);
    for (int g = 0; g < N / GROUP; g++) {
      for (size_t k = 0; k < nc; k++) stats_of(&st[k], hudi_pred_column_name(p, k), g * GROUP, (g + 1) * GROUP);
      bool might;
      hudi_pred_prune(&might, p, st, GROUP);
      groups++;
      if (might) continue;
      pruned++;
      for (int i = g * GROUP; i < (g + 1) * GROUP; i++)
        if (ref_eval(r, i) == T) fail_msg("%s: group %d pruned but row %d matches", buf, g, i);
    }
    hudi_selection_free(&sel);
    hudi_pred_free(p);
  }
  /* The test means something only if both outcomes happen often. */
  assert_true(selected_total > 3000 * N / 20);
  assert_true(pruned > groups / 10);
  tbl_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_against_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

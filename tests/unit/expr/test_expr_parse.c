/* Parser: canonical renderings of valid predicates, positions in syntax
 * errors, limits, and hudi-rs filter tuples (cases taken from hudi-rs's
 * crates/core/src/expr/filter.rs tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "expr/ast.h"

static void expect_render(const char *sql, const char *want) {
  hudi_expr *e = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_expr_parse(&e, sql, strlen(sql), &err) != HUDI_OK) fail_msg("parsing %s: %s", sql, err.message);
  char *s = NULL;
  assert_int_equal(hudi_expr_to_string(&s, NULL, e, &err), HUDI_OK);
  if (strcmp(s, want) != 0) fail_msg("%s\n  got  %s\n  want %s", sql, s, want);
  /* The rendering parses back to itself. */
  hudi_expr *e2 = NULL;
  char *s2 = NULL;
  assert_int_equal(hudi_expr_parse(&e2, s, strlen(s), &err), HUDI_OK);
  assert_int_equal(hudi_expr_to_string(&s2, NULL, e2, &err), HUDI_OK);
  assert_string_equal(s, s2);
  hudi_free(s);
  hudi_free(s2);
  hudi_expr_free(e);
  hudi_expr_free(e2);
}

static void expect_error(const char *sql, hudi_status code, const char *fragment) {
  hudi_expr *e = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_expr_parse(&e, sql, strlen(sql), &err);
  if (st != code) fail_msg("%s: status %d (%s), want %d", sql, st, err.message, code);
  assert_null(e);
  if (!strstr(err.message, fragment)) fail_msg("%s: message '%s' lacks '%s'", sql, err.message, fragment);
}

static void test_valid(void **state) {
  (void)state;
  expect_render("doc_id = 'doc3'", "`doc_id` = 'doc3'");
  expect_render("a=1 and b<>2 OR c != 3", "((`a` = 1) AND (`b` != 2)) OR (`c` != 3)");
}

static void test_precedence(void **state) {
  (void)state;
  /* AND binds tighter than OR; NOT tighter than AND; chains flatten. */
  expect_render("a=1 OR b=2 AND c=3", "(`a` = 1) OR ((`b` = 2) AND (`c` = 3))");
  expect_render("a=1 AND b=2 AND c=3 AND d=4", "(`a` = 1) AND (`b` = 2) AND (`c` = 3) AND (`d` = 4)");
  expect_render("NOT a = 1 AND b = 2", "(NOT (`a` = 1)) AND (`b` = 2)");
  expect_render("(a=1 OR b=2) AND c=3", "((`a` = 1) OR (`b` = 2)) AND (`c` = 3)");
  expect_render("NOT NOT x", "NOT (NOT (`x`))");
  expect_render("((((a = 1))))", "`a` = 1");
}

static void test_forms(void **state) {
  (void)state;
  expect_render("x IN (1, 2.5, -3, 'a', NULL)", "`x` IN (1, 2.5, -3, 'a', NULL)");
  expect_render("x not in ('a')", "`x` NOT IN ('a')");
  expect_render("x IS NULL", "`x` IS NULL");
  expect_render("x is not null", "`x` IS NOT NULL");
  expect_render("x BETWEEN 1 AND 5", "(`x` >= 1) AND (`x` <= 5)");
  expect_render("x NOT BETWEEN 1 AND 5 AND y = 2", "(NOT ((`x` >= 1) AND (`x` <= 5))) AND (`y` = 2)");
  expect_render("name LIKE 'pat%'", "`name` LIKE 'pat%'");
  expect_render("name NOT LIKE '_x'", "`name` NOT LIKE '_x'");
  expect_render("5 < x", "5 < `x`");
  expect_render("a <= b", "`a` <= `b`");
  expect_render("a == 1", "`a` = 1");
  expect_render("flag", "`flag`");
  expect_render("TRUE", "TRUE");
  expect_render("x >= 1e3 AND y < -.5 AND z = +7 AND w = 1.", "(`x` >= 1e3) AND (`y` < -.5) AND (`z` = 7) AND (`w` = 1.)");
  expect_render("s = 'it''s'", "`s` = 'it''s'");
  expect_render("d = DATE '2024-01-01' and t > timestamp '2024-01-01 00:00:00'",
                "(`d` = DATE '2024-01-01') AND (`t` > TIMESTAMP '2024-01-01 00:00:00')");
  /* DATE/TIMESTAMP not followed by a string are column names. */
  expect_render("date = '2024-01-01'", "`date` = '2024-01-01'");
  expect_render("\"my col\" = 1 AND `we``ird` = 2 AND \"a\"\"b\" = 3",
                "(`my col` = 1) AND (`we``ird` = 2) AND (`a\"b` = 3)");
  expect_render("address.city = 'x' and a.\"b c\".d = 1", "(`address`.`city` = 'x') AND (`a`.`b c`.`d` = 1)");
  expect_render("  a\t=\n1  ", "`a` = 1");
}

static void test_errors(void **state) {
  (void)state;
  expect_error("doc_id = 'doc3')", HUDI_ERR_INVALID_ARG, "unexpected token ')' at position 15");
  expect_error("(a = 1", HUDI_ERR_INVALID_ARG, "unexpected end of input at position 6; expected ')'");
  expect_error("a = ", HUDI_ERR_INVALID_ARG, "end of input at position 4; expected a column or a literal");
  expect_error("a = 1 AND", HUDI_ERR_INVALID_ARG, "position 9");
  expect_error("a = 'abc", HUDI_ERR_INVALID_ARG, "unterminated string starting at position 4");
  expect_error("\"abc = 1", HUDI_ERR_INVALID_ARG, "unterminated quoted name starting at position 0");
  expect_error("a # 1", HUDI_ERR_INVALID_ARG, "unexpected character '#' at position 2");
  expect_error("a = 1 b = 2", HUDI_ERR_INVALID_ARG, "unexpected token 'b' at position 6; expected AND, OR");
  expect_error("a IN ()", HUDI_ERR_INVALID_ARG, "unexpected token ')' at position 6; expected a literal in the IN list");
  expect_error("a IN (1, b)", HUDI_ERR_INVALID_ARG, "unexpected token 'b' at position 9");
  expect_error("a NOT 1", HUDI_ERR_INVALID_ARG, "expected IN, BETWEEN or LIKE after NOT");
  expect_error("a IS 1", HUDI_ERR_INVALID_ARG, "expected NULL or NOT after IS");
  expect_error("a BETWEEN 1 OR 2", HUDI_ERR_INVALID_ARG, "expected AND in BETWEEN");
  expect_error("a LIKE b", HUDI_ERR_INVALID_ARG, "expected a string pattern after LIKE");
  expect_error("a. = 1", HUDI_ERR_INVALID_ARG, "expected a field name after '.'");
  expect_error("and = 1", HUDI_ERR_INVALID_ARG, "unexpected token 'and' at position 0");
  expect_error("a = -'x'", HUDI_ERR_INVALID_ARG, "expected a number after the sign");
  expect_error("", HUDI_ERR_INVALID_ARG, "empty predicate");
  expect_error("a ! 1", HUDI_ERR_INVALID_ARG, "unexpected character '!' at position 2");
  expect_error("a = 1)", HUDI_ERR_INVALID_ARG, "unbalanced");
}

static void test_limits(void **state) {
  (void)state;
  size_t depth = HUDI_EXPR_MAX_DEPTH + 1;
  char *s = malloc(depth * 2 + 16);
  size_t k = 0;
  for (size_t i = 0; i < depth; i++) s[k++] = '(';
  memcpy(s + k, "a=1", 3);
  k += 3;
  for (size_t i = 0; i < depth; i++) s[k++] = ')';
  s[k] = 0;
  expect_error(s, HUDI_ERR_LIMIT, "nests deeper than 128");
  /* One level less parses. */
  hudi_expr *e = NULL;
  assert_int_equal(hudi_expr_parse(&e, s + 1, k - 2, NULL), HUDI_OK);
  hudi_expr_free(e);
  free(s);
  /* NOT chains count too. */
  s = malloc(depth * 4 + 8);
  k = 0;
  for (size_t i = 0; i < depth; i++) memcpy(s + k, "NOT ", 4), k += 4;
  s[k++] = 'x';
  s[k] = 0;
  expect_error(s, HUDI_ERR_LIMIT, "nests deeper");
  free(s);
  /* A long flat AND chain is fine (n-ary, not deep). */
  size_t terms = 20000;
  s = malloc(terms * 10 + 8);
  k = 0;
  for (size_t i = 0; i < terms; i++) k += (size_t)sprintf(s + k, "%sa=%zu", i ? " AND " : "", i % 10);
  assert_int_equal(hudi_expr_parse(&e, s, k, NULL), HUDI_OK);
  assert_int_equal(e->kind, HUDI_EXPR_AND);
  assert_int_equal(e->n_children, terms);
  hudi_expr_free(e);
  free(s);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_expr_parse(&e, "a", HUDI_EXPR_MAX_LEN + 1, &err), HUDI_ERR_LIMIT);
}

static void expect_filter(const char *field, const char *op, const char *value, const char *want) {
  hudi_expr *e = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_expr_from_filter(&e, field, op, value, &err) != HUDI_OK) fail_msg("%s %s %s: %s", field, op, value, err.message);
  char *s = NULL;
  assert_int_equal(hudi_expr_to_string(&s, NULL, e, &err), HUDI_OK);
  if (strcmp(s, want) != 0) fail_msg("got %s want %s", s, want);
  hudi_free(s);
  hudi_expr_free(e);
}

static void test_filter_tuples(void **state) {
  (void)state;
  expect_filter("col", "IN", "a,b,c", "`col` IN ('a', 'b', 'c')");
  expect_filter("col", "NOT IN", "x, y", "`col` NOT IN ('x', 'y')");
  expect_filter("col", "not in", "x", "`col` NOT IN ('x')");
  expect_filter("name", "IN", "Smith\\, John,Jane", "`name` IN ('Smith, John', 'Jane')");
  expect_filter("name", "IN", "a\\\\b,c\\d", "`name` IN ('a\\b', 'c\\d')");
  expect_filter("name", "IN", "x\\", "`name` IN ('x\\')");
  expect_filter("name", "IN", "a,,b", "`name` IN ('a', 'b')");
  /* Scalar values are taken verbatim: no unescaping, no trimming. */
  expect_filter("city", "=", "a,b\\c", "`city` = 'a,b\\c'");
  expect_filter("city", ">=", " 5 ", "`city` >= ' 5 '");
  expect_filter("a.b", "=", "1", "`a.b` = '1'");
  hudi_expr *e = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_expr_from_filter(&e, "col", "IN", "", &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "at least one value"));
  assert_int_equal(hudi_expr_from_filter(&e, "col", "IN", " , ,", &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_expr_from_filter(&e, "col", "?!", "1", &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "unsupported operator '?!'"));
  /* hudi-rs has no <> and no padded operators. */
  assert_int_equal(hudi_expr_from_filter(&e, "col", "<>", "1", &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_expr_from_filter(&e, "col", "NOT  IN", "1", &err), HUDI_ERR_INVALID_ARG);
  const char *fields[] = {"a", "b"}, *ops[] = {"=", ">"}, *values[] = {"x", "1"};
  assert_int_equal(hudi_expr_from_filters(&e, fields, ops, values, 2, &err), HUDI_OK);
  char *s = NULL;
  assert_int_equal(hudi_expr_to_string(&s, NULL, e, &err), HUDI_OK);
  assert_string_equal(s, "(`a` = 'x') AND (`b` > '1')");
  hudi_free(s);
  hudi_expr_free(e);
}

static void test_literal(void **state) {
  (void)state;
  hudi_expr_literal lit;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_expr_parse_literal(&lit, "'red''acted'", 12, &err), HUDI_OK);
  assert_int_equal(lit.kind, HUDI_LIT_STRING);
  assert_string_equal(lit.text, "red'acted");
  hudi_expr_literal_clear(&lit);
  assert_int_equal(hudi_expr_parse_literal(&lit, "-12.50", 6, &err), HUDI_OK);
  assert_int_equal(lit.kind, HUDI_LIT_DECIMAL);
  assert_string_equal(lit.text, "-12.50");
  hudi_expr_literal_clear(&lit);
  assert_int_equal(hudi_expr_parse_literal(&lit, "x", 1, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_expr_parse_literal(&lit, "1 2", 3, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "position 2"));
}

static void test_alloc_failures(void **state) {
  (void)state;
  const char *sql = "a IN (1,2,'x') AND NOT (b.c LIKE 'p%' OR d BETWEEN 1 AND 2) AND e IS NOT NULL";
  for (long n = 0;; n++) {
    hudi_alloc_fail_after(n);
    hudi_expr *e = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    hudi_status st = hudi_expr_parse(&e, sql, strlen(sql), &err);
    char *s = NULL;
    if (st == HUDI_OK) st = hudi_expr_to_string(&s, NULL, e, &err);
    hudi_alloc_fail_after(-1);
    hudi_free(s);
    hudi_expr_free(e);
    if (st == HUDI_OK) break;
    assert_int_equal(st, HUDI_ERR_NOMEM);
    assert_true(n < 10000);
  }
  for (long n = 0;; n++) {
    hudi_alloc_fail_after(n);
    hudi_expr *e = NULL;
    hudi_status st = hudi_expr_from_filter(&e, "name", "NOT IN", "a\\,b, c, d", NULL);
    hudi_alloc_fail_after(-1);
    hudi_expr_free(e);
    if (st == HUDI_OK) break;
    assert_int_equal(st, HUDI_ERR_NOMEM);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid),        cmocka_unit_test(test_precedence),
      cmocka_unit_test(test_forms),        cmocka_unit_test(test_errors),
      cmocka_unit_test(test_limits),       cmocka_unit_test(test_filter_tuples),
      cmocka_unit_test(test_literal),      cmocka_unit_test(test_alloc_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

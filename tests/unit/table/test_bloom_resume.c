/* hudi_bloom_resume: a filter serialized after k keys, resumed and given m
 * more keys, serializes to the same bytes as one filter given all k + m
 * keys in order (the filter of a COW rewrite that keeps the stored rows and
 * appends new keys). Checked for k before, at and past each row boundary
 * and past max entries (the round-robin phase, whose position the text
 * does not store), with num_entries given and left to its default (a held
 * filter, sized at num_entries + 1 keys); and refused when the text does
 * not fit k keys or the options: another key count, another fpp or
 * num_entries, fewer keys than num_entries (a filter sized for fewer), a
 * corrupt text. hudi_bloom_counted says how many keys a resumed filter
 * holds. The filter itself is checked bit for bit against Java's
 * in test_bloom_many.c and the interop tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/bloom.h"

static void key(char *out, size_t cap, int64_t i) { snprintf(out, cap, "key-%07lld", (long long)(i * 7919 % 1000003)); }

static void add_keys_from(hudi_bloom *b, int64_t from, int64_t to) {
  hudi_error err = HUDI_ERROR_INIT;
  char k[32];
  for (int64_t i = from; i < to; i++) {
    key(k, sizeof k, i);
    assert_int_equal(hudi_bloom_add(b, k, strlen(k), &err), HUDI_OK);
  }
}

/* The footer text of a filter for cfg given keys [0, n). */
static void text_of(hudi_buf *out, const hudi_bloom_cfg *cfg, int64_t n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_bloom b;
  assert_int_equal(hudi_bloom_init_for(&b, cfg, &err), HUDI_OK);
  add_keys_from(&b, 0, n);
  assert_int_equal(hudi_bloom_finish(&b, &err), HUDI_OK);
  hudi_buf_init(out, (size_t)1 << 30);
  assert_int_equal(hudi_bloom_serialize(&b, out, &err), HUDI_OK);
  hudi_bloom_free(&b);
}

static void check_resume(const hudi_bloom_cfg *cfg, int64_t k, int64_t m) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf stored, whole, resumed;
  text_of(&stored, cfg, k);
  text_of(&whole, cfg, k + m);
  hudi_bloom r;
  if (!hudi_bloom_resume(&r, (const char *)stored.data, stored.len, cfg, k))
    fail_msg("a filter of %lld keys (entries %d, max %d) not resumed", (long long)k, cfg->entries, cfg->max_entries);
  add_keys_from(&r, k, k + m);
  /* Its count, keys queued or hashed (the writer's check before the footer). */
  assert_true(hudi_bloom_counted(&r, k + m));
  assert_false(hudi_bloom_counted(&r, k + m + 1));
  assert_false(hudi_bloom_counted(&r, k + m - 1));
  hudi_buf_init(&resumed, (size_t)1 << 30);
  assert_int_equal(hudi_bloom_serialize(&r, &resumed, &err), HUDI_OK);
  if (resumed.len != whole.len || memcmp(resumed.data, whole.data, whole.len) != 0)
    fail_msg("%lld keys + %lld resumed differ from %lld keys at once (entries %d, max %d)", (long long)k,
             (long long)m, (long long)(k + m), cfg->entries, cfg->max_entries);
  hudi_bloom_free(&r);
  hudi_buf_free(&stored);
  hudi_buf_free(&whole);
  hudi_buf_free(&resumed);
}

static void refused(const hudi_bloom_cfg *written, int64_t k, const hudi_bloom_cfg *now, int64_t claimed) {
  hudi_buf stored;
  text_of(&stored, written, k);
  hudi_bloom r;
  if (hudi_bloom_resume(&r, (const char *)stored.data, stored.len, now, claimed))
    fail_msg("a filter of %lld keys resumed as one of %lld", (long long)k, (long long)claimed);
  hudi_bloom_free(&r);
  hudi_buf_free(&stored);
}

static hudi_bloom_cfg cfg_of(int32_t entries, int32_t max_entries, double fpp, bool set) {
  hudi_bloom_cfg c = {true, set, entries, max_entries, fpp};
  return c;
}

static void resumed_equals_whole(void **state) {
  (void)state;
  /* 100 keys a row, rows while rows * 100 < 250: three rows, then round
   * robin from key 301. */
  for (int set = 0; set < 2; set++) {
    hudi_bloom_cfg c = cfg_of(100, 250, 1e-3, set);
    const int64_t ks[] = {100, 101, 150, 199, 200, 201, 299, 300, 301, 302, 450, 1001};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
      check_resume(&c, ks[i], 1);
      check_resume(&c, ks[i], 57);
      check_resume(&c, ks[i], 333);
    }
  }
  /* max entries below num_entries: one row (Java's max(max, entries)). */
  hudi_bloom_cfg one = cfg_of(100, 50, 1e-3, true);
  check_resume(&one, 100, 40);
  check_resume(&one, 260, 40);
  /* Hudi's defaults: 60000 a row, two rows, round robin from 120001. */
  hudi_bloom_cfg hudi = cfg_of(HUDI_BLOOM_DEFAULT_ENTRIES, HUDI_BLOOM_DEFAULT_MAX_ENTRIES, HUDI_BLOOM_DEFAULT_FPP,
                               false);
  check_resume(&hudi, 60000, 700);
  check_resume(&hudi, 119900, 300);
  check_resume(&hudi, 130001, 77);
}

static void other_filters_refused(void **state) {
  (void)state;
  hudi_bloom_cfg c = cfg_of(100, 250, 1e-3, true);
  refused(&c, 150, &c, 149);
  refused(&c, 150, &c, 151);
  refused(&c, 150, &c, 250); /* another row count */
  refused(&c, 350, &c, 351); /* round robin: the counter says how many */
  hudi_bloom_cfg fpp = cfg_of(100, 250, 1e-4, true), entries = cfg_of(120, 250, 1e-3, true);
  refused(&c, 150, &fpp, 150);
  refused(&c, 150, &entries, 150);
  /* A held filter of 60 keys is sized for 60: not one for 60 + more. */
  hudi_bloom_cfg held = cfg_of(100, 250, 1e-3, false);
  refused(&held, 60, &held, 60);
  hudi_bloom r;
  assert_false(hudi_bloom_resume(&r, "not base64!", 11, &c, 150));
  hudi_bloom_cfg off = c;
  off.on = false;
  refused(&c, 150, &off, 150);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(resumed_equals_whole), cmocka_unit_test(other_filters_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

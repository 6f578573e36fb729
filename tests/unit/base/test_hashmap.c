/* The byte-string hash map: operations checked against a brute-force
 * reference, iteration, the entry cap, and allocation failures at every
 * point (hudi_alloc_fail_after) leaving the map intact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"

static hudi_hashmap_value u64v(uint64_t v) {
  hudi_hashmap_value x;
  x.u64 = v;
  return x;
}

static void basic_operations(void **state) {
  (void)state;
  hudi_hashmap m;
  hudi_hashmap_init(&m, 0);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_hashmap_value v;
  assert_int_equal(hudi_hashmap_get(&m, "a", 1, &v), 0); /* empty map, no slots */
  assert_int_equal(hudi_hashmap_remove(&m, "a", 1, NULL), 0);
  int replaced = -1;
  assert_int_equal(hudi_hashmap_put(&m, "a", 1, u64v(1), NULL, &replaced, &err), HUDI_OK);
  assert_int_equal(replaced, 0);
  /* Keys are bytes: prefixes, embedded NULs and the empty key are distinct. */
  assert_int_equal(hudi_hashmap_put(&m, "ab", 2, u64v(2), NULL, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_hashmap_put(&m, "a\0b", 3, u64v(3), NULL, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_hashmap_put(&m, "", 0, u64v(4), NULL, NULL, &err), HUDI_OK);
  assert_int_equal(m.count, 4);
  /* The key is copied: changing the caller's buffer changes nothing. */
  char buf[8] = "key";
  int target = 7;
  hudi_hashmap_value pv;
  pv.ptr = &target;
  assert_int_equal(hudi_hashmap_put(&m, buf, 3, pv, NULL, NULL, &err), HUDI_OK);
  memcpy(buf, "xyz", 3);
  assert_int_equal(hudi_hashmap_get(&m, "key", 3, &v), 1);
  assert_ptr_equal(v.ptr, &target);
  assert_int_equal(hudi_hashmap_get(&m, "xyz", 3, NULL), 0);
  hudi_hashmap_value old;
  assert_int_equal(hudi_hashmap_put(&m, "a", 1, u64v(10), &old, &replaced, &err), HUDI_OK);
  assert_int_equal(replaced, 1);
  assert_int_equal(old.u64, 1);
  assert_int_equal(m.count, 5);
  assert_int_equal(hudi_hashmap_get(&m, "a\0b", 3, &v), 1);
  assert_int_equal(v.u64, 3);
  assert_int_equal(hudi_hashmap_get(&m, "", 0, &v), 1);
  assert_int_equal(v.u64, 4);
  assert_int_equal(hudi_hashmap_remove(&m, "ab", 2, &old), 1);
  assert_int_equal(old.u64, 2);
  assert_int_equal(hudi_hashmap_get(&m, "ab", 2, NULL), 0);
  assert_int_equal(hudi_hashmap_remove(&m, "ab", 2, NULL), 0);
  assert_int_equal(m.count, 4);
  hudi_hashmap_free(&m);
  assert_int_equal(m.count, 0);
  assert_int_equal(hudi_hashmap_get(&m, "a", 1, NULL), 0);
  hudi_hashmap_free(&m); /* twice is harmless */
}

#define N 20000

static int key_of(char *buf, size_t cap, uint32_t i) { return snprintf(buf, cap, "record-%u", i); }

/* Random puts and removes against a plain array of what must be present. */
static void matches_reference(void **state) {
  (void)state;
  static int64_t ref[N]; /* -1 absent, else the value */
  for (int i = 0; i < N; i++) ref[i] = -1;
  hudi_hashmap m;
  hudi_hashmap_init(&m, 0);
  hudi_error err = HUDI_ERROR_INIT;
  srand(99);
  size_t live = 0;
  for (int step = 0; step < 300000; step++) {
    uint32_t k = (uint32_t)rand() % N;
    char key[32];
    int len = key_of(key, sizeof key, k);
    int op = rand() % 3;
    if (op < 2) {
      int replaced;
      hudi_hashmap_value old;
      assert_int_equal(hudi_hashmap_put(&m, key, (size_t)len, u64v((uint64_t)step), &old, &replaced, &err), HUDI_OK);
      assert_int_equal(replaced, ref[k] >= 0);
      if (replaced) assert_int_equal(old.u64, (uint64_t)ref[k]);
      else live++;
      ref[k] = step;
    } else {
      hudi_hashmap_value old;
      int had = hudi_hashmap_remove(&m, key, (size_t)len, &old);
      assert_int_equal(had, ref[k] >= 0);
      if (had) {
        assert_int_equal(old.u64, (uint64_t)ref[k]);
        live--;
      }
      ref[k] = -1;
    }
    assert_int_equal(m.count, live);
    /* Tombstones never fill the table: a probe always ends. */
    assert_true(m.count + m.tombstones <= m.cap - m.cap / 4);
  }
  for (uint32_t k = 0; k < N; k++) {
    char key[32];
    int len = key_of(key, sizeof key, k);
    hudi_hashmap_value v;
    int has = hudi_hashmap_get(&m, key, (size_t)len, &v);
    assert_int_equal(has, ref[k] >= 0);
    if (has) assert_int_equal(v.u64, (uint64_t)ref[k]);
  }
  /* Iteration yields each live entry exactly once. */
  static unsigned char seen[N];
  memset(seen, 0, sizeof seen);
  size_t pos = 0, n = 0, klen;
  const uint8_t *key;
  hudi_hashmap_value v;
  while (hudi_hashmap_next(&m, &pos, &key, &klen, &v)) {
    unsigned k;
    char tmp[32];
    assert_true(klen < sizeof tmp);
    memcpy(tmp, key, klen);
    tmp[klen] = '\0';
    assert_int_equal(sscanf(tmp, "record-%u", &k), 1);
    assert_true(k < N && ref[k] >= 0 && !seen[k]);
    assert_int_equal(v.u64, (uint64_t)ref[k]);
    seen[k] = 1;
    n++;
  }
  assert_int_equal(n, live);
  assert_int_equal(hudi_hashmap_next(&m, &pos, NULL, NULL, NULL), 0);
  hudi_hashmap_free(&m);
}

static void cap_is_enforced(void **state) {
  (void)state;
  hudi_hashmap m;
  hudi_hashmap_init(&m, 100);
  hudi_error err = HUDI_ERROR_INIT;
  char key[32];
  for (uint32_t i = 0; i < 100; i++) {
    int len = key_of(key, sizeof key, i);
    assert_int_equal(hudi_hashmap_put(&m, key, (size_t)len, u64v(i), NULL, NULL, &err), HUDI_OK);
  }
  int len = key_of(key, sizeof key, 100);
  assert_int_equal(hudi_hashmap_put(&m, key, (size_t)len, u64v(0), NULL, NULL, &err), HUDI_ERR_LIMIT);
  assert_non_null(strstr(err.message, "cap of 100"));
  assert_int_equal(m.count, 100);
  /* Replacing an existing key is still allowed at the cap. */
  len = key_of(key, sizeof key, 5);
  assert_int_equal(hudi_hashmap_put(&m, key, (size_t)len, u64v(55), NULL, NULL, &err), HUDI_OK);
  /* After a removal there is room again. */
  assert_int_equal(hudi_hashmap_remove(&m, key, (size_t)len, NULL), 1);
  len = key_of(key, sizeof key, 100);
  assert_int_equal(hudi_hashmap_put(&m, key, (size_t)len, u64v(0), NULL, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_hashmap_reserve(&m, 101, &err), HUDI_ERR_LIMIT);
  assert_int_equal(hudi_hashmap_reserve(&m, 50, &err), HUDI_OK);
  hudi_hashmap_free(&m);

  hudi_hashmap_init(&m, SIZE_MAX);
  assert_int_equal(hudi_hashmap_reserve(&m, SIZE_MAX / 2, &err), HUDI_ERR_LIMIT);
  assert_int_equal(hudi_hashmap_reserve(&m, 1000, &err), HUDI_OK);
  size_t cap = m.cap;
  for (uint32_t i = 0; i < 1000; i++) {
    len = key_of(key, sizeof key, i);
    assert_int_equal(hudi_hashmap_put(&m, key, (size_t)len, u64v(i), NULL, NULL, &err), HUDI_OK);
  }
  assert_int_equal(m.cap, cap); /* reserve really made room */
  hudi_hashmap_free(&m);
}

/* Every allocation in a run of inserts fails once in turn; the failing put
 * reports NOMEM and the map still holds exactly the earlier entries. */
static void allocation_failures(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  int failures_seen = 0;
  for (long budget = 0; budget < 200; budget++) {
    hudi_hashmap m;
    hudi_hashmap_init(&m, 0);
    hudi_alloc_fail_after(budget);
    uint32_t inserted = 0;
    hudi_status st = HUDI_OK;
    char key[32];
    for (uint32_t i = 0; i < 150; i++) {
      int len = key_of(key, sizeof key, i);
      st = hudi_hashmap_put(&m, key, (size_t)len, u64v(i * 3), NULL, NULL, &err);
      if (st != HUDI_OK) break;
      inserted++;
    }
    hudi_alloc_fail_after(-1);
    if (st != HUDI_OK) {
      failures_seen++;
      assert_int_equal(st, HUDI_ERR_NOMEM);
      assert_int_equal(err.code, HUDI_ERR_NOMEM);
      assert_non_null(strstr(err.message, "hash map"));
    }
    assert_int_equal(m.count, inserted);
    for (uint32_t i = 0; i < 150; i++) {
      int len = key_of(key, sizeof key, i);
      hudi_hashmap_value v;
      int has = hudi_hashmap_get(&m, key, (size_t)len, &v);
      assert_int_equal(has, i < inserted);
      if (has) assert_int_equal(v.u64, i * 3);
    }
    /* The map keeps working after the failure. */
    int len = key_of(key, sizeof key, 999);
    assert_int_equal(hudi_hashmap_put(&m, key, (size_t)len, u64v(1), NULL, NULL, &err), HUDI_OK);
    hudi_hashmap_free(&m);
  }
  /* 150 key copies plus a few table growths: most budgets must fail. */
  assert_true(failures_seen >= 150);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(basic_operations),
      cmocka_unit_test(matches_reference),
      cmocka_unit_test(cap_is_enforced),
      cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

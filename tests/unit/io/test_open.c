/* Opening storage by URI (schemes, file: forms, options), the scheme
 * registry, and the path rules every backend relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "io/backend.h"
#include "io_test.h"

/* Opens uri and checks the local base it resolved to. */
static void expect_local_base(const char *uri, const char *want) {
  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_storage_open(&s, uri, NULL, 0, &err);
  if (st != HUDI_OK) fail_msg("open '%s': %s", uri, err.message);
  assert_string_equal(hudi_storage_backend_name(s), "local");
  assert_string_equal(hudi_storage_base(s), want);
  hudi_storage_free(s);
}

static void file_uris_and_plain_paths(void **state) {
  (void)state;
  expect_local_base("/data/t", "/data/t");
  expect_local_base("/data/t/", "/data/t");
  expect_local_base("//data///t/./x/..", "/data/t");
  expect_local_base("/..", "/");
  expect_local_base("/", "/");
  expect_local_base("file:///data/t", "/data/t");
  expect_local_base("FILE:///data/t", "/data/t");
  expect_local_base("file:/data/t", "/data/t"); /* Hadoop's spelling */
  expect_local_base("file://localhost/data/t", "/data/t");
  expect_local_base("file:///data/a%20b%2Fc", "/data/a b/c");
  /* A colon without "//" is part of a plain path, not a scheme. */
  expect_local_base("/data/my:table", "/data/my:table");

  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_open(&s, "file://otherhost/data", NULL, 0, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "otherhost"));
  assert_int_equal(hudi_storage_open(&s, "file:relative", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_open(&s, "file:///bad%zz", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_open(&s, "file:///nul%00", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_open(&s, "", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_null(s);
}

static void relative_paths_resolve_against_cwd(void **state) {
  (void)state;
  char *dir = io_make_temp_dir();
  char old[4096];
  assert_non_null(getcwd(old, sizeof old));
  assert_int_equal(chdir(dir), 0);
  /* mkdtemp's dir may sit behind a symlink; compare with the kernel's cwd. */
  char cwd[4096], want[8192];
  assert_non_null(getcwd(cwd, sizeof cwd));
  snprintf(want, sizeof want, "%s/rel/t", cwd);
  hudi_storage *s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_open(&s, "./rel//t/", NULL, 0, &err), HUDI_OK);
  assert_string_equal(hudi_storage_base(s), want);
  assert_int_equal(chdir(old), 0);
  /* The base stays put after the chdir. */
  assert_int_equal(hudi_storage_write(s, "f", "1", 1, 0, &err), HUDI_OK);
  assert_true(io_exists(dir, "rel/t/f"));
  hudi_storage_free(s);
  assert_int_equal(io_rm_rf(dir), 0);
  free(dir);
}

static void unknown_schemes_are_named(void **state) {
  (void)state;
  /* s3, s3a, gs, az, abfs and abfss have backends (test_s3.c, test_azure.c). */
  const char *uris[] = {"wasb://c/t", "adl://a/t", "hdfs://nn:8020/t", "s3x://b/t"};
  const char *schemes[] = {"'wasb'", "'adl'", "'hdfs'", "'s3x'"};
  for (size_t i = 0; i < sizeof uris / sizeof uris[0]; i++) {
    hudi_storage *s = (hudi_storage *)1;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_storage_open(&s, uris[i], NULL, 0, &err), HUDI_ERR_UNSUPPORTED);
    assert_null(s);
    assert_non_null(strstr(err.message, schemes[i]));
  }
}

static void options_are_checked(void **state) {
  (void)state;
  hudi_storage *s;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage_option good[] = {{"aws_region", "eu-west-1"}, {"fsync", "FALSE"}};
  assert_int_equal(hudi_storage_open(&s, "/tmp/x", good, 2, &err), HUDI_OK);
  hudi_storage_free(s);
  hudi_storage_option bad[] = {{"fsync", "maybe"}};
  assert_int_equal(hudi_storage_open(&s, "/tmp/x", bad, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "fsync"));
  assert_non_null(strstr(err.message, "maybe"));
  hudi_storage_option null_value[] = {{"fsync", NULL}};
  assert_int_equal(hudi_storage_open(&s, "/tmp/x", null_value, 1, &err), HUDI_ERR_INVALID_ARG);
  hudi_storage_option twice[] = {{"k", "1"}, {"k", "2"}};
  assert_string_equal(hudi_storage_option_get(twice, 2, "k"), "2");
  assert_null(hudi_storage_option_get(twice, 2, "missing"));
}

/* A test backend: "memfs://<path>" opens the local backend at <path>, so
 * a registered scheme can be seen to route. */
static hudi_status memfs_open(hudi_storage **out, const char *uri, const hudi_storage_option *options,
                              size_t n_options, hudi_error *err) {
  return hudi_local_storage_open(out, uri + strlen("memfs://"), options, n_options, err);
}

static void registry_routes_new_schemes(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s;
  assert_int_equal(hudi_storage_open(&s, "memfs:///tmp/t", NULL, 0, &err), HUDI_ERR_UNSUPPORTED);
  assert_int_equal(hudi_storage_register("MemFS", memfs_open, &err), HUDI_OK);
  assert_int_equal(hudi_storage_open(&s, "memfs:///tmp/t", NULL, 0, &err), HUDI_OK);
  assert_string_equal(hudi_storage_base(s), "/tmp/t");
  hudi_storage_free(s);
  assert_int_equal(hudi_storage_register("memfs", memfs_open, &err), HUDI_ERR_EXISTS);
  assert_int_equal(hudi_storage_register("file", memfs_open, &err), HUDI_ERR_EXISTS);
  assert_int_equal(hudi_storage_register("1bad", memfs_open, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_register("a/b", memfs_open, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_register("ok", NULL, &err), HUDI_ERR_INVALID_ARG);
}

static void expect_norm(const char *in, const char *want) {
  char *out = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_path_normalize(&out, in, &err);
  if (!want) {
    assert_int_equal(st, HUDI_ERR_INVALID_ARG);
    assert_null(out);
    return;
  }
  if (st != HUDI_OK) fail_msg("normalize '%s': %s", in, err.message);
  assert_string_equal(out, want);
  hudi_free(out);
}

static void relative_path_normalisation(void **state) {
  (void)state;
  expect_norm("", "");
  expect_norm(".", "");
  expect_norm("a", "a");
  expect_norm("a/b/c", "a/b/c");
  expect_norm("a//b/./c/", "a/b/c");
  expect_norm("./a/../b", "b");
  expect_norm("a/b/../../c", "c");
  expect_norm("a/..", "");
  expect_norm("a/...", "a/...");
  expect_norm(".hoodie/..x", ".hoodie/..x");
  expect_norm("..", NULL);
  expect_norm("../a", NULL);
  expect_norm("a/../..", NULL);
  expect_norm("a/../../a", NULL);
  expect_norm("/a", NULL);
  expect_norm(NULL, NULL);
}

static void expect_abs(const char *in, const char *want) {
  char buf[256];
  strcpy(buf, in);
  hudi_path_normalize_abs(buf);
  assert_string_equal(buf, want);
}

static void absolute_path_normalisation(void **state) {
  (void)state;
  expect_abs("/", "/");
  expect_abs("//", "/");
  expect_abs("/a/b/", "/a/b");
  expect_abs("/a/./b//c/..", "/a/b");
  expect_abs("/../../a", "/a");
  expect_abs("/a/b/../../..", "/");
  expect_abs("/aa/bbb/../c/./dd", "/aa/c/dd");
}

static void temp_names(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  char *a, *b;
  assert_int_equal(hudi_path_temp_sibling(&a, ".hoodie/timeline/001.commit", &err), HUDI_OK);
  assert_int_equal(hudi_path_temp_sibling(&b, ".hoodie/timeline/001.commit", &err), HUDI_OK);
  assert_string_not_equal(a, b);
  assert_int_equal(strncmp(a, ".hoodie/timeline/.001.commit.", 29), 0);
  assert_true(hudi_storage_is_temp_name(strrchr(a, '/') + 1));
  hudi_free(a);
  hudi_free(b);
  assert_int_equal(hudi_path_temp_sibling(&a, "top", &err), HUDI_OK);
  assert_int_equal(strncmp(a, ".top.", 5), 0);
  assert_true(hudi_storage_is_temp_name(a));
  hudi_free(a);
  /* Long names are shortened so the temp name still fits NAME_MAX. */
  char longname[300];
  memset(longname, 'n', 255);
  longname[255] = '\0';
  assert_int_equal(hudi_path_temp_sibling(&a, longname, &err), HUDI_OK);
  assert_true(strlen(a) <= 255);
  hudi_free(a);

  /* Hudi's own names are never taken for temporaries. */
  assert_false(hudi_storage_is_temp_name(".f1_20240101000000000.log.1_0-1-2"));
  assert_false(hudi_storage_is_temp_name("hoodie.properties"));
  assert_false(hudi_storage_is_temp_name("20240101000000000.commit"));
  assert_false(hudi_storage_is_temp_name(".hoodie"));
  assert_false(hudi_storage_is_temp_name(".hudi-tmp"));
  assert_false(hudi_storage_is_temp_name("x.hudi-tmp"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(file_uris_and_plain_paths),   cmocka_unit_test(relative_paths_resolve_against_cwd),
      cmocka_unit_test(unknown_schemes_are_named),   cmocka_unit_test(options_are_checked),
      cmocka_unit_test(registry_routes_new_schemes), cmocka_unit_test(relative_path_normalisation),
      cmocka_unit_test(absolute_path_normalisation), cmocka_unit_test(temp_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

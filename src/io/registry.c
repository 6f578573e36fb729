/* Picks a storage backend by URI scheme. Built-in backends sit in a
 * constant table; hudi_storage_register adds more at run time (tests, or
 * optional object-store backends). */
#include <ctype.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "io/backend.h"
#include "io/azure.h"
#include "io/s3.h"

#define SCHEME_MAX 32
#define REGISTRY_MAX 16

typedef struct scheme_entry {
  char scheme[SCHEME_MAX + 1];
  hudi_storage_open_fn open;
} scheme_entry;

static const scheme_entry g_builtin[] = {
    {"file", hudi_local_storage_open},
    {"s3", hudi_s3_storage_open},
    {"s3a", hudi_s3_storage_open},
    {"gs", hudi_gcs_storage_open},
    {"az", hudi_azure_storage_open}, {"abfs", hudi_azure_storage_open}, {"abfss", hudi_azure_storage_open},
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static scheme_entry g_registered[REGISTRY_MAX];
static size_t g_n_registered;

static hudi_storage_open_fn find_locked(const char *scheme) {
  for (size_t i = 0; i < sizeof g_builtin / sizeof g_builtin[0]; i++)
    if (strcmp(g_builtin[i].scheme, scheme) == 0) return g_builtin[i].open;
  for (size_t i = 0; i < g_n_registered; i++)
    if (strcmp(g_registered[i].scheme, scheme) == 0) return g_registered[i].open;
  return NULL;
}

/* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
static bool valid_scheme(const char *s, size_t n) {
  if (n == 0 || n > SCHEME_MAX || !isalpha((unsigned char)s[0])) return false;
  for (size_t i = 1; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.') return false;
  return true;
}

hudi_status hudi_storage_register(const char *scheme, hudi_storage_open_fn open_fn,
                                  hudi_error *err) {
  size_t n = scheme ? strlen(scheme) : 0;
  if (!valid_scheme(scheme ? scheme : "", n) || !open_fn)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot register storage scheme '%s'",
                        scheme ? scheme : "(null)");
  char lower[SCHEME_MAX + 1];
  for (size_t i = 0; i <= n; i++) lower[i] = (char)tolower((unsigned char)scheme[i]);
  hudi_status st = HUDI_OK;
  pthread_mutex_lock(&g_lock);
  if (find_locked(lower)) {
    st = hudi_err_set(err, HUDI_ERR_EXISTS, "storage scheme '%s' is already registered", lower);
  } else if (g_n_registered == REGISTRY_MAX) {
    st = hudi_err_set(err, HUDI_ERR_LIMIT, "too many storage schemes (%d)", REGISTRY_MAX);
  } else {
    memcpy(g_registered[g_n_registered].scheme, lower, n + 1);
    g_registered[g_n_registered].open = open_fn;
    g_n_registered++;
  }
  pthread_mutex_unlock(&g_lock);
  return st;
}

/* The lower-cased scheme of uri into scheme (SCHEME_MAX + 1 bytes): "x"
 * for "x://...", "file" for "file:..." (Hadoop writes "file:/path"), and
 * "file" for anything else, a plain path (which may contain ':'). */
static void uri_scheme(const char *uri, char *scheme) {
  const char *colon = strchr(uri, ':');
  size_t n = colon ? (size_t)(colon - uri) : 0;
  bool is_uri = colon && valid_scheme(uri, n) &&
                (strncmp(colon, "://", 3) == 0 || (n == 4 && strncasecmp(uri, "file", 4) == 0));
  if (!is_uri) {
    strcpy(scheme, "file");
    return;
  }
  for (size_t i = 0; i < n; i++) scheme[i] = (char)tolower((unsigned char)uri[i]);
  scheme[n] = '\0';
}

hudi_status hudi_storage_open(hudi_storage **out, const char *base_uri,
                              const hudi_storage_option *options, size_t n_options,
                              hudi_error *err) {
  *out = NULL;
  if (!base_uri || !base_uri[0])
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "storage base URI is empty");
  for (size_t i = 0; i < n_options; i++)
    if (!options[i].key || !options[i].value)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "storage option %zu has a NULL key or value", i);
  char scheme[SCHEME_MAX + 1];
  uri_scheme(base_uri, scheme);
  pthread_mutex_lock(&g_lock);
  hudi_storage_open_fn open_fn = find_locked(scheme);
  pthread_mutex_unlock(&g_lock);
  if (!open_fn)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "storage scheme '%s' (in '%s') is not supported; this build reads file:, "
                        "s3:, s3a:, gs:, az:, abfs: and abfss: URIs and plain paths",
                        scheme, base_uri);
  return open_fn(out, base_uri, options, n_options, err);
}

#include "table/base_file.h"

#include <stdio.h>
#include <string.h>

static int is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/* Copies s[0..n) into dst (cap bytes) if every byte passes ok(). */
static int take(char *dst, size_t cap, const char *s, size_t n, int (*ok)(char)) {
  if (n == 0 || n >= cap) return 0;
  for (size_t i = 0; i < n; i++)
    if (!ok(s[i])) return 0;
  memcpy(dst, s, n);
  dst[n] = '\0';
  return 1;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alnum(char c) { return is_id_char(c) && c != '-'; }

int hudi_base_file_name_parse(hudi_base_file_name *out, const char *name) {
  memset(out, 0, sizeof *out);
  const char *dot = strrchr(name, '.');
  if (!dot || dot == name) return 0;
  const char *us2 = NULL, *us1 = strchr(name, '_');
  for (const char *p = name; p < dot; p++)
    if (*p == '_') us2 = p;
  if (!us1 || !us2 || us1 == us2) return 0;
  return take(out->file_id, sizeof out->file_id, name, (size_t)(us1 - name), is_id_char) &&
         take(out->write_token, sizeof out->write_token, us1 + 1, (size_t)(us2 - us1 - 1), is_id_char) &&
         take(out->instant, sizeof out->instant, us2 + 1, (size_t)(dot - us2 - 1), is_digit) &&
         take(out->ext, sizeof out->ext, dot + 1, strlen(dot + 1), is_alnum);
}

int hudi_base_file_name_format(char *buf, size_t cap, const char *file_id, const char *write_token,
                               const char *instant, const char *ext) {
  int n = snprintf(buf, cap, "%s_%s_%s.%s", file_id, write_token, instant, ext);
  return (n < 0 || (size_t)n >= cap) ? -1 : n;
}

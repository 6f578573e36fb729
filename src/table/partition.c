/* Partition path parsing for pruning (see partition.h). */
#include "table/partition.h"

#include <ctype.h>
#include <string.h>

#include "base/alloc.h"

void hudi_partition_spec_free(hudi_partition_spec *s) {
  for (size_t i = 0; i < s->n_fields; i++) hudi_free(s->fields[i]);
  memset(s, 0, sizeof *s);
}

static bool contains_ci(const char *s, const char *needle) {
  if (!s) return false;
  size_t n = strlen(needle);
  for (; *s; s++)
    if (strncasecmp(s, needle, n) == 0) return true;
  return false;
}

hudi_status hudi_partition_spec_init(hudi_partition_spec *out, const hudi_props *props, hudi_error *err) {
  memset(out, 0, sizeof *out);
  const char *hive = hudi_props_get(props, "hoodie.datasource.write.hive_style_partitioning");
  out->hive_style = hive && strcasecmp(hive, "true") == 0;
  const char *kg_class = hudi_props_get(props, "hoodie.table.keygenerator.class");
  const char *kg_type = hudi_props_get(props, "hoodie.table.keygenerator.type");
  out->prunable = !(contains_ci(kg_class, "Timestamp") || contains_ci(kg_class, "Custom") ||
                    contains_ci(kg_type, "TIMESTAMP") || contains_ci(kg_type, "CUSTOM"));
  const char *fields = hudi_props_get(props, "hoodie.table.partition.fields");
  if (!fields || contains_ci(kg_class, "Nonpartitioned") || contains_ci(kg_type, "NON_PARTITION")) return HUDI_OK;
  const char *p = fields;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *colon = memchr(p, ':', len);
    size_t name_len = colon ? (size_t)(colon - p) : len;
    while (name_len && isspace((unsigned char)p[name_len - 1])) name_len--;
    while (name_len && isspace((unsigned char)*p)) p++, name_len--, len--;
    if (name_len) {
      if (out->n_fields == HUDI_PARTITION_MAX_FIELDS) {
        hudi_partition_spec_free(out);
        return hudi_err_set(err, HUDI_ERR_LIMIT, "more than %d partition fields", HUDI_PARTITION_MAX_FIELDS);
      }
      char *f = hudi_malloc(name_len + 1);
      if (!f) {
        hudi_partition_spec_free(out);
        return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      }
      memcpy(f, p, name_len);
      f[name_len] = 0;
      out->fields[out->n_fields++] = f;
    }
    if (!end) break;
    p = end + 1;
  }
  return HUDI_OK;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* URL-decodes s[0, len) in place; returns the new length. */
static size_t url_decode(char *s, size_t len) {
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    int h, l;
    if (s[i] == '%' && i + 2 < len && (h = hexval(s[i + 1])) >= 0 && (l = hexval(s[i + 2])) >= 0) {
      s[o++] = (char)(h * 16 + l);
      i += 2;
    } else {
      s[o++] = s[i];
    }
  }
  return o;
}

hudi_status hudi_partition_might_match(bool *out, const hudi_partition_spec *s, const hudi_pred *p,
                                       const char *partition_path, hudi_error *err) {
  *out = true;
  if (!p || !s->prunable || s->n_fields == 0) return HUDI_OK;
  size_t plen = strlen(partition_path);
  char *copy = hudi_malloc(plen + 1);
  if (!copy) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  memcpy(copy, partition_path, plen + 1);
  hudi_partition_value vals[HUDI_PARTITION_MAX_FIELDS];
  size_t n = 0;
  char *seg = copy;
  bool shape_ok = true;
  while (shape_ok) {
    char *slash = strchr(seg, '/');
    if (slash) *slash = 0;
    if (n == s->n_fields) {
      shape_ok = false;
      break;
    }
    char *value = seg;
    if (s->hive_style) {
      size_t fl = strlen(s->fields[n]);
      if (strncmp(seg, s->fields[n], fl) != 0 || seg[fl] != '=') {
        shape_ok = false;
        break;
      }
      value = seg + fl + 1;
    }
    size_t vlen = url_decode(value, strlen(value));
    vals[n].name = s->fields[n];
    value[vlen] = 0;
    vals[n].value = strcmp(value, "__HIVE_DEFAULT_PARTITION__") == 0 ? NULL : value;
    vals[n].len = vals[n].value ? vlen : 0;
    n++;
    if (!slash) break;
    seg = slash + 1;
  }
  /* A value that does not cast to the column's type cannot be judged:
   * read the partition (pruning only ever skips what cannot match). */
  if (shape_ok && n == s->n_fields && hudi_pred_prune_partition(out, p, vals, n, NULL) != HUDI_OK) *out = true;
  hudi_free(copy);
  (void)err;
  return HUDI_OK;
}

#include "arrow/type.h"

#include <stdio.h>
#include <string.h>

/* Format strings without parameters, from the C Data Interface spec. */
static const struct {
  const char *format;
  hudi_arrow_type_id id;
  hudi_arrow_time_unit unit;
} k_simple[] = {
    {"n", HUDI_ARROW_NA, 0},          {"b", HUDI_ARROW_BOOL, 0},
    {"c", HUDI_ARROW_INT8, 0},        {"C", HUDI_ARROW_UINT8, 0},
    {"s", HUDI_ARROW_INT16, 0},       {"S", HUDI_ARROW_UINT16, 0},
    {"i", HUDI_ARROW_INT32, 0},       {"I", HUDI_ARROW_UINT32, 0},
    {"l", HUDI_ARROW_INT64, 0},       {"L", HUDI_ARROW_UINT64, 0},
    {"e", HUDI_ARROW_HALF_FLOAT, 0},  {"f", HUDI_ARROW_FLOAT, 0},
    {"g", HUDI_ARROW_DOUBLE, 0},      {"z", HUDI_ARROW_BINARY, 0},
    {"Z", HUDI_ARROW_LARGE_BINARY, 0}, {"vz", HUDI_ARROW_BINARY_VIEW, 0},
    {"u", HUDI_ARROW_STRING, 0},      {"U", HUDI_ARROW_LARGE_STRING, 0},
    {"vu", HUDI_ARROW_STRING_VIEW, 0}, {"tdD", HUDI_ARROW_DATE32, 0},
    {"tdm", HUDI_ARROW_DATE64, 0},    {"tts", HUDI_ARROW_TIME32, HUDI_ARROW_SECOND},
    {"ttm", HUDI_ARROW_TIME32, HUDI_ARROW_MILLI}, {"ttu", HUDI_ARROW_TIME64, HUDI_ARROW_MICRO},
    {"ttn", HUDI_ARROW_TIME64, HUDI_ARROW_NANO},  {"tDs", HUDI_ARROW_DURATION, HUDI_ARROW_SECOND},
    {"tDm", HUDI_ARROW_DURATION, HUDI_ARROW_MILLI}, {"tDu", HUDI_ARROW_DURATION, HUDI_ARROW_MICRO},
    {"tDn", HUDI_ARROW_DURATION, HUDI_ARROW_NANO}, {"+l", HUDI_ARROW_LIST, 0},
    {"+L", HUDI_ARROW_LARGE_LIST, 0}, {"+s", HUDI_ARROW_STRUCT, 0},
    {"+m", HUDI_ARROW_MAP, 0},
};

static const char k_units[] = "smun";

/* Parses a non-negative decimal int32 at *p, advancing *p. */
static bool parse_int(const char **p, int32_t *out) {
  const char *s = *p;
  bool neg = false;
  if (*s == '-') {
    neg = true;
    s++;
  }
  if (*s < '0' || *s > '9') return false;
  int64_t v = 0;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (*s - '0');
    if (v > INT32_MAX) return false;
    s++;
  }
  *out = (int32_t)(neg ? -v : v);
  *p = s;
  return true;
}

static hudi_status bad(hudi_error *err, const char *format, const char *why) {
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "malformed Arrow format string '%.64s': %s", format,
                      why);
}

static int32_t decimal_max_precision(int32_t bits) {
  switch (bits) {
    case 32: return 9;
    case 64: return 18;
    case 128: return 38;
    case 256: return 76;
    default: return 0;
  }
}

static hudi_status parse_decimal(hudi_arrow_type *t, const char *format, hudi_error *err) {
  const char *p = format + 2;
  t->id = HUDI_ARROW_DECIMAL;
  t->bit_width = 128;
  if (!parse_int(&p, &t->precision) || *p++ != ',' || !parse_int(&p, &t->scale))
    return bad(err, format, "expected d:precision,scale[,bitwidth]");
  if (*p == ',') {
    p++;
    if (!parse_int(&p, &t->bit_width)) return bad(err, format, "bad decimal bit width");
  }
  if (*p) return bad(err, format, "trailing characters");
  int32_t maxp = decimal_max_precision(t->bit_width);
  if (!maxp) return bad(err, format, "decimal bit width must be 32, 64, 128 or 256");
  if (t->precision < 1 || t->precision > maxp) return bad(err, format, "decimal precision out of range");
  return HUDI_OK;
}

static hudi_status parse_sized(hudi_arrow_type *t, const char *format, const char *num,
                               hudi_arrow_type_id id, hudi_error *err) {
  t->id = id;
  if (!parse_int(&num, &t->fixed_size) || *num || t->fixed_size < 0)
    return bad(err, format, "expected a non-negative size");
  return HUDI_OK;
}

static hudi_status parse_timestamp(hudi_arrow_type *t, const char *format, hudi_error *err) {
  const char *u = strchr(k_units, format[2]);
  if (!format[2] || !u || format[3] != ':') return bad(err, format, "expected ts<unit>:[timezone]");
  t->id = HUDI_ARROW_TIMESTAMP;
  t->unit = (hudi_arrow_time_unit)(u - k_units);
  size_t n = strlen(format + 4);
  if (n > HUDI_ARROW_TIMEZONE_MAX) return bad(err, format, "timezone too long");
  t->timezone = n ? format + 4 : NULL;
  t->timezone_len = n;
  return HUDI_OK;
}

hudi_status hudi_arrow_type_parse(hudi_arrow_type *t, const char *format, hudi_error *err) {
  memset(t, 0, sizeof *t);
  if (!format) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Arrow schema has no format string");
  for (size_t i = 0; i < sizeof k_simple / sizeof k_simple[0]; i++) {
    if (strcmp(format, k_simple[i].format) == 0) {
      t->id = k_simple[i].id;
      t->unit = k_simple[i].unit;
      return HUDI_OK;
    }
  }
  if (strncmp(format, "d:", 2) == 0) return parse_decimal(t, format, err);
  if (strncmp(format, "w:", 2) == 0)
    return parse_sized(t, format, format + 2, HUDI_ARROW_FIXED_SIZE_BINARY, err);
  if (strncmp(format, "+w:", 3) == 0)
    return parse_sized(t, format, format + 3, HUDI_ARROW_FIXED_SIZE_LIST, err);
  if (strncmp(format, "ts", 2) == 0) return parse_timestamp(t, format, err);
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "unsupported Arrow format string '%.64s'", format);
}

static char unit_char(hudi_arrow_time_unit u) { return k_units[u & 3]; }

hudi_status hudi_arrow_type_format(char *out, size_t cap, const hudi_arrow_type *t, hudi_error *err) {
  int n = -1;
  switch (t->id) {
    case HUDI_ARROW_DECIMAL:
      n = t->bit_width == 128 ? snprintf(out, cap, "d:%d,%d", (int)t->precision, (int)t->scale)
                              : snprintf(out, cap, "d:%d,%d,%d", (int)t->precision, (int)t->scale,
                                         (int)t->bit_width);
      break;
    case HUDI_ARROW_FIXED_SIZE_BINARY: n = snprintf(out, cap, "w:%d", (int)t->fixed_size); break;
    case HUDI_ARROW_FIXED_SIZE_LIST: n = snprintf(out, cap, "+w:%d", (int)t->fixed_size); break;
    case HUDI_ARROW_TIMESTAMP:
      n = snprintf(out, cap, "ts%c:%.*s", unit_char(t->unit), (int)t->timezone_len,
                   t->timezone ? t->timezone : "");
      break;
    default:
      for (size_t i = 0; i < sizeof k_simple / sizeof k_simple[0]; i++) {
        if (k_simple[i].id == t->id && k_simple[i].unit == t->unit) {
          n = snprintf(out, cap, "%s", k_simple[i].format);
          break;
        }
      }
      if (n < 0)
        return hudi_err_set(err, HUDI_ERR_INTERNAL, "no format string for Arrow type %d", (int)t->id);
  }
  if (n < 0 || (size_t)n >= cap)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Arrow format string longer than %zu bytes", cap);
  return HUDI_OK;
}

int32_t hudi_arrow_type_byte_width(const hudi_arrow_type *t) {
  switch (t->id) {
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_UINT8: return 1;
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_UINT16:
    case HUDI_ARROW_HALF_FLOAT: return 2;
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_UINT32:
    case HUDI_ARROW_FLOAT:
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_TIME32: return 4;
    case HUDI_ARROW_INT64:
    case HUDI_ARROW_UINT64:
    case HUDI_ARROW_DOUBLE:
    case HUDI_ARROW_DATE64:
    case HUDI_ARROW_TIME64:
    case HUDI_ARROW_TIMESTAMP:
    case HUDI_ARROW_DURATION: return 8;
    case HUDI_ARROW_DECIMAL: return t->bit_width / 8;
    case HUDI_ARROW_FIXED_SIZE_BINARY: return t->fixed_size;
    default: return 0;
  }
}

const char *hudi_arrow_type_name(hudi_arrow_type_id id) {
  static const char *names[] = {
      "null",   "bool",         "int8",         "uint8",       "int16",       "uint16",
      "int32",  "uint32",       "int64",        "uint64",      "float16",     "float",
      "double", "decimal",      "date32",       "date64",      "time32",      "time64",
      "timestamp", "duration",  "string",       "large_string", "binary",     "large_binary",
      "string_view", "binary_view", "fixed_size_binary", "list", "large_list", "fixed_size_list",
      "struct", "map"};
  if ((unsigned)id < sizeof names / sizeof names[0]) return names[id];
  return "unknown";
}

int hudi_arrow_type_n_children(hudi_arrow_type_id id) {
  switch (id) {
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_FIXED_SIZE_LIST:
    case HUDI_ARROW_MAP: return 1;
    case HUDI_ARROW_STRUCT: return -1;
    default: return 0;
  }
}

bool hudi_arrow_type_is_signed_int(hudi_arrow_type_id id) {
  switch (id) {
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_DATE64:
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
    case HUDI_ARROW_TIMESTAMP:
    case HUDI_ARROW_DURATION: return true;
    default: return false;
  }
}

bool hudi_arrow_type_is_unsigned_int(hudi_arrow_type_id id) {
  return id == HUDI_ARROW_UINT8 || id == HUDI_ARROW_UINT16 || id == HUDI_ARROW_UINT32 ||
         id == HUDI_ARROW_UINT64;
}

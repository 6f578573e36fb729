/* Fuzz target: hoodie.properties (java.util.Properties text). Whatever
 * parses must render again (or be refused as not UTF-8) and parse back to
 * the same entries in the same order; the checksum check must answer
 * without crashing. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "table/properties.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void roundtrip(const hudi_props *p) {
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_props_render(p, "comment", "date", &out, &err);
  if (st == HUDI_OK) {
    hudi_props q;
    hudi_props_init(&q);
    if (hudi_props_parse(&q, (const char *)out.data, out.len, "rendered", &err) != HUDI_OK) abort();
    if (q.len != p->len) abort();
    for (size_t i = 0; i < p->len; i++)
      if (strcmp(p->entries[i].key, q.entries[i].key) != 0 || strcmp(p->entries[i].value, q.entries[i].value) != 0)
        abort();
    hudi_props_free(&q);
  } else if (st != HUDI_ERR_INVALID_ARG || err.message[0] == '\0') {
    abort();
  }
  hudi_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hudi_props p;
  hudi_props_init(&p);
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_props_parse(&p, (const char *)data, size, "fuzz", &err) == HUDI_OK) {
    roundtrip(&p);
    hudi_error_clear(&err);
    if (hudi_props_validate_checksum(&p, "fuzz", &err) != HUDI_OK && err.message[0] == '\0') abort();
  } else if (err.message[0] == '\0') {
    abort(); /* a refusal says why */
  }
  hudi_props_free(&p);
  return 0;
}

/* Fuzz target: the footer bloom filter text (base64 of Hudi's
 * DYNAMIC_V0 / SIMPLE bytes) as index_bloom.c parses it from Parquet
 * footers. Whatever parses must serialise and parse back to the same
 * membership answers. The first byte picks the dynamic flag. */
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "table/bloom.h"
#include "table/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  bool dynamic = data[0] & 1;
  hudi_bloom b;
  if (hudi_bloom_deserialize(&b, (const char *)data + 1, size - 1, dynamic, NULL) != HUDI_OK) return 0;
  hudi_buf text;
  hudi_buf_init(&text, 0);
  if (hudi_bloom_serialize(&b, &text, NULL) == HUDI_OK) {
    hudi_bloom again;
    if (hudi_bloom_deserialize(&again, (const char *)text.data, text.len, true, NULL) == HUDI_OK) {
      static const char *keys[] = {"", "a", "key-1", "2fd6c7ee-0000-4000-8000-000000000001"};
      for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (hudi_bloom_might_contain(&b, keys[i], strlen(keys[i])) !=
            hudi_bloom_might_contain(&again, keys[i], strlen(keys[i])))
          __builtin_trap();
      hudi_bloom_free(&again);
    }
  }
  hudi_buf_free(&text);
  hudi_bloom_free(&b);
  return 0;
}

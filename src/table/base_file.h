/* Base file names: <fileId>_<writeToken>_<instantTime>.<ext>
 * (FSUtils.makeBaseFileName; Java's BASE_FILE_PATTERN
 * [a-zA-Z0-9-]+_[a-zA-Z0-9-]+_[0-9]+\.[a-zA-Z0-9]+). */
#ifndef HUDI_TABLE_BASE_FILE_H
#define HUDI_TABLE_BASE_FILE_H

#include <stddef.h>

#include "table/instant_file.h"

#define HUDI_FILE_ID_MAX 128
#define HUDI_WRITE_TOKEN_MAX 64
#define HUDI_EXT_MAX 16

typedef struct hudi_base_file_name {
  char file_id[HUDI_FILE_ID_MAX];
  char write_token[HUDI_WRITE_TOKEN_MAX];
  char instant[HUDI_INSTANT_TIME_MAX];
  char ext[HUDI_EXT_MAX]; /* "parquet", "hfile", "orc", "lance" */
} hudi_base_file_name;

/* 1 and *out filled when name (no directory) is a base file name, else 0. */
int hudi_base_file_name_parse(hudi_base_file_name *out, const char *name);

/* Writes the name; returns its length or -1 when cap is too small. */
int hudi_base_file_name_format(char *buf, size_t cap, const char *file_id, const char *write_token,
                               const char *instant, const char *ext);

#endif

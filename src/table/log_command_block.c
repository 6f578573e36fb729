/* COMMAND block headers, and the header sets Java writes per block type. */
#include "table/log_command_block.h"

#include <inttypes.h>
#include <string.h>

hudi_status hudi_log_command_block_read(hudi_log_command *out, const hudi_log_block *b,
                                        const char *where, hudi_error *err) {
  if (!where) where = "?";
  if (b->type != HUDI_LOG_BLOCK_COMMAND)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log file %s: block at byte %" PRIu64
                        " is not a command block", where, b->offset);
  size_t len;
  const char *type = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_COMMAND_BLOCK_TYPE, &len);
  const char *instant = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_INSTANT_TIME, NULL);
  const char *target = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_TARGET_INSTANT_TIME, NULL);
  if (!type || !instant || !target)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: command block at byte %" PRIu64
                        " lacks COMMAND_BLOCK_TYPE, INSTANT_TIME or TARGET_INSTANT_TIME",
                        where, b->offset);
  /* Java: HoodieCommandBlockTypeEnum.values()[Integer.parseInt(value)]. */
  if (len != 1 || type[0] != '0')
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "log file %s: command block at byte %" PRIu64
                        " has command type '%.*s' (only 0, rollback, exists)",
                        where, b->offset, (int)(len > 32 ? 32 : len), type);
  out->command = HUDI_LOG_COMMAND_ROLLBACK;
  out->instant = instant;
  out->target_instant = target;
  return HUDI_OK;
}

hudi_status hudi_log_rollback_header(hudi_log_meta *header, const char *instant,
                                     const char *target_instant, hudi_error *err) {
  if (!instant || !target_instant || header->count)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "rollback block header: bad arguments");
  hudi_status st = hudi_log_meta_set_str(header, HUDI_LOG_HEADER_INSTANT_TIME, instant, err);
  if (st == HUDI_OK)
    st = hudi_log_meta_set_str(header, HUDI_LOG_HEADER_TARGET_INSTANT_TIME, target_instant, err);
  if (st == HUDI_OK) st = hudi_log_meta_set_str(header, HUDI_LOG_HEADER_COMMAND_BLOCK_TYPE, "0", err);
  if (st != HUDI_OK) hudi_log_meta_free(header);
  return st;
}

hudi_status hudi_log_data_header(hudi_log_meta *header, const char *instant,
                                 const char *schema_json, hudi_error *err) {
  if (!instant || header->count)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log block header: bad arguments");
  hudi_status st = hudi_log_meta_set_str(header, HUDI_LOG_HEADER_INSTANT_TIME, instant, err);
  if (st == HUDI_OK && schema_json)
    st = hudi_log_meta_set_str(header, HUDI_LOG_HEADER_SCHEMA, schema_json, err);
  if (st != HUDI_OK) hudi_log_meta_free(header);
  return st;
}

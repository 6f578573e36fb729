/* Opens a Hudi table and prints its type, version and timeline.
 *
 *   example_open_table /path/to/table
 */
#include <stdio.h>

#include "hudi/hudi.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s TABLE_PATH\n", argv[0]);
    return 2;
  }
  hudi_table *table;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_open(&table, argv[1], NULL, 0, &err) != HUDI_OK) {
    fprintf(stderr, "error (%s): %s\n", hudi_status_name(err.code), err.message);
    return 1;
  }
  printf("%s: %s, table version %d\n", hudi_table_name(table), hudi_table_type_name(hudi_table_get_type(table)),
         hudi_table_version(table));
  for (size_t i = 0; i < hudi_table_instant_count(table); i++) {
    hudi_instant_info in;
    if (hudi_table_instant_at(table, i, &in, &err) != HUDI_OK) {
      fprintf(stderr, "error: %s\n", err.message);
      hudi_table_free(table);
      return 1;
    }
    printf("%s %-17s %-9s %s\n", in.requested_time, in.completion_time[0] ? in.completion_time : "-",
           hudi_instant_state_name(in.state), in.action);
  }
  hudi_table_free(table);
  return 0;
}

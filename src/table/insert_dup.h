/* Keys a bulk insert finds already in the table, as Hudi's
 * hoodie.datasource.insert.dup.policy decides: none (the default: the row
 * is written again, in a new file group, and the record index points to
 * the new copy, as Hudi's insert and bulk_insert do), drop (the row is
 * left out) or fail (the write fails naming the key, before any file). */
#ifndef HUDI_TABLE_INSERT_DUP_H
#define HUDI_TABLE_INSERT_DUP_H

#include <stddef.h>

#include "base/error.h"
#include "hudi/write.h"
#include "table/index.h"
#include "table/table.h"
#include "table/write_rows.h"

typedef enum hudi_dup_policy { HUDI_DUP_NONE = 0, HUDI_DUP_DROP, HUDI_DUP_FAIL } hudi_dup_policy;

/* The write's policy (options first, then the table's); an unknown value
 * is an error naming the option. */
HUDI_NODISCARD hudi_status hudi_insert_dup_policy(const hudi_table *t, const hudi_option *opts, size_t n,
                                                  hudi_dup_policy *out, hudi_error *err);

/* Looks every row of r up in the table's index (*ix, created on first use
 * by hudi_index_for_write, as upserts do; the caller
 * frees it): with FAIL the first key found is an error naming it, its
 * partition and file group; with DROP the rows found leave r (r->n
 * shrinks, the order of the rest kept). */
HUDI_NODISCARD hudi_status hudi_insert_dup_apply(hudi_index **ix, hudi_table *t, hudi_write_rows *r,
                                                 hudi_dup_policy policy, hudi_error *err);

#endif

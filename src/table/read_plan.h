/* A planned read: the schemas involved, the bound filter, the time range
 * and the file slices to read (read.c), and the reading of one file slice
 * into output batches (read_slice.c, merging base and log records as
 * hudi-rs's FileGroupReader does). */
#ifndef HUDI_TABLE_READ_PLAN_H
#define HUDI_TABLE_READ_PLAN_H

#include <stdbool.h>

#include "arrow/field.h"
#include "expr/pred.h"
#include "hudi/read.h"
#include "table/fsview.h"
#include "table/partition.h"
#include "table/table.h"

#define HUDI_READ_DEFAULT_BATCH 8192

typedef struct hudi_read_slice_ref {
  const hudi_file_group *group;
  const hudi_file_slice *slice;
} hudi_read_slice_ref;

typedef struct hudi_read_plan {
  hudi_table *t;
  hudi_arrow_field table_schema; /* with meta fields */
  hudi_arrow_field read_schema;  /* the columns read: a subset of table_schema, in its order */
  hudi_arrow_field out_schema;   /* what the caller gets */
  int64_t *out_cols;             /* out column k = read_schema column out_cols[k] */
  hudi_pred *pred;               /* bound to read_schema; NULL: no filter */
  char start[HUDI_INSTANT_TIME_MAX]; /* incremental: exclusive start; "" none */
  char end[HUDI_INSTANT_TIME_MAX];   /* snapshot as-of / incremental end; "" latest */
  bool incremental;
  /* Incremental reads follow Apache Hudi 1.x: start/end bound completion
   * times on timeline layout 2 (requested times on layout 1); the table is
   * read as of end (instants completed by then) and rows are kept when
   * their _hoodie_commit_time is the requested time of an instant in the
   * range (incr_times, sorted). tl is the timeline the plan reads with:
   * the table's, or (incremental) a copy in which instants completed after
   * end are pending. */
  bool by_completion;
  /* Layout 1, a range reaching before the active timeline (archived
   * writes, whose commit metadata hudi-c does not read back): every file
   * group is read and rows are kept by _hoodie_commit_time in (start, end],
   * Hudi's incremental full-table-scan fallback. */
  bool scan_all;
  char (*incr_times)[HUDI_INSTANT_TIME_MAX];
  size_t n_incr_times;
  hudi_timeline tl_copy;
  const hudi_timeline *tl;
  bool has_writes; /* some completed write is visible to the plan */
  bool latest;     /* a snapshot of the latest state (end = latest write, no as-of) */
  int parallelism; /* file slices read at once (hoodie.read.parallelism) */
  bool read_optimized;
  int64_t batch_size;
  int64_t key_col, seqno_col, commit_col, ordering_col; /* in read_schema; -1 absent */
  hudi_fsview view;
  hudi_read_slice_ref *slices;
  size_t n_slices;
  /* Where the view came from: the metadata table's files partition when
   * the table has one in sync and hoodie.metadata.enable is not false
   * (mdt_fsview.h), else a storage listing; view_note says why listing. */
  bool use_mdt, data_skipping; /* hoodie.metadata.enable, hoodie.enable.data.skipping */
  bool view_from_mdt;
  char view_note[256];
  /* Slices left out by column_stats before any of their files was opened. */
  size_t n_col_stats_pruned;
  size_t n_col_stats_candidates; /* slices the column_stats were consulted for */
} hudi_read_plan;

/* Plans a read as hudi_table_read does, without reading (tests and
 * benchmarks look at the plan). Free with hudi_read_plan_free. */
HUDI_NODISCARD hudi_status hudi_read_plan_create(hudi_read_plan **out, hudi_table *t, const hudi_read_options *o,
                                                 hudi_error *err);
void hudi_read_plan_free(hudi_read_plan *p);

/* Output batches of one slice, produced incrementally. */
typedef struct hudi_slice_reader hudi_slice_reader;

HUDI_NODISCARD hudi_status hudi_slice_reader_open(hudi_slice_reader **out, const hudi_read_plan *p,
                                                  const hudi_read_slice_ref *ref, hudi_error *err);
/* The same; lean: the thread reads no further slice of this read, so the
 * base file's decode buffers are freed as soon as they are used up and
 * none are left for a next reader (hudi_pq_reader_options.lean). */
HUDI_NODISCARD hudi_status hudi_slice_reader_open_ex(hudi_slice_reader **out, const hudi_read_plan *p,
                                                     const hudi_read_slice_ref *ref, bool lean, hudi_error *err);
/* The next non-empty output batch (out_schema shape) or *eof. */
HUDI_NODISCARD hudi_status hudi_slice_reader_next(hudi_slice_reader *r, struct ArrowArray *out, bool *eof,
                                                  hudi_error *err);
void hudi_slice_reader_free(hudi_slice_reader *r);

/* Reads slices [from, to) of p on `threads` pool threads, a few slices
 * ahead, returning their batches in slice order (read_parallel.c). */
typedef struct hudi_slice_prefetch hudi_slice_prefetch;

HUDI_NODISCARD hudi_status hudi_slice_prefetch_create(hudi_slice_prefetch **out, const hudi_read_plan *p,
                                                      size_t from, size_t to, int threads, hudi_error *err);
/* The next batch (out_schema shape) in slice order, or *eof. */
HUDI_NODISCARD hudi_status hudi_slice_prefetch_next(hudi_slice_prefetch *pf, struct ArrowArray *out, bool *eof,
                                                    hudi_error *err);
/* The same, with the index in p->slices of the slice the batch is from
 * (slice may be NULL). */
HUDI_NODISCARD hudi_status hudi_slice_prefetch_next_of(hudi_slice_prefetch *pf, struct ArrowArray *out, size_t *slice,
                                                       bool *eof, hudi_error *err);
/* Waits for the slices still being read, then frees everything. */
void hudi_slice_prefetch_free(hudi_slice_prefetch *pf);

/* Whether an instant's writes are visible to p: completed (or archived)
 * as of the plan's end. */
bool hudi_read_instant_visible(const hudi_read_plan *p, const char *instant);

/* Incremental reads: whether a row with this _hoodie_commit_time is in the
 * range. Always true for other reads. */
bool hudi_read_commit_selected(const hudi_read_plan *p, const char *commit_time, size_t len);

/* The pending compaction instant of slice i's file group (the slice is
 * then the group's merged slice, keyed by the previous base instant), or
 * NULL when the group has none. */
const char *hudi_file_slice_list_pending_compaction(const hudi_file_slice_list *l, size_t i);

#endif

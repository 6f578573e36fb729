/* A fault-injecting hudi_storage for tests: wraps any storage, forwards
 * every call to it, counts calls per operation, and on request makes chosen
 * calls fail, read short, or tear.
 *
 * What each fault simulates:
 *   HUDI_FAULT_FAIL        the storage refused the call (a network error, a
 *                          full disk, a permission problem): the call returns
 *                          HUDI_ERR_IO and never reaches the wrapped storage,
 *                          so nothing changes there.
 *   HUDI_FAULT_SHORT_READ  the object ended early (truncated by a crash or a
 *                          faulty copy): a read or read_all succeeds but
 *                          delivers only the first `keep` bytes it would have
 *                          delivered. Callers that needed more must notice
 *                          (hudi_storage_read_exact does: HUDI_ERR_CORRUPT).
 *   HUDI_FAULT_TORN_WRITE  the writing process died part way through the
 *                          bytes: the first min(keep, len) bytes reach the
 *                          wrapped storage through its non-atomic path
 *                          (HUDI_WRITE_DIRECT), then the call returns
 *                          HUDI_ERR_IO. Where they land is where a crash of
 *                          that write path would leave them:
 *                            - a HUDI_WRITE_DIRECT write: at the target path,
 *                              which now holds the prefix (replacing any old
 *                              content);
 *                            - an atomic write (default, or IF_ABSENT): in a
 *                              fresh temporary sibling (hudi_path_temp_sibling,
 *                              hidden from listings unless
 *                              HUDI_LIST_INCLUDE_TEMP), as a crash between the
 *                              local backend's write and rename leaves it; the
 *                              target keeps its old state (or stays absent).
 *
 * The wrapper is thread-safe; decisions are made under a mutex, the
 * forwarded calls run outside it. */
#ifndef HUDI_IO_FAULTY_H
#define HUDI_IO_FAULTY_H

#include "io/storage.h"

/* Operation kinds, for counters and for aiming faults. A write with
 * HUDI_WRITE_DIRECT counts as HUDI_STORAGE_OP_WRITE; hudi_storage_exists
 * counts as a stat. */
typedef enum hudi_storage_op {
  HUDI_STORAGE_OP_ANY = 0, /* all calls */
  HUDI_STORAGE_OP_READ,
  HUDI_STORAGE_OP_READ_ALL,
  HUDI_STORAGE_OP_STAT,
  HUDI_STORAGE_OP_WRITE,
  HUDI_STORAGE_OP_WRITE_IF_ABSENT,
  HUDI_STORAGE_OP_RENAME,
  HUDI_STORAGE_OP_LIST,
  HUDI_STORAGE_OP_DELETE,
  HUDI_STORAGE_OP_COUNT
} hudi_storage_op;

const char *hudi_storage_op_name(hudi_storage_op op);

typedef enum hudi_fault_kind {
  HUDI_FAULT_FAIL,
  HUDI_FAULT_SHORT_READ,
  HUDI_FAULT_TORN_WRITE
} hudi_fault_kind;

typedef struct hudi_fault {
  hudi_fault_kind kind;
  /* Which calls count towards nth. HUDI_STORAGE_OP_ANY: every call for
   * FAIL, every read/read_all for SHORT_READ, every write for TORN_WRITE.
   * SHORT_READ needs a read op, TORN_WRITE a write op. */
  hudi_storage_op op;
  uint64_t nth; /* 1 = the next matching call after arming, 2 = the one after... */
  size_t keep;  /* SHORT_READ: bytes delivered; TORN_WRITE: bytes written */
  bool repeat;  /* also fire on every later matching call, until disarmed */
} hudi_fault;

#define HUDI_FAULTY_MAX_FAULTS 8

/* Wraps inner. With owns_inner, hudi_storage_free of the wrapper frees
 * inner too. */
HUDI_NODISCARD hudi_status hudi_faulty_storage_wrap(hudi_storage **out, hudi_storage *inner,
                                                    bool owns_inner, hudi_error *err);

/* Arms a fault (up to HUDI_FAULTY_MAX_FAULTS at once). When several fire
 * on the same call, the first armed wins. */
HUDI_NODISCARD hudi_status hudi_faulty_storage_arm(hudi_storage *s, const hudi_fault *fault,
                                                   hudi_error *err);

/* Removes every armed fault; counters are kept. */
void hudi_faulty_storage_disarm(hudi_storage *s);

/* Calls made of op (HUDI_STORAGE_OP_ANY: all), including failed ones, since
 * wrapping or the last reset. 0 when s is not a faulty storage. */
uint64_t hudi_faulty_storage_calls(hudi_storage *s, hudi_storage_op op);

/* How many faults have fired since wrapping or the last reset. */
uint64_t hudi_faulty_storage_fired(hudi_storage *s);

/* Zeroes the counters. */
void hudi_faulty_storage_reset_counts(hudi_storage *s);

#endif

/* The fault-injecting wrapper (see faulty.h for what each fault
 * simulates). Calls are forwarded through the public dispatch functions,
 * so the wrapped storage sees exactly what a direct caller would. */
#include "io/faulty.h"

#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "io/backend.h"

typedef struct armed_fault {
  hudi_fault fault;
  uint64_t remaining; /* matching calls until it fires; 1 = the next one */
  bool active;
} armed_fault;

typedef struct faulty_storage {
  hudi_storage base;
  hudi_storage *inner;
  bool owns_inner;
  pthread_mutex_t lock;
  uint64_t calls[HUDI_STORAGE_OP_COUNT];
  uint64_t fired;
  armed_fault faults[HUDI_FAULTY_MAX_FAULTS];
} faulty_storage;

static const hudi_storage_vtable faulty_vtable;

const char *hudi_storage_op_name(hudi_storage_op op) {
  static const char *const names[HUDI_STORAGE_OP_COUNT] = {
      "any", "read", "read_all", "stat", "write", "write_if_absent", "rename", "list", "delete"};
  return (unsigned)op < HUDI_STORAGE_OP_COUNT ? names[op] : "unknown";
}

static faulty_storage *as_faulty(hudi_storage *s) {
  return s && s->vtable == &faulty_vtable ? (faulty_storage *)s : NULL;
}

static bool is_read(hudi_storage_op op) {
  return op == HUDI_STORAGE_OP_READ || op == HUDI_STORAGE_OP_READ_ALL;
}

static bool is_write(hudi_storage_op op) {
  return op == HUDI_STORAGE_OP_WRITE || op == HUDI_STORAGE_OP_WRITE_IF_ABSENT;
}

static bool fault_matches(const hudi_fault *f, hudi_storage_op op) {
  if (f->op != HUDI_STORAGE_OP_ANY && f->op != op) return false;
  switch (f->kind) {
    case HUDI_FAULT_FAIL: return true;
    case HUDI_FAULT_SHORT_READ: return is_read(op);
    case HUDI_FAULT_TORN_WRITE: return is_write(op);
  }
  return false;
}

/* Counts a call of op and decides its fate: returns true and fills *fired
 * when a fault fires; *call_no is the call's number among its kind. */
static bool decide(faulty_storage *f, hudi_storage_op op, hudi_fault *fired, uint64_t *call_no) {
  bool hit = false;
  pthread_mutex_lock(&f->lock);
  f->calls[HUDI_STORAGE_OP_ANY]++;
  *call_no = ++f->calls[op];
  for (size_t i = 0; i < HUDI_FAULTY_MAX_FAULTS; i++) {
    armed_fault *a = &f->faults[i];
    if (!a->active || !fault_matches(&a->fault, op)) continue;
    if (--a->remaining > 0) continue;
    if (a->fault.repeat)
      a->remaining = 1;
    else
      a->active = false;
    if (!hit) {
      *fired = a->fault;
      hit = true;
      f->fired++;
    }
  }
  pthread_mutex_unlock(&f->lock);
  return hit;
}

static hudi_status injected(hudi_storage_op op, uint64_t call_no, const char *path, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_IO, "injected fault: %s call #%llu on '%s' failed",
                      hudi_storage_op_name(op), (unsigned long long)call_no, path);
}

static hudi_status faulty_read(hudi_storage *s, const char *path, uint64_t offset, void *dst,
                               size_t len, size_t *n_read, hudi_error *err) {
  faulty_storage *f = as_faulty(s);
  hudi_fault fault = {0};
  uint64_t no;
  bool hit = decide(f, HUDI_STORAGE_OP_READ, &fault, &no);
  if (hit && fault.kind == HUDI_FAULT_FAIL) return injected(HUDI_STORAGE_OP_READ, no, path, err);
  HUDI_TRY(hudi_storage_read(f->inner, path, offset, dst, len, n_read, err));
  if (hit && *n_read > fault.keep) *n_read = fault.keep;
  return HUDI_OK;
}

static hudi_status faulty_read_all(hudi_storage *s, const char *path, size_t max_size, hudi_buf *out,
                                   hudi_error *err) {
  faulty_storage *f = as_faulty(s);
  hudi_fault fault = {0};
  uint64_t no;
  bool hit = decide(f, HUDI_STORAGE_OP_READ_ALL, &fault, &no);
  if (hit && fault.kind == HUDI_FAULT_FAIL) return injected(HUDI_STORAGE_OP_READ_ALL, no, path, err);
  size_t before = out->len;
  HUDI_TRY(hudi_storage_read_all(f->inner, path, max_size, out, err));
  if (hit && out->len - before > fault.keep) out->len = before + fault.keep;
  return HUDI_OK;
}

static hudi_status faulty_stat(hudi_storage *s, const char *path, hudi_file_stat *out,
                               hudi_error *err) {
  faulty_storage *f = as_faulty(s);
  hudi_fault fault = {0};
  uint64_t no;
  if (decide(f, HUDI_STORAGE_OP_STAT, &fault, &no)) return injected(HUDI_STORAGE_OP_STAT, no, path, err);
  return hudi_storage_stat(f->inner, path, out, err);
}

/* Writes the first keep bytes where a crash of the chosen write path would
 * leave them (see faulty.h), then fails. */
static hudi_status torn_write(faulty_storage *f, hudi_storage_op op, uint64_t no, const char *path,
                              const void *data, size_t len, unsigned flags, size_t keep,
                              hudi_error *err) {
  size_t n = keep < len ? keep : len;
  if (flags & HUDI_WRITE_DIRECT) {
    HUDI_TRY(hudi_storage_write(f->inner, path, data, n, HUDI_WRITE_DIRECT, err));
  } else {
    char *tmp;
    HUDI_TRY(hudi_path_temp_sibling(&tmp, path, err));
    hudi_status st = hudi_storage_write(f->inner, tmp, data, n, HUDI_WRITE_DIRECT, err);
    hudi_free(tmp);
    HUDI_TRY(st);
  }
  return hudi_err_set(err, HUDI_ERR_IO,
                      "injected torn write: %s call #%llu wrote %zu of %zu bytes of '%s', then failed",
                      hudi_storage_op_name(op), (unsigned long long)no, n, len, path);
}

static hudi_status faulty_write(hudi_storage *s, const char *path, const void *data, size_t len,
                                unsigned flags, hudi_error *err) {
  faulty_storage *f = as_faulty(s);
  hudi_storage_op op = (flags & HUDI_WRITE_IF_ABSENT) ? HUDI_STORAGE_OP_WRITE_IF_ABSENT : HUDI_STORAGE_OP_WRITE;
  hudi_fault fault = {0};
  uint64_t no;
  if (decide(f, op, &fault, &no)) {
    if (fault.kind == HUDI_FAULT_TORN_WRITE)
      return torn_write(f, op, no, path, data, len, flags, fault.keep, err);
    return injected(op, no, path, err);
  }
  return hudi_storage_write(f->inner, path, data, len, flags, err);
}

static hudi_status faulty_rename(hudi_storage *s, const char *from, const char *to, unsigned flags,
                                 hudi_error *err) {
  faulty_storage *f = as_faulty(s);
  hudi_fault fault = {0};
  uint64_t no;
  if (decide(f, HUDI_STORAGE_OP_RENAME, &fault, &no))
    return injected(HUDI_STORAGE_OP_RENAME, no, from, err);
  return hudi_storage_rename(f->inner, from, to, flags, err);
}

static hudi_status faulty_list(hudi_storage *s, const char *dir, unsigned flags, hudi_file_list *out,
                               hudi_error *err) {
  faulty_storage *f = as_faulty(s);
  hudi_fault fault = {0};
  uint64_t no;
  if (decide(f, HUDI_STORAGE_OP_LIST, &fault, &no)) return injected(HUDI_STORAGE_OP_LIST, no, dir, err);
  return hudi_storage_list(f->inner, dir, flags, out, err);
}

static hudi_status faulty_remove(hudi_storage *s, const char *path, unsigned flags, hudi_error *err) {
  faulty_storage *f = as_faulty(s);
  hudi_fault fault = {0};
  uint64_t no;
  if (decide(f, HUDI_STORAGE_OP_DELETE, &fault, &no))
    return injected(HUDI_STORAGE_OP_DELETE, no, path, err);
  return hudi_storage_delete(f->inner, path, flags, err);
}

/* Not a counted operation: the crash tests' numbering of storage calls
 * stays what it was. */
static hudi_status faulty_set_mtime(hudi_storage *s, const char *path, int64_t mtime_ms, hudi_error *err) {
  return hudi_storage_set_mtime(as_faulty(s)->inner, path, mtime_ms, err);
}

static void faulty_destroy(hudi_storage *s) {
  faulty_storage *f = as_faulty(s);
  if (f->owns_inner) hudi_storage_free(f->inner);
  pthread_mutex_destroy(&f->lock);
  hudi_free(f->base.base);
  hudi_free(f);
}

static const hudi_storage_vtable faulty_vtable = {
    "faulty", faulty_read, faulty_read_all, faulty_stat, faulty_write,
    faulty_rename, faulty_list, faulty_remove, faulty_destroy,
    NULL, NULL, NULL, /* held files read through faulty_read, where faults are injected */
    NULL,             /* no write groups: every write is synced as it is made, where faults apply */
    NULL,             /* the Parquet writer streams to memory here: no directories to make */
    faulty_set_mtime,
};

hudi_status hudi_faulty_storage_wrap(hudi_storage **out, hudi_storage *inner, bool owns_inner,
                                     hudi_error *err) {
  *out = NULL;
  if (!inner) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "faulty storage: no storage to wrap");
  faulty_storage *f = hudi_calloc(1, sizeof *f);
  char *base = f ? hudi_strdup(inner->base) : NULL;
  if (!base) {
    hudi_free(f);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory wrapping '%s'", inner->base);
  }
  if (pthread_mutex_init(&f->lock, NULL) != 0) {
    hudi_free(base);
    hudi_free(f);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "faulty storage: cannot create a mutex");
  }
  f->base.vtable = &faulty_vtable;
  f->base.base = base;
  f->inner = inner;
  f->owns_inner = owns_inner;
  *out = &f->base;
  return HUDI_OK;
}

hudi_status hudi_faulty_storage_arm(hudi_storage *s, const hudi_fault *fault, hudi_error *err) {
  faulty_storage *f = as_faulty(s);
  if (!f) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "not a faulty storage");
  if ((unsigned)fault->op >= HUDI_STORAGE_OP_COUNT || fault->nth == 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "fault: bad operation %d or nth %llu",
                        (int)fault->op, (unsigned long long)fault->nth);
  if ((fault->kind == HUDI_FAULT_SHORT_READ && fault->op != HUDI_STORAGE_OP_ANY && !is_read(fault->op)) ||
      (fault->kind == HUDI_FAULT_TORN_WRITE && fault->op != HUDI_STORAGE_OP_ANY && !is_write(fault->op)) ||
      (unsigned)fault->kind > HUDI_FAULT_TORN_WRITE)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "fault kind %d cannot apply to %s calls",
                        (int)fault->kind, hudi_storage_op_name(fault->op));
  bool placed = false;
  pthread_mutex_lock(&f->lock);
  for (size_t i = 0; i < HUDI_FAULTY_MAX_FAULTS && !placed; i++) {
    if (f->faults[i].active) continue;
    f->faults[i] = (armed_fault){*fault, fault->nth, true};
    placed = true;
  }
  pthread_mutex_unlock(&f->lock);
  if (!placed) return hudi_err_set(err, HUDI_ERR_LIMIT, "more than %d faults armed", HUDI_FAULTY_MAX_FAULTS);
  return HUDI_OK;
}

void hudi_faulty_storage_disarm(hudi_storage *s) {
  faulty_storage *f = as_faulty(s);
  if (!f) return;
  pthread_mutex_lock(&f->lock);
  for (size_t i = 0; i < HUDI_FAULTY_MAX_FAULTS; i++) f->faults[i].active = false;
  pthread_mutex_unlock(&f->lock);
}

uint64_t hudi_faulty_storage_calls(hudi_storage *s, hudi_storage_op op) {
  faulty_storage *f = as_faulty(s);
  if (!f || (unsigned)op >= HUDI_STORAGE_OP_COUNT) return 0;
  pthread_mutex_lock(&f->lock);
  uint64_t n = f->calls[op];
  pthread_mutex_unlock(&f->lock);
  return n;
}

uint64_t hudi_faulty_storage_fired(hudi_storage *s) {
  faulty_storage *f = as_faulty(s);
  if (!f) return 0;
  pthread_mutex_lock(&f->lock);
  uint64_t n = f->fired;
  pthread_mutex_unlock(&f->lock);
  return n;
}

void hudi_faulty_storage_reset_counts(hudi_storage *s) {
  faulty_storage *f = as_faulty(s);
  if (!f) return;
  pthread_mutex_lock(&f->lock);
  memset(f->calls, 0, sizeof f->calls);
  f->fired = 0;
  pthread_mutex_unlock(&f->lock);
}

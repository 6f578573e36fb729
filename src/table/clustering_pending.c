/* Pending clusterings and the file groups they read (clustering_pending.h). */
#include "table/clustering_pending.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/hashmap.h"
#include "table/requested_replace.h"

struct hudi_clustering_fgs {
  hudi_hashmap groups; /* "partition\0file_id" -> index into instants */
  char (*instants)[HUDI_INSTANT_TIME_MAX];
  size_t n;
};

/* The requested plan of pending instant in (NULL in *out when its file is
 * missing or empty). */
static hudi_status read_plan(hudi_requested_replace **out, bool *unparsed, hudi_table *t, const hudi_instant *in,
                             hudi_error *err) {
  *out = NULL;
  *unparsed = false;
  char path[200];
  const char *action = t->layout >= 2 ? in->requested_action : "replacecommit";
  snprintf(path, sizeof path, "%s/%s.%s.requested", t->timeline.dir, in->requested_time, action);
  hudi_buf b;
  hudi_buf_init(&b, HUDI_TL_MAX_FILE);
  hudi_error e2 = HUDI_ERROR_INIT;
  hudi_status st = hudi_storage_read_all(t->storage, path, HUDI_TL_MAX_FILE, &b, &e2);
  if (st == HUDI_ERR_NOT_FOUND) st = HUDI_OK;
  else if (st != HUDI_OK) st = hudi_err_set(err, st, "%s", e2.message);
  else if (b.len > 0 && hudi_requested_replace_parse(out, b.data, b.len, path, NULL) != HUDI_OK) *unparsed = true;
  hudi_buf_free(&b);
  return st;
}

/* Whether pending instant in is a clustering, reading its requested plan
 * only where needed: always on layout 1 (a replacecommit's plan decides),
 * on layout 2 only when want_plan. *rr (may stay NULL) is the caller's. */
static hudi_status classify(bool *out, hudi_requested_replace **rr, bool want_plan, hudi_table *t,
                            const hudi_instant *in, hudi_error *err) {
  *out = false;
  *rr = NULL;
  if (in->state == HUDI_INSTANT_COMPLETED) return HUDI_OK;
  bool unparsed = false;
  if (!strcmp(in->requested_action, "clustering")) {
    *out = true;
    return want_plan ? read_plan(rr, &unparsed, t, in, err) : HUDI_OK;
  }
  if (t->layout >= 2 || strcmp(in->requested_action, "replacecommit") != 0) return HUDI_OK;
  HUDI_TRY(read_plan(rr, &unparsed, t, in, err));
  const hudi_requested_replace *p = *rr;
  *out = unparsed || (p && (p->clustering_plan || (p->operation_type && !strcmp(p->operation_type, "CLUSTER"))));
  return HUDI_OK;
}

hudi_status hudi_clustering_is_pending(bool *out, hudi_table *t, const hudi_instant *in, hudi_error *err) {
  hudi_requested_replace *rr = NULL;
  hudi_status st = classify(out, &rr, false, t, in, err);
  hudi_requested_replace_free(rr);
  return st;
}

static hudi_status add_plan(hudi_clustering_fgs *f, const hudi_clustering_plan *p, hudi_error *err) {
  hudi_buf key;
  hudi_buf_init(&key, 1 << 16);
  hudi_status st = HUDI_OK;
  const hudi_clustering_group *g = p->input_groups.items;
  for (size_t i = 0; st == HUDI_OK && i < p->input_groups.n; i++) {
    const hudi_slice_info *s = g[i].slices.items;
    for (size_t k = 0; st == HUDI_OK && k < g[i].slices.n; k++) {
      if (!s[k].file_id) continue;
      hudi_buf_reset(&key);
      const char *part = s[k].partition_path ? s[k].partition_path : "";
      st = hudi_buf_append(&key, part, strlen(part) + 1, err);
      if (st == HUDI_OK) st = hudi_buf_append(&key, s[k].file_id, strlen(s[k].file_id), err);
      if (st == HUDI_OK)
        st = hudi_hashmap_put(&f->groups, key.data, key.len, (hudi_hashmap_value){.u64 = f->n}, NULL, NULL, err);
    }
  }
  hudi_buf_free(&key);
  return st;
}

hudi_status hudi_clustering_fgs_load(hudi_clustering_fgs **out, hudi_table *t, hudi_error *err) {
  *out = NULL;
  hudi_clustering_fgs *f = hudi_calloc(1, sizeof *f);
  if (!f) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_hashmap_init(&f->groups, 0);
  f->instants = hudi_calloc(t->timeline.count + 1, sizeof *f->instants);
  hudi_status st = f->instants ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    bool pending = false;
    hudi_requested_replace *rr = NULL;
    st = classify(&pending, &rr, true, t, in, err);
    if (st == HUDI_OK && pending) {
      snprintf(f->instants[f->n], HUDI_INSTANT_TIME_MAX, "%s", in->requested_time);
      if (rr && rr->clustering_plan) st = add_plan(f, rr->clustering_plan, err);
      f->n++;
    }
    hudi_requested_replace_free(rr);
  }
  if (st != HUDI_OK) {
    hudi_clustering_fgs_free(f);
    return st;
  }
  *out = f;
  return HUDI_OK;
}

hudi_status hudi_clustering_fgs_check(const hudi_clustering_fgs *f, const char *partition, const char *file_id,
                                      const char *table_uri, hudi_error *err) {
  if (!f || !f->n) return HUDI_OK;
  hudi_buf key;
  hudi_buf_init(&key, 1 << 16);
  hudi_status st = hudi_buf_append(&key, partition, strlen(partition) + 1, err);
  if (st == HUDI_OK) st = hudi_buf_append(&key, file_id, strlen(file_id), err);
  hudi_hashmap_value v;
  if (st == HUDI_OK && hudi_hashmap_get(&f->groups, key.data, key.len, &v))
    st = hudi_err_set(err, HUDI_ERR_CONFLICT,
                      "table %s: file group %s of partition '%s' is being clustered by pending clustering %s; "
                      "updates and deletes to it are refused, as Hudi's default update strategy does (the "
                      "clustering would replace the group without them): complete or roll back the clustering "
                      "first",
                      table_uri, file_id, partition, f->instants[v.u64]);
  hudi_buf_free(&key);
  return st;
}

void hudi_clustering_fgs_free(hudi_clustering_fgs *f) {
  if (!f) return;
  hudi_hashmap_free(&f->groups);
  hudi_free(f->instants);
  hudi_free(f);
}

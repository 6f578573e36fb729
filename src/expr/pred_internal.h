/* The bound predicate tree shared by bind.c, eval.c and prune.c. */
#ifndef HUDI_EXPR_PRED_INTERNAL_H
#define HUDI_EXPR_PRED_INTERNAL_H

#include "base/hashmap.h"
#include "expr/pred.h"

typedef enum pnode_kind {
  PN_CONST = 0, /* tv for every row */
  PN_AND,
  PN_OR,
  PN_NOT,
  PN_VALID,     /* column k: NULL -> unknown, else tv (a comparison decided at bind) */
  PN_CMP,       /* column k op value */
  PN_CMP_COL,   /* column k op column k2 */
  PN_IN,        /* column k IN set (negated: NOT IN) */
  PN_IS_NULL,   /* column k IS NULL (negated: IS NOT NULL) */
  PN_LIKE       /* column k LIKE pattern (negated: NOT LIKE) */
} pnode_kind;

typedef struct pnode pnode;
struct pnode {
  pnode_kind kind;
  hudi_tv tv;        /* CONST, VALID */
  size_t col, col2;
  hudi_cmp_op op;
  bool negated;
  hudi_value value;  /* CMP; bytes owned by the node */
  /* IN: distinct values (bytes owned) and a set of their canonical keys */
  hudi_value *list;
  size_t n_list;
  bool list_has_null;
  hudi_hashmap set;
  /* LIKE */
  uint8_t *pattern;
  size_t pattern_len;
  pnode **children;
  size_t n_children;
};

typedef struct pcolumn {
  char *name;          /* dotted path */
  int32_t *path;
  size_t depth;
  hudi_arrow_field field; /* copy of the leaf field */
  hudi_arrow_type type;   /* the compared type: the dictionary's value type when encoded */
  hudi_vclass cls;
} pcolumn;

struct hudi_pred {
  pnode *root;
  pcolumn *cols;
  size_t n_cols;
};

/* Canonical bytes of a value for the IN set (NaN and -0.0 canonicalised);
 * buf holds at least 16 bytes. */
const uint8_t *hudi_pred_value_key(const hudi_value *v, uint8_t *buf, size_t *len);

/* A leaf comparison of one (non-null) value with the node's literal. */
bool hudi_pred_cmp_holds(hudi_cmp_op op, int c);

/* SQL LIKE over bytes: % any sequence, _ one UTF-8 character, \ escapes. */
bool hudi_like_match(const uint8_t *s, size_t n, const uint8_t *pat, size_t pn);

/* Leaf value for one row (x is column col's value, x2 col2's). */
hudi_tv hudi_pred_leaf(const pnode *nd, const hudi_value *x, const hudi_value *x2);

#endif

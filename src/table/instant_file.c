#include "table/instant_file.h"

#include <stdio.h>
#include <string.h>

/* Actions Hudi loads from the active timeline (ActiveTimelineV1/V2's
 * VALID_EXTENSIONS_IN_ACTIVE_TIMELINE), and the state suffixes each has.
 * Layout 1 names a commit's inflight file "<t>.inflight" (no action). */
typedef struct action_desc {
  const char *action;
  const char *completed_as; /* the action of the completed file */
  int has_requested, has_inflight;
} action_desc;

static const action_desc ACTIONS[] = {
    {"commit", "commit", 1, 1},
    {"deltacommit", "deltacommit", 1, 1},
    {"replacecommit", "replacecommit", 1, 1},
    {"clustering", "replacecommit", 1, 1},
    {"compaction", "commit", 1, 1},
    {"logcompaction", "deltacommit", 1, 1},
    {"clean", "clean", 1, 1},
    {"rollback", "rollback", 1, 1},
    {"savepoint", "savepoint", 0, 1},
    {"restore", "restore", 1, 1},
    {"indexing", "indexing", 1, 1},
    {"schemacommit", "schemacommit", 1, 1},
};

static const action_desc *find_action(const char *a, size_t n) {
  for (size_t i = 0; i < sizeof ACTIONS / sizeof ACTIONS[0]; i++)
    if (strlen(ACTIONS[i].action) == n && memcmp(ACTIONS[i].action, a, n) == 0) return &ACTIONS[i];
  return NULL;
}

static int is_completed_action(const char *a, size_t n) {
  for (size_t i = 0; i < sizeof ACTIONS / sizeof ACTIONS[0]; i++) {
    const char *c = ACTIONS[i].completed_as;
    if (strlen(c) == n && memcmp(c, a, n) == 0) return 1;
  }
  return 0;
}

const char *hudi_instant_completed_action(const char *action) {
  const action_desc *d = find_action(action, strlen(action));
  return d ? d->completed_as : action;
}

/* Length of a run of digits at s if it is an instant time (14 or 17
 * digits; Hudi also uses 17-digit times with a trailing 3-digit suffix for
 * metadata-table instants of Hudi 0.x, which append "001" or "010"). */
static size_t instant_digits(const char *s) {
  size_t n = 0;
  while (s[n] >= '0' && s[n] <= '9') n++;
  return (n == 14 || n == 17 || n == 20) ? n : 0;
}

int hudi_instant_file_parse(hudi_instant_file *out, const char *name, int layout) {
  memset(out, 0, sizeof *out);
  size_t t = instant_digits(name);
  if (!t) return 0;
  const char *rest = name + t;
  const char *completion = NULL;
  size_t c = 0;
  if (layout >= 2 && rest[0] == '_') {
    completion = rest + 1;
    c = instant_digits(completion);
    if (!c) return 0;
    rest = completion + c;
  }
  if (rest[0] != '.') return 0;
  rest++;
  const char *dot = strchr(rest, '.');
  size_t alen = dot ? (size_t)(dot - rest) : strlen(rest);
  const char *suffix = dot ? dot + 1 : NULL;
  if (alen == 0 || alen >= HUDI_ACTION_MAX) return 0;
  if (t >= HUDI_INSTANT_TIME_MAX || c >= HUDI_INSTANT_TIME_MAX) return 0;

  hudi_instant_state state;
  if (!suffix) {
    /* "<t>.inflight" is a commit's inflight file in both layouts. */
    if (alen == 8 && memcmp(rest, "inflight", 8) == 0) {
      if (completion) return 0;
      memcpy(out->requested_time, name, t);
      strcpy(out->action, "commit");
      out->state = HUDI_INSTANT_INFLIGHT;
      return 1;
    }
    if (!is_completed_action(rest, alen)) return 0;
    /* Layout 2 completed files carry their completion time; Hudi's other
     * readers reject a completed file without it. */
    if (layout >= 2 && !completion) return 0;
    state = HUDI_INSTANT_COMPLETED;
  } else {
    if (completion) return 0;
    const action_desc *d = find_action(rest, alen);
    if (!d) return 0;
    if (strcmp(suffix, "requested") == 0 && d->has_requested) state = HUDI_INSTANT_REQUESTED;
    else if (strcmp(suffix, "inflight") == 0 && d->has_inflight) state = HUDI_INSTANT_INFLIGHT;
    else return 0;
  }
  memcpy(out->requested_time, name, t);
  if (completion) memcpy(out->completion_time, completion, c);
  memcpy(out->action, rest, alen);
  out->state = state;
  return 1;
}

int hudi_instant_file_name(char *buf, size_t cap, const char *requested_time, const char *completion_time,
                           const char *action, hudi_instant_state state, int layout) {
  const action_desc *d = find_action(action, strlen(action));
  if (!d) return -1;
  int n;
  switch (state) {
    case HUDI_INSTANT_REQUESTED:
      n = snprintf(buf, cap, "%s.%s.requested", requested_time, action);
      break;
    case HUDI_INSTANT_INFLIGHT:
      if (strcmp(action, "commit") == 0)
        n = snprintf(buf, cap, "%s.inflight", requested_time);
      else
        n = snprintf(buf, cap, "%s.%s.inflight", requested_time, action);
      break;
    case HUDI_INSTANT_COMPLETED:
      if (layout >= 2) {
        if (!completion_time || !*completion_time) return -1;
        n = snprintf(buf, cap, "%s_%s.%s", requested_time, completion_time, d->completed_as);
      } else {
        n = snprintf(buf, cap, "%s.%s", requested_time, d->completed_as);
      }
      break;
    default:
      return -1;
  }
  return (n < 0 || (size_t)n >= cap) ? -1 : n;
}

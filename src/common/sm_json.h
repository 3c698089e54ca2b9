/* sm_json.h: a small streaming JSON writer for starmet's summaries: string
 * escaping, numbers in a given printf precision, and objects and arrays
 * that place their commas themselves. The caller chooses the layout (what
 * goes on its own line), so files keep a stable, readable shape. */
#ifndef SM_JSON_H
#define SM_JSON_H

#include <stdio.h>

#define SM_JSON_DEPTH 8

typedef struct sm_json {
  FILE *f;
  int depth; /* open containers, the root object included */
  struct {
    char close; /* '}' or ']' */
    int first;  /* no item written yet */
    int indent; /* 0: items inline ("a, b"); n: each item on a new line
                   indented by n spaces */
  } level[SM_JSON_DEPTH];
  int brk; /* indent of a line break before the next item only, or 0 */
} sm_json_t;

/** Start a document on f: the root object, each member on its own line
 * indented by two spaces. */
void sm_json_begin(sm_json_t *j, FILE *f);

/** End the document: the root object's closing brace on its own line and
 * a final newline. Write errors show in ferror(f). */
void sm_json_end(sm_json_t *j);

/** Open an object (key: its member name, NULL inside an array). indent 0
 * puts its members inline, n > 0 each on a new line of n spaces. */
void sm_json_object(sm_json_t *j, const char *key, int indent);

/** Open an array; indent as for sm_json_object. */
void sm_json_array(sm_json_t *j, const char *key, int indent);

/** Close the innermost object or array (right after its last item). */
void sm_json_close(sm_json_t *j);

/** Put the next item (only) on a new line indented by indent spaces, in an
 * inline object or array. */
void sm_json_break(sm_json_t *j, int indent);

/** A string, escaped ('"', '\\' and control characters); NULL is null. */
void sm_json_str(sm_json_t *j, const char *key, const char *s);

/** An integer. */
void sm_json_int(sm_json_t *j, const char *key, long long x);

/** An unsigned integer (counts, sizes, bytes). */
void sm_json_u64(sm_json_t *j, const char *key, unsigned long long x);

/** true or false. */
void sm_json_bool(sm_json_t *j, const char *key, int x);

/** A number with prec digits after the point (printf "%.*f"); null when x
 * is not finite (JSON has no NaN or infinity), as for sm_json_real. */
void sm_json_fixed(sm_json_t *j, const char *key, int prec, double x);

/** A number with prec significant digits (printf "%.*g"; 17 round-trips a
 * double). */
void sm_json_real(sm_json_t *j, const char *key, int prec, double x);

#endif

/* cdyn — reading and writing problem files.
 *
 * LCP files use the format of the Siconos project's LCP test data, so Siconos users can bring
 * their problems as they are (whitespace-separated tokens, see docs/api.md):
 *
 *   n                         problem size, an integer > 0
 *   0                         storage code: 0 = dense (the only one supported)
 *   n n                       rows and columns of M
 *   n n                       rows and columns again
 *   n*n numbers               M column by column (each printed line is a column of M)
 *   n numbers                 q
 *   anything else             free-text comment (kept, may contain numbers)
 *
 * Limits: n fits in an int and n*n + n values must fit in the remaining text (at least two bytes
 * per value), so a corrupt size never makes the reader allocate more than about four times the
 * file's size. Numbers are decimal (no hexadecimal floats), at most CDYN_LCP_FILE_MAX_TOKEN
 * characters long, and finite: nan, inf and values that overflow a double are rejected. Parsing
 * does not depend on the C locale.
 *
 * Errors: CDYN_EINVAL (NULL arguments), CDYN_EIO (the file cannot be opened, read or written; the
 * message names the path and the system's reason), CDYN_EFORMAT (malformed content; the message
 * says what was expected and where, as "line L, token T"), CDYN_ETOOBIG (n*n does not fit in
 * memory addresses), CDYN_ENOMEM. On failure *out is left unchanged and nothing is leaked.
 *
 * Thread safety: every function is reentrant. */
#ifndef CDYN_IO_H
#define CDYN_IO_H

#include <stddef.h>

#include "cdyn/alloc.h"
#include "cdyn/lcp.h"
#include "cdyn/status.h"

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest number token the reader accepts, in characters. */
#define CDYN_LCP_FILE_MAX_TOKEN 255

/* An LCP read from a file. Everything it points to is owned by the object: create it only with
 * cdyn_lcp_file_read / cdyn_lcp_file_parse and release it only with cdyn_lcp_file_free. */
typedef struct cdyn_lcp_file {
    int n;         /* > 0 */
    double *M;     /* n*n, column-major: M[i + j*n] is row i, column j */
    double *q;     /* n */
    char *comment; /* text after q with surrounding whitespace removed; "" when there is none */
} cdyn_lcp_file;

/* Read an LCP file. allocator may be NULL (malloc/free); it is used for every allocation,
 * including the file's text, and remembered for cdyn_lcp_file_free. report may be NULL. */
CDYN_API cdyn_status cdyn_lcp_file_read(const char *path, const cdyn_allocator *allocator,
                                        cdyn_lcp_file **out, cdyn_report *report);

/* Parse LCP text held in memory: exactly `length` bytes are read (text need not be
 * NUL-terminated; a NUL byte inside a number token makes it malformed, inside the comment it ends
 * the comment string). Same errors as cdyn_lcp_file_read except CDYN_EIO. */
CDYN_API cdyn_status cdyn_lcp_file_parse(const char *text, size_t length,
                                         const cdyn_allocator *allocator, cdyn_lcp_file **out,
                                         cdyn_report *report);

/* Release a file object with the allocator it was created with. Accepts NULL. */
CDYN_API void cdyn_lcp_file_free(cdyn_lcp_file *file);

/* A view of the problem for the LCP solvers (no copy: valid while `file` lives).
 * file == NULL gives {0, NULL, NULL}, which every solver rejects with CDYN_EINVAL. */
CDYN_API cdyn_lcp cdyn_lcp_file_problem(const cdyn_lcp_file *file);

/* Write an LCP in the same format (values with 17 significant digits, so reading the file back
 * gives the same doubles). comment may be NULL; it is written after q as it is. Returns
 * CDYN_EINVAL for a NULL path or problem, n <= 0 or a non-finite entry, CDYN_EIO when the file
 * cannot be written (a partly written file may remain). report may be NULL. */
CDYN_API cdyn_status cdyn_lcp_file_write(const char *path, const cdyn_lcp *lcp, const char *comment,
                                         cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif

/* Internal: filling a cdyn_report. */
#ifndef CDYN_CORE_REPORT_H
#define CDYN_CORE_REPORT_H

#include <string.h>

#include "cdyn/status.h"

/* Set the method name (truncated to fit). Inline, like cdyn_report_clear: they run on every
 * solver call, and with a literal name the copy folds into a few stores, which matters next to
 * solves of a few hundred nanoseconds. */
static inline void cdyn_report_method(cdyn_report *r, const char *method)
{
    if (r == NULL)
        return;
    size_t len = method != NULL ? strlen(method) : 0;
    if (len > sizeof r->method - 1)
        len = sizeof r->method - 1;
    if (len > 0)
        memcpy(r->method, method, len);
    r->method[len] = '\0';
}

/* Reset a report (NULL is allowed: every helper here accepts it). Field by field rather than a
 * memset of the whole struct: the text buffers only need their terminators. */
static inline void cdyn_report_clear(cdyn_report *r, const char *method)
{
    if (r == NULL)
        return;
    r->status = CDYN_OK;
    r->iterations = 0;
    r->evaluations = 0;
    r->residual = 0.0;
    r->message[0] = '\0';
    r->proven = 0;
    cdyn_report_method(r, method);
}

/* Record a status with a printf-style message; returns the status for `return cdyn_fail(...)`. */
cdyn_status cdyn_fail(cdyn_report *r, cdyn_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif

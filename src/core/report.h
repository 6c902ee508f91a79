/* Internal: filling a cdyn_report. */
#ifndef CDYN_CORE_REPORT_H
#define CDYN_CORE_REPORT_H

#include "cdyn/status.h"

/* Reset a report (NULL is allowed: every helper here accepts it). */
void cdyn_report_clear(cdyn_report *r, const char *method);

/* Record a status with a printf-style message; returns the status for `return cdyn_fail(...)`. */
cdyn_status cdyn_fail(cdyn_report *r, cdyn_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void cdyn_report_method(cdyn_report *r, const char *method);

#endif

#include "core/report.h"

#include <stdarg.h>
#include <stdio.h>

cdyn_status cdyn_fail(cdyn_report *r, cdyn_status status, const char *fmt, ...)
{
    if (r != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->message, sizeof r->message, fmt, ap);
        va_end(ap);
        r->status = status;
    }
    return status;
}

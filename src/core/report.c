#include "core/report.h"

#include <stdarg.h>
#include <stdio.h>

void cdyn_report_method(cdyn_report *r, const char *method)
{
    if (r == NULL)
        return;
    /* A bounded copy: this runs on every solver call, where snprintf's cost shows for tiny
       problems. */
    size_t len = 0;
    if (method != NULL)
        while (len + 1 < sizeof r->method && method[len] != '\0') {
            r->method[len] = method[len];
            ++len;
        }
    r->method[len] = '\0';
}

void cdyn_report_clear(cdyn_report *r, const char *method)
{
    if (r == NULL)
        return;
    /* Field by field rather than a memset of the whole struct: this runs on every solver call
       and the text buffers only need their terminators. */
    r->status = CDYN_OK;
    r->iterations = 0;
    r->evaluations = 0;
    r->residual = 0.0;
    r->message[0] = '\0';
    cdyn_report_method(r, method);
}

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

#include "cdyn/status.h"

const char *cdyn_status_str(cdyn_status status)
{
    switch (status) {
#define CDYN_STATUS_CASE_(name, value, text) \
    case name:                               \
        return text;
        CDYN_STATUS_LIST(CDYN_STATUS_CASE_)
#undef CDYN_STATUS_CASE_
    }
    return "unknown status";
}

#include "cdyn/version.h"

const char *cdyn_version(void)
{
    return CDYN_VERSION_STRING;
}

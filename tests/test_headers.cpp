/* Every public header compiles as C++ too, through the umbrella cdyn.h that includes them all
 * (the C11 twin is test_headers.c). */
#include <cstring>

#include <cdyn/cdyn.h>

int main(void)
{
    /* The linked library and the header agree on the version. */
    return std::strcmp(cdyn_version(), CDYN_VERSION_STRING) == 0 ? 0 : 1;
}

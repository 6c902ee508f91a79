/* Every public header compiles as C++ too (the C11 twin is test_headers.c):
 * each include below comes first in its own translation unit check via -include in CMake. */
#include <cstring>

#include <cdyn/cdyn.h>

int main(void)
{
    /* The linked library and the header agree on the version. */
    return std::strcmp(cdyn_version(), CDYN_VERSION_STRING) == 0 ? 0 : 1;
}

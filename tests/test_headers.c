/* Every public header compiles on its own as strict C11 (this file) and as C++ (the .cpp twin):
 * each include below comes first in its own translation unit check via -include in CMake. */
#include <string.h>

#include <cdyn/cdyn.h>

int main(void)
{
    /* The linked library and the header agree on the version. */
    return strcmp(cdyn_version(), CDYN_VERSION_STRING) == 0 ? 0 : 1;
}

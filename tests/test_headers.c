/* Every public header compiles on its own as strict C11 and the umbrella as C++ (the .cpp twin):
 * tests/CMakeLists.txt generates one standalone_*.c per header, which includes it first (twice,
 * for the include guard) and is linked into this program. */
#include <string.h>

#include <cdyn/cdyn.h>

int main(void)
{
    /* The linked library and the header agree on the version. */
    return strcmp(cdyn_version(), CDYN_VERSION_STRING) == 0 ? 0 : 1;
}

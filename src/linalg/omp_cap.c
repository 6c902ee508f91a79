/* The OpenMP thread cap of omp_cap.h: a host teams region of one team (compiled with -fopenmp
 * by GCC only; see src/CMakeLists.txt), or a plain call. */
#include "linalg/omp_cap.h"

#if defined(CDYN_HAVE_OMP_CAP) && defined(_OPENMP)

int cdyn_omp_cap_available(void)
{
    return 1;
}

void cdyn_omp_capped(int cap, void (*fn)(void *), void *arg)
{
    /* libgomp runs a host teams region's teams one after another on the calling thread (no
       thread is started for num_teams(1)) and restores the thread-limit ICV afterwards. */
#pragma omp teams num_teams(1) thread_limit(cap)
    fn(arg);
}

#else

int cdyn_omp_cap_available(void)
{
    return 0;
}

void cdyn_omp_capped(int cap, void (*fn)(void *), void *arg)
{
    (void)cap;
    fn(arg);
}

#endif

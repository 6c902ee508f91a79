/* The finiteness test of the frictional contact solvers (fc3d_vec_bad in fc3d_internal.h), in a
 * file of its own: the problem's checks (fc3d_problem.c), the one-contact solver (fc3d_local.c)
 * and Newton (fc3d_newton.c) all use it, while fc3d_problem.c builds its residual from
 * fc3d_local.c, so the calls between those two run one way. */
#include "solvers/fc3d/fc3d_internal.h"

#include <math.h>

int fc3d_vec_bad(int len, const double *x)
{
    for (int k = 0; k < len; k++)
        if (!isfinite(x[k]))
            return 1;
    return 0;
}

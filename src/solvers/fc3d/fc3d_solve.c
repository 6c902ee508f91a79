/* The default frictional contact solver, one call: a solver object made, used once, freed. */
#include "solvers/fc3d/fc3d_internal.h"
#include "solvers/fc3d/fc3d_solvers.h"

cdyn_status cdyn_fc3d_solve(const cdyn_fc3d *problem, const cdyn_fc3d_options *opts, double *r,
                            double *u, cdyn_fc3d_report *report)
{
    /* Every argument is checked before anything is allocated: bad input is CDYN_EINVAL even
       when memory is short (the solver object allocates before its solve checks). */
    fc3d_report_clear(report, "fc3d");
    cdyn_fc3d_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_fc3d_defaults(&o);
    cdyn_status st = fc3d_check_options(&o, report);
    if (st == CDYN_OK)
        st = fc3d_check_problem(problem, report);
    if (st != CDYN_OK)
        return st;
    if (r == NULL || fc3d_vec_bad(3 * problem->n, r))
        return fc3d_fail(report, CDYN_EINVAL, "r is NULL or not finite");
    cdyn_fc3d_solver *s = NULL;
    if ((st = cdyn_fc3d_solver_create(NULL, opts, &s, report)) != CDYN_OK)
        return st;
    st = cdyn_fc3d_solver_solve(s, problem, r, u, report);
    cdyn_fc3d_solver_free(s);
    return st;
}

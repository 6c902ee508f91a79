#include "siconos_fc3d.h"

#include <stdlib.h>
#include <string.h>

#include "FrictionContactProblem.h"
#include "Friction_cst.h"
#include "NonSmoothDrivers.h"
#include "NumericsVerbose.h"
#include "SolverOptions.h"

struct siconos_fc3d {
    FrictionContactProblem *problem;
};

static const int SOLVER_IDS[SICONOS_FC3D_SOLVERS] = {
    SICONOS_FRICTION_3D_NSGS, SICONOS_FRICTION_3D_NSN_AC, SICONOS_FRICTION_3D_NSN_FB};
static const char *const SOLVER_NAMES[SICONOS_FC3D_SOLVERS] = {"NSGS", "NSN-AC", "NSN-FB"};

const char *siconos_fc3d_name(siconos_fc3d_solver solver)
{
    return solver >= 0 && solver < SICONOS_FC3D_SOLVERS ? SOLVER_NAMES[solver] : "?";
}

siconos_fc3d *siconos_fc3d_load(const char *path)
{
    numerics_set_verbose(0);
    siconos_fc3d *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->problem = frictionContact_new_from_filename(path);
    if (s->problem == NULL || s->problem->dimension != 3) {
        siconos_fc3d_free(s);
        return NULL;
    }
    return s;
}

int siconos_fc3d_contacts(const siconos_fc3d *s)
{
    return s->problem->numberOfContacts;
}

int siconos_fc3d_solve(siconos_fc3d *s, siconos_fc3d_solver solver, double tol, int max_iter,
                       double *r, double *u, int *iterations)
{
    SolverOptions *o = solver_options_create(SOLVER_IDS[solver]);
    if (o == NULL)
        return -1;
    o->dparam[SICONOS_DPARAM_TOL] = tol;
    o->iparam[SICONOS_IPARAM_MAX_ITER] = max_iter;
    size_t m = 3 * (size_t)s->problem->numberOfContacts;
    memset(r, 0, m * sizeof *r);
    memset(u, 0, m * sizeof *u);
    int info = fc3d_driver(s->problem, r, u, o);
    *iterations = o->iparam[SICONOS_IPARAM_ITER_DONE];
    solver_options_delete(o);
    return info;
}

void siconos_fc3d_free(siconos_fc3d *s)
{
    if (s == NULL)
        return;
    if (s->problem != NULL)
        frictionContactProblem_free(s->problem);
    free(s);
}

#define _POSIX_C_SOURCE 200809L

#include "siconos_lcp.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "LCP_Solvers.h"
#include "LinearComplementarityProblem.h"
#include "NonSmoothDrivers.h"
#include "NumericsMatrix.h"
#include "NumericsVerbose.h"
#include "SolverOptions.h"
#include "lcp_cst.h"

struct siconos_lcp {
    LinearComplementarityProblem problem;
    SolverOptions *options;
};

static siconos_lcp *create(int n, const double *M, const double *q, int solver_id)
{
    siconos_lcp *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    numerics_set_verbose(0);
    /* NM_create_from_data wraps the array without copying; Siconos only reads M and q, so the
       casts are safe and both solvers see the very same bytes. */
    s->problem.size = n;
    s->problem.M = NM_create_from_data(NM_DENSE, n, n, (void *)M);
    s->problem.q = (double *)q;
    s->options = solver_options_create(solver_id);
    if (s->problem.M == NULL || s->options == NULL) {
        siconos_lcp_free(s);
        return NULL;
    }
    return s;
}

siconos_lcp *siconos_lcp_create(int n, const double *M, const double *q, int max_pivots)
{
    siconos_lcp *s = create(n, M, q, SICONOS_LCP_LEMKE);
    if (s != NULL)
        s->options->iparam[SICONOS_IPARAM_MAX_ITER] = max_pivots;
    return s;
}

siconos_lcp *siconos_lcp_create_newton_fb(int n, const double *M, const double *q, double tol)
{
    siconos_lcp *s = create(n, M, q, SICONOS_LCP_NEWTON_FB_FBLSA);
    if (s != NULL)
        s->options->dparam[SICONOS_DPARAM_TOL] = tol;
    return s;
}

int siconos_newton_fb_defaults(int *max_iter, double *tol)
{
    SolverOptions *o = solver_options_create(SICONOS_LCP_NEWTON_FB_FBLSA);
    if (o == NULL)
        return -1;
    *max_iter = o->iparam[SICONOS_IPARAM_MAX_ITER];
    *tol = o->dparam[SICONOS_DPARAM_TOL];
    solver_options_delete(o);
    free(o);
    return 0;
}

int siconos_lcp_max_iter(const siconos_lcp *s)
{
    return s->options->iparam[SICONOS_IPARAM_MAX_ITER];
}

int siconos_lcp_solve(siconos_lcp *s, double *z, double *w, int *iterations)
{
    /* The driver's shortcut for q >= 0 does not reset the iteration counter. */
    s->options->iparam[SICONOS_IPARAM_ITER_DONE] = 0;
    s->options->dparam[SICONOS_DPARAM_RESIDU] = 0.0;
    int info = linearComplementarity_driver(&s->problem, z, w, s->options);
    if (iterations != NULL)
        *iterations = s->options->iparam[SICONOS_IPARAM_ITER_DONE];
    return info;
}

double siconos_lcp_error(const siconos_lcp *s)
{
    return s->options->dparam[SICONOS_DPARAM_RESIDU];
}

void siconos_lcp_free(siconos_lcp *s)
{
    if (s == NULL)
        return;
    if (s->problem.M != NULL) {
        s->problem.M->matrix0 = NULL; /* the data belongs to the caller */
        NM_free(s->problem.M);        /* frees the struct too */
    }
    if (s->options != NULL) {
        solver_options_delete(s->options); /* Siconos 4.4 does not free the struct itself */
        free(s->options);
    }
    free(s);
}

int stdout_silence(void)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved < 0)
        return -1;
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull < 0 || dup2(devnull, STDOUT_FILENO) < 0) {
        if (devnull >= 0)
            close(devnull);
        close(saved);
        return -1;
    }
    close(devnull);
    return saved;
}

void stdout_restore(int token)
{
    if (token < 0)
        return;
    fflush(stdout);
    dup2(token, STDOUT_FILENO);
    close(token);
}

/* Internal: a whole trajectory as one mixed complementarity problem (docs/theory.md,
 * "Boundary-value problems"). Physics-free: a one-step formulation describes itself as residual
 * rows (bvp_step_ops) and the engine stacks N of them with the boundary rows, assembles the
 * block-banded sparse Jacobian from the steps' own Jacobian blocks, and solves with the reusable
 * sparse FB-Newton solver (symbolic analysis once).
 *
 * Unknowns z = (x_0, y_1, ..., y_N): x_0 the initial state (nx values), y_l the unknowns of step
 * l (ny values) whose first nx entries are the state x_l at the end of the step. Rows:
 *   boundary rows, nx of them, paired with the slots of x_0: slot i of a component fixed at the
 *     start holds x_0,i - value0_i; the other slots, in order, hold the end conditions
 *     x_N,i - valueN_i and then the user rows Upsilon_k(x_0, x_N);
 *   step rows F(l, x_{l-1}, y_l), ny per step, paired with y_l and its bounds.
 * A bound on a free start component applies to its slot (and so to the end condition paired
 * with it): at a solution where the bound is not active every row holds. */
#ifndef CDYN_BVP_BVP_ENGINE_H
#define CDYN_BVP_BVP_ENGINE_H

#include "cdyn/mcp.h"
#include "linalg/csc.h"

typedef struct bvp_step_ops {
    int nx, ny;                  /* state and step unknowns, nx <= ny */
    const double *lower, *upper; /* ny bounds of y (both required; +-INFINITY: free) */
    /* Structural nonzeros of dF/dy (ny x ny) and dF/dx_prev (ny x nx) as (row, column) lists;
     * the Jacobian callback fills values in these orders. Duplicates are summed. */
    int njy;
    const int *jy_i, *jy_j;
    int njx;
    const int *jx_i, *jx_j;
    /* F(step l = 1..N, x_{l-1}, y_l) into F (ny); 0 on success. */
    int (*F)(void *ctx, int step, const double *xprev, const double *y, double *F);
    /* The two Jacobian blocks' values at (x_{l-1}, y_l); 0 on success. */
    int (*J)(void *ctx, int step, const double *xprev, const double *y, double *jy, double *jx);
    void *ctx;
} bvp_step_ops;

typedef struct bvp_spec {
    int N;                         /* steps, >= 1 */
    const int *fixed0, *fixedN;    /* nx flags (NULL: none fixed) */
    const double *value0, *valueN; /* nx values, read where fixed */
    int nuser;                     /* user rows Upsilon(x_0, x_N) */
    /* Upsilon into res (nuser) and, when jac != NULL, its Jacobian (nuser x 2 nx, column-major:
     * columns 0..nx-1 for x_0, nx..2nx-1 for x_N). 0 on success. */
    int (*user)(void *ctx, const double *x0, const double *xN, double *res, double *jac);
    void *user_ctx;
    const double *lower0, *upper0; /* nx bounds of the free start components (NULL: free) */
} bvp_spec;

typedef struct bvp_engine bvp_engine;

/* Check the counts (fixed start + fixed end + user rows = nx), build the pattern (triplets, CSC
 * and the map) and the sparse MCP solver. opts: the FB-Newton settings (allocator used for
 * everything). CDYN_EINVAL with a message, CDYN_ETOOBIG, CDYN_ENOMEM. */
cdyn_status bvp_engine_create(const bvp_step_ops *ops, const bvp_spec *spec,
                              const cdyn_mcp_options *opts, bvp_engine **out, cdyn_report *r);
void bvp_engine_free(bvp_engine *e);

/* Unknowns and Jacobian entries of the stacked problem. */
int bvp_engine_size(const bvp_engine *e);
int bvp_engine_nnz(const bvp_engine *e);

/* Solve from z (size unknowns) in place; unchanged on failure. First plain FB-Newton on the
 * whole problem; when it does not converge, continuation in the boundary data from z: with
 * b0 = B(z) the boundary rows' residual at z (which z solves together with the step rows when z
 * comes from forward stepping), solve B(z) = (1 - s) b0 for s = 0 -> 1, each from the last
 * solution, doubling the increment of s after a success and halving it after a failure (down to
 * 1/4096). Report: iterations summed over all solves, method "bvp-newton" or
 * "bvp-continuation"; CDYN_ENOCONV says where the continuation stalled. CDYN_ENOSOLUTION when the
 * MCP is solved with a start bound active and the condition paired with it missed (the miss is
 * report->residual): no solution within the bounds. */
cdyn_status bvp_engine_solve(bvp_engine *e, double *z, cdyn_report *r);
int bvp_engine_continuation_steps(const bvp_engine *e);

/* Sensitivities of the solution z (from bvp_engine_solve) to np boundary values: which[j] = c
 * for value0[c], nx + c for valueN[c] (the component must be fixed). By the implicit function
 * theorem on Phi(z, p) = 0 (the Fischer-Burmeister form the solver drives to zero):
 * H dz_j = -diag(db) dF/dp_j, H = diag(da) + diag(db) J at z, factored once with KLU. At a
 * degenerate point (a pair with both members zero) H is one element of the generalized Jacobian
 * and dz_j a one-sided derivative. dz: n x np, column-major. CDYN_EINVAL (a component not
 * fixed), CDYN_ESINGULAR, CDYN_ENOMEM. */
cdyn_status bvp_engine_sensitivity(bvp_engine *e, const double *z, int np, const int *which,
                                   double *dz, cdyn_report *r);

/* The same for parameters p_j the stacked residual depends on, given dF/dp_j (dFdp: n x np,
 * column-major, rows in the engine's order: boundary rows, then step after step). */
cdyn_status bvp_engine_sensitivity_rhs(bvp_engine *e, const double *z, int np, const double *dFdp,
                                       double *dz, cdyn_report *r);

/* Residual check of a z: the natural residual of the stacked MCP (NAN when a callback fails). */
double bvp_engine_residual(bvp_engine *e, const double *z);

/* An initial guess by forward stepping: given x_0 in z[0..nx), solve each step's MCP for y_l
 * from x_{l-1} (y_l starts from the previous step's y, the first from ystart: ny values) and
 * store them in z. CDYN_OK, or the first step's failure (z then partly written). */
cdyn_status bvp_ivp_guess(const bvp_step_ops *ops, int N, const double *ystart,
                          const cdyn_mcp_options *opts, double *z, cdyn_report *r);

#endif

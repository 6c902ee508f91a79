/* Mixed complementarity test problems with known solutions, shared by the MCP solver tests
 * (test_mcp_problems.c, test_mcp_box.c, test_mcp_errors.c) and the box-constrained merit tests
 * (test_box_merit.c, test_box_merit_errors.c).
 * Sources and hand derivations are in mcp_testproblems.c next to each problem. */
#ifndef CDYN_TESTS_MCP_TESTPROBLEMS_H
#define CDYN_TESTS_MCP_TESTPROBLEMS_H

#include "cdyn/mcp.h"

#define TP_MAXN 8

/* ---- Literature NCPs / MCPs (dense, no context) --------------------------------------------- */

typedef struct tp_problem {
    const char *name;
    int n;
    cdyn_mcp_fun F;
    cdyn_mcp_jac_dense J;
    const double *lower, *upper; /* NULL: NCP */
    double start[2][TP_MAXN];
    /* Distance (max norm) of x to the known solution set (0 on it). */
    double (*distance)(const double *x);
    /* Tolerance on that distance for a solve that reached natural residual 1e-10: a small
       multiple of the residual for exactly known solutions, the published rounding for
       Nash-Cournot (3 decimals). */
    double distance_tol;
    /* Nonzero when the solution set is a single known point. */
    int unique;
} tp_problem;

extern const tp_problem TP_PROBLEMS[];
extern const int TP_NPROB;

/* Kojima-Shindo map and its two solutions (the second one degenerate). */
int tp_ks_F(void *ctx, const double *x, double *F);
int tp_ks_J(void *ctx, const double *x, double *J);
extern const double TP_KS_SOL1[4], TP_KS_SOL2[4];

/* max_i |x_i - s_i|. */
double tp_dist_to(const double *x, const double *s, int n);

/* ---- KKT system with free, fixed, one- and two-sided bounds (manufactured solution) -------- */

enum { TP_KKT_NX = 6, TP_KKT_NY = 2, TP_KKT_N = TP_KKT_NX + TP_KKT_NY };

typedef struct tp_kkt {
    double c[TP_KKT_NX], b[TP_KKT_NY];
    /* CSC pattern of the Jacobian's structural nonzeros (no (y, y) block, so no diagonal
       there), used by tp_kkt_J_sparse. */
    int colptr[TP_KKT_N + 1], rowind[TP_KKT_N * TP_KKT_N];
} tp_kkt;

extern const double TP_KKT_LO[TP_KKT_N], TP_KKT_UP[TP_KKT_N], TP_KKT_XSTAR[TP_KKT_N];
extern const double TP_KKT_STARTS[2][TP_KKT_N];

void tp_kkt_init(tp_kkt *k);
/* Callbacks; ctx is a tp_kkt initialized by tp_kkt_init. */
int tp_kkt_F(void *ctx, const double *z, double *F);
int tp_kkt_J(void *ctx, const double *z, double *J);
int tp_kkt_J_sparse(void *ctx, const double *z, double *vals);

/* ---- Linear NCP with failure switches (the error tests) ------------------------------------ */

/* F(x) = (x1 - 1, 2 x2 - 1) on the NCP (solution (1, 1/2)); ctx is a tp_ctl or NULL. */
typedef struct tp_ctl {
    int calls;      /* F calls so far */
    int jcalls;     /* Jacobian calls so far */
    int f_bad_from; /* from this F call on (0-based), return f_bad_kind */
    int f_bad_kind; /* 1: NaN, 2: Inf, 3: nonzero return */
    int j_bad_from;
    int j_bad_kind;
} tp_ctl;

int tp_lin_F(void *ctx, const double *x, double *F);
int tp_lin_J(void *ctx, const double *x, double *J);
/* Values on the diagonal pattern TP_DIAG_COLPTR / TP_DIAG_ROWIND (no failure switch). */
int tp_lin_J_sparse(void *ctx, const double *x, double *v);
extern const int TP_DIAG_COLPTR[3], TP_DIAG_ROWIND[2];
/* n = 2, F = tp_lin_F, dense jac = tp_lin_J, ctx = c. */
cdyn_mcp tp_lin_problem(tp_ctl *c);

#endif

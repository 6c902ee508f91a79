/* Internal: pieces of the FB semismooth Newton MCP solver (fb_newton.c and friends).
 *
 * Data flow of one call: mcp_solve.c validates and sets up the workspace (one block for the
 * vectors and Jacobian values, one for the linear-system object, plus KLU's own objects on the
 * sparse path), fb_newton.c iterates, mcp_solve.c copies the result back. The LCP wrapper
 * (lcp_fb.c) enters through cdyn_mcp_solve_fixed with its constant Jacobian M.
 * The Newton matrix is H = diag(da) + diag(db) J (+ mu I), with (da, db) from fb_function.c. */
#ifndef CDYN_SOLVERS_MCP_INTERNAL_H
#define CDYN_SOLVERS_MCP_INTERNAL_H

#include <stddef.h>

#include "cdyn/mcp.h"
#include "linalg/linsys.h"

/* ---- Problem checks and the natural residual (mcp_problem.c) ------------------------- */

/* Validate the problem description and options (not the start point); message into r. */
cdyn_status cdyn_mcp_check_problem(const cdyn_mcp *p, cdyn_report *r);
cdyn_status cdyn_mcp_check_options(const cdyn_mcp_options *o, cdyn_report *r);

/* Checks shared by the solver entries, after the problem and options: the start point x (not
 * NULL, finite) and, when need_jacobian, a Jacobian callback matching the storage. */
cdyn_status cdyn_mcp_check_start(const cdyn_mcp *p, const double *x, int need_jacobian,
                                 cdyn_report *r);

/* Copy the bounds of p into l and u (n each), resolving the NULL defaults. */
void cdyn_mcp_fill_bounds(const cdyn_mcp *p, double *l, double *u);

/* ||x - mid(l, u, x - F)||_inf with explicit bound arrays; NaN propagates. */
double cdyn_mcp_natural_residual(int n, const double *l, const double *u, const double *x,
                                 const double *F);
/* max_i max(0, r_i - floor_i) over the rows' natural residuals r_i (floor NULL: the natural
 * residual itself); NaN propagates. */
double cdyn_mcp_natural_excess(int n, const double *l, const double *u, const double *x,
                               const double *F, const double *floor);

/* ---- Fischer–Burmeister box reformulation (fb_function.c) ----------------------------- */

/* lambda = 1 gives the plain FB function phi(a, b) = a + b - sqrt(a^2 + b^2); lambda in (0, 1)
 * the penalized phi_lambda = lambda phi + (1 - lambda) max(a,0) max(b,0). */
double cdyn_mcp_phi(double a, double b, double lambda);
/* Partial derivatives of phi_lambda at (a, b); at the kink (0, 0) an element of the generalized
 * gradient (see docs/theory.md). */
void cdyn_mcp_phi_grad(double a, double b, double lambda, double *da, double *db);

/* Phi(x) for the box [l, u] given F = F(x). When da and db are non-NULL, also the diagonal
 * factors of the generalized-Jacobian element H = diag(da) + diag(db) J, with the fixed kink
 * element of cdyn_mcp_phi_grad, and the number of rows where an FB term sits at its kink (0, 0)
 * is returned (0 when da is NULL). */
int cdyn_mcp_fb_eval(int n, const double *l, const double *u, const double *x, const double *F,
                     double lambda, double *Phi, double *da, double *db);

/* For the plain FB function (lambda = 1), the rule of De Luca, Facchinei and Kanzow (1996)
 * that makes H an element of the B-subdifferential of Phi when some rows sit at a kink: z_i = 1
 * on those rows and 0 elsewhere (cdyn_mcp_fb_kinks, returns their number), then on those rows
 * da, db := the limits of the gradients along x + t z, t -> 0+, given Jz = J z
 * (cdyn_mcp_fb_kink_factors). With this H, H z is the directional derivative of Phi at x
 * along z. (With the penalized function the penalty term has kinks of its own on the axes,
 * where the fixed one-sided elements of cdyn_mcp_phi_grad are kept.) */
int cdyn_mcp_fb_kinks(int n, const double *l, const double *u, const double *x, const double *F,
                      double *z);
void cdyn_mcp_fb_kink_factors(int n, const double *l, const double *u, const double *x,
                              const double *F, const double *Jz, double *da, double *db);

/* ---- Jacobian storage: dense n*n or CSC values on a fixed pattern ------------------------ */

typedef struct mcp_jac {
    int n;
    int sparse;        /* 0: dense column-major n*n in values */
    const int *colptr; /* sparse: the user's pattern */
    const int *rowind;
    size_t nvals; /* n*n or colptr[n] */
    /* Written by cdyn_mcp_jac_eval, except for a fixed Jacobian (mcp_work.jac_fixed), where it
       points to the caller's read-only M and is never written. */
    double *values;
} mcp_jac;

/* The storage of p's Jacobian (dense n*n, or p's pattern); values left unset. */
void cdyn_mcp_jac_init(const cdyn_mcp *p, mcp_jac *J);

/* Evaluate J at x (F = F(x), used by finite differences) with the user's callback or, when
 * use_fd, with cdyn_mcp_fd_jacobian. Counts calls in *nfev / *njev. CDYN_OK, or CDYN_ENUMERIC when
 * the callback fails or returns NaN/Inf. When absmax is not NULL it receives max |J_ij|, or
 * INFINITY when that is not finite (finite differences can overflow). (mcp_jac.c) */
struct mcp_fd;
cdyn_status cdyn_mcp_jac_eval(const cdyn_mcp *p, int use_fd, const struct mcp_fd *fd,
                              const double *x, const double *F, mcp_jac *J, int *nfev, int *njev,
                              double *absmax);
/* out := J^T v, and out := J v. */
void cdyn_mcp_jac_mult_t(const mcp_jac *J, const double *v, double *out);
void cdyn_mcp_jac_mult(const mcp_jac *J, const double *v, double *out);
/* y := A x, or y += A x when accumulate, for a dense n-by-n A: BLAS, or plain loops for the
 * smallest n where the BLAS call overhead dominates. */
void cdyn_mcp_dense_mv(int n, const double *A, const double *x, int accumulate, double *y);
/* max |v_k| over n values, or NAN when some v_k is NaN or Inf (one pass). */
double cdyn_mcp_finite_max_abs(size_t n, const double *v);

/* ---- Finite differences (mcp_fd.c) ------------------------------------------------------- */

/* Greedy column coloring of an n-column pattern so that columns of one color share no row;
 * color[j] in [0, *ncolors). mark: n ints of scratch. */
void cdyn_mcp_fd_color(int n, const int *colptr, const int *rowind, int *color, int *ncolors,
                       int *mark);

typedef struct mcp_fd {
    double step;      /* relative step */
    const int *color; /* sparse: column colors */
    int ncolors;
    double *xp; /* n scratch: perturbed point */
    double *Fp; /* n scratch: F at the perturbed point */
} mcp_fd;

/* Set fd up for p (xp and Fp already in place): the relative step fd_step, or sqrt(eps) when
 * 0, and on a sparse pattern the column colors into color (n ints; mark: n ints of scratch). */
void cdyn_mcp_fd_setup(const cdyn_mcp *p, double fd_step, int *color, int *mark, mcp_fd *fd);

/* Forward differences of F at x (F0 = F(x)) into J; a failed or non-finite evaluation is
 * retried with the backward step. Adds the F calls made to *nfev. Returns CDYN_OK or
 * CDYN_ENUMERIC (both directions failed for some column or color group). */
cdyn_status cdyn_mcp_fd_jacobian(const cdyn_mcp *p, const mcp_fd *fd, const double *x,
                                 const double *F0, mcp_jac *J, int *nfev);

/* ---- Linear systems H d = b ------------------------------------------------------------- */

/* H = diag(da + mu) + diag(db) J on the linear-system layer (mcp_newton_sys.c): dense LU for a
 * dense J, KLU for a sparse one, with the layer's checks (docs/theory.md, "Linear algebra"). */
typedef struct mcp_linsys {
    cdyn_linsys *sys;
    double *Hx;           /* sparse: H's values (NULL on the dense path: H is the layer's) */
    int *Hp, *Hi;         /* sparse: J's pattern plus the diagonal, diagonal last when J lacks it */
    int *jmap;            /* J entry k sits at Hx[jmap[k]] */
    int *dpos;            /* H(i, i) sits at Hx[dpos[i]] */
    /* dense: the inputs of the last factor, for the norms of H the layer asks for on its rare
       paths (the factors have overwritten H) */
    const mcp_jac *J;
    const double *da, *db;
    double mu;
} mcp_linsys;

/* Allocate once and, for a sparse J (colptr != NULL), build H's pattern and run the symbolic
 * analysis once. order: NULL (KLU orders H's pattern: BTF, then COLAMD), or a fill-reducing order
 * of the n unknowns (a permutation, applied to rows and columns alike). CDYN_OK, CDYN_ENOMEM,
 * CDYN_EINVAL (duplicate entries, or KLU rejects the pattern or the order) or CDYN_ETOOBIG (more
 * than 2^31 - 1 entries in H). On failure nothing stays allocated. */
cdyn_status cdyn_mcp_linsys_create(const cdyn_allocator *a, int n, const int *colptr,
                                   const int *rowind, const int *order, mcp_linsys *s);
/* Form H from J's values and factor it; jabsmax is max |J_ij| or INFINITY when unknown. CDYN_OK,
 * CDYN_ESINGULAR (singular, numerically singular or not finite), CDYN_ENOMEM. J, da and db must
 * stay unchanged until the next factor (the dense path reads them again for norms needed only on
 * rare paths). */
cdyn_status cdyn_mcp_linsys_factor(mcp_linsys *s, const mcp_jac *J, double jabsmax,
                                   const double *da, const double *db, double mu);
/* b := H^{-1} b with the last successful factorization. CDYN_OK, or CDYN_ESINGULAR when the
 * solve revealed a numerically singular H (b is then overwritten with no meaning). */
cdyn_status cdyn_mcp_linsys_solve(mcp_linsys *s, double *b);
/* max |H_ij| of the last formed H (scale for the shift). */
double cdyn_mcp_linsys_max_abs(const mcp_linsys *s);
/* Frees and zeroes; accepts a zeroed s. */
void cdyn_mcp_linsys_free(const cdyn_allocator *a, mcp_linsys *s);

/* cdyn_mcp_solver_create with a given fill-reducing order of the unknowns for the sparse path
 * (NULL: KLU's own; ignored on the dense path). For a caller that solves problems on many
 * subsets of one larger pattern (the implicit stepper's active sets) and orders that pattern
 * once. */
cdyn_status cdyn_mcp_solver_create_ordered(const cdyn_mcp *mcp, const cdyn_mcp_options *opts,
                                           const int *order, cdyn_mcp_solver **out,
                                           cdyn_report *report);
/* Make the solver's next run choose its pivots afresh, as a new solver's first run does (KLU:
 * the numeric factor is dropped, the analysis kept; dense: nothing is kept between runs). For a
 * caller that keeps solvers of several structures and wants each run's answer to be the one a
 * solver made for it would give. Accepts NULL. */
void cdyn_mcp_solver_forget(cdyn_mcp_solver *solver);

/* ---- The Newton iteration (fb_newton.c) -------------------------------------------------- */

typedef struct mcp_work {
    const cdyn_mcp *p;
    const cdyn_mcp_options *o;
    int n;
    double lambda; /* 1 for plain FB */
    double *l, *u;
    double *x, *F, *Phi;    /* current iterate */
    double *xt, *Ft, *Phit; /* trial point */
    double *da, *db, *d, *g, *tmp;
    double *hist; /* nonmonotone_memory merit values */
    mcp_jac J;
    int jac_fixed;  /* J.values is the caller's constant Jacobian: never evaluated or written */
    double jabsmax; /* max |J_ij| of the current J, or INFINITY when unknown */
    mcp_fd fd;
    mcp_linsys ls;
    int nfev, njev;
    int iters; /* Newton iterations of the call, restarts included */
    /* Proximal-perturbation restarts (options.globalize): while eps > 0 the iteration works on
       F(x) + eps (x - xbar), and Fbar = F(xbar). Carved only when globalize is set. */
    double eps;
    double *xbar, *Fbar;
    int F_raw; /* the last solved run had eps = 0: w->F is F(w->x) from the callback */
    double *floor; /* n: scratch of cdyn_mcp_excess */
    int floor_ok;  /* J holds a Jacobian of this call (the floors' scales) */
    /* The Josephy-Newton stage (options.globalize): room for jnb bounded variables. */
    int jnb;
    double *jdoubles;
    int *jints;
} mcp_work;

/* Shared by fb_newton.c and mcp_josephy.c (mcp_work.c): F itself (no proximal term) at x into out, nonzero
 * when F fails or is not finite there; max_j |J_ij| of each row of w->J into rowmax (n); swap
 * two iterate pointers. */
int cdyn_mcp_raw_F(mcp_work *w, const double *x, double *out);
void cdyn_mcp_row_scales(const mcp_work *w, double *rowmax);
void cdyn_mcp_swap(double **a, double **b);
/* After a Jacobian evaluation: w->J now gives the rows' scales. The excess of the natural
 * residual at (x, F) over the rows' rounding floors 16 eps (|F_i| + sum_j |J_ij x_j|), the
 * stopping test's quantity (the plain natural residual before the call's first Jacobian;
 * w->floor is its scratch). */
void cdyn_mcp_floor_update(mcp_work *w);
double cdyn_mcp_excess(mcp_work *w, const double *x, const double *F);
/* The same given the plain natural residual nat at (x, F) (the floors are read only when nat
 * alone fails the test). */
double cdyn_mcp_excess_from(mcp_work *w, const double *x, const double *F, double nat);

/* Josephy–Newton iterations from the stall point w->x (J evaluated anywhere: it is evaluated
 * again): 1 solved (w->x, w->F hold the solution, r's method and message say so), 0 not (w->x,
 * w->F unchanged; J and the scratch vectors overwritten), -1 out of memory. Only for bounds that
 * are free, fixed or [l, inf) (else 0 at once). (mcp_josephy.c) */
int cdyn_mcp_josephy(mcp_work *w, cdyn_report *r);
/* The bounded (lower or fixed) variables of p the stage reserves room for: w->jnb, set before
 * carving (0 when beyond the stage's size limit); the stage's part of the carve. */
int cdyn_mcp_josephy_bounded(const cdyn_mcp *p);
struct cdyn_carve;
void cdyn_mcp_josephy_carve(mcp_work *w, struct cdyn_carve *cv, void *block);

/* Run the iteration from w->x (F, Phi not yet evaluated), with the restarts when it stalls and
 * options.globalize is set. On CDYN_OK w->x holds the solution. Fills iterations, evaluations,
 * residual, the failure message of r, and method and message when the restarts solved it. */
cdyn_status cdyn_mcp_fb_newton(mcp_work *w, cdyn_report *r);

/* ---- Entry (mcp_solve.c) ----------------------------------------------------------------- */

/* Point the arrays of w into block, or with block NULL only measure the layout into cv. Expects
 * n, o, J (but its values) and jac_fixed set; the sparse fd coloring scratch goes to *color and
 * *mark. Shared by cdyn_mcp_solve and the reusable solver (mcp_solver.c). */
struct cdyn_carve;
void cdyn_mcp_carve_work(mcp_work *w, struct cdyn_carve *cv, void *block, int **color,
                         int **mark);

/* cdyn_mcp_solve with an optional fixed dense Jacobian Jfixed (n*n column-major, finite, with
 * max |J_ij| = Jabsmax; NULL: none): p->jac is then never called and J is neither copied nor
 * checked again (lcp_fb.c passes the LCP's M). */
cdyn_status cdyn_mcp_solve_fixed(const cdyn_mcp *p, const cdyn_mcp_options *opts,
                                 const double *Jfixed, double Jabsmax, double *x, cdyn_report *r);

#endif

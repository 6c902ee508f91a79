/* cdyn — linear complementarity problems.
 *
 * LCP(q, M): find z in R^n with  z >= 0,  w = M z + q >= 0,  z^T w = 0.
 * M is dense, n-by-n, column-major (LAPACK order): M[i + j*n] is row i, column j.
 *
 * Entry points
 *   cdyn_lcp_solve       default: Lemke, then fallbacks (see below); use this one.
 *   cdyn_lemke           Lemke's complementary pivoting, one covering vector.
 *   cdyn_lemke_ex        the same, also returning the final basis (for warm starts).
 *   cdyn_lcp_enumerate   all basic solutions of a small problem (n <= CDYN_LCP_SMALL_N).
 *   cdyn_lcp_is_pmatrix  exact P-matrix test by principal minors (n <= CDYN_LCP_SMALL_N).
 *   cdyn_lcp_residual    ||min(z, M z + q)||_inf, the residual every LCP solver reports.
 *
 * OK means certified (cdyn_lemke, cdyn_lemke_ex, cdyn_lcp_solve, on every path): with
 * w = M z + q and s_i = |q_i| + sum_j |M_ij z_j| (long double), every row has z_i >= 0,
 * w_i >= -tol s_i and |min(z_i, w_i)| <= tol s_i (tol: cdyn_lemke_options.tol). The test is per
 * row and does not grow with the answer's own size. An answer that fails is certified again with
 * its entries of rounding size set to 0 (noise of degenerate basic variables): below
 * 16 (n + 1) eps ||z||_inf, and below each gap of 1e4 or more among the magnitudes under that
 * bound (at most 8 thresholds in all); every such point is certified in full and the best one
 * kept, so OK still means the point handed out passes the test above.
 *
 * Thread safety: every function is reentrant; nothing is shared between calls. */
#ifndef CDYN_LCP_H
#define CDYN_LCP_H

#include "cdyn/alloc.h"
#include "cdyn/status.h"

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest n accepted by the exponential-cost methods (enumeration, P-matrix test). */
#define CDYN_LCP_SMALL_N 12

typedef struct cdyn_lcp {
    int n;           /* > 0 */
    const double *M; /* n*n, column-major */
    const double *q; /* n */
} cdyn_lcp;

/* ||min(z, M z + q)||_inf; returns NAN for invalid arguments, including NaN or infinite
 * entries of M, q or z. */
CDYN_API double cdyn_lcp_residual(const cdyn_lcp *lcp, const double *z);

/* ---- Lemke -------------------------------------------------------------------- */

typedef struct cdyn_lemke_options {
    int max_pivots;          /* pivot limit per attempt; 0: default 50*(n+1) */
    double pivot_tol;        /* entries <= pivot_tol * (largest |entry| of the entering column)
                                are not pivot candidates (default 1e-12) */
    double tie_tol;          /* ratios closer than tie_tol (relative to the basic values) are
                                ties, broken lexicographically (default 1e-12) */
    int refactor_every;      /* rebuild the basis inverse from an LU factorization every this many
                                pivots (default 64; 0 keeps the default, < 0 never). It is also
                                rebuilt after a small pivot and before a ray is declared. */
    double tol;              /* the certificate's tolerance, relative to each row's scale s_i
                                (see the top of this file; default 1e-10; 0 keeps the default) */
    const double *covering;  /* covering vector d > 0 (n values); NULL: all ones */
    const int *warm_basis;   /* optional guessed complementary basis (n values): warm_basis[i] != 0
                                means z_i basic, else w_i basic. If that basis is nonsingular and
                                its basic solution passes the success test, it is returned with 0
                                pivots. Otherwise Lemke starts from that basis with the covering
                                vector d = B0 * ones (B0 the guessed basis, so z0's column there is
                                -ones); if that attempt fails too, a cold start with `covering`
                                follows. report->iterations counts the pivots of all attempts. */
    const cdyn_allocator *allocator; /* NULL: malloc/free (or the stack for n <= 13) */
} cdyn_lemke_options;

CDYN_API void cdyn_lemke_defaults(cdyn_lemke_options *opts);

/* Lemke's method with the lexicographic minimum-ratio rule (cannot cycle on degenerate problems).
 * z and w (each n values) receive the result, w = M z + q with negatives within tol s_i set to
 * 0; on failure they are left unchanged, except with CDYN_EINACCURATE.
 * Returns CDYN_OK (certified, see the top of this file; a final basis whose solution fails gets
 * up to four more refinement steps and, for sign violations, up to 32 principal pivots:
 * report->method is then "lemke+polish"), CDYN_EINFEASIBLE with report->proven = 1 (no z >= 0
 * has M z + q >= 0, proven by a row with q_i < 0 and M_ij <= 0 for all j, or by the ray's
 * direction y >= 0 with M^T y <= 0 and q^T y < 0 checked with rounding-error bounds), CDYN_ERAY
 * (ray termination, confirmed with a freshly factorized basis, without such a proof: for other
 * than copositive-plus M it only says this covering vector failed), CDYN_ENOCONV (pivot limit),
 * CDYN_EINACCURATE (no basic solution passed the certificate; z and w hold the best one, whose
 * largest violation is below 1e-2 of its rows' scale, and report->residual its residual),
 * CDYN_ENUMERIC (a basis became singular to working precision, overflow, or a final solution
 * too far off to hand out), CDYN_EINVAL (NULL or non-finite data, n <= 0, bad options, a
 * covering entry <= 0), CDYN_ENOMEM. All workspace (2 n^2 + O(n) doubles) is taken once per call
 * from opts->allocator; without one, problems with n <= 13 use a 4.25 KiB stack buffer and no heap
 * memory (malloc and free would cost a quarter of a small solve).
 * opts may be NULL (defaults); report may be NULL. report->iterations counts pivots, including
 * the entry and the exit of the artificial variable z0 (q >= 0 takes 0 pivots). */
CDYN_API cdyn_status cdyn_lemke(const cdyn_lcp *lcp, const cdyn_lemke_options *opts, double *z,
                                double *w, cdyn_report *report);

/* cdyn_lemke that also returns the final complementary basis: on success basis[i] (n ints; NULL
 * allowed) is 1 when z_i is basic, else 0. That is the warm_basis to pass for the next, similar
 * problem (a time step later). Guessing it from the solution (z_i > w_i) is equivalent unless the
 * solution is degenerate (z_i = w_i = 0), where that guess can give a singular basis. */
CDYN_API cdyn_status cdyn_lemke_ex(const cdyn_lcp *lcp, const cdyn_lemke_options *opts, double *z,
                                   double *w, int *basis, cdyn_report *report);

/* ---- Default entry point with fallbacks ------------------------------------------ */

typedef struct cdyn_lcp_options {
    cdyn_lemke_options lemke;   /* settings for every Lemke attempt */
    int try_alternate_covering; /* nonzero (default): after a ray, retry Lemke with other covering
                                   vectors */
    int try_enumeration;        /* nonzero (default): enumerate bases when n <= SMALL_N */
    int try_fb_newton;          /* nonzero (default): finally FB-Newton (cdyn_lcp_fb_newton) from
                                   0, then Lemke warm-started on the basis it found */
} cdyn_lcp_options;

CDYN_API void cdyn_lcp_defaults(cdyn_lcp_options *opts);

/* Solve with Lemke (opts->lemke as given: covering vector of ones unless set, warm start if set);
 * on a ray, a pivot limit, a numerical failure or an answer that fails the certificate retry
 * cold: first (after a failed certificate) with exact ties and with a tie band 10^3 narrower,
 * then with the alternate covering vectors d_i = 1 + i/n, d_i = 2 - i/n and d_i = 1 + |q_i|,
 * then enumerate bases when n <= CDYN_LCP_SMALL_N (up to four basic solutions, each must pass
 * the certificate), then FB-Newton from z = 0 and Lemke warm-started on the complementary basis
 * it found (degenerate friction pyramids where every pivoting path above ends on a ray or a
 * wrong basis). Every OK is certified (top of this file). report->method names the method
 * that produced the answer ("lemke", "lemke+polish", "lemke-narrow-ties",
 * "lemke-alt-covering", "enumeration", "fb-newton", "fb-newton+lemke"); report->iterations sums the pivots of all attempts.
 * Returns CDYN_EINFEASIBLE (proven, as for cdyn_lemke), CDYN_EINACCURATE when nothing passed
 * but some attempt handed out a point near it (z, w hold the best), CDYN_ENOSOLUTION when
 * enumeration finds no feasible basic solution and no singular complementary basis (a
 * numerical conclusion: report->proven = 0), otherwise the last attempt's status. */
CDYN_API cdyn_status cdyn_lcp_solve(const cdyn_lcp *lcp, const cdyn_lcp_options *opts, double *z,
                                    double *w, cdyn_report *report);

/* ---- Reusable solver object ------------------------------------------------------ */

/* A solver for a sequence of LCPs of at most n unknowns (a simulator's steps): the chain of
 * cdyn_lcp_solve with its workspace kept between calls (it grows to the largest need seen —
 * a warm attempt and its fallbacks need more than a cold Lemke — and then allocates nothing)
 * and the last answer's complementary basis as the next solve's warm start when the size is the
 * same (Lemke from that basis, 0 pivots when it still solves the problem; if the warm attempt
 * fails, the cold chain runs as cdyn_lcp_solve would). The kept basis is the final basis of
 * Lemke's first attempt (the warm one, or the chain's cold Lemke) when that attempt answered;
 * an answer of a fallback (other tie bands, coverings, enumeration, FB-Newton) keeps none.
 * Every OK is certified as for cdyn_lcp_solve. A solve without a kept basis of its size (the
 * first, one after a size change, a failure, a fallback's answer or
 * cdyn_lcp_solver_set_basis(s, 0, NULL, r)) is cdyn_lcp_solve itself: the same answer and
 * pivot count bit for bit.
 *   create:    n > 0 (the capacity); opts NULL for cdyn_lcp_defaults; opts->lemke.allocator
 *              (NULL: malloc) holds the object and its workspace; opts->lemke.warm_basis must
 *              be NULL (CDYN_EINVAL); opts->lemke.covering, if set, must hold as many values as
 *              every problem solved and outlive the solver.
 *   solve:     lcp->n in 1 .. capacity (the size may change from call to call); statuses as
 *              cdyn_lcp_solve; report->iterations sums the pivots of the warm attempt and the
 *              chain. On failure the kept basis is dropped.
 *   reserve:   grow the capacity to n (no-op when n <= capacity; the kept basis and the
 *              workspace stay): a caller whose problems grow pays one allocation per growth.
 *              CDYN_EINVAL (NULL, n <= 0), CDYN_ENOMEM (the solver is unchanged).
 *   set_basis: the warm start of the next solve of n unknowns: basis[i] = 1 when z_i is to be
 *              basic, 0 when w_i (n values, each 0 or 1, copied); n = 0 (basis may be NULL)
 *              drops the kept basis, so the next solve is cold. For a caller whose unknowns
 *              change meaning between solves (contact rows appear and vanish): it maps the
 *              basis from get_basis onto the new unknowns, or drops it. CDYN_EINVAL (NULL
 *              solver or basis, n outside 0 .. capacity, an entry not 0 or 1: the kept basis
 *              unchanged).
 *   get_basis: *n receives the kept basis's size (0: none) and basis (cap ints) its entries.
 *              CDYN_ETOOBIG when cap < *n (*n still set: a caller can size its array, or know
 *              that the basis cannot warm-start a problem of cap unknowns); CDYN_EINVAL when
 *              solver or n is NULL, cap < 0, or basis is NULL with cap > 0.
 * A solver belongs to one thread at a time. */
typedef struct cdyn_lcp_solver cdyn_lcp_solver;

CDYN_API cdyn_status cdyn_lcp_solver_create(int n, const cdyn_lcp_options *opts,
                                            cdyn_lcp_solver **out, cdyn_report *report);
CDYN_API cdyn_status cdyn_lcp_solver_solve(cdyn_lcp_solver *solver, const cdyn_lcp *lcp,
                                           double *z, double *w, cdyn_report *report);
CDYN_API cdyn_status cdyn_lcp_solver_reserve(cdyn_lcp_solver *solver, int n,
                                             cdyn_report *report);
CDYN_API cdyn_status cdyn_lcp_solver_set_basis(cdyn_lcp_solver *solver, int n, const int *basis,
                                               cdyn_report *report);
CDYN_API cdyn_status cdyn_lcp_solver_get_basis(const cdyn_lcp_solver *solver, int *n,
                                               int *basis, int cap, cdyn_report *report);
CDYN_API void cdyn_lcp_solver_free(cdyn_lcp_solver *solver); /* accepts NULL */

/* ---- Small problems --------------------------------------------------------------- */

/* Enumerate all 2^n complementary bases (n <= CDYN_LCP_SMALL_N) and store each distinct basic
 * solution z (n values) in solutions[k*n ...] for k < max_solutions; *count receives the number
 * found (which may exceed max_solutions: then only the first max_solutions are stored).
 * Bases are visited in the order of the bit mask of basic z's. A basis whose block M[S,S] has a
 * reciprocal condition number (1-norm) below 1e-12 is skipped as singular, so for an LCP with a
 * continuum of solutions this lists the vertices of the solution set's pieces. A basic solution
 * is feasible when z, w >= -1e-10 * max(||q||_inf, ||M||_inf ||z||_inf) (those small negatives
 * of z are stored as 0); solutions closer than 1e-9 * ||z||_inf are the same. Returns CDYN_OK
 * (even when *count is 0: no solution among nonsingular bases; report->message then also says
 * how many bases were singular), CDYN_ETOOBIG, CDYN_EINVAL, CDYN_ENOMEM.
 * solutions may be NULL when max_solutions is 0. */
CDYN_API cdyn_status cdyn_lcp_enumerate(const cdyn_lcp *lcp, double *solutions,
                                        int max_solutions, int *count,
                                        const cdyn_allocator *allocator, cdyn_report *report);

/* P-matrix test by all 2^n - 1 principal minors: *is_p = 1 when every principal minor of M
 * (n-by-n, n <= CDYN_LCP_SMALL_N) is positive, else 0. An LCP has a unique solution for every q
 * exactly when M is a P-matrix. Minors are computed by LU with partial pivoting; a minor
 * det M[S,S] <= tol * prod_i ||row i of M[S,S]||_2 (Hadamard's bound on |det|) counts as not
 * positive (tol <= 0: default 1e-12). Returns CDYN_OK, CDYN_ETOOBIG, CDYN_EINVAL (also for a
 * NaN tol), CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_lcp_is_pmatrix(int n, const double *M, double tol, int *is_p,
                                         const cdyn_allocator *allocator, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif

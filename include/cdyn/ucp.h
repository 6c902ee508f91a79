/* cdyn — the quasistatic multi-rigid-body contact problem as an uncoupled complementarity
 * problem (UCP), after Pang, Trinkle & Lo, "A complementarity approach to a quasistatic
 * multi-rigid-body contact problem" (December 1994). Planar or spatial object, n_c point contacts
 * with Coulomb friction (one tangent per contact), a manipulator with n_theta joints of which
 * the joints in the index set alpha are velocity-controlled and the others effort-controlled.
 *
 * Unknowns: contact forces c_n, c_t; the object's velocity qdot; the velocities of the
 * effort-controlled joints and the efforts of the velocity-controlled joints. With
 *   x = (v_n, v_t^+, v_t^-)  in  X = { x >= 0 : the contact velocities v = W^T qdot - J thetadot
 *                                      are reachable for some qdot, thetadot_abar },
 *   y = (c_n, s_t^+, s_t^-)  in  Y = { y >= 0 : 2 U c_n = s^+ + s^-, equilibrium of the object
 *                                      and of the effort-controlled joints },
 * (U = diag(mu), c_t = s^+ - U c_n) the problem is: find (x, y) in X x Y with x^T y = 0 (the
 * paper's Theorem 1). The UCP is NP-complete in general (the paper's Proposition 2).
 *
 * Algorithm (the paper's Section 4): start from feasible vertices x0, y0 (phase-1 LPs); repeat
 * x <- argmin{x^T y : x in X}, y <- argmin{x^T y : y in Y} with the dense simplex (cdyn/lp.h)
 * while x^T y decreases; at a stationary non-complementary pair look for a pair of ADJACENT
 * extreme points with a smaller x^T y and restart from it, else move to a random adjacent pair.
 * Details, statuses and the reproduction of the paper's results: docs/theory.md.
 *
 * CDYN_ENOSOLUTION means "no solution found": the algorithm gave up (cycling detected or a
 * limit reached). It is NOT a proof that none exists. */
#ifndef CDYN_UCP_H
#define CDYN_UCP_H

#include <stdint.h>

#include "cdyn/alloc.h"
#include "cdyn/lp.h"
#include "cdyn/status.h"

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The paper's data (Section 2). Matrices column-major. The world frame is the object's
 * reference point; w_in = (n_i, r_i x n_i) and w_it = (t_i, r_i x t_i) in the plane (n_q = 3). */
typedef struct cdyn_ucp_problem {
    int nc;                  /* contacts, >= 1 */
    int nq;                  /* object velocity dimension, >= 1 (3 in the plane) */
    int ntheta;              /* manipulator joints, >= 0 */
    const double *Wn;        /* nq x nc: column i is the normal wrench w_in (normal into the
                                object) */
    const double *Wt;        /* nq x nc: tangential wrenches w_it */
    const double *Jn;        /* nc x ntheta: v_n = Wn^T qdot - Jn thetadot (NULL if ntheta = 0) */
    const double *Jt;        /* nc x ntheta: v_t = Wt^T qdot - Jt thetadot */
    const double *mu;        /* nc friction coefficients, >= 0 */
    const int *alpha;        /* ntheta flags: nonzero = velocity given (the paper's alpha),
                                zero = effort given; NULL: every joint velocity-controlled */
    const double *theta_dot; /* ntheta: read where alpha is set (NULL if none is) */
    const double *tau;       /* ntheta: read where alpha is not set (NULL if all are) */
    const double *g_obj;     /* nq: external wrench on the object (e.g. gravity) */
    const double *g_man;     /* ntheta: joint loads of the external forces; NULL: zeros */
} cdyn_ucp_problem;

typedef enum cdyn_ucp_escape {
    CDYN_UCP_ESCAPE_PAPER = 0,    /* the paper's procedure for Table 1: the original Step 3,
                                     then (if that fails) a second run with the modified one */
    CDYN_UCP_ESCAPE_ORIGINAL = 1, /* Step 3 repeated from random adjacent pairs (a random walk)
                                     until an improving pair is found; stop on cycling */
    CDYN_UCP_ESCAPE_RESTART = 2,  /* modified Step 3: from a random adjacent pair go straight
                                     back to the LPs of Step 1 */
    CDYN_UCP_ESCAPE_NONE = 3      /* stop at the first stationary non-complementary pair */
} cdyn_ucp_escape;

typedef struct cdyn_ucp_options {
    double comp_tol;  /* solved when x^T y <= comp_tol * max(1, ||x||_inf ||y||_inf)
                         (default 1e-10, the paper's termination rule) */
    int max_pairs;    /* (x, y) pairs per run (default 200) */
    int max_restarts; /* returns from Step 3 to Step 1 per run (default 20, the paper's
                         limit in Section 5) */
    cdyn_ucp_escape escape;
    uint64_t seed;      /* random choices of Step 3 (default 1); same seed, same run */
    int max_adjacent;   /* adjacent extreme points kept per vertex (default 512) */
    cdyn_lp_options lp; /* simplex settings (lp.allocator is ignored: allocator below) */
    const cdyn_allocator *allocator; /* NULL: malloc/free */
} cdyn_ucp_options;

CDYN_API void cdyn_ucp_defaults(cdyn_ucp_options *opts);

/* Outputs, caller-owned; any pointer may be NULL. Written only on CDYN_OK. */
typedef struct cdyn_ucp_solution {
    double *x;         /* 3 nc: (v_n, v_t^+, v_t^-) */
    double *y;         /* 3 nc: (c_n, s_t^+, s_t^-) */
    double *c_n;       /* nc normal forces */
    double *c_t;       /* nc tangential forces (|c_t| <= mu c_n) */
    double *v_n;       /* nc normal relative velocities (>= 0) */
    double *v_t;       /* nc tangential relative velocities */
    double *qdot;      /* nq object velocity (minimum-norm choice when not unique) */
    double *theta_dot; /* ntheta: the given velocities and the recovered ones (effort joints) */
    double *tau;       /* ntheta: the given efforts and the recovered ones (velocity joints) */
} cdyn_ucp_solution;

/* What the run did (filled on every return except CDYN_EINVAL / CDYN_ENOMEM). */
typedef struct cdyn_ucp_stats {
    int pairs;              /* (x, y) pairs after the initial one: Step 1 pairs and adjacent pairs
                               moved to in Step 3 (the paper's "No. of pairs (x, y) found") */
    int linear_programs;    /* LPs solved, counting the two initial phase-1 LPs */
    int pivots;             /* simplex pivots over all LPs */
    int stationary;         /* stationary non-complementary pairs met */
    int improving_escapes;  /* Step 3 found an adjacent pair with a smaller x^T y */
    int random_moves;       /* Step 3 moved to a random adjacent pair */
    int restarts;           /* returns from Step 3 to Step 1 */
    int runs;               /* 1, or 2 when CDYN_UCP_ESCAPE_PAPER needed the modified run */
    int solved_by_modified; /* 1 when the modified Step 3 found the answer (Table 1's "*") */
    double best_xty;        /* smallest x^T y seen */
    int rank_P;             /* rank of P = [W^T J_abar] (X has 2 nc - rank_P equations) */
    double residual;        /* on CDYN_OK: largest residual of the paper's equations (2)-(7) at
                               the recovered solution (equilibrium, kinematics, friction cone) */
} cdyn_ucp_stats;

/* Solve the quasistatic contact problem. Returns CDYN_OK (sol filled, x^T y within comp_tol),
 * CDYN_ENOSOLUTION (no complementary pair found: cycling or a limit; see stats->best_xty),
 * CDYN_EINFEASIBLE (X or Y is empty: no motion / no force distribution is compatible with the
 * data even without complementarity), CDYN_ENUMERIC / CDYN_ENOCONV (an LP failed), CDYN_EINVAL
 * (bad data; the message says which), CDYN_ENOMEM. opts, sol, stats, report may be NULL.
 * report->iterations = pairs, report->evaluations = LPs, report->residual = x^T y. */
CDYN_API cdyn_status cdyn_ucp_solve(const cdyn_ucp_problem *problem, const cdyn_ucp_options *opts,
                                    cdyn_ucp_solution *sol, cdyn_ucp_stats *stats,
                                    cdyn_report *report);

/* ---- Exhaustive search (small problems) -------------------------------------------------------
 * If a complementary pair exists, one exists with x a vertex of X (X is pointed, so the face of X
 * complementary to a solution's y has a vertex). The census walks the vertex-edge graph of X
 * (connected for a pointed polyhedron) with the adjacency search of cdyn_lp_adjacent and, at
 * every vertex x, solves min{x^T y : y in Y}; a zero minimum is a solution. */
typedef struct cdyn_ucp_census {
    long vertices;  /* vertices of X visited */
    long solutions; /* vertices of X complementary to some y in Y */
    int complete;   /* 1: the whole graph was walked (no vertex limit or degenerate-basis limit
                       was hit), so solutions == 0 proves that no solution exists (up to the
                       tolerances) */
} cdyn_ucp_census;

/* Walk at most max_vertices vertices of X (> 0). The first complementary pair found goes to sol
 * (may be NULL). Returns CDYN_OK when a solution was found, CDYN_ENOSOLUTION when none was found
 * (a proof only when census->complete), CDYN_EINFEASIBLE (X or Y empty), CDYN_EINVAL,
 * CDYN_ENOMEM, CDYN_ENUMERIC. Uses opts->comp_tol, opts->lp, opts->max_adjacent and
 * opts->allocator. Memory: about max_vertices * (2 n_c + 8) ints. */
CDYN_API cdyn_status cdyn_ucp_enumerate(const cdyn_ucp_problem *problem,
                                        const cdyn_ucp_options *opts, long max_vertices,
                                        cdyn_ucp_solution *sol, cdyn_ucp_census *census,
                                        cdyn_report *report);

/* ---- Random feasible problems (the paper's Section 5) ----------------------------------------
 * A planar object (an ellipse with semi-axes 1 and 0.7) touched by nc point fingers with two
 * joints each (ntheta = 2 nc, nq = 3), friction coefficients uniform in (0, mu_max). As in the
 * paper, a random force (c_n, c_t) inside the friction cones fixes g_obj and g_man (so Y is not
 * empty) and a random object velocity with v_n >= 0 fixes the joint velocities (so X is not
 * empty whatever alpha is); alpha is a random subset of n_alpha joints. The paper's own
 * generator is not published; the construction is in docs/theory.md. */
typedef enum cdyn_ucp_finger {
    CDYN_UCP_FINGER_TWO_LINK = 0,     /* a planar arm with two revolute joints (random link
                                         lengths, base and elbow) whose tip is the contact */
    CDYN_UCP_FINGER_CONTACT_FRAME = 1 /* two prismatic joints along n_i and t_i: Jn, Jt select
                                         joints 2i and 2i+1, as in the paper's Data Sets 1-4 */
} cdyn_ucp_finger;

typedef struct cdyn_ucp_random_spec {
    int nc;        /* >= 1 */
    double mu_max; /* > 0 */
    int n_alpha;   /* 0 <= n_alpha <= 2 nc */
    uint64_t seed;
    cdyn_ucp_finger finger; /* default (0): two-link fingers */
} cdyn_ucp_random_spec;

typedef struct cdyn_ucp_instance {
    cdyn_ucp_problem problem;         /* views into the instance's own storage */
    const double *witness_x;          /* 3 nc: the point of X the construction started from */
    const double *witness_y;          /* 3 nc: the point of Y the construction started from */
    const double *contacts;           /* 2 nc: contact points (x_i, y_i) in the object frame */
    const cdyn_allocator *allocator_; /* private */
    void *block_;                     /* private */
} cdyn_ucp_instance;

/* Returns CDYN_OK, CDYN_EINVAL, CDYN_ENOMEM (*out = NULL on failure). */
CDYN_API cdyn_status cdyn_ucp_random(const cdyn_ucp_random_spec *spec,
                                     const cdyn_allocator *allocator, cdyn_ucp_instance **out,
                                     cdyn_report *report);
CDYN_API void cdyn_ucp_instance_free(cdyn_ucp_instance *instance);

#ifdef __cplusplus
}
#endif
#endif

/* cdyn — the instantaneous (acceleration-level) contact problem.
 *
 * Given a state (q, v) in which some contacts touch (gap 0, normal velocity 0) and the generalized
 * forces tau, find the accelerations vdot and the contact forces lambda of
 *
 *     M(q) vdot + h(q, v) = tau + Gamma_n^T lam_n + Gamma_t^T lam_t + Gamma_o^T lam_o,
 *     0 <= lam_n  _|_  a_n = Gamma_n vdot + (dGamma_n/dt) v >= 0          (touching contacts),
 *
 * with Coulomb friction: a SLIDING contact (tangential relative velocity v_T != 0) has
 * lam_T = -mu lam_n v_T / |v_T|; a ROLLING contact (v_T = 0) keeps rolling (a_T = 0, lam_T inside
 * the friction cone) or starts to slide (lam_T on the boundary, opposite to a_T). Each touching
 * contact's next mode is classified (Yashima & Yamaguchi, Sec. III.C): rolling -> rolling /
 * sliding / breaking, sliding -> sliding / breaking. Derivation with the papers' equation numbers:
 * docs/theory.md.
 *
 * Two friction models.
 * CDYN_INSTANT_PYRAMID (Yashima & Yamaguchi): |lam_t| <= mu lam_n and |lam_o| <= mu lam_n per
 * axis, the polyhedral cone of their eq. 15. One LCP per sign combination of the rolling contacts'
 * tangential forces (their eqs. 22-28), each solved by Lemke (cdyn_lcp_solve); the feasible
 * combinations are kept (their eq. 23) and the chosen LCP matrix is tested for the P-property
 * (unique solution for every right-hand side).
 * CDYN_INSTANT_CONE (Buffo & Maciel): the circular cone |lam_T| <= mu lam_n at rolling contacts,
 * a mixed nonlinear complementarity problem solved by box-constrained merit minimization
 * (cdyn_box_merit_solve) or FB-Newton (cdyn_mcp_solve).
 * In planar models (one tangent) the two are the same law. Without rolling contacts with friction
 * both reduce to one LCP in lam_n.
 *
 * Thread safety: reentrant; the model is read only, the data is the caller's workspace. */
#ifndef CDYN_INSTANT_H
#define CDYN_INSTANT_H

#include "cdyn/alloc.h"
#include "cdyn/boxmerit.h"
#include "cdyn/export.h"
#include "cdyn/lcp.h"
#include "cdyn/mcp.h"
#include "cdyn/model.h"
#include "cdyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The next mode of one contact row (Yashima & Yamaguchi's (a1)-(a3), (b1)-(b2)). */
typedef enum cdyn_instant_mode {
    CDYN_INSTANT_SEPARATED = 0,   /* not touching, or separating (v_n > 0): not in the problem */
    CDYN_INSTANT_ROLL_ROLL = 1,   /* (a1) a_n = a_t = a_o = 0 */
    CDYN_INSTANT_ROLL_SLIDE = 2,  /* (a2) a_n = 0, a_t^2 + a_o^2 != 0 */
    CDYN_INSTANT_ROLL_BREAK = 3,  /* (a3) a_n != 0 */
    CDYN_INSTANT_SLIDE_SLIDE = 4, /* (b1) a_n = 0 */
    CDYN_INSTANT_SLIDE_BREAK = 5  /* (b2) a_n != 0 */
} cdyn_instant_mode;

/* "separated", "rolling->rolling", ...; never NULL. */
CDYN_API const char *cdyn_instant_mode_str(cdyn_instant_mode mode);

typedef enum cdyn_instant_friction {
    CDYN_INSTANT_PYRAMID = 0, /* per-axis pyramid, sign-combination LCPs, Lemke */
    CDYN_INSTANT_CONE = 1     /* circular cone, mixed NCP */
} cdyn_instant_friction;

typedef enum cdyn_instant_ncp_solver {
    CDYN_INSTANT_BOX_MERIT = 0, /* cdyn_box_merit_solve with options.box_merit */
    CDYN_INSTANT_FB_NEWTON = 1  /* cdyn_mcp_solve with options.fb_newton */
} cdyn_instant_ncp_solver;

typedef enum cdyn_instant_start {
    CDYN_INSTANT_START_ROLLING = 0, /* forces that keep every touching contact touching and the
                                       rolling ones rolling (a linear system; lam_n clipped at 0),
                                       beta = 0: the solution itself when the grasp holds */
    CDYN_INSTANT_START_NORMAL = 1,  /* forces that keep the contacts touching without friction
                                       (lam_T = 0), beta = 0 */
    CDYN_INSTANT_START_ZERO = 2     /* all forces and multipliers 0 (a poor start: the problem is
                                       degenerate there, see docs/theory.md) */
    /* A singular linear system gives the zero start. */
} cdyn_instant_start;

typedef struct cdyn_instant_options {
    cdyn_instant_friction friction; /* CDYN_INSTANT_PYRAMID */
    double gap_tol;                 /* a row touches when it is active and |gap| <= gap_tol (1e-8);
                                       gap < -gap_tol is a penetration: CDYN_EINVAL */
    double vel_tol;       /* a touching row needs |v_n| <= vel_tol (v_n > vel_tol: separating,
                             v_n < -vel_tol: an impact, CDYN_EINVAL); it rolls when its tangential
                             speed |v_T| <= vel_tol, else it slides (1e-8) */
    double mode_tol;      /* relative zero: an acceleration is nonzero above mode_tol times the
                             problem's acceleration scale max(|b|, |A| |lambda|) (infinity
                             norms), a force above mode_tol |lambda|_inf; the feasibility test
                             Delta <= mu lam_n (pyramid) allows the same slack (1e-8) */
    int check_pmatrix;    /* nonzero (default): P-matrix test of the chosen LCP matrix when its size
                             is <= CDYN_LCP_SMALL_N */
    int max_combinations; /* pyramid: limit on the number of sign combinations 2^k (k: rolling
                             contacts with mu > 0 times tangents); more is CDYN_ETOOBIG (4096) */
    cdyn_lcp_options lcp; /* pyramid: every LCP (cdyn_lcp_defaults) */
    cdyn_instant_ncp_solver ncp_solver; /* cone: CDYN_INSTANT_BOX_MERIT */
    cdyn_instant_start ncp_start;       /* cone: CDYN_INSTANT_START_ROLLING */
    int ncp_retry;                      /* cone: nonzero (default): when the solver fails, retry
                                           from the other starts (rolling, normal, zero) */
    cdyn_box_merit_options box_merit;   /* cone (cdyn_box_merit_defaults) */
    cdyn_mcp_options fb_newton;         /* cone (cdyn_mcp_defaults) */
    const cdyn_allocator *allocator;    /* NULL: malloc/free; also given to the solvers */
} cdyn_instant_options;

CDYN_API void cdyn_instant_defaults(cdyn_instant_options *opts);

/* Results. The caller points the arrays at storage of the stated length (n_v = nv of the model,
 * n_c = cdyn_model_ncontact) or sets them to NULL when not wanted. On success the arrays and all
 * counts are written; a failed call writes nothing. */
typedef struct cdyn_instant_result {
    double *vdot;            /* n_v accelerations */
    double *lambda_n;        /* n_c contact forces per row (0 for rows not touching) */
    double *lambda_t;        /* n_c */
    double *lambda_o;        /* n_c (0 in planar models) */
    double *acc_n;           /* n_c relative accelerations Gamma_d vdot + (dGamma_d/dt) v of */
    double *acc_t;           /* n_c every row (touching or not) */
    double *acc_o;           /* n_c */
    cdyn_instant_mode *mode; /* n_c next modes */
    int n_touching;          /* rows in the problem */
    int n_rolling;           /* of them rolling (v_T = 0), the rest sliding */
    int size;                /* unknowns of one LCP (pyramid) or of the MCP (cone) */
    int combinations;        /* sign combinations solved (pyramid; cone: 1) */
    int feasible;            /* of them with a solution satisfying Delta <= mu lam_n */
    int distinct;            /* distinct solutions among the feasible ones (forces that agree
                                to 1e3 mode_tol, relative, count once) */
    int pmatrix;             /* the returned combination's LCP matrix: 1 P-matrix, 0 not, -1 not
                                tested (cone, disabled, or size > CDYN_LCP_SMALL_N) */
    int determinate;         /* 1: one distinct feasible solution and a P-matrix (dynamically
                                determinate in the paper's sense); 0: several distinct feasible
                                solutions; -1: one found, uniqueness not established */
} cdyn_instant_result;

/* Solve the instantaneous problem at (q, v) with generalized forces tau (n_v values: joint
 * torques, and the external force/torque on free bodies' dofs). data: a workspace of this model
 * created with dense = 1; it is evaluated at (q, v) (CDYN_EVAL_ALL) and holds that evaluation on
 * return. When several sign combinations are feasible the first one is returned, in binary
 * order of the sign bits (r-th rolling contact with friction: bit r planar, bits 2r (t) and
 * 2r + 1 (o) spatial; a set bit puts that tangential force on the -mu lam_n side).
 * Returns CDYN_OK; CDYN_EINVAL (NULL model/data/q/v/tau/result, non-finite tau, bad options,
 * data without dense matrices or from another model, a penetrating or approaching touching row,
 * and whatever cdyn_eval rejects); CDYN_ESINGULAR (M not positive definite); CDYN_ETOOBIG (sign
 * combinations); CDYN_ENOSOLUTION (no sign combination has a feasible solution: the pyramid LCPs
 * had solutions violating Delta <= mu lam_n or none); the cone solver's status when it fails
 * (CDYN_ENOCONV, ...); CDYN_ENOMEM; CDYN_ENOTSUP (a model with joint friction or limits, not
 * taken here yet; joint damping is, as part of h). report: method "instant-pyramid-lemke",
 * "instant-cone-box-merit" or "instant-cone-fb-newton"; iterations = pivots or iterations summed
 * over the solves; residual = the chosen LCP's |min(z, w)|_inf, or the MCP's natural residual. */
CDYN_API cdyn_status cdyn_instant_solve(const cdyn_model *model, cdyn_data *data, const double *q,
                                        const double *v, const double *tau,
                                        const cdyn_instant_options *opts,
                                        cdyn_instant_result *result, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif

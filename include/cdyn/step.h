/* cdyn — time stepping: a stepper advances a state (t, q, v, delta, lambda, contact modes) of a
 * model by one time step h with one of five schemes (docs/theory.md, "Time stepping"); the
 * default (cdyn_stepper_create with opts NULL) is CDYN_SCHEME_IMPLICIT_NCP:
 *
 *   CDYN_SCHEME_IMPLICIT_NCP  fully implicit backward Euler with compliant contacts (stiffness K,
 *                             damping C per row, smoothed friction cone; Song-Kumar-Pang eq. 10),
 *                             a mixed complementarity problem solved by FB-Newton (dense or KLU).
 *   CDYN_SCHEME_PYRAMID_LCP   semi-implicit rigid contact with a friction pyramid of n_d
 *                             directions (Stewart-Trinkle / Anitescu-Potra), an LCP solved by
 *                             warm-started Lemke; the "diamond" or the per-axis "box" bound.
 *   CDYN_SCHEME_CONE_STEP     the convex relaxation with the exact friction cone: one friction-
 *                             cone QP per step (interior point).
 *   CDYN_SCHEME_BAUMGARTE     Baumgarte-stabilized frictionless contact with Bortoff's contact
 *                             state machine FREE / CONTACT / BALLISTIC, events located inside the
 *                             step by bisection; a penetration deeper than
 *                             options.max_penetration fails the step (CDYN_EPENETRATION).
 *   CDYN_SCHEME_COULOMB_STEP  rigid contact with the exact Coulomb cone (Moreau-Jean): one 3-D
 *                             frictional contact problem per step (cdyn/fc3d.h).
 *
 * Contact pairs built from cdyn_contact_pair_desc_defaults hold bodies up in every scheme: their
 * unset stiffness, damping and Baumgarte gains come from the pair's solref (cdyn/model.h).
 *
 * Objects (the MuJoCo split)
 *   cdyn_state    what a step changes; created for a model, owned by the caller, copyable.
 *   cdyn_stepper  created once from a const model and options; owns every workspace, so that
 *                 after its first step cdyn_step allocates nothing (the SuiteSparse factorizations
 *                 of the sparse backends aside: docs/api.md). One stepper per thread; any number
 *                 of steppers may share one model.
 *
 * Contact rows are the model's rows (cdyn_model_ncontact = n_c); delta and lambda hold three
 * entries per row in the order (n, t, o) of the row's frame (o entries are 0 in planar models).
 * lambda is a force (N): the rigid schemes report impulse / h.
 *
 * Generalized forces: the model's gravity and bias h(q, v) are always applied; tau (n_v values,
 * or NULL for none) adds joint torques / external forces, held constant over the step.
 *
 * Joint options (cdyn_body_desc; docs/theory.md, "Time stepping" Sec. 10):
 *   damping   part of h(q, v): implicit in IMPLICIT_NCP (at the new state) and in the rigid
 *             velocity-level schemes (M + h D in place of M); split off in BAUMGARTE (its exact
 *             flow over h/2 before and after the RK4 step of the rest, balanced by the step's
 *             initial force, second order): no stability limit in h in any scheme;
 *   friction  PYRAMID_LCP only (complementarity rows in joint space);
 *   limits    every scheme, a unilateral row per finite end: rigid in PYRAMID_LCP, CONE_STEP and
 *             COULOMB_STEP, a compliant stop (cdyn_body_desc.limit_solref) in IMPLICIT_NCP, a
 *             Baumgarte-stabilized row of the state machine in BAUMGARTE; the rows' deformation,
 *             force and mode are in the state (limit_delta, limit_lambda, limit_mode).
 * cdyn_stepper_create refuses (CDYN_ENOTSUP, naming the body) a model with friction that the
 * scheme does not take.
 *
 * A failed step returns its status and leaves the state bit-identical. With
 * options.max_halvings = k > 0 (default 8) a (sub)step whose solver does not converge is retried
 * at half its length, down to h / 2^k, and the length doubles again after two successes: the
 * step covers h in substeps of h / 2^j (j <= k), each solved and checked as a step; the report
 * says how many (substeps) and how short (halvings). max_halvings = 0: the step as asked or its
 * failure.
 *
 * Thread safety: a model may be shared; a stepper, a state or a recorder belongs to one thread at
 * a time. */
#ifndef CDYN_STEP_H
#define CDYN_STEP_H

#include "cdyn/alloc.h"
#include "cdyn/coneqp.h"
#include "cdyn/export.h"
#include "cdyn/fc3d.h"
#include "cdyn/lcp.h"
#include "cdyn/mcp.h"
#include "cdyn/model.h"
#include "cdyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- state ------------------------------------------------------------------------------ */

/* The mode of one contact row after a step. */
typedef enum cdyn_contact_mode {
    CDYN_MODE_FREE = 0,     /* not touching: no force */
    CDYN_MODE_STICK = 1,    /* touching, no tangential slip (rolling) */
    CDYN_MODE_SLIP = 2,     /* touching and sliding: the friction force is on the cone's boundary */
    CDYN_MODE_CONTACT = 3,  /* touching without a friction law (Baumgarte CONTACT, or mu = 0) */
    CDYN_MODE_BALLISTIC = 4 /* Baumgarte: the multiplier went negative, the body has not yet left */
} cdyn_contact_mode;

/* "free", "stick", "slip", "contact", "ballistic"; never NULL. */
CDYN_API const char *cdyn_contact_mode_str(cdyn_contact_mode mode);

/* The mode of one joint-limit row (one finite end of a limited joint) after a step. */
typedef enum cdyn_limit_mode {
    CDYN_LIMIT_FREE = 0,     /* the stop does not act */
    CDYN_LIMIT_AT_LOWER = 1, /* the row of a lower end acts: the joint is at (or within the
                                compliance of) its lower limit */
    CDYN_LIMIT_AT_UPPER = 2  /* the row of an upper end acts */
} cdyn_limit_mode;

/* "free", "lower", "upper"; never NULL. */
CDYN_API const char *cdyn_limit_mode_str(cdyn_limit_mode mode);

typedef struct cdyn_state {
    int nq, nv, nc;  /* sizes (read only): cdyn_model_nq, _nv, _ncontact */
    double t;        /* time */
    double *q;       /* nq */
    double *v;       /* nv */
    double *delta;   /* 3 nc: contact deformations (n, t, o) per row (compliant scheme) */
    double *lambda;  /* 3 nc: contact forces (n, t, o) per row */
    int *mode;       /* nc: cdyn_contact_mode per row */
    /* Joint-limit rows (cdyn_model_limit_rows, cdyn_model_limit_row: one per finite end of a
     * limited joint, bodies in id order, lower before upper): */
    int nl;               /* size (read only) */
    double *limit_delta;  /* nl: deformation of the compliant stop (IMPLICIT_NCP; 0 otherwise),
                             along the row (positive into the stop) */
    double *limit_lambda; /* nl: the stop's force or torque >= 0 along the row (N or N m: +e_j
                             at a lower end, -e_j at an upper; the rigid schemes: the stop's
                             impulse over the step / h) */
    int *limit_mode;      /* nl: cdyn_limit_mode per row */
} cdyn_state;

/* A state for model: t = 0, q = cdyn_model_default_q, v = delta = lambda = 0, modes FREE. One
 * allocation (allocator NULL: malloc), released by cdyn_state_free. */
CDYN_API cdyn_status cdyn_state_create(const cdyn_model *model, const cdyn_allocator *allocator,
                                       cdyn_state **out, cdyn_report *report);
CDYN_API void cdyn_state_free(cdyn_state *state); /* accepts NULL */

/* Copy src into dst (same sizes; CDYN_EINVAL otherwise, dst unchanged). */
CDYN_API cdyn_status cdyn_state_copy(cdyn_state *dst, const cdyn_state *src, cdyn_report *report);

/* ---- options ----------------------------------------------------------------------------- */

typedef enum cdyn_scheme {
    CDYN_SCHEME_IMPLICIT_NCP = 0,
    CDYN_SCHEME_PYRAMID_LCP = 1,
    CDYN_SCHEME_CONE_STEP = 2,
    CDYN_SCHEME_BAUMGARTE = 3,
    CDYN_SCHEME_COULOMB_STEP = 4
} cdyn_scheme;

/* "implicit-ncp", "pyramid-lcp", "cone-step", "baumgarte", "coulomb-step"; never NULL. */
CDYN_API const char *cdyn_scheme_str(cdyn_scheme scheme);

/* The solver of the one-step problem. Which fit which scheme (the first is the default):
 *   IMPLICIT_NCP  FB_DENSE (n_v + 8 n_c unknowns, + 2 per limit row, <= options.sparse_above),
 *                 FB_SPARSE otherwise
 *   PYRAMID_LCP   LEMKE, FB_DENSE
 *   CONE_STEP     CONEQP
 *   BAUMGARTE     DIRECT (a dense linear solve per step and per event)
 *   COULOMB_STEP  FC3D
 * Any other combination is refused by cdyn_stepper_create. */
typedef enum cdyn_step_backend {
    CDYN_BACKEND_AUTO = 0,      /* the scheme's default */
    CDYN_BACKEND_LEMKE = 1,     /* cdyn_lcp_solve (Lemke with fallbacks), warm-started */
    CDYN_BACKEND_FB_DENSE = 2,  /* cdyn_mcp_solve / cdyn_lcp_fb_newton, dense LU */
    CDYN_BACKEND_FB_SPARSE = 3, /* cdyn_mcp_solve with the KLU path */
    CDYN_BACKEND_CONEQP = 4,    /* cdyn_coneqp_solver_solve */
    CDYN_BACKEND_DIRECT = 5,    /* LAPACK linear solve, no complementarity solver */
    CDYN_BACKEND_FC3D = 6       /* cdyn_fc3d_solver, held by the stepper */
} cdyn_step_backend;

/* "auto", "lemke", "fb-dense", "fb-sparse", "coneqp", "direct", "fc3d"; never NULL. */
CDYN_API const char *cdyn_step_backend_str(cdyn_step_backend backend);

typedef enum cdyn_pyramid_bound {
    CDYN_PYRAMID_DIAMOND = 0, /* sum of the n_d direction impulses <= mu p_n (classical) */
    CDYN_PYRAMID_BOX = 1      /* n_d = 4 only: |p_t| <= mu p_n and |p_o| <= mu p_n per axis */
} cdyn_pyramid_bound;

typedef struct cdyn_step_options {
    cdyn_scheme scheme;
    cdyn_step_backend backend; /* CDYN_BACKEND_AUTO */
    double h;                  /* time step, > 0 (0.01) */
    int max_halvings;          /* a failed (sub)step retried at half its length, down to
                                  h / 2^max_halvings (8; 0: no substeps) */

    /* implicit NCP */
    double gamma;       /* smoothing of the friction cone, >= 0 (1e-4) */
    int friction_qp;    /* nonzero: tangential forces from the friction QP (Proposition 1, the
                           exact cone) given lambda_n, inside the Newton iteration; rows it cannot
                           take (K + C/h not symmetric, or K_t = C_t = 0) keep the smoothed NCP
                           rows. 0: the smoothed NCP rows everywhere (1) */
    int sparse_above;   /* AUTO backend: FB_SPARSE above this many unknowns (200) */
    int fd_jacobian;    /* nonzero: the Newton matrix by central differences of the residual
                           instead of the analytic model derivatives (0; slow: 2 n_y residuals
                           per iteration — a check of the analytic matrix, not for production) */
    int continuation;   /* after a failed solve, the same step solved again along a path in the
                           step length: from h/2^m (m = 1 .. continuation) doubling to h, each
                           solve starting from the last (a failed stage retried with half the
                           increment, to 1/64 of t), then from the other friction law's
                           solution (report.other_law; 0 turns both off); the answer is the
                           step at h itself,
                           unlike max_halvings' substeps. 0..10 (4; 0: off) */
    cdyn_mcp_options mcp;  /* FB-Newton settings (cdyn_mcp_defaults; tol 1e-10) */

    /* pyramid LCP */
    int directions;           /* n_d >= 3 friction directions per contact in 3D (4); planar
                                 models always use 2 (+t, -t) */
    cdyn_pyramid_bound bound; /* CDYN_PYRAMID_DIAMOND */
    int restitution;          /* nonzero: Newton restitution with each pair's coefficient e,
                                 for rows that approach and close within the step (the
                                 predicted gap Psi_n + h Gamma_n v_free <= 0); the rebound
                                 speed is e |u0| less what the step's forces take while the body
                                 rises, so an impact never adds energy (docs/theory.md) (0);
                                 the cone and Coulomb steps apply it to joint limits only
                                 (each joint's limit_restitution) */
    cdyn_lcp_options lcp;     /* Lemke settings (cdyn_lcp_defaults) */

    /* cone step */
    cdyn_coneqp_options coneqp; /* interior-point settings (cdyn_coneqp_defaults; its threads,
                                   default 1, caps CHOLMOD's threads: docs/api.md) */
    /* Coulomb step */
    cdyn_fc3d_options fc3d;     /* frictional contact settings (cdyn_fc3d_defaults) */

    /* Baumgarte */
    double event_tol;  /* events (gap or multiplier sign change) located to this time (1e-9 s) */
    double max_penetration; /* a step in which some contact row's gap goes below
                               -max_penetration fails with CDYN_EPENETRATION, the state
                               untouched (0.1 m; > 0, INFINITY: no check). The Baumgarte contact
                               penetrates by design (Bortoff's ball at 4.4 m/s: 0.079 m; the
                               default gains from solref: v tau / e, 0.074 m at 10 m/s); weak
                               gains or fast bodies go deeper, gains 0 straight through */

    /* all schemes */
    const cdyn_allocator *allocator; /* NULL: malloc/free; also the backends' allocator at
                                        creation */
} cdyn_step_options;

/* Defaults for a scheme, as listed above. */
CDYN_API void cdyn_step_defaults(cdyn_step_options *opts, cdyn_scheme scheme);

/* ---- stepper ----------------------------------------------------------------------------- */

typedef struct cdyn_stepper cdyn_stepper;

/* What one cdyn_step did. */
typedef struct cdyn_step_report {
    cdyn_report solver; /* the backend's report of the last solve: status, iterations (summed
                           over the step's solves), residual, method, message */
    double h;           /* the step length advanced (options.h) */
    int substeps;       /* substeps the step took (1: the step as asked); after a failure
                           2^halvings */
    int halvings;       /* the shortest substep's length is h / 2^halvings */
    int solves;         /* one-step problems solved (substeps, events) */
    int events;         /* Baumgarte: mode changes located inside the step */
    int nactive;        /* contact rows in the problem of the last solve */
    /* Implicit NCP, where the step's time went (seconds, CLOCK_MONOTONIC, summed over the
     * step's solves, wall clock by C11 timespec_get; 0 for the other schemes): the Newton
     * matrices (the model's derivatives and the assembly), the residuals, and the whole solves
     * (these two, the factorizations and linear solves, the line searches); jacobians and
     * residuals count the evaluations. */
    double time_jacobian, time_residual, time_solve;
    int jacobians, residuals;
    /* Implicit NCP, sparse backend: fill-reducing orderings of the pattern of all the model's
     * rows (one per step size, the first step's), and KLU analyses of the active rows'
     * pattern, restricting that order (one per set of rows and laws not among the solvers of
     * the 4 latest, which the stepper keeps: a set that comes back is not analysed again).
     * Coulomb step: analyses counts the shapes its fc3d solver built (a number of active rows or
     * a block pattern of W not among its two latest; KLU's analysis follows on the sparse path).
     */
    int orderings, analyses;
    /* Coulomb step and cone step: one-step problems solved, summed over the step's solves: one
     * per working set of rows (the rows that approach or carried an impulse, grown by the rows
     * left out that the answer does not fit until there are none; docs/theory.md, "Time
     * stepping", Sec. 3 and 8); 0 for the other schemes and for models with joint limits. */
    int working_rounds;
    /* Implicit NCP: m when the last solve needed the continuation from h/2^m (0: not). */
    int continued;
    /* Implicit NCP: 1 when the step's solve started from the other friction law's solution
     * (the QP's for the NCP rows, or the other way round), after its own starts and the
     * continuation failed; the answer is the step's own law's (0: not). */
    int other_law;
    /* Implicit NCP: 1 when the step was solved by continuation in the friction coefficients
     * (from the frictionless step, mu scaled from 0 to 1), after every other start failed; the
     * answer is the step's own problem's (0: not). */
    int mu_path;
} cdyn_step_report;

/* Create a stepper for model with opts (NULL: implicit NCP defaults). The model must outlive the
 * stepper. CDYN_EINVAL with a message for bad options (the nested solver options mcp,
 * lcp.lemke, coneqp and fc3d included, whatever the backend) or a combination that makes no
 * sense (a backend the scheme cannot use, the box bound with n_d != 4, ...); CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_stepper_create(const cdyn_model *model, const cdyn_step_options *opts,
                                         cdyn_stepper **out, cdyn_report *report);
CDYN_API void cdyn_stepper_free(cdyn_stepper *stepper); /* accepts NULL */

/* The options the stepper runs with (the backend resolved). */
CDYN_API const cdyn_step_options *cdyn_stepper_options(const cdyn_stepper *stepper);

/* Advance state by one step of options.h with generalized forces tau (n_v, or NULL). On
 * CDYN_OK the state holds t + h and the new q, v, delta, lambda, modes. Otherwise the state is
 * unchanged and report->solver.message says what failed. Statuses: CDYN_EINVAL (NULL, a state of
 * other sizes, non-finite values, a quaternion far from unit norm, non-finite tau), the backend's
 * status (CDYN_ENOCONV, CDYN_ERAY, ...) after the allowed halvings, CDYN_ESINGULAR (M not
 * positive definite), CDYN_EPENETRATION (Baumgarte: a contact row went deeper than
 * options.max_penetration; not retried by halving), CDYN_ENOMEM. report may be NULL. */
CDYN_API cdyn_status cdyn_step(cdyn_stepper *stepper, const double *tau, cdyn_state *state,
                               cdyn_step_report *report);

/* ---- recorder ---------------------------------------------------------------------------- */

/* CSV writer of states: a header "t,q0..,v0..,delta_n0,delta_t0,delta_o0,..,lambda_n0,..,mode0.."
 * (for models with joint limits followed by ",limit_delta0..,limit_lambda0..,limit_mode0..", one
 * per limit row) and one line per cdyn_recorder_write, full precision (%.17g). */
typedef struct cdyn_recorder cdyn_recorder;

/* Open path for writing (truncates). CDYN_EIO with the system's reason when it cannot. */
CDYN_API cdyn_status cdyn_recorder_open(const cdyn_model *model, const char *path,
                                        cdyn_recorder **out, cdyn_report *report);
CDYN_API cdyn_status cdyn_recorder_write(cdyn_recorder *rec, const cdyn_state *state,
                                         cdyn_report *report);
/* Flush and close; CDYN_EIO when a write failed at any point. Accepts NULL (CDYN_OK). */
CDYN_API cdyn_status cdyn_recorder_close(cdyn_recorder *rec, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif

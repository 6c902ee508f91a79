/* cdyn — multibody models: bodies, serial chains, contact geometry, and their kinematics and
 * dynamics at a configuration. This layer knows nothing about solvers: it turns (q, v) into
 * M(q), h(q, v), gaps Psi_n(q), contact frames (n, t, o), Jacobians Gamma_n,t,o(q) and the
 * acceleration-level terms (dGamma/dt) v. Notation follows Song, Kumar & Pang (see DESIGN.md):
 *
 *     qdot = G(q) v,      M(q) vdot + h(q, v) = tau + Gamma_n^T lam_n + Gamma_t^T lam_t
 *                                                   + Gamma_o^T lam_o.
 *
 * (The paper's f(t, q, v) is tau - h.) Equations and their code: docs/theory.md; API guide
 * and examples: docs/api.md.
 *
 * Objects (the MuJoCo split)
 *   cdyn_builder  mutable; collects bodies, geometry and contact pairs, validating each;
 *   cdyn_model    immutable result of cdyn_builder_build; shared by any number of threads;
 *   cdyn_data     one per thread: workspace and outputs of cdyn_eval for one (q, v). All memory
 *                 is allocated by cdyn_data_create; cdyn_eval never allocates.
 *
 * Coordinates
 *   The model is planar (dim 2: everything lies in the world x-y plane, z is out of the plane)
 *   or spatial (dim 3). Each body is attached to its parent (CDYN_GROUND or an earlier body) by
 *   one joint, in the order the bodies were added; q and v are the joint coordinates in that
 *   order:
 *     joint        dim 3: nq nv  q                                  v
 *     FREE                7  6   (x, y, z, e0, ex, ey, ez)          (vx, vy, vz, wx, wy, wz)
 *     FREE (dim 2)        3  3   (x, y, theta)                      (vx, vy, w)
 *     REVOLUTE            1  1   angle                              angle rate
 *     PRISMATIC           1  1   displacement                       rate
 *     FIXED               0  0
 *   (x, y, z) is the world position of the body frame's origin and (vx, vy, vz) its velocity.
 *   The angular velocity w of a free body is in WORLD axes (as the billiard ball of Song et al.),
 *   so the quaternion block of G(q) is  edot = 1/2 (0, w) (x) e  (Hamilton product).
 *   FREE joints attach to CDYN_GROUND only.
 *
 * Quaternions in a state
 *   cdyn_eval (and what calls it, e.g. cdyn_instant_solve) uses e/|e| for the orientation: the
 *   quaternion of a state need not be exactly unit (an implicit step's Newton iterates are not).
 *   There a quaternion whose norm lies outside [1 - CDYN_QUAT_NORM_TOL, 1 + CDYN_QUAT_NORM_TOL]
 *   is CDYN_EINVAL (it is a wrong state, not rounding). cdyn_model_G and cdyn_model_qdot use e
 *   as given (the paper's matrix) and check only finiteness; cdyn_model_G_pinv needs e != 0.
 *   cdyn_model_normalize_q restores unit norms, e.g. after each time step.
 *
 * Contacts
 *   A contact pair joins geometry a and geometry b (on different rigid bodies). Each pair owns
 *   a FIXED number of contact rows (e.g. 1 for sphere-plane, 8 for box-plane: one per corner;
 *   n_s^2 (2D: n_s) elements with a distributed patch, see cdyn_builder_add_contact_pair);
 *   rows of all pairs are numbered consecutively in the order of the pairs, so n_c =
 *   cdyn_model_ncontact(m) is constant. Pairs are declared one by one or by groups
 *   (cdyn_builder_add_pair_group). Every evaluated row holds a valid point, gap and frame;
 *   its `active` flag says whether the gap is within the pair's margin (default: always).
 *   Pairs farther apart than a finite margin may be skipped by the broad phase (see "Broad
 *   phase" below): their rows are inactive, as an evaluation would find them.
 *   Per row: points p_a on a and p_b on b, the unit normal n from a to b, tangents t, o with
 *   (n, t, o) right-handed (n x t = o), and the signed gap Psi_n = n . (p_b - p_a), positive
 *   when apart. In planar models o = (0, 0, -1) and t = (n_y, -n_x, 0); the o rows are zero.
 *   Jacobian rows: Gamma_d v = d . (v_b(p_b) - v_a(p_a)) for d in {n, t, o}, where v_k(p) is the
 *   velocity of the material point of body k at p. Gamma_n = dPsi_n/dq G(q) (for the elements
 *   of round patches Gamma_n is taken at the nominal points: see cdyn_builder_add_contact_pair).
 *   Jacobian-dot terms: (dGamma_d/dt) v = d/dt [Gamma_d(q(t)) v] at fixed v, along qdot = G v.
 *
 * Thread safety: a model is never modified after cdyn_builder_build; functions taking a const
 * cdyn_model* may run concurrently. A builder or a data object must not be used by two threads
 * at once. */
#ifndef CDYN_MODEL_H
#define CDYN_MODEL_H

#include "cdyn/alloc.h"
#include "cdyn/sparse.h"
#include "cdyn/status.h"

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CDYN_GROUND (-1)       /* the parent / body id of the fixed world */
#define CDYN_QUAT_NORM_TOL 0.5 /* accepted | |e| - 1 | of a state's quaternion */

typedef struct cdyn_builder cdyn_builder;
typedef struct cdyn_model cdyn_model;
typedef struct cdyn_data cdyn_data;

/* A rigid transformation: position and unit quaternion (e0, ex, ey, ez), e0 the scalar part.
 * In planar models quat must be a rotation about z (ex = ey = 0) and pos[2] = 0. */
typedef struct cdyn_pose {
    double pos[3];
    double quat[4];
} cdyn_pose;

/* The planar pose (x, y, rotation by angle about z). */
CDYN_API cdyn_pose cdyn_pose_planar(double x, double y, double angle);

/* ---- builder ------------------------------------------------------------------------------ */

typedef struct cdyn_builder_options {
    int dim;                         /* 2 (planar) or 3 (spatial) */
    double gravity[3];               /* world gravity acceleration; planar: gravity[2] = 0 */
    const cdyn_allocator *allocator; /* NULL: malloc/free; used by the builder and the model and
                                        must outlive both */
    int broad_phase;                 /* nonzero (default): cdyn_eval runs the narrow phase of a
                                        pair with a finite margin only when the boxes of its
                                        geometries, grown by the margin, overlap (see "Broad
                                        phase" below); 0: every pair at every evaluation */
} cdyn_builder_options;

/* dim and the matching default gravity: (0, -9.81, 0) for dim 2, (0, 0, -9.81) otherwise;
 * broad_phase = 1. */
CDYN_API void cdyn_builder_defaults(cdyn_builder_options *opts, int dim);

CDYN_API cdyn_status cdyn_builder_create(const cdyn_builder_options *opts, cdyn_builder **out,
                                         cdyn_report *report);
CDYN_API void cdyn_builder_free(cdyn_builder *builder); /* accepts NULL */

typedef enum cdyn_joint_type {
    CDYN_JOINT_FREE = 0,
    CDYN_JOINT_REVOLUTE = 1,
    CDYN_JOINT_PRISMATIC = 2,
    CDYN_JOINT_FIXED = 3
} cdyn_joint_type;

typedef struct cdyn_body_desc {
    int parent;            /* CDYN_GROUND or the id of a body added before */
    cdyn_joint_type joint; /* how the body moves relative to its parent */
    cdyn_pose frame;       /* REVOLUTE, PRISMATIC, FIXED: the joint frame in the parent's frame,
                              which is the body frame when the joint coordinate is 0.
                              FREE: the body's pose in cdyn_model_default_q */
    double axis[3];        /* REVOLUTE, PRISMATIC: axis in the joint frame (nonzero; normalized).
                              Planar models: revolute joints turn about z (axis ignored),
                              prismatic axes lie in the x-y plane */
    double mass;           /* > 0 for bodies with a joint that moves; >= 0 for FIXED */
    double com[3];         /* centre of mass in the body frame */
    double inertia[6];     /* rotational inertia about the centre of mass in body axes, as the
                              entries (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) of the symmetric tensor;
                              positive definite for moving bodies (FIXED: positive semidefinite).
                              Planar models use Izz only (> 0 for moving bodies) */
    double damping;        /* REVOLUTE, PRISMATIC: viscous joint damping d >= 0 (N m s/rad,
                              N s/m): the generalized force -d v_j on the joint's dof, part of
                              h(q, v) (so of cdyn_data_bias and of the inverse dynamics and its
                              d/dv). Every time-stepping scheme but BAUMGARTE integrates it
                              implicitly (docs/theory.md, "Joint damping"). FREE, FIXED: 0 */
    double friction;       /* REVOLUTE, PRISMATIC: dry (Coulomb) joint friction: the joint's
                              friction force or torque |f| <= friction (N m, N), >= 0, opposing
                              its motion. Taken by CDYN_SCHEME_PYRAMID_LCP only (complementarity
                              rows in joint space); cdyn_stepper_create refuses it for the other
                              schemes (CDYN_ENOTSUP naming the body). FREE, FIXED: 0 */
    int limited;           /* REVOLUTE, PRISMATIC: 1 = the joint coordinate is limited to
                              [lower, upper] (a unilateral constraint at each finite end); 0 = no
                              limits (default; FREE, FIXED: 0). Taken by every time-stepping
                              scheme: rigid rows in PYRAMID_LCP, CONE_STEP and COULOMB_STEP,
                              compliant rows in IMPLICIT_NCP, Baumgarte-stabilized rows in
                              BAUMGARTE (docs/theory.md, "Time stepping" Sec. 10); the BVP
                              refuses it (CDYN_ENOTSUP), cdyn_step_derivatives takes it */
    double lower, upper;   /* with limited = 1: lower <= upper, not NaN (rad or m; -INFINITY /
                              INFINITY for an open end) */
    double limit_restitution; /* with limited = 1: Newton's coefficient e in [0, 1] of the
                              limit stops, used by CDYN_SCHEME_PYRAMID_LCP with
                              options.restitution (as a contact pair's restitution); 0 */
    double limit_solref[2];   /* with limited = 1: (time constant tau > 0 in s, damping ratio
                              zeta > 0) of the compliant stops of CDYN_SCHEME_IMPLICIT_NCP
                              (K = m_eff / (tau zeta)^2, C = 2 m_eff / tau, m_eff = 1 /
                              (M^-1)_jj at cdyn_model_default_q) and of the Baumgarte gains of
                              CDYN_SCHEME_BAUMGARTE (alpha = (1 / (tau zeta)^2, 2 / tau, 0)), as
                              a contact pair's solref; (0, 0): CDYN_SOLREF_TIMECONST,
                              CDYN_SOLREF_DAMPRATIO (docs/api.md, "Joint limits") */
} cdyn_body_desc;

/* parent = CDYN_GROUND, joint = FREE, identity frame, axis = (0, 0, 1), com = 0, mass and
 * inertia 0 (must be set), damping = friction = 0, limited = 0 (lower = upper = 0),
 * limit_restitution = 0. */
CDYN_API void cdyn_body_desc_defaults(cdyn_body_desc *desc);

/* Add one body; *id receives its id (0, 1, ... in order). On failure the builder is unchanged
 * and the message says which field is wrong. */
CDYN_API cdyn_status cdyn_builder_add_body(cdyn_builder *builder, const cdyn_body_desc *desc,
                                           int *id, cdyn_report *report);

/* Add a serial chain of n >= 1 links: links[0] is attached to `parent` (CDYN_GROUND or a body),
 * links[k] to links[k-1] (their `parent` fields are ignored); ids[k] receives the ids. Typically
 * REVOLUTE and PRISMATIC joints. All or nothing: on failure no link is added. */
CDYN_API cdyn_status cdyn_builder_add_chain(cdyn_builder *builder, int parent, int n,
                                            const cdyn_body_desc *links, int *ids,
                                            cdyn_report *report);

typedef enum cdyn_geom_type {
    CDYN_GEOM_PLANE = 0,     /* 2D, 3D: half-space; 3D: surface z = 0 of the geom frame, solid
                                z <= 0, outward normal +z; 2D: line y = 0, solid y <= 0 */
    CDYN_GEOM_SPHERE = 1,    /* 3D: size[0] = radius */
    CDYN_GEOM_BOX = 2,       /* 3D: size[0..2] = half-extents along x, y, z */
    CDYN_GEOM_CAPSULE = 3,   /* 2D, 3D: segment from (-size[1], 0, 0) to (size[1], 0, 0) swept
                                by a disk/ball of radius size[0] >= 0 (0: a segment) */
    CDYN_GEOM_POINT = 4,     /* 2D, 3D: the geom frame's origin */
    CDYN_GEOM_CIRCLE = 5,    /* 2D: size[0] = radius */
    CDYN_GEOM_ELLIPSE = 6,   /* 2D: semi-axes size[0] along x, size[1] along y */
    CDYN_GEOM_RECTANGLE = 7, /* 2D: half-extents size[0], size[1] */
    CDYN_GEOM_POLYGON = 8,   /* 2D: convex, vertices counter-clockwise */
    CDYN_GEOM_ARC = 9        /* 2D: the circular arc of radius size[1] about the geom frame's
                                origin over the polar angles |phi| <= size[2] (0 < size[2] <= pi,
                                from the frame's +x axis), swept by a disk of radius
                                size[0] >= 0: a ring (size[2] = pi) or a ring with a gate.
                                Distances are to the arc curve from either side */
} cdyn_geom_type;

typedef struct cdyn_geom_desc {
    int body; /* CDYN_GROUND or a body id */
    cdyn_geom_type type;
    cdyn_pose frame;        /* geometry frame in the body frame */
    double size[3];         /* as listed with cdyn_geom_type; sizes must be > 0 */
    int n_vertices;         /* POLYGON: >= 3 */
    const double *vertices; /* POLYGON: (x0, y0, x1, y1, ...) in the geom frame; copied */
} cdyn_geom_desc;

/* body = CDYN_GROUND, type = PLANE, identity frame, sizes 0, no vertices. */
CDYN_API void cdyn_geom_desc_defaults(cdyn_geom_desc *desc);

CDYN_API cdyn_status cdyn_builder_add_geom(cdyn_builder *builder, const cdyn_geom_desc *desc,
                                           int *id, cdyn_report *report);

typedef struct cdyn_contact_pair_desc {
    int geom_a, geom_b;      /* the normal points from a to b; different rigid bodies */
    double mu;               /* Coulomb friction coefficient, >= 0 */
    double stiffness[9];     /* K (compliant model): 3x3 column-major in (n, t, o) order; finite,
                                diagonal >= 0. A diagonal K has only [0], [4], [8] set.
                                K = C = 0: from solref (see cdyn_contact_pair_desc_defaults) */
    double damping[9];       /* C, same layout */
    double restitution;      /* in [0, 1] (rigid pyramid model) */
    double baumgarte[3];     /* alpha0, alpha1, alpha2 >= 0 (state-machine model); all 0:
                                from solref (see cdyn_contact_pair_desc_defaults) */
    double margin;           /* a row is active when its gap <= margin; > 0 or INFINITY */
    int patch_n;             /* n_s in 1..CDYN_PATCH_MAX: 1 = the pair's own point(s); > 1 = a
                                distributed patch of lumped elements (see below) */
    double patch_half_width; /* round patches: half the side of the square patch, > 0; face
                                patches: 0. Finite, >= 0; ignored when patch_n = 1 */
    double solref[2];        /* (time constant tau > 0 in s, damping ratio zeta > 0) of the
                                contact's defaults (MuJoCo's solref), or tau = 0 for none; used
                                only for what is left unset, see below */
} cdyn_contact_pair_desc;

#define CDYN_PATCH_MAX 16 /* largest patch_n */

/* Default time constant and damping ratio of a contact (solref), as MuJoCo's; also of the joint
 * limits (cdyn_body_desc.limit_solref). */
#define CDYN_SOLREF_TIMECONST 0.02
#define CDYN_SOLREF_DAMPRATIO 1.0

/* mu = 0, K = C = 0 and baumgarte = 0 (unset: taken from solref), restitution = 0,
 * margin = INFINITY, patch_n = 1, patch_half_width = 0,
 * solref = (CDYN_SOLREF_TIMECONST, CDYN_SOLREF_DAMPRATIO).
 *
 * Contact defaults. A pair with solref[0] = tau > 0 whose stiffness AND damping are all zero
 * gets, when the model is built,
 *     K = m_eff / (tau zeta)^2 I,   C = 2 m_eff / tau I     (planar models: the n, t entries),
 * and a pair whose baumgarte gains are all zero gets
 *     alpha0 = 1 / (tau zeta)^2,   alpha1 = 2 / tau,   alpha2 = 0,
 * so that the gap of one contact row behaves as a damped oscillator with decay time tau and
 * damping ratio zeta (critically damped for zeta = 1), and a body resting on a compliant contact
 * sinks g (tau zeta)^2 (3.9 mm with the defaults) under gravity g. m_eff = 1 / w, w the mean of
 * Gamma_n M^-1 Gamma_n^T over the pair's rows at the reference configuration
 * (cdyn_model_default_q): the pair's effective mass, e.g. m for a sphere on a fixed plane,
 * m1 m2 / (m1 + m2) for two spheres. With a patch, K and C are the patch's (shared among its
 * elements as always). Values that were given are never changed (a K set alone keeps C = 0).
 * cdyn_model_pair_info reports the values the model uses. tau should be at least 2 h for the
 * steps used (MuJoCo's rule): the implicit compliant step is stable for any h but then damps
 * the contact's motion more than tau says, and RK4 in the Baumgarte scheme needs h < 2.7 tau.
 * solref[0] = 0 keeps unset values at 0: a compliant contact then carries no force and the
 * Baumgarte contact does not hold (that scheme reports the penetration). cdyn_builder_build
 * refuses (CDYN_EINVAL, naming the pair) a pair that needs defaults but whose rows cannot move
 * at the reference configuration (w = 0). */
CDYN_API void cdyn_contact_pair_desc_defaults(cdyn_contact_pair_desc *desc);

/* Add a contact pair (either order of the types). Supported:
 *   3D: plane-{sphere, point, capsule, box}, sphere-{sphere, point}, capsule-{capsule, sphere,
 *       point}, box-{sphere, point};
 *   2D: plane-{circle, point, capsule, rectangle, polygon, ellipse}, circle-{circle, point},
 *       capsule-{capsule, circle, point}, ellipse-{circle, point, capsule},
 *       rectangle-{circle, point}, polygon-{circle, point}, arc-{circle, point}.
 * Rows per pair: plane-box 8, plane-rectangle 4, plane-polygon n_vertices, plane-capsule 2,
 * otherwise 1. CDYN_EINVAL for unknown geometry ids, both geometries on the same rigid body
 * (also: bodies welded by FIXED joints, or both immobile), a pair of types without a contact
 * function (the message lists the supported ones), or bad parameters.
 *
 * Distributed patches (patch_n = n_s > 1; docs/theory.md Sec. 9) replace the pair's rows
 * by n_e element rows, n_e = n_s^2 (3D) or n_s (2D), all with the frame (n, t, o) of the patch:
 *   round patch, plane-sphere and sphere-sphere (2D: plane-circle, circle-circle): elements at
 *     the centres of n_s x n_s equal cells of the square of half-width w = patch_half_width in
 *     the tangent plane at the contact (2D: n_s cells of [-w, w] along t), element e = i + n_s j
 *     at offset xi_i t + eta_j o. Element gap = nominal gap + the sagittas r - sqrt(r^2 - rho^2)
 *     of the balls; its points lie on the two surfaces; Gamma_t, Gamma_o are the relative
 *     velocity of the material points there, Gamma_n is the nominal row (= dPsi_e/dq G, since
 *     the sagittas are constant). Needs sqrt(2) w <= r (2D: w <= r) for every ball.
 *   face patch, plane-box (2D: plane-rectangle, plane-polygon): elements are the material
 *     points at the centres of n_s x n_s equal cells of the box face (2D: n_s cells of the
 *     edge) that faces the plane; patch_half_width must be 0.
 * Other pairs reject patch_n > 1. K and C are per row without a patch and per patch with one
 * (each element gets K / n_e, C / n_e: cdyn_model_contact_compliance). */
CDYN_API cdyn_status cdyn_builder_add_contact_pair(cdyn_builder *builder,
                                                   const cdyn_contact_pair_desc *desc, int *id,
                                                   cdyn_report *report);

/* ---- pair groups ---- */

typedef struct cdyn_pair_group_options {
    int exclude_jointed; /* nonzero (default): skip the pairs of two bodies joined by a joint
                            (one is the other's parent, FIXED joints looked through; the ground
                            is nobody's parent here, so a body jointed to the ground still meets
                            the ground's geometry) */
} cdyn_pair_group_options;

CDYN_API void cdyn_pair_group_defaults(cdyn_pair_group_options *opts);

/* What cdyn_builder_add_pair_group added and skipped. */
typedef struct cdyn_pair_group_info {
    int first_pair;          /* id of the first pair added (the builder's pair count before) */
    int npair;               /* pairs added: first_pair .. first_pair + npair - 1 */
    int nrows;               /* contact rows they own */
    int skipped_same_body;   /* same rigid body (welded by FIXED joints, or both immobile) */
    int skipped_jointed;     /* bodies joined by a joint (exclude_jointed) */
    int skipped_unsupported; /* geometry types without a contact function */
} cdyn_pair_group_info;

/* Declare the contact pairs of a group at once, each with the parameters of `pair` (its geom_a
 * and geom_b are ignored; every other field as for cdyn_builder_add_contact_pair):
 *   group_b != NULL: every geometry of group_a (na ids) against every geometry of group_b (nb),
 *     in the order (group_a[0], group_b[0]), (group_a[0], group_b[1]), ..., (group_a[1],
 *     group_b[0]), ...; the normal points from the group_a geometry to the group_b one;
 *   group_b == NULL (nb ignored): all against all within group_a, in the order (g[0], g[1]),
 *     (g[0], g[2]), ..., (g[1], g[2]), ... with the normal from the earlier to the later one.
 * The pairs get consecutive ids in that order, after the pairs declared before, and their rows
 * follow in the same order (rows are numbered by pair, as for explicit pairs): the row of a pair
 * never depends on the state, so warm starts and the recorder see stable rows. Skipped, and
 * counted in *info: pairs on the same rigid body, pairs of jointed bodies (opts), and pairs of
 * geometry types without a contact function (e.g. sphere-box is supported, box-box is not: see
 * cdyn_builder_add_contact_pair) — a group of mixed shapes keeps the pairs that exist. A patch
 * (patch_n > 1) must suit every pair that is kept, or the group is refused.
 * Memory: each pair costs about 1-2 KB in the model and a data object (its rows, Jacobian
 * pattern and derivative pattern), so all against all among n geometries is O(n^2): fine for
 * hundreds to a few thousand bodies (300 spheres: 44850 pairs). With a finite margin the broad
 * phase keeps the cost of cdyn_eval close to linear in the bodies and the touching pairs.
 * All or nothing: CDYN_EINVAL (builder unchanged) for NULL builder, group_a or pair, an empty
 * group (na < 1, or nb < 1 with group_b), an unknown geometry id, an id repeated within a group
 * or present in both, a bad parameter in `pair` (NaN, negative friction, margin <= 0, ...), or a
 * patch a kept pair cannot take; CDYN_ENOMEM. opts NULL: defaults; info may be NULL. */
CDYN_API cdyn_status cdyn_builder_add_pair_group(cdyn_builder *builder, const int *group_a, int na,
                                                 const int *group_b, int nb,
                                                 const cdyn_contact_pair_desc *pair,
                                                 const cdyn_pair_group_options *opts,
                                                 cdyn_pair_group_info *info, cdyn_report *report);

/* Validate the whole description and create the immutable model (*out; NULL on failure). The
 * builder is not changed and may be reused or freed. CDYN_EINVAL when the model has no degree
 * of freedom; CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_builder_build(const cdyn_builder *builder, cdyn_model **out,
                                        cdyn_report *report);

/* ---- model queries ------------------------------------------------------------------------ */

CDYN_API void cdyn_model_free(cdyn_model *model); /* accepts NULL */

CDYN_API int cdyn_model_dim(const cdyn_model *model);
CDYN_API int cdyn_model_nq(const cdyn_model *model);
CDYN_API int cdyn_model_nv(const cdyn_model *model);
CDYN_API int cdyn_model_nbody(const cdyn_model *model);
CDYN_API int cdyn_model_ngeom(const cdyn_model *model);
CDYN_API int cdyn_model_npair(const cdyn_model *model);
CDYN_API int cdyn_model_ncontact(const cdyn_model *model); /* n_c: contact rows of all pairs */
CDYN_API void cdyn_model_gravity(const cdyn_model *model, double gravity[3]);

typedef struct cdyn_body_info {
    int parent; /* CDYN_GROUND or a body id */
    cdyn_joint_type joint;
    int nq, nv;     /* coordinates of this body's joint */
    int qadr, vadr; /* their offsets in q and v */
    double mass;
    double damping, friction; /* as described (cdyn_body_desc) */
    int limited;              /* as described; lower = -INFINITY, upper = INFINITY without */
    double lower, upper;
    double limit_restitution; /* as described */
    double limit_solref[2];   /* as described, the defaults filled in (0, 0 without limits) */
} cdyn_body_info;

CDYN_API cdyn_status cdyn_model_body_info(const cdyn_model *model, int body, cdyn_body_info *info);

/* The joint damping of every dof: D = diag(d) in joint space, d (nv) receiving each dof's
 * coefficient (0 for the dofs of FREE joints). Returns the number of dofs with d > 0 (0 for
 * NULL arguments). */
CDYN_API int cdyn_model_joint_damping(const cdyn_model *model, double *d);

/* The number of bodies whose joint has friction > 0 (0 for NULL); *first (may be NULL)
 * receives the first such body, or -1. */
CDYN_API int cdyn_model_joint_friction_count(const cdyn_model *model, int *first);

/* The same for joints with limits (cdyn_body_desc.limited). */
CDYN_API int cdyn_model_joint_limit_count(const cdyn_model *model, int *first);

/* Limit rows: one per finite end of every limited joint, bodies in id order, the lower end before
 * the upper (cdyn_state.nl of them; 0 for NULL). Row `row`'s body and end (*upper = 0: lower,
 * 1: upper); either pointer may be NULL. CDYN_EINVAL for a row out of range. */
CDYN_API int cdyn_model_limit_rows(const cdyn_model *model);
CDYN_API cdyn_status cdyn_model_limit_row(const cdyn_model *model, int row, int *body,
                                          int *upper);

typedef struct cdyn_pair_info {
    int geom_a, geom_b; /* as declared */
    int body_a, body_b; /* bodies of the geometries (CDYN_GROUND possible) */
    int row, nrows;     /* this pair's contact rows: row, ..., row + nrows - 1 */
    double mu, stiffness[9], damping[9], restitution, baumgarte[3], margin;
    int patch_n;             /* n_s (1: no patch) */
    double patch_half_width; /* of a round patch; 0 otherwise */
    double solref[2];        /* as declared */
    unsigned defaults;       /* CDYN_PAIR_DEFAULT_* bits: which values came from solref */
} cdyn_pair_info;

enum {
    CDYN_PAIR_DEFAULT_COMPLIANCE = 1u, /* stiffness and damping */
    CDYN_PAIR_DEFAULT_BAUMGARTE = 2u   /* baumgarte */
};

CDYN_API cdyn_status cdyn_model_pair_info(const cdyn_model *model, int pair, cdyn_pair_info *info);

/* The stiffness K and damping C (3x3 column-major, (n, t, o) order) of contact row `row`: the
 * pair's K, C for a row of a pair without patch, K / n_e, C / n_e for an element of a patch of
 * n_e elements (so that a uniformly loaded patch is as stiff as the pair's K). K or C may be
 * NULL. CDYN_EINVAL for a bad row. */
CDYN_API cdyn_status cdyn_model_contact_compliance(const cdyn_model *model, int row, double K[9],
                                                   double C[9]);

/* The reference configuration: FREE bodies at the pose of their desc.frame, other joints 0.
 * q has nq entries. */
CDYN_API void cdyn_model_default_q(const cdyn_model *model, double *q);

/* Scale every quaternion block of q to unit norm. CDYN_EINVAL (q unchanged) for a zero or
 * non-finite block. */
CDYN_API cdyn_status cdyn_model_normalize_q(const cdyn_model *model, double *q,
                                            cdyn_report *report);

/* G(q), nq x nv column-major: identity blocks, and for each free 3D body the 4x3 quaternion
 * block of Song et al. (with the quaternion as given). */
CDYN_API cdyn_status cdyn_model_G(const cdyn_model *model, const double *q, double *G,
                                  cdyn_report *report);

/* A left inverse H(q) of G(q), nv x nq: H G = I, with quaternion blocks 4/|e|^2 E(e)^T. For a
 * function f(q) that depends on each quaternion only through its direction (every gap does),
 * df/dq = (df/dq G) H, e.g. dPsi_n/dq = Gamma_n H: what an implicit step's Newton matrix needs. */
CDYN_API cdyn_status cdyn_model_G_pinv(const cdyn_model *model, const double *q, double *H,
                                       cdyn_report *report);

/* Column j of G(q) and row j of H(q) = cdyn_model_G_pinv without forming them: both have
 * their nonzeros at the same q coordinates qidx; G and H (either may be NULL) receive the
 * values. Returns their count (1, or 4 for the angular dofs of a 3D free body), 0 for a bad
 * argument or a zero quaternion. df/dq = sum_j (df/dq G)_j H_j (cdyn_eval_derivatives). */
CDYN_API int cdyn_model_tangent_map(const cdyn_model *model, const double *q, int j, int qidx[4],
                                    double G[4], double H[4]);

/* The derivative of G(q) v in q is zero except for the quaternion block of each 3D free body,
 * d edot/de = 1/2 L((0, w)) (L(p) e = p (x) e, w = v's angular part of that body); D (4 x 4,
 * column-major) receives it. CDYN_EINVAL for NULL or a body that is not a 3D free body. */
CDYN_API cdyn_status cdyn_model_quat_rate_de(const cdyn_model *model, int body, const double *v,
                                             double D[16]);

/* qdot = G(q) v (qdot must not alias q or v). */
CDYN_API cdyn_status cdyn_model_qdot(const cdyn_model *model, const double *q, const double *v,
                                     double *qdot, cdyn_report *report);

/* ---- data and evaluation ------------------------------------------------------------------ */

typedef struct cdyn_data_options {
    int dense;                       /* nonzero: also keep dense M and dense Jacobians (1) */
    const cdyn_allocator *allocator; /* NULL: malloc/free; must outlive the data */
} cdyn_data_options;

CDYN_API void cdyn_data_defaults(cdyn_data_options *opts);

/* Workspace and outputs for one model (opts NULL: defaults). */
CDYN_API cdyn_status cdyn_data_create(const cdyn_model *model, const cdyn_data_options *opts,
                                      cdyn_data **out, cdyn_report *report);
CDYN_API void cdyn_data_free(cdyn_data *data); /* accepts NULL */

enum {
    CDYN_EVAL_MASS = 1u,        /* M(q) by the composite-rigid-body algorithm */
    CDYN_EVAL_BIAS = 2u,        /* h(q, v) by recursive Newton-Euler (needs v) */
    CDYN_EVAL_CONTACTS = 4u,    /* points, gaps, frames, active flags, Jacobians */
    CDYN_EVAL_CONTACT_DOT = 8u, /* (dGamma/dt) v (needs v; implies CONTACTS) */
    CDYN_EVAL_ALL = 15u
};

/* Evaluate the model at q (nq) and v (nv; may be NULL when no requested output needs it) into
 * data, which must come from the same model. Body poses (and velocities when v is given) are
 * always computed. Never allocates. All inputs are checked first: on failure (CDYN_EINVAL:
 * NULL, non-finite q or v, a quaternion norm outside the tolerance, unknown flags, v missing,
 * data from another model) data is left unchanged. */
CDYN_API cdyn_status cdyn_eval(const cdyn_model *model, cdyn_data *data, const double *q,
                               const double *v, unsigned flags, cdyn_report *report);

/* cdyn_eval with the contact outputs of only the pairs with pairs[p] != 0 (npair flags; NULL: all):
 * the rows of the other pairs keep the values of an earlier evaluation and must not be read
 * (their gaps, frames and Jacobian entries are stale). For Newton iterations that need only the
 * rows taking part in a step, and for callers with their own broad phase. */
CDYN_API cdyn_status cdyn_eval_pairs(const cdyn_model *model, cdyn_data *data, const double *q,
                                     const double *v, unsigned flags, const int *pairs,
                                     cdyn_report *report);

/* Broad phase (cdyn_builder_options.broad_phase; docs/theory.md "Broad phase").
 * A pair whose margin is finite and whose geometries are both bounded (not a plane) is
 * "swept": cdyn_eval (and cdyn_eval_pairs with pairs = NULL) computes the axis-aligned boxes of
 * the swept geometries at q, finds the pairs whose boxes lie within the pair's margin of each
 * other by sweep and prune along one axis, and runs the narrow phase only on those and on the
 * other pairs (planes, margin INFINITY: always). A swept pair that is skipped is farther apart
 * than its margin, so its rows are inactive exactly as an evaluation would find them: the
 * active rows, and their gaps, points, frames and Jacobians, are bit for bit those of the
 * all-pairs evaluation. The rows of a skipped pair read: active 0, gap = the smallest double
 * above the margin (a lower bound of the true gap), Jacobian entries and Jacobian-dot terms 0,
 * points and frame those of its last evaluation (0 before one). cdyn_eval_pairs with a subset
 * evaluates the pairs asked for (the caller is the broad phase). Cost per evaluation: boxes and
 * a nearly sorted insertion sort O(n_geom + swaps), the sweep O(n_geom + overlaps along the
 * axis), the narrow phase on the candidates, a reset of the rows of pairs that stopped being
 * candidates; never allocates (the data holds the buffers, O(n_geom + n_pair)). */

/* Number of pairs the narrow phase ran on in the last cdyn_eval: the always-evaluated pairs plus
 * the broad phase's candidates, or the pairs asked for; -1 when it did not compute the contacts
 * (or for NULL). */
CDYN_API int cdyn_data_pairs_evaluated(const cdyn_data *data);

/* Results of the last cdyn_eval. Pointers stay valid until cdyn_data_free; they are NULL when
 * the output was not requested by the last successful cdyn_eval (or not kept: dense = 0). */
CDYN_API const double *cdyn_data_mass(const cdyn_data *data); /* nv x nv, both triangles */
CDYN_API const double *cdyn_data_bias(const cdyn_data *data); /* h, nv (joint damping D v
                                                                 included) */

/* M as CSC (cdyn/sparse.h) holding the LOWER triangle and the diagonal (the convention of the
 * sparse Cholesky wrapper): entry (i, j), i >= j, is stored iff the bodies of dofs i and j lie on
 * one root-to-leaf path. The pattern is fixed by the model. CDYN_EINVAL before CDYN_EVAL_MASS. */
CDYN_API cdyn_status cdyn_data_mass_csc(const cdyn_data *data, cdyn_csc *M);

typedef enum cdyn_dir { CDYN_DIR_N = 0, CDYN_DIR_T = 1, CDYN_DIR_O = 2 } cdyn_dir;

CDYN_API const double *cdyn_data_gap(const cdyn_data *data); /* Psi_n, n_c */
CDYN_API const int *cdyn_data_active(const cdyn_data *data); /* n_c flags (0/1) */
/* Dense Gamma_d, n_c x nv column-major. */
CDYN_API const double *cdyn_data_jacobian(const cdyn_data *data, cdyn_dir dir);
/* Gamma_d as CSC (all rows of a pair share the columns of the dofs that move its bodies). */
CDYN_API cdyn_status cdyn_data_jacobian_csc(const cdyn_data *data, cdyn_dir dir, cdyn_csc *J);
/* (dGamma_d/dt) v, n_c (after CDYN_EVAL_CONTACT_DOT). */
CDYN_API const double *cdyn_data_jacobian_dot_v(const cdyn_data *data, cdyn_dir dir);

typedef struct cdyn_contact {
    int pair, index; /* the pair and the point's (or patch element's) index within it */
    int active;
    double gap; /* n . (pb - pa) */
    double pa[3], pb[3];
    double n[3], t[3], o[3];
} cdyn_contact;

CDYN_API cdyn_status cdyn_data_contact(const cdyn_data *data, int row, cdyn_contact *contact);

/* World pose of a body frame (R column-major, body axes as columns); velocity of the body
 * frame's origin and angular velocity in world axes (zeros when the last eval had no v). */
CDYN_API cdyn_status cdyn_data_body_pose(const cdyn_data *data, int body, double pos[3],
                                         double R[9]);
CDYN_API cdyn_status cdyn_data_body_velocity(const cdyn_data *data, int body, double vel[3],
                                             double w[3]);

/* ---- derivatives ---------------------------------------------------------------------------- */

/* Analytic derivatives of the model's terms at the (q, v) of the last cdyn_eval, which must
 * have been given v and CDYN_EVAL_CONTACTS (docs/theory.md, "Model derivatives"). With joint
 * accelerations a (nv, NULL: 0) and contact forces lambda (3 nc: (n, t, o) per row as in
 * cdyn_state, NULL: 0) it computes the inverse dynamics
 *     id(q, v, a, lambda) = M(q) a + h(q, v) - sum_d Gamma_d(q)' lambda_d          (nv)
 * and
 *     d id / dq G(q)    nv x nv   (M(q) a, h and the contact forces, at fixed v, a, lambda)
 *     d id / dv         nv x nv   (M and the contact forces do not depend on v)
 *     d (Gamma_d(q) v) / dq G(q)   n_c x nv for d = n, t, o, in Gamma's pattern, for the rows
 *                                  with rows[row] != 0 (rows: n_c flags, NULL: every row)
 * Derivatives in q are TANGENT derivatives: column j is the derivative along the motion
 * G(q) e_j, the change of q that dof j's unit rate causes (MuJoCo's convention). For joints
 * other than 3D free bodies G is the identity, so they are plain d/dq. A function f that depends
 * on a quaternion only through its direction (every term here does) has df/dq = (df/dq G) H(q)
 * with H = cdyn_model_G_pinv. The gap's derivative is d Psi_n/dq G = Gamma_n (cdyn_eval gives
 * it). Exact (no finite differences); cost linear in the bodies and contacts (per dof, its
 * subtree and the path above it; per row, its pair's columns squared). Never allocates.
 * CDYN_EINVAL (data unchanged) for NULL, data of another model, an eval without v or contacts,
 * non-finite a or lambda. */
CDYN_API cdyn_status cdyn_eval_derivatives(const cdyn_model *model, cdyn_data *data,
                                           const double *a, const double *lambda,
                                           const int *rows, cdyn_report *report);

/* Results of the last cdyn_eval_derivatives (NULL / CDYN_EINVAL before one, or after a new
 * cdyn_eval). The CSC forms share one pattern fixed by the model: (i, j) when dofs i and j lie on
 * one root-to-leaf path or are columns of one contact pair; both triangles. Dense forms
 * (column-major) only with cdyn_data_options.dense. */
CDYN_API const double *cdyn_data_inverse_dynamics(const cdyn_data *data); /* id, nv */
CDYN_API cdyn_status cdyn_data_id_dq_csc(const cdyn_data *data, cdyn_csc *D);
CDYN_API cdyn_status cdyn_data_id_dv_csc(const cdyn_data *data, cdyn_csc *D);
/* Which positions of that shared pattern (nnz = colptr[nv]) a set of pairs can fill: keep[p] = 1
 * where the dofs lie on one root-to-leaf path (the tree's terms) or are columns of one pair with
 * pairs[pair] != 0 (pairs NULL: every pair), else 0. A model that declares many pairs (all
 * against all) has a pattern coupling nearly every body; the entries of the pairs not in
 * contact are zero, and a caller assembling a sparse matrix skips them with these flags.
 * CDYN_EINVAL for NULL model or keep. */
CDYN_API cdyn_status cdyn_model_deriv_keep(const cdyn_model *model, const int *pairs,
                                           unsigned char *keep);
/* nnz of that pattern (-1 for NULL). */
CDYN_API int cdyn_model_deriv_nnz(const cdyn_model *model);
CDYN_API const double *cdyn_data_id_dq(const cdyn_data *data); /* nv x nv */
CDYN_API const double *cdyn_data_id_dv(const cdyn_data *data); /* nv x nv */
/* d(Gamma_d v)/dq G: the pattern of cdyn_data_jacobian_csc, or dense n_c x nv (rows not asked
 * for are 0). */
CDYN_API cdyn_status cdyn_data_jacobian_dq_v_csc(const cdyn_data *data, cdyn_dir dir,
                                                 cdyn_csc *J);
CDYN_API const double *cdyn_data_jacobian_dq_v(const cdyn_data *data, cdyn_dir dir);

/* ---- derivatives in geometric parameters ---------------------------------------------------- */

/* A geometric parameter of one geometry (docs/theory.md, "Derivatives in geometric
 * parameters"); component c selects among three (VERTEX: among 2 n_vertices):
 *   POS   the geometry frame's origin in its body frame (cdyn_geom_desc.frame.pos[c], m; a
 *         ground geometry's in the world), e.g. a plane's offset along its normal, a sphere's
 *         body-fixed centre;
 *   ROT   a rotation of the geometry frame about its own origin and the body frame's axis c
 *         (rad): frame.quat -> exp(eps/2 (0, e_c)) (x) frame.quat, e.g. a plane's normal
 *         direction; planar models: c = 2 only;
 *   SIZE  size[c] (m): the swept radius size[0] of a sphere, circle, capsule or arc (any pair);
 *         a box's or rectangle's half-extent size[c] against planes, balls and points, a
 *         capsule's half-length size[1] against planes, balls, points, capsules and ellipses,
 *         an arc's curve radius size[1] and opening size[2] (rad), an ellipse's semi-axes
 *         (any pair).
 * Planar models: POS c = 0, 1. Face patches take POS and ROT only (their cells move with the
 * solid's sizes and vertices). */
typedef enum cdyn_geom_param {
    CDYN_GEOM_PARAM_POS = 0,
    CDYN_GEOM_PARAM_ROT = 1,
    CDYN_GEOM_PARAM_SIZE = 2,
    CDYN_GEOM_PARAM_VERTEX = 3 /* a polygon's vertex c / 2, its coordinate c % 2 (x, y) in the
                                  geometry frame (m), in every pair of the polygon */
} cdyn_geom_param;

/* The derivatives in geometric parameter (kind, geom, component) of the contact terms at the
 * (q, v) of the last cdyn_eval (which must have been given v and CDYN_EVAL_CONTACTS, with the
 * asked rows' pairs evaluated), for the rows with rows[row] != 0 (n_c flags, NULL: all) of the
 * pairs that contain the geometry (every other row: 0):
 *   dgap    n_c       d Psi_n / dp
 *   dgv     3 n_c     d (Gamma_d v) / dp, (n, t, o) per row
 *   dforce  n_v       d (sum_d Gamma_d' lambda_d) / dp over those rows, lambda (3 n_c, as in
 *                     cdyn_state; NULL: 0)
 * at fixed q and v. Any output may be NULL. Exact: the pair's own contact function run with the
 * geometry's motion under the parameter in place of the bodies' velocities (sizes: the swept
 * radius moves the point by the normal, a half-extent moves the face the point lies on, an
 * arc's radius and opening its curve and ends, an ellipse's semi-axes its boundary near the
 * point, a polygon's vertex its edge). Never allocates.
 * CDYN_EINVAL (outputs unchanged) for NULL model or data, data of another model, an eval
 * without v or contacts, an unknown kind, geometry or component, non-finite lambda;
 * CDYN_ENOTSUP for a size that an asked row's pair does not support (the message names it). */
CDYN_API cdyn_status cdyn_eval_geom_derivatives(const cdyn_model *model, cdyn_data *data,
                                                cdyn_geom_param kind, int geom, int component,
                                                const double *lambda, const int *rows,
                                                double *dgap, double *dgv, double *dforce,
                                                cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif

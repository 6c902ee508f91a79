/* The model builder: collects bodies, geometry and contact pairs, validating each description
 * on entry so that a failed add leaves the builder unchanged. cdyn_builder_build (build.c) turns
 * the collection into an immutable cdyn_model. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "model/model_internal.h"
#include "model/vec3.h"

#define DESC_QUAT_TOL 1e-6 /* | |quat| - 1 | accepted in descriptions (then normalized) */

cdyn_pose cdyn_pose_planar(double x, double y, double angle)
{
    cdyn_pose p;
    p.pos[0] = x;
    p.pos[1] = y;
    p.pos[2] = 0.0;
    p.quat[0] = cos(0.5 * angle);
    p.quat[1] = 0.0;
    p.quat[2] = 0.0;
    p.quat[3] = sin(0.5 * angle);
    return p;
}

void cdyn_builder_defaults(cdyn_builder_options *opts, int dim)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof(*opts));
    opts->dim = dim == 2 ? 2 : 3;
    opts->gravity[opts->dim == 2 ? 1 : 2] = -9.81;
    opts->allocator = NULL;
    opts->broad_phase = 1;
}

static void identity_pose(cdyn_pose *p)
{
    memset(p, 0, sizeof(*p));
    p->quat[0] = 1.0;
}

void cdyn_body_desc_defaults(cdyn_body_desc *desc)
{
    if (desc == NULL)
        return;
    memset(desc, 0, sizeof(*desc));
    desc->parent = CDYN_GROUND;
    desc->joint = CDYN_JOINT_FREE;
    identity_pose(&desc->frame);
    desc->axis[2] = 1.0;
}

void cdyn_geom_desc_defaults(cdyn_geom_desc *desc)
{
    if (desc == NULL)
        return;
    memset(desc, 0, sizeof(*desc));
    desc->body = CDYN_GROUND;
    desc->type = CDYN_GEOM_PLANE;
    identity_pose(&desc->frame);
}

void cdyn_contact_pair_desc_defaults(cdyn_contact_pair_desc *desc)
{
    if (desc == NULL)
        return;
    memset(desc, 0, sizeof(*desc));
    desc->margin = INFINITY;
    desc->patch_n = 1;
    desc->solref[0] = CDYN_SOLREF_TIMECONST;
    desc->solref[1] = CDYN_SOLREF_DAMPRATIO;
}

cdyn_status cdyn_builder_create(const cdyn_builder_options *opts, cdyn_builder **out,
                                cdyn_report *report)
{
    cdyn_report_clear(report, "builder");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "out is NULL");
    *out = NULL;
    cdyn_builder_options def;
    if (opts == NULL) {
        cdyn_builder_defaults(&def, 3);
        opts = &def;
    }
    if (opts->dim != 2 && opts->dim != 3)
        return cdyn_fail(report, CDYN_EINVAL, "dim = %d, must be 2 or 3", opts->dim);
    for (int i = 0; i < 3; ++i)
        if (!isfinite(opts->gravity[i]))
            return cdyn_fail(report, CDYN_EINVAL, "gravity[%d] is not finite", i);
    if (opts->dim == 2 && opts->gravity[2] != 0.0)
        return cdyn_fail(report, CDYN_EINVAL, "planar model: gravity[2] = %g, must be 0",
                         opts->gravity[2]);
    cdyn_builder *b = cdyn_mem_alloc(opts->allocator, sizeof(*b));
    if (b == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "builder allocation failed");
    memset(b, 0, sizeof(*b));
    b->allocator = opts->allocator;
    b->dim = opts->dim;
    b->broad_phase = opts->broad_phase != 0;
    v3_copy(b->gravity, opts->gravity);
    *out = b;
    return CDYN_OK;
}

void cdyn_builder_free(cdyn_builder *b)
{
    if (b == NULL)
        return;
    const cdyn_allocator *a = b->allocator;
    cdyn_mem_free(a, b->bodies);
    cdyn_mem_free(a, b->geoms);
    cdyn_mem_free(a, b->verts);
    cdyn_mem_free(a, b->pairs);
    cdyn_mem_free(a, b);
}

/* Make room for `need` elements (capacity doubles; the allocator has no realloc). */
static cdyn_status grow(const cdyn_allocator *a, void **arr, int *cap, int need, size_t elem,
                        int used, cdyn_report *report)
{
    if (need <= *cap)
        return CDYN_OK;
    int ncap = *cap > 0 ? *cap : 8;
    while (ncap < need) {
        if (ncap > (1 << 28))
            return cdyn_fail(report, CDYN_ETOOBIG, "too many model elements");
        ncap *= 2;
    }
    void *p = cdyn_mem_array(a, (size_t)ncap, elem);
    if (p == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "builder allocation failed");
    if (used > 0)
        memcpy(p, *arr, (size_t)used * elem);
    cdyn_mem_free(a, *arr);
    *arr = p;
    *cap = ncap;
    return CDYN_OK;
}

static int all_finite(const double *x, int n)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* Check a pose and convert it (position, rotation matrix, unit quaternion). */
static cdyn_status check_pose(int dim, const cdyn_pose *p, const char *what, double *pos, double *R,
                              double *quat, cdyn_report *report)
{
    if (!all_finite(p->pos, 3) || !all_finite(p->quat, 4))
        return cdyn_fail(report, CDYN_EINVAL, "%s is not finite", what);
    const double nq = sqrt(quat_norm2(p->quat));
    if (fabs(nq - 1.0) > DESC_QUAT_TOL)
        return cdyn_fail(report, CDYN_EINVAL,
                         "%s.quat has norm %.17g, must be a unit quaternion (within %g; use "
                         "the *_defaults functions or cdyn_pose_planar)",
                         what, nq, DESC_QUAT_TOL);
    if (dim == 2 && (p->pos[2] != 0.0 || p->quat[1] != 0.0 || p->quat[2] != 0.0))
        return cdyn_fail(report, CDYN_EINVAL,
                         "planar model: %s must lie in the x-y plane (pos[2] = 0) and rotate "
                         "about z (quat[1] = quat[2] = 0)",
                         what);
    double e[4];
    for (int i = 0; i < 4; ++i)
        e[i] = p->quat[i] / nq;
    v3_copy(pos, p->pos);
    quat_to_mat(R, e);
    if (quat != NULL)
        memcpy(quat, e, sizeof(e));
    return CDYN_OK;
}

/* Inertia tensor from (Ixx, Iyy, Izz, Ixy, Ixz, Iyz); positive definite (strict) or
 * semidefinite, by the principal minors. */
static int inertia_ok(const double *I, int strict)
{
    const double a = I[0], b = I[4], c = I[8], d = I[3], e = I[6], f = I[7];
    const double m2a = a * b - d * d, m2b = a * c - e * e, m2c = b * c - f * f;
    const double det = a * (b * c - f * f) - d * (d * c - f * e) + e * (d * f - b * e);
    if (strict)
        return a > 0 && m2a > 0 && det > 0;
    const double tol = -1e-12 * (fabs(a) + fabs(b) + fabs(c));
    return a >= 0 && b >= 0 && c >= 0 && m2a >= tol * (fabs(a) + fabs(b)) &&
           m2b >= tol * (fabs(a) + fabs(c)) && m2c >= tol * (fabs(b) + fabs(c)) &&
           det >= tol * (a * b + b * c + a * c);
}

/* Joint damping and friction: finite, >= 0, and only on REVOLUTE and PRISMATIC joints. */
static cdyn_status check_joint_dynamics(const cdyn_body_desc *d, int joint, mbody *out,
                                        cdyn_report *report)
{
    const double val[2] = {d->damping, d->friction};
    const char *name[2] = {"damping", "friction"};
    for (int k = 0; k < 2; ++k) {
        if (!(val[k] >= 0.0) || !isfinite(val[k]))
            return cdyn_fail(report, CDYN_EINVAL, "joint %s = %g, must be finite and >= 0",
                             name[k], val[k]);
        if (val[k] != 0.0 && joint != CDYN_JOINT_REVOLUTE && joint != CDYN_JOINT_PRISMATIC)
            return cdyn_fail(report, CDYN_EINVAL,
                             "joint %s = %g on a %s joint: only REVOLUTE and PRISMATIC joints "
                             "take damping and friction",
                             name[k], val[k], joint == CDYN_JOINT_FREE ? "FREE" : "FIXED");
    }
    out->damping = d->damping;
    out->friction = d->friction;
    out->limited = 0;
    out->lower = -INFINITY;
    out->upper = INFINITY;
    if (d->limited != 0 && d->limited != 1)
        return cdyn_fail(report, CDYN_EINVAL, "limited = %d, must be 0 or 1", d->limited);
    if (d->limited) {
        if (joint != CDYN_JOINT_REVOLUTE && joint != CDYN_JOINT_PRISMATIC)
            return cdyn_fail(report, CDYN_EINVAL,
                             "joint limits on a %s joint: only REVOLUTE and PRISMATIC joints "
                             "take limits",
                             joint == CDYN_JOINT_FREE ? "FREE" : "FIXED");
        if (isnan(d->lower) || isnan(d->upper) || !(d->lower <= d->upper) ||
            d->lower == INFINITY || d->upper == -INFINITY)
            return cdyn_fail(report, CDYN_EINVAL,
                             "joint limits lower = %g, upper = %g: need lower <= upper, not NaN, "
                             "lower < INFINITY and upper > -INFINITY",
                             d->lower, d->upper);
        out->limited = 1;
        out->lower = d->lower;
        out->upper = d->upper;
    }
    if (!(d->limit_restitution >= 0.0 && d->limit_restitution <= 1.0))
        return cdyn_fail(report, CDYN_EINVAL, "limit_restitution = %g, must be in [0, 1]",
                         d->limit_restitution);
    if (d->limit_restitution != 0.0 && !d->limited)
        return cdyn_fail(report, CDYN_EINVAL,
                         "limit_restitution = %g on a joint without limits (limited = 0)",
                         d->limit_restitution);
    out->limit_restitution = d->limit_restitution;
    const double *sr = d->limit_solref;
    out->limit_solref[0] = out->limit_solref[1] = 0.0;
    if (sr[0] == 0.0 && sr[1] == 0.0) {
        if (d->limited) {
            out->limit_solref[0] = CDYN_SOLREF_TIMECONST;
            out->limit_solref[1] = CDYN_SOLREF_DAMPRATIO;
        }
        return CDYN_OK;
    }
    if (!d->limited)
        return cdyn_fail(report, CDYN_EINVAL,
                         "limit_solref = (%g, %g) on a joint without limits (limited = 0)", sr[0],
                         sr[1]);
    if (!(sr[0] > 0.0) || !(sr[1] > 0.0) || !isfinite(sr[0]) || !isfinite(sr[1]))
        return cdyn_fail(report, CDYN_EINVAL,
                         "limit_solref = (%g, %g): need a time constant and a damping ratio, "
                         "both finite and > 0 (or both 0 for the defaults)",
                         sr[0], sr[1]);
    out->limit_solref[0] = sr[0];
    out->limit_solref[1] = sr[1];
    return CDYN_OK;
}

static cdyn_status check_body(const cdyn_builder *b, const cdyn_body_desc *d, int parent,
                              mbody *out, cdyn_report *report)
{
    memset(out, 0, sizeof(*out));
    if (parent != CDYN_GROUND && (parent < 0 || parent >= b->nbody))
        return cdyn_fail(report, CDYN_EINVAL, "unknown parent body id %d (CDYN_GROUND or 0..%d)",
                         parent, b->nbody - 1);
    const int j = (int)d->joint;
    if (j < CDYN_JOINT_FREE || j > CDYN_JOINT_FIXED)
        return cdyn_fail(report, CDYN_EINVAL, "unknown joint type %d", j);
    if (j == CDYN_JOINT_FREE && parent != CDYN_GROUND)
        return cdyn_fail(report, CDYN_EINVAL, "a FREE joint must attach to CDYN_GROUND");
    cdyn_status st = check_pose(b->dim, &d->frame, "frame", out->fpos, out->fR, out->fquat, report);
    if (st != CDYN_OK)
        return st;
    out->parent = parent;
    out->joint = j;
    if (j == CDYN_JOINT_REVOLUTE || j == CDYN_JOINT_PRISMATIC) {
        double ax[3];
        v3_copy(ax, d->axis);
        if (b->dim == 2 && j == CDYN_JOINT_REVOLUTE)
            v3_set(ax, 0, 0, 1);
        if (!all_finite(ax, 3))
            return cdyn_fail(report, CDYN_EINVAL, "axis is not finite");
        if (b->dim == 2 && j == CDYN_JOINT_PRISMATIC && ax[2] != 0.0)
            return cdyn_fail(report, CDYN_EINVAL,
                             "planar model: a prismatic axis must lie in the x-y plane");
        const double na = v3_norm(ax);
        if (!(na > 0.0))
            return cdyn_fail(report, CDYN_EINVAL, "axis is zero");
        v3_scale(out->axis, 1.0 / na, ax);
    }
    if (!isfinite(d->mass) || !all_finite(d->com, 3) || !all_finite(d->inertia, 6))
        return cdyn_fail(report, CDYN_EINVAL, "mass, com or inertia is not finite");
    if (b->dim == 2 && d->com[2] != 0.0)
        return cdyn_fail(report, CDYN_EINVAL, "planar model: com[2] must be 0");
    const int moving = j != CDYN_JOINT_FIXED;
    if (moving ? !(d->mass > 0.0) : !(d->mass >= 0.0))
        return cdyn_fail(report, CDYN_EINVAL, "mass = %g, must be %s", d->mass,
                         moving ? "> 0 for a moving body" : ">= 0");
    double *I = out->inertia;
    if (b->dim == 2) {
        memset(I, 0, sizeof(out->inertia));
        I[8] = d->inertia[2];
        if (moving ? !(I[8] > 0.0) : !(I[8] >= 0.0))
            return cdyn_fail(report, CDYN_EINVAL, "inertia Izz = %g, must be %s", I[8],
                             moving ? "> 0 for a moving body" : ">= 0");
    } else {
        I[0] = d->inertia[0];
        I[4] = d->inertia[1];
        I[8] = d->inertia[2];
        I[1] = I[3] = d->inertia[3];
        I[2] = I[6] = d->inertia[4];
        I[5] = I[7] = d->inertia[5];
        if (!inertia_ok(I, moving))
            return cdyn_fail(
                report, CDYN_EINVAL, "inertia tensor (%g, %g, %g, %g, %g, %g) is not positive %s",
                d->inertia[0], d->inertia[1], d->inertia[2], d->inertia[3], d->inertia[4],
                d->inertia[5], moving ? "definite (required for a moving body)" : "semidefinite");
    }
    out->mass = d->mass;
    v3_copy(out->com, d->com);
    st = check_joint_dynamics(d, j, out, report);
    if (st != CDYN_OK)
        return st;
    switch (j) {
    case CDYN_JOINT_FREE:
        out->nq = b->dim == 2 ? 3 : 7;
        out->nv = b->dim == 2 ? 3 : 6;
        break;
    case CDYN_JOINT_REVOLUTE:
    case CDYN_JOINT_PRISMATIC:
        out->nq = out->nv = 1;
        break;
    default:
        out->nq = out->nv = 0;
    }
    if (moving)
        out->root = b->nbody; /* the id this body will get */
    else
        out->root = parent == CDYN_GROUND ? -1 : b->bodies[parent].root;
    return CDYN_OK;
}

cdyn_status cdyn_builder_add_body(cdyn_builder *b, const cdyn_body_desc *desc, int *id,
                                  cdyn_report *report)
{
    cdyn_report_clear(report, "builder");
    if (b == NULL || desc == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "builder or desc is NULL");
    mbody body;
    cdyn_status st = check_body(b, desc, desc->parent, &body, report);
    if (st != CDYN_OK)
        return st;
    st = grow(b->allocator, (void **)&b->bodies, &b->cap_body, b->nbody + 1, sizeof(mbody),
              b->nbody, report);
    if (st != CDYN_OK)
        return st;
    b->bodies[b->nbody] = body;
    if (id != NULL)
        *id = b->nbody;
    b->nbody++;
    return CDYN_OK;
}

cdyn_status cdyn_builder_add_chain(cdyn_builder *b, int parent, int n, const cdyn_body_desc *links,
                                   int *ids, cdyn_report *report)
{
    cdyn_report_clear(report, "builder");
    if (b == NULL || links == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "builder or links is NULL");
    if (n < 1)
        return cdyn_fail(report, CDYN_EINVAL, "chain of %d links, must be >= 1", n);
    if (n > (1 << 24))
        return cdyn_fail(report, CDYN_ETOOBIG, "chain of %d links is too long", n);
    cdyn_status st = grow(b->allocator, (void **)&b->bodies, &b->cap_body, b->nbody + n,
                          sizeof(mbody), b->nbody, report);
    if (st != CDYN_OK)
        return st;
    const int first = b->nbody;
    for (int k = 0; k < n; ++k) {
        mbody body;
        st = check_body(b, &links[k], k == 0 ? parent : b->nbody - 1, &body, report);
        if (st != CDYN_OK) {
            b->nbody = first; /* all or nothing */
            char msg[CDYN_REPORT_TEXT];
            if (report != NULL) {
                snprintf(msg, sizeof(msg), "%s", report->message);
                cdyn_fail(report, st, "link %d: %s", k, msg);
            }
            return st;
        }
        b->bodies[b->nbody++] = body;
    }
    if (ids != NULL)
        for (int k = 0; k < n; ++k)
            ids[k] = first + k;
    return CDYN_OK;
}

static int geom_allowed(int dim, int type)
{
    switch (type) {
    case CDYN_GEOM_PLANE:
    case CDYN_GEOM_CAPSULE:
    case CDYN_GEOM_POINT:
        return 1;
    case CDYN_GEOM_SPHERE:
    case CDYN_GEOM_BOX:
        return dim == 3;
    case CDYN_GEOM_CIRCLE:
    case CDYN_GEOM_ELLIPSE:
    case CDYN_GEOM_RECTANGLE:
    case CDYN_GEOM_POLYGON:
    case CDYN_GEOM_ARC:
        return dim == 2;
    default:
        return 0;
    }
}

/* Strictly convex, counter-clockwise, simple: every turn is to the left and the turning adds up
 * to one revolution. */
static cdyn_status check_polygon(int n, const double *v, cdyn_report *report)
{
    if (n < 3 || v == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "a polygon needs n_vertices >= 3 and vertices");
    if (n > (1 << 20))
        return cdyn_fail(report, CDYN_ETOOBIG, "polygon with %d vertices", n);
    if (!all_finite(v, 2 * n))
        return cdyn_fail(report, CDYN_EINVAL, "polygon vertices are not finite");
    double turn = 0.0;
    for (int i = 0; i < n; ++i) {
        const double *p0 = v + 2 * i, *p1 = v + 2 * ((i + 1) % n), *p2 = v + 2 * ((i + 2) % n);
        const double ex = p1[0] - p0[0], ey = p1[1] - p0[1];
        const double fx = p2[0] - p1[0], fy = p2[1] - p1[1];
        const double cr = ex * fy - ey * fx;
        if (!(cr > 0.0))
            return cdyn_fail(report, CDYN_EINVAL,
                             "polygon is not strictly convex and counter-clockwise at vertex %d",
                             (i + 1) % n);
        turn += atan2(cr, ex * fx + ey * fy);
    }
    if (fabs(turn - 2.0 * 3.14159265358979323846) > 1e-6)
        return cdyn_fail(report, CDYN_EINVAL, "polygon winds %.3g times (self-intersecting)",
                         turn / (2.0 * 3.14159265358979323846));
    return CDYN_OK;
}

cdyn_status cdyn_builder_add_geom(cdyn_builder *b, const cdyn_geom_desc *d, int *id,
                                  cdyn_report *report)
{
    cdyn_report_clear(report, "builder");
    if (b == NULL || d == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "builder or desc is NULL");
    if (d->body != CDYN_GROUND && (d->body < 0 || d->body >= b->nbody))
        return cdyn_fail(report, CDYN_EINVAL, "unknown body id %d (CDYN_GROUND or 0..%d)", d->body,
                         b->nbody - 1);
    const int type = (int)d->type;
    if (!geom_allowed(b->dim, type))
        return cdyn_fail(report, CDYN_EINVAL, "geometry type %d (%s) is not available in %dD", type,
                         cdyn_model_geom_name(type), b->dim);
    mgeom g;
    memset(&g, 0, sizeof(g));
    g.body = d->body;
    g.type = type;
    cdyn_status st = check_pose(b->dim, &d->frame, "frame", g.pos, g.R, NULL, report);
    if (st != CDYN_OK)
        return st;
    if (!all_finite(d->size, 3))
        return cdyn_fail(report, CDYN_EINVAL, "size is not finite");
    int npos = 0; /* leading sizes that must be > 0 */
    switch (type) {
    case CDYN_GEOM_SPHERE:
    case CDYN_GEOM_CIRCLE:
        npos = 1;
        break;
    case CDYN_GEOM_BOX:
        npos = 3;
        break;
    case CDYN_GEOM_ELLIPSE:
    case CDYN_GEOM_RECTANGLE:
        npos = 2;
        break;
    case CDYN_GEOM_CAPSULE:
        if (!(d->size[0] >= 0.0) || !(d->size[1] > 0.0))
            return cdyn_fail(report, CDYN_EINVAL,
                             "capsule radius %g must be >= 0 and half-length %g > 0", d->size[0],
                             d->size[1]);
        break;
    case CDYN_GEOM_ARC:
        if (!(d->size[0] >= 0.0) || !(d->size[1] > d->size[0]) || !(d->size[2] > 0.0) ||
            !(d->size[2] <= 3.14159265358979323846))
            return cdyn_fail(report, CDYN_EINVAL,
                             "arc thickness %g must be >= 0, radius %g > the thickness and "
                             "half-angle %g in (0, pi]", d->size[0], d->size[1], d->size[2]);
        break;
    default:
        break;
    }
    for (int i = 0; i < npos; ++i)
        if (!(d->size[i] > 0.0))
            return cdyn_fail(report, CDYN_EINVAL,
                             "%s size[%d] = %g, must be > 0 (zero-size "
                             "geometry)",
                             cdyn_model_geom_name(type), i, d->size[i]);
    v3_copy(g.size, d->size);
    if (type == CDYN_GEOM_POLYGON) {
        st = check_polygon(d->n_vertices, d->vertices, report);
        if (st != CDYN_OK)
            return st;
        st = grow(b->allocator, (void **)&b->verts, &b->cap_vert, 2 * (b->nvert + d->n_vertices),
                  sizeof(double), 2 * b->nvert, report);
        if (st != CDYN_OK)
            return st;
        g.nvert = d->n_vertices;
        g.vert0 = b->nvert;
    }
    st = grow(b->allocator, (void **)&b->geoms, &b->cap_geom, b->ngeom + 1, sizeof(mgeom), b->ngeom,
              report);
    if (st != CDYN_OK)
        return st;
    if (type == CDYN_GEOM_POLYGON) {
        memcpy(b->verts + 2 * b->nvert, d->vertices, sizeof(double) * 2 * (size_t)g.nvert);
        b->nvert += g.nvert;
    }
    b->geoms[b->ngeom] = g;
    if (id != NULL)
        *id = b->ngeom;
    b->ngeom++;
    return CDYN_OK;
}

static int body_root(const cdyn_builder *b, int body)
{
    return body < 0 ? -1 : b->bodies[body].root;
}

/* Patch parameters (docs/theory.md, model Sec. 9): n_s in 1..CDYN_PATCH_MAX; for n_s > 1 a pair
 * that takes a patch; a round patch needs 0 < w and the patch square inside the silhouette of
 * every ball (sqrt(2) w <= r; planar w <= r); a face patch covers the face (w = 0). */
static cdyn_status check_patch(const cdyn_builder *b, const cdyn_contact_pair_desc *d,
                               const mgeom *ga, const mgeom *gb, int *patch, cdyn_report *report)
{
    const double w = d->patch_half_width;
    *patch = PATCH_NONE;
    if (d->patch_n == 1)
        return CDYN_OK;
    const int kind = cdyn_model_patch_kind(b->dim, ga->type, gb->type);
    if (kind == PATCH_NONE)
        return cdyn_fail(report, CDYN_EINVAL,
                         "patch_n = %d: no distributed patch for %s-%s in %dD; patches exist "
                         "for %s",
                         d->patch_n, cdyn_model_geom_name(ga->type), cdyn_model_geom_name(gb->type),
                         b->dim, cdyn_model_patch_list(b->dim));
    if (kind == PATCH_FACE) {
        if (w != 0.0)
            return cdyn_fail(report, CDYN_EINVAL,
                             "patch_half_width = %g: a face patch (%s-%s) covers the whole "
                             "contact face; leave patch_half_width = 0",
                             w, cdyn_model_geom_name(ga->type), cdyn_model_geom_name(gb->type));
    } else {
        if (!(w > 0.0))
            return cdyn_fail(report, CDYN_EINVAL,
                             "patch_half_width = 0: a round patch (patch_n = %d) needs a "
                             "half-width > 0",
                             d->patch_n);
        const double reach = b->dim == 3 ? sqrt(2.0) * w : w; /* farthest point of the patch */
        const mgeom *g[2] = {ga, gb};
        for (int i = 0; i < 2; ++i)
            if (g[i]->type != CDYN_GEOM_PLANE && reach > g[i]->size[0])
                return cdyn_fail(report, CDYN_EINVAL,
                                 "patch_half_width = %g: the patch reaches %g from its centre, "
                                 "beyond the radius %g of the %s (need %s <= r)",
                                 w, reach, g[i]->size[0], cdyn_model_geom_name(g[i]->type),
                                 b->dim == 3 ? "sqrt(2) w" : "w");
    }
    *patch = kind;
    return CDYN_OK;
}

/* The pair's parameters that do not depend on its geometries. */
cdyn_status cdyn_builder_check_pair_params(const cdyn_contact_pair_desc *d, cdyn_report *report)
{
    if (!isfinite(d->mu) || d->mu < 0.0)
        return cdyn_fail(report, CDYN_EINVAL, "mu = %g, must be finite and >= 0", d->mu);
    if (!all_finite(d->stiffness, 9) || !all_finite(d->damping, 9))
        return cdyn_fail(report, CDYN_EINVAL, "stiffness or damping is not finite");
    for (int i = 0; i < 3; ++i)
        if (d->stiffness[4 * i] < 0.0 || d->damping[4 * i] < 0.0)
            return cdyn_fail(report, CDYN_EINVAL,
                             "stiffness and damping need diagonal entries >= 0");
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
        return cdyn_fail(report, CDYN_EINVAL, "restitution = %g, must be in [0, 1]",
                         d->restitution);
    for (int i = 0; i < 3; ++i)
        if (!isfinite(d->baumgarte[i]) || d->baumgarte[i] < 0.0)
            return cdyn_fail(report, CDYN_EINVAL, "baumgarte[%d] = %g, must be finite and >= 0", i,
                             d->baumgarte[i]);
    if (!isfinite(d->solref[0]) || d->solref[0] < 0.0 ||
        (d->solref[0] > 0.0 && !(d->solref[1] > 0.0 && isfinite(d->solref[1]))))
        return cdyn_fail(report, CDYN_EINVAL,
                         "solref = (%g, %g): need a time constant >= 0 (0: no defaults) and, "
                         "with one > 0, a finite damping ratio > 0",
                         d->solref[0], d->solref[1]);
    if (isnan(d->margin) || !(d->margin > 0.0))
        return cdyn_fail(report, CDYN_EINVAL,
                         "margin = %g, must be > 0 (INFINITY: always "
                         "active)",
                         d->margin);
    if (d->patch_n < 1 || d->patch_n > CDYN_PATCH_MAX)
        return cdyn_fail(report, CDYN_EINVAL, "patch_n = %d, must be in 1..%d", d->patch_n,
                         CDYN_PATCH_MAX);
    if (!isfinite(d->patch_half_width) || d->patch_half_width < 0.0)
        return cdyn_fail(report, CDYN_EINVAL, "patch_half_width = %g, must be finite and >= 0",
                         d->patch_half_width);
    return CDYN_OK;
}

int cdyn_builder_same_body(const cdyn_builder *b, int geom_a, int geom_b)
{
    return geom_a == geom_b ||
           body_root(b, b->geoms[geom_a].body) == body_root(b, b->geoms[geom_b].body);
}

cdyn_status cdyn_builder_make_pair(const cdyn_builder *b, const cdyn_contact_pair_desc *d,
                                   int geom_a, int geom_b, mpair *p, cdyn_report *report)
{
    if (geom_a < 0 || geom_a >= b->ngeom || geom_b < 0 || geom_b >= b->ngeom)
        return cdyn_fail(report, CDYN_EINVAL, "unknown geometry id in pair (%d, %d), 0..%d",
                         geom_a, geom_b, b->ngeom - 1);
    const mgeom *ga = &b->geoms[geom_a], *gb = &b->geoms[geom_b];
    if (cdyn_builder_same_body(b, geom_a, geom_b))
        return cdyn_fail(report, CDYN_EINVAL,
                         "geometries %d and %d are on the same rigid body (bodies %d and %d)",
                         geom_a, geom_b, ga->body, gb->body);
    int swap = 0;
    const int kind = cdyn_model_pair_kind(b->dim, ga->type, gb->type, &swap);
    if (kind < 0)
        return cdyn_fail(report, CDYN_EINVAL, "no contact function for %s-%s in %dD; supported: %s",
                         cdyn_model_geom_name(ga->type), cdyn_model_geom_name(gb->type), b->dim,
                         cdyn_model_pair_list(b->dim));
    cdyn_status st = cdyn_builder_check_pair_params(d, report);
    if (st != CDYN_OK)
        return st;
    int patch = PATCH_NONE;
    st = check_patch(b, d, ga, gb, &patch, report);
    if (st != CDYN_OK)
        return st;
    memset(p, 0, sizeof(*p));
    p->ga = geom_a;
    p->gb = geom_b;
    p->kind = kind;
    p->swap = swap;
    p->nrows = patch != PATCH_NONE ? cdyn_model_patch_elements(b->dim, d->patch_n)
                                   : cdyn_model_pair_max_points(kind, ga, gb, swap);
    p->patch = patch;
    p->patch_n = d->patch_n;
    p->patch_w = patch == PATCH_ROUND ? d->patch_half_width : 0.0;
    p->mu = d->mu;
    memcpy(p->K, d->stiffness, sizeof(p->K));
    memcpy(p->C, d->damping, sizeof(p->C));
    p->restitution = d->restitution;
    memcpy(p->baumgarte, d->baumgarte, sizeof(p->baumgarte));
    p->margin = d->margin;
    memcpy(p->solref, d->solref, sizeof(p->solref));
    return CDYN_OK;
}

cdyn_status cdyn_builder_grow_pairs(cdyn_builder *b, int need, cdyn_report *report)
{
    return grow(b->allocator, (void **)&b->pairs, &b->cap_pair, need, sizeof(mpair), b->npair,
                report);
}

cdyn_status cdyn_builder_add_contact_pair(cdyn_builder *b, const cdyn_contact_pair_desc *d, int *id,
                                          cdyn_report *report)
{
    cdyn_report_clear(report, "builder");
    if (b == NULL || d == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "builder or desc is NULL");
    mpair p;
    cdyn_status st = cdyn_builder_make_pair(b, d, d->geom_a, d->geom_b, &p, report);
    if (st != CDYN_OK)
        return st;
    st = cdyn_builder_grow_pairs(b, b->npair + 1, report);
    if (st != CDYN_OK)
        return st;
    b->pairs[b->npair] = p;
    if (id != NULL)
        *id = b->npair;
    b->npair++;
    return CDYN_OK;
}

/* How a geometry's sizes and a polygon's vertices move the contact rows (param_derivs.c,
 * docs/theory.md Multibody model §14): for one row, the change of the geometry's point under
 * the parameter, written as the rigid motion U of the geometry (world Plucker) that moves the
 * point and its normal alike to first order, so that the pair's own contact function gives the
 * rates. A half-extent h along the geometry's axis k moves the faces (ends) -h, h along k and
 * nothing else: a point of the solid (of the capsule's core segment) on one of them moves with
 * it, one off them stays (it is the other point's own coordinate, or the segment's interior). */
#include <math.h>
#include <string.h>

#include "model/contacts.h"
#include "model/vec3.h"

/* Whether size component c of geometry type t is a swept radius. */
int cdyn_shape_is_radius(int t, int c)
{
    return c == 0 && (t == CDYN_GEOM_SPHERE || t == CDYN_GEOM_CIRCLE || t == CDYN_GEOM_CAPSULE ||
                      t == CDYN_GEOM_ARC);
}

/* Whether size c of geometry g moves the rows of pair pr (other geometry o) as the motions
 * below say: box and rectangle half-extents against planes, balls and points (their contact
 * functions clamp the point to the faces or take the vertices), the capsule's half-length
 * against those, capsules and ellipses (the core segment's closest point, or its ends), an
 * arc's radius and opening, an ellipse's semi-axes. */
int cdyn_shape_moves_rows(const mgeom *g, const mgeom *o, const mpair *pr, int c)
{
    const int t = g->type, ot = o->type;
    const int other = ot == CDYN_GEOM_PLANE || ot == CDYN_GEOM_SPHERE ||
                      ot == CDYN_GEOM_CIRCLE || ot == CDYN_GEOM_POINT;
    if (pr->patch != PATCH_NONE)
        return 0;
    if (t == CDYN_GEOM_BOX || t == CDYN_GEOM_RECTANGLE)
        return other;
    if (t == CDYN_GEOM_ARC) /* its curve's radius and opening; arcs meet circles and points */
        return c >= 1;
    if (t == CDYN_GEOM_ELLIPSE) /* its semi-axes, in every pair */
        return 1;
    return t == CDYN_GEOM_CAPSULE && c == 1 &&
           (other || ot == CDYN_GEOM_CAPSULE || ot == CDYN_GEOM_ELLIPSE);
}

/* The motion of geometry gs (side `side` of the row's points c) under size[axis]: the
 * displacement of the row's point of the solid (the capsule's or arc's core: the swept radius
 * taken off along n), as a translation of the geometry for this row. A half-extent h along k:
 * +-e_k when the point lies on the face (end) +-h, else none. An arc's curve radius: the radial
 * direction at the point (the radial foot and the ends move alike); its opening: the tangent
 * at an end times the curve radius, when the point is that end, else none. */
static void extent_motion(const gstate *gs, const cpoint *c, int side, int axis, double *U)
{
    const mgeom *g = gs->g;
    const int arc = g->type == CDYN_GEOM_ARC, capsule = g->type == CDYN_GEOM_CAPSULE;
    const int k = capsule ? 0 : axis;
    const double h = g->size[axis], r = capsule || arc ? g->size[0] : 0.0;
    double core[3], rel[3], loc[3], e[3] = {0, 0, 0};
    v3_axpy(core, side ? c->pb : c->pa, side ? r : -r, c->n);
    v3_sub(rel, core, gs->c);
    m3_tmul_v(loc, gs->R, rel);
    memset(U, 0, 6 * sizeof(double));
    if (arc) {
        const double phi = atan2(loc[1], loc[0]), sg = phi < 0 ? -1.0 : 1.0;
        if (axis == 1)
            v3_set(e, cos(phi), sin(phi), 0.0);
        else if (fabs(phi) >= h * (1.0 - 1e-9))
            v3_set(e, -sg * g->size[1] * sin(phi), sg * g->size[1] * cos(phi), 0.0);
    } else if (fabs(loc[k]) >= h * (1.0 - 1e-9)) {
        e[k] = loc[k] < 0 ? -1.0 : 1.0;
    }
    m3_mul_v(U + 3, gs->R, e);
}

/* The motion of polygon gs (side `side` of the row's points c) under vertex k's coordinate i
 * (comp = 2 k + i). The row's point P lies on the line of an edge (v_a, v_b), at t: moving v_k
 * by e_i moves the edge's points p(s) by (1 - s) e_i (k = a) or s e_i (k = b). Near P that is
 * the rigid motion with velocity d(t) at P and the turn theta = (d(1) - d(0)) . nn / L about z
 * (nn = z x the edge's direction): the edge's stretch along itself moves no foot point, and a
 * turn about P moves no vertex at P. An edge without v_k: none. */
static void vertex_motion(const gstate *gs, const cpoint *c, int side, int comp, double *U)
{
    const int n = gs->g->nvert, k = comp / 2;
    double P[3], rel[3], loc[3], va[3], vb[3], ex[3];
    v3_copy(P, side ? c->pb : c->pa);
    v3_sub(rel, P, gs->c);
    m3_tmul_v(loc, gs->R, rel);
    int a = 0;
    double best = INFINITY, t = 0;
    for (int e = 0; e < n; ++e) { /* the edge P lies on */
        cdyn_cf_feature(gs, e, va);
        cdyn_cf_feature(gs, (e + 1) % n, vb);
        v3_sub(ex, vb, va);
        v3_sub(rel, loc, va);
        const double te = v3_dot(rel, ex) / v3_dot(ex, ex), tc = fmin(fmax(te, 0.0), 1.0);
        double foot[3];
        v3_axpy(foot, va, tc, ex);
        v3_sub(rel, loc, foot);
        if (v3_norm(rel) < best) {
            best = v3_norm(rel);
            a = e;
            t = te;
        }
    }
    memset(U, 0, 6 * sizeof(double));
    const int b = (a + 1) % n;
    if (k != a && k != b)
        return;
    cdyn_cf_feature(gs, a, va);
    cdyn_cf_feature(gs, b, vb);
    v3_sub(ex, vb, va);
    const double L = v3_norm(ex), nn[2] = {-ex[1] / L, ex[0] / L};
    const double wd = k == a ? 1.0 - t : t, sg = k == a ? -1.0 : 1.0;
    double d[3] = {0, 0, 0}, w[3] = {0, 0, 0}, vp[3];
    d[comp % 2] = wd;
    w[2] = sg * nn[comp % 2] / L;
    m3_mul_v(U, gs->R, w);
    m3_mul_v(vp, gs->R, d);
    v3_cross(U + 3, U, P); /* velocity at the origin: v_P - w x P */
    v3_sub(U + 3, vp, U + 3);
}

/* The motion of ellipse gs (side `side` of the row's points c) under its semi-axis `axis`. The
 * boundary moves by delta = (x/a, 0) (or (0, y/b)) per unit; only its normal part eta = delta . N
 * changes the curve, and a foot or support point and its normal move, to first order, with eta
 * and eta' = d eta/ds at the row's point f only (the curvature's change enters at second order):
 * the rigid motion with velocity eta N at f and the turn -eta' about z (a turn w about f moves
 * the boundary's normal by -w s). eta' = (D delta T) . N + kappa delta . T, N outward, T = z x N,
 * kappa = 1 / (a^2 b^2 (x^2/a^4 + y^2/b^4)^(3/2)). */
static void ellipse_motion(const gstate *gs, const cpoint *c, int side, int axis, double *U)
{
    const double a = gs->g->size[0], b = gs->g->size[1];
    double P[3], rel[3], f[3];
    v3_copy(P, side ? c->pb : c->pa);
    v3_sub(rel, P, gs->c);
    m3_tmul_v(f, gs->R, rel);
    const double gx = f[0] / (a * a), gy = f[1] / (b * b), gn = hypot(gx, gy);
    const double N[2] = {gx / gn, gy / gn}, T[2] = {-N[1], N[0]};
    const double kappa = 1.0 / (a * a * b * b * gn * gn * gn);
    const double del[2] = {axis == 0 ? f[0] / a : 0.0, axis == 1 ? f[1] / b : 0.0};
    const double dT[2] = {axis == 0 ? T[0] / a : 0.0, axis == 1 ? T[1] / b : 0.0};
    const double eta = del[0] * N[0] + del[1] * N[1];
    const double deta = dT[0] * N[0] + dT[1] * N[1] + kappa * (del[0] * T[0] + del[1] * T[1]);
    double w[3] = {0, 0, -deta}, vf[3] = {eta * N[0], eta * N[1], 0}, vp[3];
    m3_mul_v(U, gs->R, w);
    m3_mul_v(vp, gs->R, vf);
    v3_cross(U + 3, U, P); /* velocity at the origin: v_f - w x f */
    v3_sub(U + 3, vp, U + 3);
}

void cdyn_shape_motion(const gstate *gs, const cpoint *c, int side, int vertex, int axis,
                       double *U)
{
    if (vertex)
        vertex_motion(gs, c, side, axis, U);
    else if (gs->g->type == CDYN_GEOM_ELLIPSE)
        ellipse_motion(gs, c, side, axis, U);
    else
        extent_motion(gs, c, side, axis, U);
}

/* Contact functions of the supported geometry pairs and the table that maps a pair of
 * geometry types to one of them (docs/theory.md, model Sec. 8). Every function returns points
 * pa, pb, the normal n (from a to b, pb - pa = gap n) and their time derivatives, built from the
 * pieces of contact_blocks.c; see contacts.h. */
#include <math.h>
#include <string.h>

#include "model/contacts.h"
#include "model/vec3.h"

/* ---- the pair functions (a, b in the table's order) ------------------------------------- */

static void fn_plane_feature(const gstate *a, const gstate *b, int index, cpoint *o)
{
    double loc[3], m[3], md[3];
    const double r = cdyn_cf_feature(b, index, loc);
    cdyn_gs_point(b, loc, m, md);
    cdyn_cf_plane_point(a, m, md, r, o);
}

static void fn_plane_ellipse(const gstate *a, const gstate *b, int index, cpoint *o)
{
    (void)index;
    const int ax = a->dim == 3 ? 2 : 1;
    double u[3], ud[3], p[3], pd[3];
    v3_scale(u, -1.0, a->R + 3 * ax);
    v3_cross(ud, a->w, u);
    cdyn_cf_ellipse_support_world(b, u, ud, p, pd);
    cdyn_cf_plane_point(a, p, pd, 0.0, o);
}

static void fn_round_round(const gstate *a, const gstate *b, int index, cpoint *o)
{
    (void)index;
    double la[3], lb[3], ma[3], mad[3], mb[3], mbd[3];
    const double ra = cdyn_cf_feature(a, 0, la), rb = cdyn_cf_feature(b, 0, lb);
    cdyn_gs_point(a, la, ma, mad);
    cdyn_gs_point(b, lb, mb, mbd);
    cdyn_cf_point_point(a->dim, ma, mad, ra, mb, mbd, rb, o);
}

static void fn_capsule_round(const gstate *a, const gstate *b, int index, cpoint *o)
{
    (void)index;
    double l0[3], l1[3], lb[3], e0[3], e0d[3], e1[3], e1d[3], mb[3], mbd[3], P[3], Pd[3];
    const double ra = cdyn_cf_feature(a, 0, l0);
    cdyn_cf_feature(a, 1, l1);
    const double rb = cdyn_cf_feature(b, 0, lb);
    cdyn_gs_point(a, l0, e0, e0d);
    cdyn_gs_point(a, l1, e1, e1d);
    cdyn_gs_point(b, lb, mb, mbd);
    cdyn_cf_segment_closest(e0, e0d, e1, e1d, mb, mbd, P, Pd);
    cdyn_cf_point_point(a->dim, P, Pd, ra, mb, mbd, rb, o);
}

/* Arc a (2D) against the swept centre of b: the closest point of the arc curve — the radial foot
 * when the centre's polar angle lies within the arc, else the nearer end — swept by the arc's
 * thickness; the normal runs from the curve toward b on either side of it. */
static void fn_arc_round(const gstate *a, const gstate *b, int index, cpoint *o)
{
    (void)index;
    double lb[3], mb[3], mbd[3], cd[3], x[3], xd[3], l[2], ld[2], P[3], Pd[3];
    const double rb = cdyn_cf_feature(b, 0, lb);
    cdyn_gs_point(b, lb, mb, mbd);
    const double thick = a->g->size[0], R = a->g->size[1], half = a->g->size[2];
    cdyn_gs_vel(a, a->c, cd);
    v3_sub(x, mb, a->c);
    v3_sub(xd, mbd, cd);
    cdyn_cf_to_local(a, x, xd, l, ld);
    const double r = hypot(l[0], l[1]), phi = atan2(l[1], l[0]);
    if (fabs(phi) <= half && r > 0) {
        /* f = R u, u = l / |l|: df = R (I - u u') dl / |l| */
        const double u[2] = {l[0] / r, l[1] / r}, ul = u[0] * ld[0] + u[1] * ld[1];
        const double f[2] = {R * u[0], R * u[1]};
        const double fd[2] = {R * (ld[0] - u[0] * ul) / r, R * (ld[1] - u[1] * ul) / r};
        cdyn_cf_to_world(a, f, fd, x, xd);
        v3_add(P, a->c, x);
        v3_add(Pd, cd, xd);
    } else {
        const double end = phi >= 0 ? half : -half;
        const double loc[3] = {R * cos(end), R * sin(end), 0.0};
        cdyn_gs_point(a, loc, P, Pd);
    }
    cdyn_cf_point_point(a->dim, P, Pd, thick, mb, mbd, rb, o);
}

static void fn_ellipse_round(const gstate *a, const gstate *b, int index, cpoint *o)
{
    (void)index;
    double lb[3], mb[3], mbd[3];
    const double rb = cdyn_cf_feature(b, 0, lb);
    cdyn_gs_point(b, lb, mb, mbd);
    cdyn_cf_ellipse_point(a, mb, mbd, rb, o);
}

/* Ellipse a, capsule b (2D). If the ellipse point whose normal is perpendicular to the segment
 * projects inside the segment, the contact is ellipse-line (n = the segment's normal, turning
 * with b); otherwise it is ellipse against the nearer end ball. */
static void fn_ellipse_capsule(const gstate *a, const gstate *b, int index, cpoint *o)
{
    (void)index;
    double l0[3], l1[3], e0[3], e0d[3], e1[3], e1d[3];
    const double r = cdyn_cf_feature(b, 0, l0);
    cdyn_cf_feature(b, 1, l1);
    cdyn_gs_point(b, l0, e0, e0d);
    cdyn_gs_point(b, l1, e1, e1d);
    double u[3], ud[3];
    v3_sub(u, e1, e0);
    v3_sub(ud, e1d, e0d);
    const double uu = v3_dot(u, u), nu = sqrt(uu);
    double nrm[3] = {-u[1] / nu, u[0] / nu, 0.0};
    double rel[3];
    v3_sub(rel, e0, a->c);
    if (v3_dot(nrm, rel) < 0.0)
        v3_scale(nrm, -1.0, nrm);
    double nd[3], pa[3], pad[3];
    v3_cross(nd, b->w, nrm);
    cdyn_cf_ellipse_support_world(a, nrm, nd, pa, pad);
    double q[3], qd[3];
    v3_sub(q, pa, e0);
    v3_sub(qd, pad, e0d);
    const double s = v3_dot(q, u) / uu;
    if (s < 0.0 || s > 1.0) {
        const double *e = s < 0.0 ? e0 : e1, *ed = s < 0.0 ? e0d : e1d;
        cdyn_cf_ellipse_point(a, e, ed, r, o);
        return;
    }
    const double sd = (v3_dot(qd, u) + v3_dot(q, ud) - 2.0 * s * v3_dot(u, ud)) / uu;
    v3_copy(o->n, nrm);
    v3_copy(o->dn, nd);
    v3_copy(o->pa, pa);
    v3_copy(o->dpa, pad);
    for (int i = 0; i < 3; ++i) {
        o->pb[i] = e0[i] + s * u[i] - r * nrm[i];
        o->dpb[i] = e0d[i] + sd * u[i] + s * ud[i] - r * nd[i];
    }
}

/* Segments p0-p1 (a, radius ra) and q0-q1 (b, radius rb). The closest pair is either interior
 * to both segments (solution of the 2x2 normal equations, when it lies in [0,1]^2 and the
 * segments are not parallel) or involves an end point projected onto the other segment; the
 * smallest of these five candidates is the minimum. */
static void fn_capsule_capsule(const gstate *a, const gstate *b, int index, cpoint *o)
{
    (void)index;
    double la[2][3], lb[2][3], p[2][3], pd[2][3], qq[2][3], qd[2][3];
    const double ra = cdyn_cf_feature(a, 0, la[0]), rb = cdyn_cf_feature(b, 0, lb[0]);
    cdyn_cf_feature(a, 1, la[1]);
    cdyn_cf_feature(b, 1, lb[1]);
    for (int i = 0; i < 2; ++i) {
        cdyn_gs_point(a, la[i], p[i], pd[i]);
        cdyn_gs_point(b, lb[i], qq[i], qd[i]);
    }
    double best = INFINITY, P[3], Pd[3], Q[3], Qd[3];
    /* end points against the other segment */
    for (int k = 0; k < 4; ++k) {
        double X[3], Xd[3], Y[3], Yd[3];
        if (k < 2) { /* end k of a against segment b */
            cdyn_cf_segment_closest(qq[0], qd[0], qq[1], qd[1], p[k], pd[k], Y, Yd);
            v3_copy(X, p[k]);
            v3_copy(Xd, pd[k]);
        } else {
            cdyn_cf_segment_closest(p[0], pd[0], p[1], pd[1], qq[k - 2], qd[k - 2], X, Xd);
            v3_copy(Y, qq[k - 2]);
            v3_copy(Yd, qd[k - 2]);
        }
        double d[3];
        v3_sub(d, Y, X);
        const double dist = v3_norm(d);
        if (dist < best) {
            best = dist;
            v3_copy(P, X);
            v3_copy(Pd, Xd);
            v3_copy(Q, Y);
            v3_copy(Qd, Yd);
        }
    }
    /* interior-interior: P = p0 + s u, Q = q0 + t w minimize |Q - P| */
    double u[3], ud[3], w[3], wd[3], r[3], rd[3];
    v3_sub(u, p[1], p[0]);
    v3_sub(ud, pd[1], pd[0]);
    v3_sub(w, qq[1], qq[0]);
    v3_sub(wd, qd[1], qd[0]);
    v3_sub(r, p[0], qq[0]);
    v3_sub(rd, pd[0], qd[0]);
    const double A = v3_dot(u, u), B = v3_dot(u, w), C = v3_dot(w, w), D = v3_dot(u, r),
                 E = v3_dot(w, r);
    const double den = A * C - B * B;
    if (den > 1e-12 * A * C) {
        const double s = (B * E - C * D) / den, t = (A * E - B * D) / den;
        if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
            double X[3], Y[3], d[3];
            v3_axpy(X, p[0], s, u);
            v3_axpy(Y, qq[0], t, w);
            v3_sub(d, Y, X);
            if (v3_norm(d) < best) {
                const double Ad = 2 * v3_dot(u, ud), Bd = v3_dot(ud, w) + v3_dot(u, wd),
                             Cd = 2 * v3_dot(w, wd), Dd = v3_dot(ud, r) + v3_dot(u, rd),
                             Ed = v3_dot(wd, r) + v3_dot(w, rd);
                const double dend = Ad * C + A * Cd - 2 * B * Bd;
                const double sd = (Bd * E + B * Ed - Cd * D - C * Dd - s * dend) / den;
                const double td = (Ad * E + A * Ed - Bd * D - B * Dd - t * dend) / den;
                v3_copy(P, X);
                v3_copy(Q, Y);
                for (int i = 0; i < 3; ++i) {
                    Pd[i] = pd[0][i] + sd * u[i] + s * ud[i];
                    Qd[i] = qd[0][i] + td * w[i] + t * wd[i];
                }
            }
        }
    }
    cdyn_cf_point_point(a->dim, P, Pd, ra, Q, Qd, rb, o);
}

/* A convex solid a (box in 3D; rectangle or polygon in 2D) against the ball b: outside, the
 * closest point of the solid to the centre (it slides over a face or edge, or is a material
 * vertex); centre inside, the face of least penetration with its outward normal. Works in the
 * solid's frame: x = R^T (c - o), xd its rate relative to the solid. */
static void fn_solid_round(const gstate *a, const gstate *b, int index, cpoint *o)
{
    (void)index;
    double lb[3], mb[3], mbd[3], rel[3], reld[3], cd[3];
    const double rb = cdyn_cf_feature(b, 0, lb);
    cdyn_gs_point(b, lb, mb, mbd);
    cdyn_gs_vel(a, a->c, cd);
    v3_sub(rel, mb, a->c);
    v3_sub(reld, mbd, cd);
    double x[3], xd[3], wx[3], tmp[3];
    m3_tmul_v(x, a->R, rel);
    v3_cross(wx, a->w, rel);
    v3_sub(tmp, reld, wx);
    m3_tmul_v(xd, a->R, tmp); /* rate of x seen from the solid */
    double P[3], Pd[3], nl[3] = {0, 0, 0};
    int inside = 0;
    if (a->g->type == CDYN_GEOM_BOX) {
        int in = 1;
        for (int i = 0; i < 3; ++i) {
            const double h = a->g->size[i];
            P[i] = fmin(fmax(x[i], -h), h);
            Pd[i] = (x[i] > -h && x[i] < h) ? xd[i] : 0.0;
            in = in && x[i] > -h && x[i] < h;
        }
        if (in) { /* least penetration: the face nearest to x */
            inside = 1;
            int kf = 0;
            double dmin = INFINITY;
            for (int i = 0; i < 3; ++i) {
                const double dd = a->g->size[i] - fabs(x[i]);
                if (dd < dmin) {
                    dmin = dd;
                    kf = i;
                }
            }
            const double sg = x[kf] >= 0.0 ? 1.0 : -1.0;
            P[kf] = sg * a->g->size[kf];
            Pd[kf] = 0.0;
            nl[kf] = sg;
        }
    } else {
        /* polygon (a rectangle is its 4 corners): nearest edge point, or deepest edge */
        const int n = a->g->type == CDYN_GEOM_RECTANGLE ? 4 : a->g->nvert;
        double best = INFINITY, depth = -INFINITY;
        int in = 1, kd = 0;
        P[2] = Pd[2] = 0.0;
        for (int k = 0; k < n; ++k) {
            double v0[3], v1[3];
            cdyn_cf_feature(a, k, v0);
            cdyn_cf_feature(a, (k + 1) % n, v1);
            const double ex = v1[0] - v0[0], ey = v1[1] - v0[1], le = hypot(ex, ey);
            const double side = (ex * (x[1] - v0[1]) - ey * (x[0] - v0[0])) / le; /* > 0 in */
            in = in && side > 0.0;
            if (-side > depth) {
                depth = -side;
                kd = k;
            }
            double zero3[3] = {0, 0, 0}, X[3], Xd[3];
            cdyn_cf_segment_closest(v0, zero3, v1, zero3, x, xd, X, Xd);
            const double dist = hypot(x[0] - X[0], x[1] - X[1]);
            if (dist < best) {
                best = dist;
                v3_copy(P, X);
                v3_copy(Pd, Xd);
            }
        }
        if (in) { /* project onto the line of the least-penetrated edge kd */
            inside = 1;
            double v0[3], v1[3];
            cdyn_cf_feature(a, kd, v0);
            cdyn_cf_feature(a, (kd + 1) % n, v1);
            const double ex = v1[0] - v0[0], ey = v1[1] - v0[1], le = hypot(ex, ey);
            const double tx = ex / le, ty = ey / le;
            const double s = (x[0] - v0[0]) * tx + (x[1] - v0[1]) * ty;
            const double sd = xd[0] * tx + xd[1] * ty;
            P[0] = v0[0] + s * tx;
            P[1] = v0[1] + s * ty;
            Pd[0] = sd * tx;
            Pd[1] = sd * ty;
            nl[0] = ty; /* outward normal of a counter-clockwise edge */
            nl[1] = -tx;
        }
    }
    /* back to the world: P and its rate (material motion of a plus sliding R Pd) */
    double Pw[3], Pwd[3], r[3];
    m3_mul_v(r, a->R, P);
    v3_add(Pw, a->c, r);
    cdyn_gs_vel(a, Pw, Pwd);
    m3_mul_v(r, a->R, Pd);
    v3_add(Pwd, Pwd, r);
    if (!inside) {
        cdyn_cf_point_point(a->dim, Pw, Pwd, 0.0, mb, mbd, rb, o);
        return;
    }
    m3_mul_v(o->n, a->R, nl);
    v3_cross(o->dn, a->w, o->n);
    v3_copy(o->pa, Pw);
    v3_copy(o->dpa, Pwd);
    for (int i = 0; i < 3; ++i) {
        o->pb[i] = mb[i] - rb * o->n[i];
        o->dpb[i] = mbd[i] - rb * o->dn[i];
    }
}

/* ---- the table ------------------------------------------------------------------------------ */

enum { D2 = 1, D3 = 2 };

typedef struct pair_entry {
    int ta, tb, dims;
    cdyn_pair_fn fn;
    int npoints; /* 0: one per polygon vertex of b */
} pair_entry;

static const pair_entry TABLE[] = {
    {CDYN_GEOM_PLANE, CDYN_GEOM_SPHERE, D3, fn_plane_feature, 1},
    {CDYN_GEOM_PLANE, CDYN_GEOM_CIRCLE, D2, fn_plane_feature, 1},
    {CDYN_GEOM_PLANE, CDYN_GEOM_POINT, D2 | D3, fn_plane_feature, 1},
    {CDYN_GEOM_PLANE, CDYN_GEOM_CAPSULE, D2 | D3, fn_plane_feature, 2},
    {CDYN_GEOM_PLANE, CDYN_GEOM_BOX, D3, fn_plane_feature, 8},
    {CDYN_GEOM_PLANE, CDYN_GEOM_RECTANGLE, D2, fn_plane_feature, 4},
    {CDYN_GEOM_PLANE, CDYN_GEOM_POLYGON, D2, fn_plane_feature, 0},
    {CDYN_GEOM_PLANE, CDYN_GEOM_ELLIPSE, D2, fn_plane_ellipse, 1},
    {CDYN_GEOM_SPHERE, CDYN_GEOM_SPHERE, D3, fn_round_round, 1},
    {CDYN_GEOM_SPHERE, CDYN_GEOM_POINT, D3, fn_round_round, 1},
    {CDYN_GEOM_CIRCLE, CDYN_GEOM_CIRCLE, D2, fn_round_round, 1},
    {CDYN_GEOM_CIRCLE, CDYN_GEOM_POINT, D2, fn_round_round, 1},
    {CDYN_GEOM_CAPSULE, CDYN_GEOM_SPHERE, D3, fn_capsule_round, 1},
    {CDYN_GEOM_CAPSULE, CDYN_GEOM_CIRCLE, D2, fn_capsule_round, 1},
    {CDYN_GEOM_CAPSULE, CDYN_GEOM_POINT, D2 | D3, fn_capsule_round, 1},
    {CDYN_GEOM_ELLIPSE, CDYN_GEOM_CIRCLE, D2, fn_ellipse_round, 1},
    {CDYN_GEOM_ELLIPSE, CDYN_GEOM_POINT, D2, fn_ellipse_round, 1},
    {CDYN_GEOM_ELLIPSE, CDYN_GEOM_CAPSULE, D2, fn_ellipse_capsule, 1},
    {CDYN_GEOM_CAPSULE, CDYN_GEOM_CAPSULE, D2 | D3, fn_capsule_capsule, 1},
    {CDYN_GEOM_BOX, CDYN_GEOM_SPHERE, D3, fn_solid_round, 1},
    {CDYN_GEOM_BOX, CDYN_GEOM_POINT, D3, fn_solid_round, 1},
    {CDYN_GEOM_RECTANGLE, CDYN_GEOM_CIRCLE, D2, fn_solid_round, 1},
    {CDYN_GEOM_RECTANGLE, CDYN_GEOM_POINT, D2, fn_solid_round, 1},
    {CDYN_GEOM_POLYGON, CDYN_GEOM_CIRCLE, D2, fn_solid_round, 1},
    {CDYN_GEOM_POLYGON, CDYN_GEOM_POINT, D2, fn_solid_round, 1},
    {CDYN_GEOM_ARC, CDYN_GEOM_CIRCLE, D2, fn_arc_round, 1},
    {CDYN_GEOM_ARC, CDYN_GEOM_POINT, D2, fn_arc_round, 1},
};
#define NTABLE ((int)(sizeof(TABLE) / sizeof(TABLE[0])))

int cdyn_model_pair_kind(int dim, int ta, int tb, int *swap)
{
    const int dm = dim == 2 ? D2 : D3;
    for (int k = 0; k < NTABLE; ++k) {
        if (!(TABLE[k].dims & dm))
            continue;
        if (TABLE[k].ta == ta && TABLE[k].tb == tb) {
            *swap = 0;
            return k;
        }
        if (TABLE[k].ta == tb && TABLE[k].tb == ta) {
            *swap = 1;
            return k;
        }
    }
    return -1;
}

int cdyn_model_pair_max_points(int kind, const mgeom *ga, const mgeom *gb, int swap)
{
    const int n = TABLE[kind].npoints;
    return n > 0 ? n : (swap ? ga : gb)->nvert;
}

cdyn_pair_fn cdyn_model_pair_fn(int kind)
{
    return TABLE[kind].fn;
}

const char *cdyn_model_pair_list(int dim)
{
    if (dim == 2)
        return "plane-{circle, point, capsule, rectangle, polygon, ellipse}, circle-{circle, "
               "point}, capsule-{capsule, circle, point}, ellipse-{circle, point, capsule}, "
               "rectangle-{circle, point}, polygon-{circle, point}";
    return "plane-{sphere, point, capsule, box}, sphere-{sphere, point}, capsule-{capsule, "
           "sphere, point}, box-{sphere, point}";
}

/* Contact building blocks shared by the pair functions (docs/theory.md, model Sec. 8): a
 * geometry seen as swept material points, and the plane, point, segment and ellipse pieces, each
 * returning points, normal and their time derivatives. */
#include <math.h>
#include <string.h>

#include "model/contacts.h"
#include "model/vec3.h"

/* ---- features: a geometry seen as material points swept by a ball of radius r ---------- */

double cdyn_cf_feature(const gstate *s, int index, double *loc)
{
    const mgeom *g = s->g;
    v3_set(loc, 0, 0, 0);
    switch (g->type) {
    case CDYN_GEOM_SPHERE:
    case CDYN_GEOM_CIRCLE:
        return g->size[0];
    case CDYN_GEOM_CAPSULE:
        loc[0] = index == 0 ? -g->size[1] : g->size[1];
        return g->size[0];
    case CDYN_GEOM_BOX:
        v3_set(loc, (index & 1) ? g->size[0] : -g->size[0], (index & 2) ? g->size[1] : -g->size[1],
               (index & 4) ? g->size[2] : -g->size[2]);
        return 0.0;
    case CDYN_GEOM_RECTANGLE: {
        static const int sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
        v3_set(loc, sx[index] * g->size[0], sy[index] * g->size[1], 0.0);
        return 0.0;
    }
    case CDYN_GEOM_POLYGON:
        v3_set(loc, s->verts[2 * (g->vert0 + index)], s->verts[2 * (g->vert0 + index) + 1], 0.0);
        return 0.0;
    default: /* POINT */
        return 0.0;
    }
}

/* ---- building blocks ----------------------------------------------------------------------- */

/* Plane a against the point m (velocity md) swept by radius r. n = plane normal (z in 3D, y in
 * 2D, rotating with a); pa = foot of m on the plane, pb = m - r n. */
void cdyn_cf_plane_point(const gstate *a, const double *m, const double *md, double r, cpoint *o)
{
    const int ax = a->dim == 3 ? 2 : 1;
    v3_copy(o->n, a->R + 3 * ax);
    v3_cross(o->dn, a->w, o->n);
    if (a->dim == 3) {
        o->has_t = 1;
        v3_copy(o->t, a->R); /* the plane's x axis */
        v3_cross(o->dt, a->w, o->t);
    }
    double cd[3], rel[3], reld[3];
    cdyn_gs_vel(a, a->c, cd);
    v3_sub(rel, m, a->c);
    v3_sub(reld, md, cd);
    const double s = v3_dot(rel, o->n);
    const double sd = v3_dot(reld, o->n) + v3_dot(rel, o->dn);
    for (int i = 0; i < 3; ++i) {
        o->pa[i] = m[i] - s * o->n[i];
        o->dpa[i] = md[i] - sd * o->n[i] - s * o->dn[i];
        o->pb[i] = m[i] - r * o->n[i];
        o->dpb[i] = md[i] - r * o->dn[i];
    }
}

/* Two points swept by radii: n along mb - ma. */
void cdyn_cf_point_point(int dim, const double *ma, const double *mad, double ra, const double *mb,
                         const double *mbd, double rb, cpoint *o)
{
    double d[3], dd[3];
    v3_sub(d, mb, ma);
    v3_sub(dd, mbd, mad);
    const double L = v3_norm(d);
    if (L > 0.0) {
        v3_scale(o->n, 1.0 / L, d);
        const double nd = v3_dot(o->n, dd);
        for (int i = 0; i < 3; ++i)
            o->dn[i] = (dd[i] - nd * o->n[i]) / L;
    } else { /* coincident centres: any direction is a normal */
        v3_set(o->n, 0, dim == 3 ? 0 : 1, dim == 3 ? 1 : 0);
        v3_set(o->dn, 0, 0, 0);
    }
    for (int i = 0; i < 3; ++i) {
        o->pa[i] = ma[i] + ra * o->n[i];
        o->dpa[i] = mad[i] + ra * o->dn[i];
        o->pb[i] = mb[i] - rb * o->n[i];
        o->dpb[i] = mbd[i] - rb * o->dn[i];
    }
}

/* Closest point P of the segment e0-e1 to the point m, with its velocity (the parameter moves
 * along the segment when the projection is interior). */
void cdyn_cf_segment_closest(const double *e0, const double *e0d, const double *e1,
                             const double *e1d, const double *m, const double *md, double *P,
                             double *Pd)
{
    double u[3], ud[3], r[3], rd[3];
    v3_sub(u, e1, e0);
    v3_sub(ud, e1d, e0d);
    v3_sub(r, m, e0);
    v3_sub(rd, md, e0d);
    const double uu = v3_dot(u, u);
    const double s = v3_dot(r, u) / uu;
    if (s <= 0.0) {
        v3_copy(P, e0);
        v3_copy(Pd, e0d);
    } else if (s >= 1.0) {
        v3_copy(P, e1);
        v3_copy(Pd, e1d);
    } else {
        const double sd = (v3_dot(rd, u) + v3_dot(r, ud) - 2.0 * s * v3_dot(u, ud)) / uu;
        for (int i = 0; i < 3; ++i) {
            P[i] = e0[i] + s * u[i];
            Pd[i] = e0d[i] + sd * u[i] + s * ud[i];
        }
    }
}

/* World direction -> ellipse frame (2D components) and the rate of that local vector:
 * d/dt (R^T x) = R^T (xd - w x x). */
void cdyn_cf_to_local(const gstate *s, const double *x, const double *xd, double *l, double *ld)
{
    double wx[3], t[3], lt[3], ldt[3];
    m3_tmul_v(lt, s->R, x);
    v3_cross(wx, s->w, x);
    v3_sub(t, xd, wx);
    m3_tmul_v(ldt, s->R, t);
    l[0] = lt[0];
    l[1] = lt[1];
    ld[0] = ldt[0];
    ld[1] = ldt[1];
}

/* Local 2D vector (and its rate) of the ellipse frame -> world vector and rate: R l, and
 * d/dt (R l) = w x (R l) + R ld. */
void cdyn_cf_to_world(const gstate *s, const double *l, const double *ld, double *x, double *xd)
{
    const double l3[3] = {l[0], l[1], 0.0}, ld3[3] = {ld[0], ld[1], 0.0};
    double r[3];
    m3_mul_v(x, s->R, l3);
    m3_mul_v(r, s->R, ld3);
    v3_cross(xd, s->w, x);
    v3_add(xd, xd, r);
}

/* Ellipse a against the point m swept by radius r: pa = closest point of m on the ellipse,
 * n = outward normal there. */
void cdyn_cf_ellipse_point(const gstate *a, const double *m, const double *md, double r, cpoint *o)
{
    double rel[3], reld[3], cd[3];
    cdyn_gs_vel(a, a->c, cd);
    v3_sub(rel, m, a->c);
    v3_sub(reld, md, cd);
    double x[2], xd[2], f[2], nl[2], df[4], dnl[4];
    cdyn_cf_to_local(a, rel, reld, x, xd);
    cdyn_ellipse_foot(a->g->size[0], a->g->size[1], x, f, nl, df, dnl);
    const double fd[2] = {df[0] * xd[0] + df[2] * xd[1], df[1] * xd[0] + df[3] * xd[1]};
    const double nd[2] = {dnl[0] * xd[0] + dnl[2] * xd[1], dnl[1] * xd[0] + dnl[3] * xd[1]};
    double fw[3], fwd[3];
    cdyn_cf_to_world(a, f, fd, fw, fwd);
    cdyn_cf_to_world(a, nl, nd, o->n, o->dn);
    for (int i = 0; i < 3; ++i) {
        o->pa[i] = a->c[i] + fw[i];
        o->dpa[i] = cd[i] + fwd[i];
        o->pb[i] = m[i] - r * o->n[i];
        o->dpb[i] = md[i] - r * o->dn[i];
    }
}

/* Support point of ellipse s with outward normal along the world direction u (rate ud). */
void cdyn_cf_ellipse_support_world(const gstate *s, const double *u, const double *ud, double *p,
                                   double *pd)
{
    double ul[2], uld[2], sl[2], ds[4];
    cdyn_cf_to_local(s, u, ud, ul, uld);
    cdyn_ellipse_support(s->g->size[0], s->g->size[1], ul, sl, ds);
    const double sld[2] = {ds[0] * uld[0] + ds[2] * uld[1], ds[1] * uld[0] + ds[3] * uld[1]};
    double sw[3], swd[3], cd[3];
    cdyn_cf_to_world(s, sl, sld, sw, swd);
    cdyn_gs_vel(s, s->c, cd);
    v3_add(p, s->c, sw);
    v3_add(pd, cd, swd);
}

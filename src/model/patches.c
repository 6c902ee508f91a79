/* Distributed contact patches (docs/theory.md, model Sec. 9): the n_s x n_s lumped elements of
 * Song, Kumar & Pang replace a pair's contact point(s) by element rows.
 *
 * Round patches (plane or ball against a ball): the elements sit at the cell centres of a square
 * of half-width w in the tangent plane (t, o) of the nominal contact; each element is the
 * segment along n between the two surfaces at that offset. Its gap differs from the nominal one
 * by the sagittas of the balls, a constant, so its normal row is the nominal one.
 * Face patches (plane against a box face or a polygon edge): the elements are material points at
 * the cell centres of the face of the solid that faces the plane. */
#include <math.h>

#include "model/contacts.h"
#include "model/vec3.h"

int cdyn_model_patch_kind(int dim, int ta, int tb)
{
    const int round = dim == 3 ? CDYN_GEOM_SPHERE : CDYN_GEOM_CIRCLE;
    if ((ta == CDYN_GEOM_PLANE || ta == round) && tb == round)
        return PATCH_ROUND;
    if (ta == round && tb == CDYN_GEOM_PLANE)
        return PATCH_ROUND;
    const int plane_other = ta == CDYN_GEOM_PLANE ? tb : tb == CDYN_GEOM_PLANE ? ta : -1;
    if (dim == 3 && plane_other == CDYN_GEOM_BOX)
        return PATCH_FACE;
    if (dim == 2 && (plane_other == CDYN_GEOM_RECTANGLE || plane_other == CDYN_GEOM_POLYGON))
        return PATCH_FACE;
    return PATCH_NONE;
}

int cdyn_model_patch_elements(int dim, int n)
{
    return dim == 3 ? n * n : n;
}

const char *cdyn_model_patch_list(int dim)
{
    if (dim == 2)
        return "plane-circle, circle-circle (round), plane-{rectangle, polygon} (face)";
    return "plane-sphere, sphere-sphere (round), plane-box (face)";
}

/* Centre of cell k of n equal cells covering [-h, h]. Exactly 0 for the middle cell. */
static double cell(int n, double h, int k)
{
    return h * (double)(2 * k + 1 - n) / (double)n;
}

/* Depth of a ball's surface below its nominal point at distance rho from the axis (the
 * sagitta r - sqrt(r^2 - rho^2), in a form without cancellation); 0 for a plane. */
static double sagitta(const mgeom *g, double rho2)
{
    if (g->type == CDYN_GEOM_PLANE)
        return 0.0;
    const double r = g->size[0];
    return rho2 / (r + sqrt(fmax(r * r - rho2, 0.0)));
}

void cdyn_patch_round(const mgeom *ga, const mgeom *gb, int dim, int n, double w, int e,
                      const double *fr, const double *dfr, cpoint *c)
{
    const double xi = cell(n, w, e % n), eta = dim == 3 ? cell(n, w, e / n) : 0.0;
    const double rho2 = xi * xi + eta * eta;
    const double sa = sagitta(ga, rho2), sb = sagitta(gb, rho2);
    const double *nn = fr, *t = fr + 3, *o = fr + 6;
    const double *dn = dfr, *dt = dfr + 3, *dO = dfr + 6;
    for (int i = 0; i < 3; ++i) {
        const double off = xi * t[i] + eta * o[i], doff = xi * dt[i] + eta * dO[i];
        c->pa[i] += off - sa * nn[i];
        c->dpa[i] += doff - sa * dn[i];
        c->pb[i] += off + sb * nn[i];
        c->dpb[i] += doff + sb * dn[i];
    }
}

/* The face of box s (local axis k, outward sign sg) whose outward normal is most opposed to the
 * world direction n; ties go to the lower axis. */
static void box_face(const gstate *s, const double *n, int *k, double *sg)
{
    double nl[3];
    m3_tmul_v(nl, s->R, n);
    *k = 0;
    for (int i = 1; i < 3; ++i)
        if (fabs(nl[i]) > fabs(nl[*k]))
            *k = i;
    *sg = nl[*k] > 0.0 ? -1.0 : 1.0;
}

void cdyn_patch_face(const gstate *a, const gstate *b, int n, int e, cpoint *o)
{
    const int ax = a->dim == 3 ? 2 : 1;
    const double *nrm = a->R + 3 * ax; /* the plane's normal */
    double loc[3];
    if (b->g->type == CDYN_GEOM_BOX) {
        int k;
        double sg;
        box_face(b, nrm, &k, &sg);
        const int i = (k + 1) % 3, j = (k + 2) % 3;
        loc[k] = sg * b->g->size[k];
        loc[i] = cell(n, b->g->size[i], e % n);
        loc[j] = cell(n, b->g->size[j], e / n);
    } else { /* the edge of the polygon whose outward normal is most opposed to the plane's */
        const int nv = b->g->type == CDYN_GEOM_RECTANGLE ? 4 : b->g->nvert;
        double nl[3], best = INFINITY, v0[3], v1[3];
        m3_tmul_v(nl, b->R, nrm);
        int kb = 0;
        for (int k = 0; k < nv; ++k) {
            cdyn_cf_feature(b, k, v0);
            cdyn_cf_feature(b, (k + 1) % nv, v1);
            const double ex = v1[0] - v0[0], ey = v1[1] - v0[1];
            const double dn = (ey * nl[0] - ex * nl[1]) / hypot(ex, ey); /* outward . n */
            if (dn < best) {
                best = dn;
                kb = k;
            }
        }
        cdyn_cf_feature(b, kb, v0);
        cdyn_cf_feature(b, (kb + 1) % nv, v1);
        const double s = 0.5 + cell(n, 0.5, e); /* fraction along the edge */
        for (int i = 0; i < 3; ++i)
            loc[i] = v0[i] + s * (v1[i] - v0[i]);
    }
    double m[3], md[3];
    cdyn_gs_point(b, loc, m, md);
    cdyn_cf_plane_point(a, m, md, 0.0, o);
}

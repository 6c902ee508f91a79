/* Internal: the interface between the contact driver (contact_rows.c) and the contact
 * functions of the geometry pairs (contacts.c, geometry.c).
 *
 * A contact function gets the world state of two geometries and returns, for point `index`,
 * the points pa (on a) and pb (on b), the unit normal n from a to b with pb - pa = gap * n, and
 * the time derivatives of pa, pb and n along the current velocities (the motion of the contact
 * points over the surfaces included). It may give a tangent hint t (3D). */
#ifndef CDYN_MODEL_CONTACTS_H
#define CDYN_MODEL_CONTACTS_H

#include "model/model_internal.h"

typedef struct gstate {
    const mgeom *g;
    const double *verts; /* the model's polygon vertex pool */
    int dim;
    double R[9], c[3];  /* world rotation and origin of the geometry frame */
    double w[3], vo[3]; /* its body's spatial velocity (w; v at the world origin) */
} gstate;

typedef struct cpoint {
    double pa[3], pb[3], n[3];
    double dpa[3], dpb[3], dn[3];
    int has_t;
    double t[3], dt[3];
} cpoint;

typedef void (*cdyn_pair_fn)(const gstate *a, const gstate *b, int index, cpoint *out);

/* Material point with local coordinates loc: world position p and velocity pd. */
void cdyn_gs_point(const gstate *s, const double *loc, double *p, double *pd);
/* Velocity of the material point of s's body at world point p. */
void cdyn_gs_vel(const gstate *s, const double *p, double *v);

/* contact_blocks.c (docs/theory.md, model Sec. 8). */

/* Feature `index` of a geometry as a material point (local coordinates loc) swept by the
 * returned radius: sphere/circle centre, capsule end 0/1, box/rectangle/polygon vertex, point. */
double cdyn_cf_feature(const gstate *s, int index, double *loc);
/* Plane a against the point m (velocity md) swept by radius r. */
void cdyn_cf_plane_point(const gstate *a, const double *m, const double *md, double r, cpoint *o);
/* Two swept points: n along mb - ma. */
void cdyn_cf_point_point(int dim, const double *ma, const double *mad, double ra, const double *mb,
                         const double *mbd, double rb, cpoint *o);
/* Closest point P (rate Pd) of the segment e0-e1 to the point m. */
void cdyn_cf_segment_closest(const double *e0, const double *e0d, const double *e1,
                             const double *e1d, const double *m, const double *md, double *P,
                             double *Pd);
/* World vector x (rate xd) into the frame of s (2D components) and back. */
void cdyn_cf_to_local(const gstate *s, const double *x, const double *xd, double *l, double *ld);
void cdyn_cf_to_world(const gstate *s, const double *l, const double *ld, double *x, double *xd);
/* Ellipse a against the point m swept by radius r (closest point of the ellipse). */
void cdyn_cf_ellipse_point(const gstate *a, const double *m, const double *md, double r, cpoint *o);
/* Support point p (rate pd) of ellipse s with outward normal along world direction u. */
void cdyn_cf_ellipse_support_world(const gstate *s, const double *u, const double *ud, double *p,
                                   double *pd);

/* contact_rows.c */

/* World state of geometry gi, its velocities from the motion U (6: world Plucker at the
 * origin) or, with U NULL, from its body's V (ground geometries: zero). */
void cdyn_geom_state(const cdyn_model *m, const cdyn_data *d, int gi, const double *U,
                     gstate *s);
/* Row r of pair pr: its point c (rates from the states' velocities), its frame fr = (n, t, o)
 * with rates dfr, and cn, the point of its normal row (the nominal point of a round patch,
 * else c). */
void cdyn_pair_row(const cdyn_model *m, const mpair *pr, const gstate *ga, const gstate *gb,
                   int r, cpoint *c, cpoint *cn, double *fr, double *dfr);

/* contacts.c: the table. */
cdyn_pair_fn cdyn_model_pair_fn(int kind);

/* patches.c (docs/theory.md, model Sec. 9). */

/* Element e of a face patch with n cells per face axis: plane a against the material point of
 * solid b (box, rectangle, polygon) at the centre of cell e of the face (edge) of b that faces
 * the plane. */
void cdyn_patch_face(const gstate *a, const gstate *b, int n, int e, cpoint *o);
/* Element e of a round patch: moves the nominal point c (geometries ga, gb in declared order,
 * frame fr = (n, t, o) with rates dfr) to the element's offset in the tangent plane and onto
 * the two surfaces under it. */
void cdyn_patch_round(const mgeom *ga, const mgeom *gb, int dim, int n, double w, int e,
                      const double *fr, const double *dfr, cpoint *c);

/* param_shapes.c: the geometric parameters' shapes (cdyn_eval_geom_derivatives). */

/* Whether size c of a geometry of type t is a swept radius (sphere, circle, capsule, arc). */
int cdyn_shape_is_radius(int t, int c);
/* Whether size c of geometry g (not a radius) moves the rows of pair pr (other geometry o) as
 * cdyn_shape_motion says. */
int cdyn_shape_moves_rows(const mgeom *g, const mgeom *o, const mpair *pr, int c);
/* The rigid motion U (6, world Plucker) of geometry gs, on side `side` (0: a, 1: b) of the row's
 * points c at rest, that moves the row like size[axis] (vertex = 0) or like the polygon's vertex
 * coordinate axis = 2 k + i (vertex = 1), per unit. */
void cdyn_shape_motion(const gstate *gs, const cpoint *c, int side, int vertex, int axis,
                       double *U);

/* geometry.c: ellipse primitives in the ellipse's own frame (2D, semi-axes ea along x, eb
 * along y). */

/* Closest point f on the ellipse to p, outward unit normal nrm at f, and their derivatives
 * with respect to p: df[i + 2j] = d f_i / d p_j, dn likewise. Returns 0, or 1 when p lies on
 * the medial axis (deep inside, or the centre), where the derivatives are set to 0. */
int cdyn_ellipse_foot(double ea, double eb, const double *p, double *f, double *nrm, double *df,
                      double *dn);
/* Support point s(u) = D u / sqrt(u^T D u), D = diag(ea^2, eb^2): the boundary point with outward
 * normal along u; ds[i + 2j] = d s_i / d u_j. */
void cdyn_ellipse_support(double ea, double eb, const double *u, double *s, double *ds);

#endif

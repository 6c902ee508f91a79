/* Derivatives of the contact terms in geometric parameters (cdyn_eval_geom_derivatives;
 * docs/theory.md, "Derivatives in geometric parameters").
 *
 * Moving a geometry's pose parameter moves the geometry rigidly with a motion U (world Plucker):
 * the pair's own contact function, run with U on that side and rest on the other, returns as
 * rates the derivatives of the points p_a, p_b and the frame (n, t, o) in the parameter, as
 * contact_derivs.c does with the motion of a dof. A swept radius r moves its side's point by
 * the normal (p_a = m_a + r_a n, p_b = m_b - r_b n; n does not move). A half-extent h along the
 * geometry's axis k moves the faces (ends) -h, h along k and nothing else: a contact point of
 * the solid (of the capsule's core segment) that lies on one of them moves with it, which for
 * that row is the translation of the geometry along +-k, and one that does not stays (it is
 * the ball's centre's own coordinate, or the segment's interior). Then, with the body's motion
 * subspace S_j fixed,
 *     d Psi_n = n' . (p_b - p_a) + n . (p_b' - p_a'),
 *     d Gamma_d,j = d' . (S_j(p_b) - S_j(p_a)) + d . (S_j,ang x p_b' - S_j,ang x p_a')
 * on the sides dof j moves. */
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "model/contacts.h"
#include "model/spatial.h"

/* How a parameter moves one side of a pair. */
typedef struct pmove {
    int side;    /* 0: the geometry is a, 1: b */
    int radius;  /* a swept radius: the point moves along the normal */
    int extent;  /* a half-extent: the row's point moves with the face it lies on */
    int vertex;  /* a polygon's vertex coordinate: the row's edge moves */
    int axis;    /* the component */
    double U[6]; /* the rigid motion of POS and ROT */
} pmove;

static int n_sizes(int type)
{
    switch (type) {
    case CDYN_GEOM_SPHERE:
    case CDYN_GEOM_CIRCLE:
        return 1;
    case CDYN_GEOM_CAPSULE:
    case CDYN_GEOM_ELLIPSE:
    case CDYN_GEOM_RECTANGLE:
        return 2;
    case CDYN_GEOM_BOX:
    case CDYN_GEOM_ARC:
        return 3;
    default:
        return 0;
    }
}

/* Whether size component c of geometry type t is a swept radius. */
static int is_radius(int t, int c)
{
    return c == 0 && (t == CDYN_GEOM_SPHERE || t == CDYN_GEOM_CIRCLE || t == CDYN_GEOM_CAPSULE ||
                      t == CDYN_GEOM_ARC);
}

/* Whether size c of geometry g moves the rows of pair pr (other geometry o) as the motions
 * below say: box and rectangle half-extents against planes, balls and points (their contact
 * functions clamp the point to the faces or take the vertices), the capsule's half-length
 * against those, capsules and ellipses (the core segment's closest point, or its ends), an
 * arc's radius and opening, an ellipse's semi-axes. */
static int is_extent(const mgeom *g, const mgeom *o, const mpair *pr, int c)
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

/* One row's derivatives: dgap, and dJ[dir][k] = d Gamma_dir,j / dp for the pair's columns k. */
static void row_derivs(const cdyn_model *m, const cdyn_data *d, const mpair *pr, int r,
                       const pmove *mv, double *dgap, double *dJ)
{
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    gstate ga, gb;
    cpoint c, cn;
    double fr[9], dfr[9];
    double U[6];
    memcpy(U, mv->U, sizeof U);
    if (mv->extent || mv->vertex) {
        /* where the row's point lies, from the pair at rest */
        cdyn_geom_state(m, d, pr->ga, zero, &ga);
        cdyn_geom_state(m, d, pr->gb, zero, &gb);
        cdyn_pair_row(m, pr, &ga, &gb, r, &c, &cn, fr, dfr);
        const gstate *gs = mv->side ? &gb : &ga;
        if (mv->vertex)
            vertex_motion(gs, &c, mv->side, mv->axis, U);
        else if (gs->g->type == CDYN_GEOM_ELLIPSE)
            ellipse_motion(gs, &c, mv->side, mv->axis, U);
        else
            extent_motion(gs, &c, mv->side, mv->axis, U);
    }
    cdyn_geom_state(m, d, pr->ga, mv->side == 0 ? U : zero, &ga);
    cdyn_geom_state(m, d, pr->gb, mv->side == 1 ? U : zero, &gb);
    cdyn_pair_row(m, pr, &ga, &gb, r, &c, &cn, fr, dfr);
    if (mv->radius) {
        cpoint *p[2] = {&c, &cn};
        for (int i = 0; i < 2; ++i) {
            v3_copy(mv->side ? p[i]->dpb : p[i]->dpa, p[i]->n);
            if (mv->side)
                v3_scale(p[i]->dpb, -1.0, p[i]->dpb);
        }
    }
    double diff[3], ddiff[3];
    v3_sub(diff, c.pb, c.pa);
    v3_sub(ddiff, c.dpb, c.dpa);
    *dgap = v3_dot(c.dn, diff) + v3_dot(c.n, ddiff);
    const int nk = pr->ncols;
    for (int k = 0; k < nk; ++k) {
        const int j = m->pair_cols[pr->col0 + k];
        const unsigned flags = m->pair_colflags[pr->col0 + k];
        const double *S = d->S + 6 * (size_t)j;
        for (int dir = 0; dir < 3; ++dir) {
            const cpoint *p = dir == 0 ? &cn : &c;
            double del[3] = {0, 0, 0}, ddel[3] = {0, 0, 0}, t[3];
            if (flags & COL_IN_B) {
                sp_point_vel(del, S, p->pb);
                v3_cross_add(ddel, S, p->dpb);
            }
            if (flags & COL_IN_A) {
                sp_point_vel(t, S, p->pa);
                v3_sub(del, del, t);
                v3_cross(t, S, p->dpa);
                v3_sub(ddel, ddel, t);
            }
            dJ[dir * nk + k] = v3_dot(dfr + 3 * dir, del) + v3_dot(fr + 3 * dir, ddel);
        }
    }
}

/* Checks of the call and of the parameter against the geometry's type. */
static cdyn_status check(const cdyn_model *m, const cdyn_data *d, cdyn_geom_param kind, int geom,
                         int comp, const double *lambda, cdyn_report *r)
{
    if (m == NULL || d == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "model or data is NULL");
    if (d->model != m)
        return cdyn_fail(r, CDYN_EINVAL, "data was created for another model");
    if (!(d->valid & CDYN_EVAL_CONTACTS) || !d->has_v)
        return cdyn_fail(r, CDYN_EINVAL, "the last cdyn_eval must include CDYN_EVAL_CONTACTS "
                                         "and v");
    if (geom < 0 || geom >= m->ngeom)
        return cdyn_fail(r, CDYN_EINVAL, "geometry %d is not one of the model's 0..%d", geom,
                         m->ngeom - 1);
    const int t = m->geoms[geom].type;
    int ok;
    switch (kind) {
    case CDYN_GEOM_PARAM_POS:
        ok = comp >= 0 && comp < m->dim;
        break;
    case CDYN_GEOM_PARAM_ROT:
        ok = comp >= (m->dim == 2 ? 2 : 0) && comp < 3;
        break;
    case CDYN_GEOM_PARAM_SIZE:
        ok = comp >= 0 && comp < n_sizes(t);
        break;
    case CDYN_GEOM_PARAM_VERTEX:
        ok = t == CDYN_GEOM_POLYGON && comp >= 0 && comp < 2 * m->geoms[geom].nvert;
        break;
    default:
        return cdyn_fail(r, CDYN_EINVAL, "geometric parameter kind %d is unknown", (int)kind);
    }
    if (!ok)
        return cdyn_fail(r, CDYN_EINVAL, "component %d is not one of parameter kind %d of "
                         "geometry %d (type %d, dim %d)", comp, (int)kind, geom, t, m->dim);
    for (int i = 0; lambda != NULL && i < 3 * m->nc; ++i)
        if (!isfinite(lambda[i]))
            return cdyn_fail(r, CDYN_EINVAL, "lambda[%d] is not finite", i);
    return CDYN_OK;
}

/* The pair's support of a size parameter (checked before any output is written). */
static int size_supported(const cdyn_model *m, const mpair *pr, int geom, int comp)
{
    const mgeom *g = &m->geoms[geom], *o = &m->geoms[pr->ga == geom ? pr->gb : pr->ga];
    if (is_radius(g->type, comp))
        return pr->patch == PATCH_NONE;
    return is_extent(g, o, pr, comp);
}

static int row_asked(const mpair *pr, const int *rows)
{
    for (int r = 0; r < pr->nrows; ++r)
        if (rows == NULL || rows[pr->row + r])
            return 1;
    return 0;
}

cdyn_status cdyn_eval_geom_derivatives(const cdyn_model *m, cdyn_data *d, cdyn_geom_param kind,
                                       int geom, int comp, const double *lambda, const int *rows,
                                       double *dgap, double *dgv, double *dforce,
                                       cdyn_report *report)
{
    cdyn_report_clear(report, "model");
    cdyn_status st = check(m, d, kind, geom, comp, lambda, report);
    if (st != CDYN_OK)
        return st;
    for (int pi = 0; pi < m->npair; ++pi) {
        const mpair *pr = &m->pairs[pi];
        /* sizes as is_extent says; a polygon's vertices also move a face patch's cells */
        const int refused = kind == CDYN_GEOM_PARAM_SIZE ? !size_supported(m, pr, geom, comp)
                            : kind == CDYN_GEOM_PARAM_VERTEX && pr->patch != PATCH_NONE;
        if ((pr->ga == geom || pr->gb == geom) && row_asked(pr, rows) && refused)
            return cdyn_fail(report, CDYN_ENOTSUP, "the derivative in %s %d of geometry %d "
                             "is not available in pair %d (geometries %d, %d%s)",
                             kind == CDYN_GEOM_PARAM_SIZE ? "size" : "vertex coordinate", comp,
                             geom, pi, pr->ga, pr->gb,
                             pr->patch != PATCH_NONE ? ", a patch" : "");
    }
    if (dgap != NULL)
        memset(dgap, 0, (size_t)m->nc * sizeof(double));
    if (dgv != NULL)
        memset(dgv, 0, 3 * (size_t)m->nc * sizeof(double));
    if (dforce != NULL)
        memset(dforce, 0, (size_t)m->nv * sizeof(double));
    /* the geometry's motion under POS or ROT (body axes, or world axes on the ground) */
    const mgeom *g = &m->geoms[geom];
    double axis[3] = {0, 0, 0}, e[3] = {0, 0, 0};
    if (kind == CDYN_GEOM_PARAM_POS || kind == CDYN_GEOM_PARAM_ROT) {
        e[comp] = 1.0;
        if (g->body < 0)
            v3_copy(axis, e);
        else
            m3_mul_v(axis, d->bodies[g->body].R, e);
    }
    pmove mv;
    memset(&mv, 0, sizeof mv);
    mv.axis = comp;
    if (kind == CDYN_GEOM_PARAM_POS) {
        v3_copy(mv.U + 3, axis);
    } else if (kind == CDYN_GEOM_PARAM_ROT) {
        gstate gs;
        cdyn_geom_state(m, d, geom, mv.U, &gs); /* its world origin c: U = (w; c x w) */
        v3_copy(mv.U, axis);
        v3_cross(mv.U + 3, gs.c, axis);
    } else if (kind == CDYN_GEOM_PARAM_VERTEX) {
        mv.vertex = 1;
    } else {
        mv.radius = is_radius(g->type, comp);
        mv.extent = !mv.radius;
    }
    /* 3 max_pair_cols doubles: the pair forms' transient scratch of contact_derivs.c */
    double *dJ = d->dscr + CDYN_DERIV_BODY_SCRATCH * (size_t)m->nbody;
    for (int pi = 0; pi < m->npair; ++pi) {
        const mpair *pr = &m->pairs[pi];
        if (pr->ga != geom && pr->gb != geom)
            continue;
        mv.side = pr->gb == geom;
        const int nk = pr->ncols, *cols = m->pair_cols + pr->col0;
        for (int r = 0; r < pr->nrows; ++r) {
            const int row = pr->row + r;
            if (rows != NULL && !rows[row])
                continue;
            double dg;
            row_derivs(m, d, pr, r, &mv, &dg, dJ);
            if (dgap != NULL)
                dgap[row] = dg;
            for (int k = 0; k < nk; ++k)
                for (int dir = 0; dir < 3; ++dir) {
                    const double x = dJ[dir * nk + k];
                    if (dgv != NULL)
                        dgv[3 * row + dir] += x * d->v[cols[k]];
                    if (dforce != NULL && lambda != NULL)
                        dforce[cols[k]] += x * lambda[3 * row + dir];
                }
        }
    }
    return CDYN_OK;
}

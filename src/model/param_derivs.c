/* Derivatives of the contact terms in geometric parameters (cdyn_eval_geom_derivatives;
 * docs/theory.md, "Derivatives in geometric parameters").
 *
 * Moving a geometry's pose parameter moves the geometry rigidly with a motion U (world Plucker):
 * the pair's own contact function, run with U on that side and rest on the other, returns as
 * rates the derivatives of the points p_a, p_b and the frame (n, t, o) in the parameter, as
 * contact_derivs.c does with the motion of a dof. A swept radius r moves its side's point by
 * the normal (p_a = m_a + r_a n, p_b = m_b - r_b n; n does not move). The other sizes and a
 * polygon's vertices move a row's point as a rigid motion of the geometry for that row
 * (param_shapes.c), run like a pose's. Then, with the body's motion subspace S_j fixed,
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
        cdyn_shape_motion(mv->side ? &gb : &ga, &c, mv->side, mv->vertex, mv->axis, U);
    }
    cdyn_geom_state(m, d, pr->ga, mv->side == 0 ? U : zero, &ga);
    cdyn_geom_state(m, d, pr->gb, mv->side == 1 ? U : zero, &gb);
    cdyn_pair_row(m, pr, &ga, &gb, r, &c, &cn, fr, dfr);
    if (mv->radius) {
        /* p = m -+ r n. A round patch's element also moves by its sagitta's change: with its
         * offset rho from the nominal point, d/dr (r - (r - sqrt(r^2 - rho^2))) =
         * r / sqrt(r^2 - rho^2) in all */
        double k = 1.0;
        if (pr->patch == PATCH_ROUND) {
            double off[3];
            v3_sub(off, mv->side ? c.pb : c.pa, mv->side ? cn.pb : cn.pa);
            v3_axpy(off, off, -v3_dot(off, c.n), c.n);
            const double rad = m->geoms[mv->side ? pr->gb : pr->ga].size[0];
            k = rad / sqrt(rad * rad - v3_dot(off, off));
        }
        v3_scale(mv->side ? c.dpb : c.dpa, mv->side ? -k : k, c.n);
        v3_scale(mv->side ? cn.dpb : cn.dpa, mv->side ? -1.0 : 1.0, cn.n);
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
    if (cdyn_shape_is_radius(g->type, comp))
        return 1; /* round patches included (their sagittas); face patches have no radius */
    return cdyn_shape_moves_rows(g, o, pr, comp);
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
        mv.radius = cdyn_shape_is_radius(g->type, comp);
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

/* Contact rows of every pair at the current kinematics: points, frames (n, t, o), gaps, active
 * flags, the Jacobian rows Gamma_d v = d . (v_b(pb) - v_a(pa)) and the Jacobian-dot terms
 *   (dGamma_d/dt) v = d' . (v_b(pb) - v_a(pa)) + d . (acc_b - acc_a),
 *   acc_k = a_k + alpha_k x p_k + w_k x p_k'
 * where (alpha_k; a_k) is body k's velocity-product acceleration and p_k' the velocity of the
 * contact point itself (material velocity plus its motion over the surface). Derivation:
 * docs/theory.md, "Jacobian-dot terms". Elements of a round patch take their normal rows
 * at the nominal points (Sec. 9). */
#include <math.h>
#include <string.h>

#include "model/contacts.h"
#include "model/spatial.h"

void cdyn_geom_state(const cdyn_model *m, const cdyn_data *d, int gi, const double *U, gstate *s)
{
    const mgeom *g = &m->geoms[gi];
    s->g = g;
    s->verts = m->verts;
    s->dim = m->dim;
    if (g->body < 0) {
        memcpy(s->R, g->R, sizeof(s->R));
        v3_copy(s->c, g->pos);
    } else {
        const dbody *b = &d->bodies[g->body];
        double r[3];
        m3_mul(s->R, b->R, g->R);
        m3_mul_v(r, b->R, g->pos);
        v3_add(s->c, b->o, r);
        if (U == NULL)
            U = b->V;
    }
    if (U == NULL) {
        v3_set(s->w, 0, 0, 0);
        v3_set(s->vo, 0, 0, 0);
    } else {
        v3_copy(s->w, U);
        v3_copy(s->vo, U + 3);
    }
}

/* Tangents from the normal: planar t = (n_y, -n_x, 0), o = (0, 0, -1); spatial t = the hint
 * (or the world x axis, the y axis when |n_x| > 1/sqrt(2)) made orthogonal to n, o = n x t.
 * Rates included. */
static void make_frame(int dim, cpoint *c, double *t, double *dt, double *o, double *dO)
{
    const double *n = c->n, *dn = c->dn;
    if (dim == 2) {
        v3_set(t, n[1], -n[0], 0.0);
        v3_set(dt, dn[1], -dn[0], 0.0);
        v3_set(o, 0, 0, -1.0);
        v3_set(dO, 0, 0, 0);
        return;
    }
    double h[3], dh[3];
    if (c->has_t) {
        v3_copy(h, c->t);
        v3_copy(dh, c->dt);
    } else {
        /* x, or y where n lies within 45 degrees of the x axis: the frame switches only on
         * those cones, never near the axis-aligned normals that ground and side contacts have
         * (choosing the world axis least aligned with n switched on the ties there: a sphere
         * touching another side by side flipped its tangents under rounding, a jump in the
         * step's residual that Newton cannot cross). */
        v3_set(h, 0, 0, 0);
        h[fabs(n[0]) > 0.70710678118654752 ? 1 : 0] = 1.0;
        v3_set(dh, 0, 0, 0);
    }
    /* u = h - (h.n) n, t = u/|u| */
    const double hn = v3_dot(h, n), dhn = v3_dot(dh, n) + v3_dot(h, dn);
    double u[3], du[3];
    for (int i = 0; i < 3; ++i) {
        u[i] = h[i] - hn * n[i];
        du[i] = dh[i] - dhn * n[i] - hn * dn[i];
    }
    const double nu = v3_norm(u);
    v3_scale(t, 1.0 / nu, u);
    const double tdu = v3_dot(t, du);
    for (int i = 0; i < 3; ++i)
        dt[i] = (du[i] - tdu * t[i]) / nu;
    v3_cross(o, n, t);
    v3_cross(dO, dn, t);
    v3_cross_add(dO, n, dt);
}

static void flip(cpoint *c)
{
    double tmp[3];
    v3_copy(tmp, c->pa);
    v3_copy(c->pa, c->pb);
    v3_copy(c->pb, tmp);
    v3_copy(tmp, c->dpa);
    v3_copy(c->dpa, c->dpb);
    v3_copy(c->dpb, tmp);
    v3_scale(c->n, -1.0, c->n);
    v3_scale(c->dn, -1.0, c->dn);
}

/* Acceleration term of body `body` at the moving point p (rate pd); zero for the ground. */
static void point_acc(const cdyn_data *d, int body, const double *p, const double *pd, double *acc)
{
    if (body < 0) {
        v3_set(acc, 0, 0, 0);
        return;
    }
    const dbody *b = &d->bodies[body];
    v3_copy(acc, b->A + 3);
    v3_cross_add(acc, b->A, p);
    v3_cross_add(acc, b->V, pd);
}

static void point_vel(const cdyn_data *d, int body, const double *p, double *v)
{
    if (body < 0)
        v3_set(v, 0, 0, 0);
    else
        sp_point_vel(v, d->bodies[body].V, p);
}

/* Relative velocity S(pb) - S(pa) of the contact points under the motion S of one dof, counting
 * the sides the dof moves. */
static void point_delta(const double *S, unsigned flags, const cpoint *c, double *delta)
{
    double va[3];
    v3_set(delta, 0, 0, 0);
    if (flags & COL_IN_B)
        sp_point_vel(delta, S, c->pb);
    if (flags & COL_IN_A) {
        sp_point_vel(va, S, c->pa);
        v3_sub(delta, delta, va);
    }
}

/* Point `r` of pair pr in declared order: the table's function (or a face patch element),
 * flipped when the table takes the geometries the other way round. Round patches evaluate their
 * nominal point 0. */
static void pair_point(const mpair *pr, const gstate *ga, const gstate *gb, int r, cpoint *c)
{
    memset(c, 0, sizeof(*c));
    const gstate *x = pr->swap ? gb : ga, *y = pr->swap ? ga : gb;
    if (pr->patch == PATCH_FACE)
        cdyn_patch_face(x, y, pr->patch_n, r, c);
    else
        cdyn_model_pair_fn(pr->kind)(x, y, pr->patch == PATCH_ROUND ? 0 : r, c);
    if (pr->swap)
        flip(c);
}

void cdyn_pair_row(const cdyn_model *m, const mpair *pr, const gstate *ga, const gstate *gb,
                   int r, cpoint *c, cpoint *cn, double *fr, double *dfr)
{
    if (pr->patch == PATCH_ROUND) {
        pair_point(pr, ga, gb, 0, cn);
        v3_copy(fr, cn->n);
        v3_copy(dfr, cn->dn);
        make_frame(m->dim, cn, fr + 3, dfr + 3, fr + 6, dfr + 6);
        *c = *cn;
        cdyn_patch_round(&m->geoms[pr->ga], &m->geoms[pr->gb], m->dim, pr->patch_n, pr->patch_w,
                         r, fr, dfr, c);
    } else {
        pair_point(pr, ga, gb, r, c);
        v3_copy(fr, c->n);
        v3_copy(dfr, c->dn);
        make_frame(m->dim, c, fr + 3, dfr + 3, fr + 6, dfr + 6);
        *cn = *c;
    }
}

void cdyn_model_contact_pair(const cdyn_model *m, cdyn_data *d, int pi, int with_dot)
{
    const mpair *pr = &m->pairs[pi];
    gstate ga, gb;
    cdyn_geom_state(m, d, pr->ga, NULL, &ga);
    cdyn_geom_state(m, d, pr->gb, NULL, &gb);
    const int body_a = m->geoms[pr->ga].body, body_b = m->geoms[pr->gb].body;
    const int round = pr->patch == PATCH_ROUND;
    /* A round patch shares the nominal point and frame; its normal rows are taken at the
     * nominal points (cn below; Sec. 9), every other row at its own points. */
    for (int r = 0; r < pr->nrows; ++r) {
        const int row = pr->row + r;
        cpoint c, nom;
        double fr[9], dfr[9];
        cdyn_pair_row(m, pr, &ga, &gb, r, &c, &nom, fr, dfr);
        const cpoint *cn = &nom; /* points of the normal row */
        double diff[3];
        v3_sub(diff, c.pb, c.pa);
        d->gap[row] = v3_dot(c.n, diff);
        d->active[row] = d->gap[row] <= pr->margin;
        v3_copy(d->pa + 3 * row, c.pa);
        v3_copy(d->pb + 3 * row, c.pb);
        memcpy(d->frame + 9 * row, fr, sizeof(fr));
        /* Jacobian entries: dof j moves the point p of a body it carries by S_j at p. */
        for (int k = 0; k < pr->ncols; ++k) {
            const int j = m->pair_cols[pr->col0 + k];
            const unsigned flags = m->pair_colflags[pr->col0 + k];
            const double *S = d->S + 6 * (size_t)j;
            double delta[3], dn[3];
            point_delta(S, flags, &c, delta);
            if (round)
                point_delta(S, flags, cn, dn);
            else
                v3_copy(dn, delta);
            const int pos = m->jac_map[pr->map0 + r * pr->ncols + k];
            d->jac_values[0][pos] = v3_dot(fr, dn);
            for (int dir = 1; dir < 3; ++dir)
                d->jac_values[dir][pos] = v3_dot(fr + 3 * dir, delta);
        }
        if (with_dot) {
            for (int dir = 0; dir < 3; ++dir) {
                const cpoint *p = dir == 0 ? cn : &c;
                double vb[3], va[3], dv[3], ab[3], aa[3], da[3];
                point_vel(d, body_b, p->pb, vb);
                point_vel(d, body_a, p->pa, va);
                v3_sub(dv, vb, va);
                point_acc(d, body_b, p->pb, p->dpb, ab);
                point_acc(d, body_a, p->pa, p->dpa, aa);
                v3_sub(da, ab, aa);
                d->jdot[dir][row] = v3_dot(dfr + 3 * dir, dv) + v3_dot(fr + 3 * dir, da);
            }
        }
    }
}

void cdyn_model_contacts_dense(const cdyn_model *m, cdyn_data *d)
{
    if (d->jac_dense[0] == NULL)
        return;
    const size_t nc = (size_t)m->nc;
    for (int dir = 0; dir < 3; ++dir) {
        double *J = d->jac_dense[dir];
        memset(J, 0, sizeof(double) * nc * (size_t)m->nv);
        for (int j = 0; j < m->nv; ++j)
            for (int p = m->jac_colptr[j]; p < m->jac_colptr[j + 1]; ++p)
                J[(size_t)m->jac_rowind[p] + (size_t)j * nc] = d->jac_values[dir][p];
    }
}

/* Without the broad phase (option off, or a caller's own subset): the pairs asked for. With it,
 * a swept pair evaluated here is recorded, so that the next broad phase resets its rows when
 * it is no longer a candidate. */
void cdyn_model_contacts(const cdyn_model *m, cdyn_data *d, int with_dot, const int *pairs)
{
    int n = 0;
    for (int pi = 0; pi < m->npair; ++pi) {
        if (pairs != NULL && !pairs[pi])
            continue;
        cdyn_model_contact_pair(m, d, pi, with_dot);
        n++;
        if (m->broad && m->pairs[pi].swept)
            cdyn_model_mark_dirty(d, pi);
    }
    d->bp_last = n;
    cdyn_model_contacts_dense(m, d);
}

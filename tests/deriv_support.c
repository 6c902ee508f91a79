/* The oracle of the per-step derivative tests (test_step_derivs.c, test_rigid_derivs.c): whole
 * steps from states perturbed in the documented tangent convention (exact quaternion
 * exponentials and logarithms, independent of the library's tangent maps) and central
 * differences of them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "deriv_support.h"
#include "model_support.h"

/* ---- quaternion helpers (Hamilton product, (w, x, y, z); tm_qmul, tm_qexp) ---- */

/* w with exp(1/2 (0, w)) = +-r (r unit) */
static void qlog(const double *r, double *w)
{
    const double sgn = r[0] < 0 ? -1.0 : 1.0;
    const double vn = sqrt(r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    const double t = 2.0 * atan2(vn, sgn * r[0]);
    for (int i = 0; i < 3; i++)
        w[i] = vn > 0 ? sgn * t * r[i + 1] / vn : 2.0 * sgn * r[i + 1];
}

dof dof_of(const cdyn_model *m, const double *q, int j)
{
    int qi[4], qi0[4];
    double G[4];
    const int n = cdyn_model_tangent_map(m, q, j, qi, G, NULL);
    assert_true(n == 1 || n == 4);
    dof d = {0, qi[0], 0};
    if (n == 4) {
        d.kind = 1;
        while (j - d.axis - 1 >= 0 && cdyn_model_tangent_map(m, q, j - d.axis - 1, qi0, NULL,
                                                             NULL) == 4 && qi0[0] == qi[0])
            d.axis++;
    }
    return d;
}

/* q (+) eps e_j: the documented convention (world-frame rotation of a free body's quaternion) */
void perturb_q(const cdyn_model *m, double *q, int j, double eps, int local)
{
    const dof d = dof_of(m, q, j);
    if (d.kind == 0) {
        q[d.qi] += eps;
        return;
    }
    double w[3] = {0, 0, 0}, e[4], out[4];
    w[d.axis] = eps;
    tm_qexp(w, e);
    if (local)
        tm_qmul(q + d.qi, e, out); /* the body-frame convention, for the negative check */
    else
        tm_qmul(e, q + d.qi, out);
    memcpy(q + d.qi, out, sizeof out);
}

/* tangent coordinate j of qa - qb (world-frame angles for quaternions) */
double tangent_diff(const cdyn_model *m, const double *qa, const double *qb, int j)
{
    const dof d = dof_of(m, qb, j);
    if (d.kind == 0)
        return qa[d.qi] - qb[d.qi];
    double cb[4] = {qb[d.qi], -qb[d.qi + 1], -qb[d.qi + 2], -qb[d.qi + 3]}, r[4], w[3];
    tm_qmul(qa + d.qi, cb, r);
    const double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int i = 0; i < 4; i++)
        r[i] /= n;
    qlog(r, w);
    return w[d.axis];
}

/* ---- the oracle: whole steps from perturbed states ---- */

void scene_open(scene *sc, cdyn_model *m, const cdyn_step_options *o)
{
    memset(sc, 0, sizeof *sc);
    sc->m = m;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, o, &sc->s, &rep), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &sc->x, NULL), CDYN_OK);
    sc->nv = cdyn_model_nv(m);
    sc->nc = cdyn_model_ncontact(m);
    sc->nl = cdyn_model_limit_rows(m);
    sc->nx = cdyn_step_deriv_nx(sc->s);
    /* the rigid schemes carry no deformation; the implicit one the contacts' and the stops' */
    assert_int_equal(sc->nx, 2 * sc->nv + (o->scheme == CDYN_SCHEME_IMPLICIT_NCP
                                               ? 3 * sc->nc + sc->nl : 0));
    assert_true(sc->nv <= 64);
}

void scene_close(scene *sc)
{
    cdyn_state_free(sc->x);
    cdyn_stepper_free(sc->s);
    cdyn_model_free(sc->m);
}

/* n steps from sc->x in place (to settle a scene) */
void settle(scene *sc, int n)
{
    for (int i = 0; i < n; i++) {
        cdyn_step_report r;
        const cdyn_status st = cdyn_step(sc->s, sc->tau, sc->x, &r);
        if (st != CDYN_OK)
            fail_msg("settle step %d: %s", i, r.solver.message);
    }
}

/* One step from sc->x moved by eps along input column j (j < nx: state, else tau j - nx);
 * the result's state coordinates relative to ref (its q in tangent differences) into out. */
void step_from(scene *sc, int j, double eps, const cdyn_state *ref, double *out)
{
    cdyn_state *y = NULL;
    assert_int_equal(cdyn_state_create(sc->m, NULL, &y, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_copy(y, sc->x, NULL), CDYN_OK);
    double tau[64];
    memcpy(tau, sc->tau, sizeof tau);
    const int nv = sc->nv;
    if (j < nv)
        perturb_q(sc->m, y->q, j, eps, 0);
    else if (j < 2 * nv)
        y->v[j - nv] += eps;
    else if (j < sc->nx && j < 2 * nv + 3 * sc->nc)
        y->delta[j - 2 * nv] += eps;
    else if (j < sc->nx)
        y->limit_delta[j - 2 * nv - 3 * sc->nc] += eps;
    else
        tau[j - sc->nx] += eps;
    cdyn_step_report r;
    const cdyn_status st = cdyn_step(sc->s, tau, y, &r);
    if (st != CDYN_OK)
        fail_msg("oracle step (column %d, eps %g): %s", j, eps, r.solver.message);
    for (int i = 0; i < nv; i++) {
        out[i] = tangent_diff(sc->m, y->q, ref->q, i);
        out[nv + i] = y->v[i] - ref->v[i];
    }
    for (int i = 0; i < sc->nx - 2 * nv; i++) /* delta, then limit_delta (implicit) */
        out[2 * nv + i] = i < 3 * sc->nc ? y->delta[i] - ref->delta[i]
                                         : y->limit_delta[i - 3 * sc->nc] -
                                               ref->limit_delta[i - 3 * sc->nc];
    cdyn_state_free(y);
}

/* The step under test from sc->x: the new state into x1, A and B, the report. */
void derivs(scene *sc, cdyn_deriv_side side, cdyn_state *x1, double *A, double *B,
                   cdyn_step_deriv_report *dr)
{
    assert_int_equal(cdyn_state_copy(x1, sc->x, NULL), CDYN_OK);
    cdyn_step_report r;
    assert_int_equal(cdyn_step(sc->s, sc->tau, x1, &r), CDYN_OK);
    const cdyn_status st = cdyn_step_derivatives(sc->s, side, sc->nx, sc->nv, A, B, dr);
    if (st != CDYN_OK)
        fail_msg("cdyn_step_derivatives: %s", dr->solver.message);
}

/* max |J - Jfd| / max |Jfd| over the columns of A and B, by central differences of step eps */
double central_error(scene *sc, double eps, const char *name)
{
    const int nx = sc->nx, nv = sc->nv, ncol = nx + nv;
    double *A = calloc((size_t)nx * nx, sizeof(double)), *B = calloc((size_t)nx * nv, 8);
    double *p = malloc((size_t)nx * sizeof(double)), *mi = malloc((size_t)nx * sizeof(double));
    cdyn_state *x1 = NULL;
    assert_int_equal(cdyn_state_create(sc->m, NULL, &x1, NULL), CDYN_OK);
    cdyn_step_deriv_report dr;
    derivs(sc, CDYN_DERIV_RELEASED, x1, A, B, &dr);
    assert_int_equal(dr.degenerate, 0);
    double err = 0, big = 0;
    for (int j = 0; j < ncol; j++) {
        step_from(sc, j, eps, x1, p);
        step_from(sc, j, -eps, x1, mi);
        const double *col = j < nx ? A + (size_t)j * nx : B + (size_t)(j - nx) * nx;
        for (int i = 0; i < nx; i++) {
            const double fd = (p[i] - mi[i]) / (2 * eps);
            err = fmax(err, fabs(col[i] - fd));
            big = fmax(big, fabs(fd));
        }
    }
    const double rel = err / big;
    if (tm_verbose())
        printf("%-28s nx %3d rows %d  margins: normal %.3g m, cone %.3g, slip %.3g m/s  "
               "max|A,B| %.3g  rel.err %.2e  (%.1f us)\n", name, nx, dr.rows, dr.normal_margin,
               dr.cone_margin, dr.slip_margin, big, rel, 1e6 * dr.time);
    cdyn_state_free(x1);
    free(A);
    free(B);
    free(p);
    free(mi);
    return rel;
}

double urand(double lo, double hi)
{
    return lo + (hi - lo) * (double)rand() / RAND_MAX;
}


double one_sided(scene *sc, const cdyn_state *x1, int j, double e, int i)
{
    const int nx = sc->nx;
    double *f1 = malloc((size_t)nx * sizeof(double)), *f2 = malloc((size_t)nx * sizeof(double));
    step_from(sc, j, e, x1, f1);
    step_from(sc, j, 2 * e, x1, f2);
    const double d = (4 * f1[i] - f2[i]) / (2 * e); /* f(0) = 0: differences from x1 */
    free(f1);
    free(f2);
    return d;
}

/* A planar 2-link chain (revolute joints, pivot 0.2 m above the ground line) whose tip disk
 * (radius 0.03) presses on the ground and slides under gravity and joint torques; joint damping
 * d0, d1 (N m s/rad). */
cdyn_model *two_link_chain(double d0, double d1)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    const double base[3] = {0, 0.2, 0}, p2[3] = {0.15, 0, 0}, z[3] = {0, 0, 1};
    const double com[3] = {0.075, 0, 0};
    cdyn_body_desc l[2] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, base, z, 0.3, com, 1e-4, 1e-4, 6e-4),
                           tm_joint(CDYN_JOINT_REVOLUTE, 0, p2, z, 0.2, com, 1e-4, 1e-4, 4e-4)};
    l[0].damping = d0;
    l[1].damping = d1;
    int ids[2], gl, gt, pair;
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 2, l, ids, NULL), CDYN_OK);
    cdyn_geom_desc line, tip = tm_geom(ids[1], CDYN_GEOM_CIRCLE, 0.03, 0, 0);
    cdyn_geom_desc_defaults(&line);
    tip.frame.pos[0] = 0.15;
    assert_int_equal(cdyn_builder_add_geom(b, &line, &gl, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &tip, &gt, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gl;
    pd.geom_b = gt;
    pd.mu = 0.3;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &pair, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

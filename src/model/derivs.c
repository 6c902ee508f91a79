/* Analytic derivatives of the model's terms (cdyn_eval_derivatives): the inverse dynamics
 *     id(q, v, a, lambda) = M(q) a + h(q, v) - sum_d Gamma_d(q)' lambda_d
 * and its derivatives along the tangent directions G(q) e_j and in v, and d(Gamma_d v)/dq G.
 *
 * The tree part differentiates the world-frame RNEA (chains.c) in forward mode, one dof at a
 * time. Moving q_j along G e_j moves the subtree of j's body rigidly with the spatial velocity
 * S_j and nothing else, so every world quantity X attached to a body k of that subtree turns as
 * Xdot = S_j x X (motion or force cross product), inertias as Idot X = S_j x_f (I X) -
 * I (S_j x_m X), and the recursion touches only that subtree and the path above it: O(subtree +
 * depth) per dof, linear in the number of free bodies. Free joints are the exception: their
 * angular columns (e; o x e) follow the body's origin o only, so moving a linear dof e_j turns
 * them by (0; e_j x e). Derivation: docs/theory.md, "Model derivatives". */
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "linalg/csc.h"
#include "model/model_internal.h"
#include "model/spatial.h"

/* Per-body scratch: base quantities and one dof's derivatives. */
enum { B_AA = 0, B_ALPHA = 6, B_F = 12, B_IV = 18, B_DV = 24, B_DA = 30, B_DAV = 36, B_DF = 42 };
#define BODY_SCR CDYN_DERIV_BODY_SCRATCH

size_t cdyn_model_deriv_scratch(const cdyn_model *m)
{
    const size_t c = (size_t)m->max_pair_cols;
    return BODY_SCR * (size_t)m->nbody + 30 * c + 3 * c * c + 8;
}

static double *bscr(const cdyn_data *d, int k)
{
    return d->dscr + BODY_SCR * (size_t)k;
}

/* Subtree of body b in preorder (parents first) into order; returns its size. */
static int subtree(const cdyn_model *m, int b, int *order, int *stack)
{
    int n = 0, top = 0;
    stack[top++] = b;
    while (top > 0) {
        const int k = stack[--top];
        order[n++] = k;
        for (int c = m->child_ptr[k + 1] - 1; c >= m->child_ptr[k]; --c)
            stack[top++] = m->child_list[c];
    }
    return n;
}

/* r = I x for body k's spatial inertia. */
static void inertia_mul(const dbody *b, const double *x, double *r)
{
    sp_inertia_mul(r, b->m, b->h, b->I, x);
}

/* r = (d/ds I) x when the body turns with the motion U: U x_f (I x) - I (U x_m x). */
static void inertia_dot_mul(const dbody *b, const double *U, const double *x, double *r)
{
    double Ix[6], Ux[6], IUx[6];
    inertia_mul(b, x, Ix);
    sp_cross_f(r, U, Ix);
    sp_cross_m(Ux, U, x);
    inertia_mul(b, Ux, IUx);
    for (int i = 0; i < 6; ++i)
        r[i] -= IUx[i];
}

/* Base pass: joint-acceleration part Aa, alpha = A + Aa - g, f = I alpha + V x_f I V summed
 * over subtrees into F, and id's tree part. */
static void base_pass(const cdyn_model *m, cdyn_data *d, const double *a)
{
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *mb = &m->bodies[k];
        const dbody *b = &d->bodies[k];
        double *s = bscr(d, k);
        if (mb->parent >= 0)
            memcpy(s + B_AA, bscr(d, mb->parent) + B_AA, 6 * sizeof(double));
        else
            memset(s + B_AA, 0, 6 * sizeof(double));
        for (int t = 0; t < mb->nv && a != NULL; ++t)
            for (int i = 0; i < 6; ++i)
                s[B_AA + i] += d->S[6 * (size_t)(mb->vadr + t) + i] * a[mb->vadr + t];
        for (int i = 0; i < 6; ++i)
            s[B_ALPHA + i] = b->A[i] + s[B_AA + i] - (i >= 3 ? m->gravity[i - 3] : 0.0);
        double Ia[6], c[6];
        inertia_mul(b, s + B_ALPHA, Ia);
        inertia_mul(b, b->V, s + B_IV);
        sp_cross_f(c, b->V, s + B_IV);
        for (int i = 0; i < 6; ++i)
            s[B_F + i] = Ia[i] + c[i];
    }
    for (int k = m->nbody - 1; k >= 0; --k) {
        const mbody *mb = &m->bodies[k];
        const double *F = bscr(d, k) + B_F;
        for (int t = 0; t < mb->nv; ++t)
            d->id[mb->vadr + t] = sp_dot(d->S + 6 * (size_t)(mb->vadr + t), F);
        if (mb->parent >= 0)
            for (int i = 0; i < 6; ++i)
                bscr(d, mb->parent)[B_F + i] += F[i];
    }
}

/* Position of (i, j) in the derivative pattern (present for dofs on one path). */
static int der_pos(const cdyn_model *m, int i, int j)
{
    return cdyn_csc_find(m->der_colptr, m->der_rowind, i, j);
}

/* Sum the subtree's df into dF (reverse preorder), then write column j of out: Sdot_i' F +
 * S_i' dF for the dofs of the subtree (dS(i) gives Sdot_i or NULL for zero) and S_i' dF_b for
 * the dofs above body b. */
typedef void (*sdot_fn)(const cdyn_model *m, const cdyn_data *d, int j, int i, double *r);

static void write_column(const cdyn_model *m, cdyn_data *d, int j, const int *order, int n,
                         sdot_fn sdot, double *out)
{
    for (int t = n - 1; t > 0; --t) {
        const int k = order[t];
        double *dfp = bscr(d, m->bodies[k].parent) + B_DF;
        for (int i = 0; i < 6; ++i)
            dfp[i] += bscr(d, k)[B_DF + i];
    }
    for (int t = 0; t < n; ++t) {
        const mbody *mb = &m->bodies[order[t]];
        const double *s = bscr(d, order[t]);
        for (int u = 0; u < mb->nv; ++u) {
            const int i = mb->vadr + u;
            double val = sp_dot(d->S + 6 * (size_t)i, s + B_DF);
            if (sdot != NULL) {
                double dS[6];
                sdot(m, d, j, i, dS);
                val += sp_dot(dS, s + B_F);
            }
            out[der_pos(m, i, j)] = val;
        }
    }
    const int b = order[0];
    for (int k = m->bodies[b].parent; k >= 0; k = m->bodies[k].parent)
        for (int u = 0; u < m->bodies[k].nv; ++u) {
            const int i = m->bodies[k].vadr + u;
            out[der_pos(m, i, j)] = sp_dot(d->S + 6 * (size_t)i, bscr(d, b) + B_DF);
        }
}

/* Column j of d id/dq G (tree part). */
static void column_q(const cdyn_model *m, cdyn_data *d, const double *v, const double *a, int j,
                     int *order, int *stack)
{
    const int bj = m->dof_body[j];
    const double *Sj = d->S + 6 * (size_t)j;
    const int n = subtree(m, bj, order, stack);
    for (int t = 0; t < n; ++t) {
        const int k = order[t];
        const mbody *mb = &m->bodies[k];
        const dbody *b = &d->bodies[k];
        double *s = bscr(d, k);
        if (k == bj) {
            memset(s + B_DV, 0, 18 * sizeof(double)); /* DV, DA, DAV */
            if (cdyn_model_free_linear(m, j)) {
                v3_cross(s + B_DV + 3, Sj + 3, b->V);        /* (0; e_j x w) */
                v3_cross(s + B_DA + 3, Sj + 3, s + B_AA);    /* (0; e_j x wdot) */
            }
        } else {
            const double *sp = bscr(d, mb->parent), *Vp = d->bodies[mb->parent].V;
            memcpy(s + B_DV, sp + B_DV, 18 * sizeof(double));
            if (mb->nv == 1) {
                const double *Sl = d->S + 6 * (size_t)mb->vadr;
                const double vl = v[mb->vadr], al = a != NULL ? a[mb->vadr] : 0.0;
                double c[6], c2[6];
                sp_cross_m(c, Sj, Sl); /* Sdot_l */
                for (int i = 0; i < 6; ++i) {
                    s[B_DV + i] += c[i] * vl;
                    s[B_DA + i] += c[i] * al;
                }
                sp_cross_m(c2, Vp, c);
                sp_cross_m(c, sp + B_DV, Sl);
                for (int i = 0; i < 6; ++i)
                    s[B_DAV + i] += (c[i] + c2[i]) * vl;
            }
        }
        /* df = Idot alpha + I alphadot + DV x_f (I V) + V x_f (Idot V + I DV) */
        double dal[6], r1[6], r2[6], r3[6], r4[6];
        for (int i = 0; i < 6; ++i)
            dal[i] = s[B_DA + i] + s[B_DAV + i];
        inertia_dot_mul(b, Sj, s + B_ALPHA, r1);
        inertia_mul(b, dal, r2);
        sp_cross_f(r3, s + B_DV, s + B_IV);
        inertia_dot_mul(b, Sj, b->V, r4);
        double IDV[6];
        inertia_mul(b, s + B_DV, IDV);
        for (int i = 0; i < 6; ++i)
            r4[i] += IDV[i];
        double r5[6];
        sp_cross_f(r5, b->V, r4);
        for (int i = 0; i < 6; ++i)
            s[B_DF + i] = r1[i] + r2[i] + r3[i] + r5[i];
    }
    write_column(m, d, j, order, n, cdyn_model_sdot, d->der_q);
}

/* Column j of d id/dv. */
static void column_v(const cdyn_model *m, cdyn_data *d, const double *v, int j, int *order,
                     int *stack)
{
    const int bj = m->dof_body[j];
    const double *Sj = d->S + 6 * (size_t)j;
    const int n = subtree(m, bj, order, stack);
    for (int t = 0; t < n; ++t) {
        const int k = order[t];
        const mbody *mb = &m->bodies[k];
        const dbody *b = &d->bodies[k];
        double *s = bscr(d, k);
        /* DV = S_j in the whole subtree; DAV = d A / dv_j */
        memcpy(s + B_DV, Sj, 6 * sizeof(double));
        if (k == bj) {
            memset(s + B_DAV, 0, 6 * sizeof(double));
            if (mb->joint == CDYN_JOINT_FREE) {
                /* A = (0; odot x w) */
                const int nlin = cdyn_model_free_nlin(m);
                double od[3] = {0, 0, 0};
                for (int i = 0; i < nlin; ++i)
                    od[i] = v[mb->vadr + i];
                if (cdyn_model_free_linear(m, j))
                    v3_cross(s + B_DAV + 3, Sj + 3, b->V);
                else
                    v3_cross(s + B_DAV + 3, od, Sj);
            } else if (mb->parent >= 0) {
                sp_cross_m(s + B_DAV, d->bodies[mb->parent].V, Sj);
            }
        } else {
            memcpy(s + B_DAV, bscr(d, mb->parent) + B_DAV, 6 * sizeof(double));
            if (mb->nv == 1) {
                double c[6];
                sp_cross_m(c, Sj, d->S + 6 * (size_t)mb->vadr);
                for (int i = 0; i < 6; ++i)
                    s[B_DAV + i] += c[i] * v[mb->vadr];
            }
        }
        /* df = I DAV + DV x_f (I V) + V x_f (I DV) */
        double r1[6], r2[6], IDV[6], r3[6];
        inertia_mul(b, s + B_DAV, r1);
        sp_cross_f(r2, Sj, s + B_IV);
        inertia_mul(b, Sj, IDV);
        sp_cross_f(r3, b->V, IDV);
        for (int i = 0; i < 6; ++i)
            s[B_DF + i] = r1[i] + r2[i] + r3[i];
    }
    write_column(m, d, j, order, n, NULL, d->der_v);
}

/* The derivatives for the eval's (q, v): v is needed per dof (the bodies keep only V). */
static void tree_derivs(const cdyn_model *m, cdyn_data *d, const double *v, const double *a)
{
    base_pass(m, d, a);
    memset(d->der_q, 0, (size_t)m->der_nnz * sizeof(double));
    memset(d->der_v, 0, (size_t)m->der_nnz * sizeof(double));
    int *order = d->dstack, *stack = d->dstack + m->nbody;
    for (int j = 0; j < m->nv; ++j) {
        column_q(m, d, v, a, j, order, stack);
        column_v(m, d, v, j, order, stack);
    }
}

static void scatter_dense(const cdyn_model *m, const double *vals, double *dense)
{
    const size_t nv = (size_t)m->nv;
    memset(dense, 0, nv * nv * sizeof(double));
    for (int j = 0; j < m->nv; ++j)
        for (int p = m->der_colptr[j]; p < m->der_colptr[j + 1]; ++p)
            dense[(size_t)m->der_rowind[p] + (size_t)j * nv] = vals[p];
}

cdyn_status cdyn_eval_derivatives(const cdyn_model *m, cdyn_data *d, const double *a,
                                  const double *lambda, const int *rows, cdyn_report *report)
{
    cdyn_report_clear(report, "model");
    if (m == NULL || d == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "model or data is NULL");
    if (d->model != m)
        return cdyn_fail(report, CDYN_EINVAL, "data was created for another model");
    if (!(d->valid & CDYN_EVAL_CONTACTS) || !d->has_v)
        return cdyn_fail(report, CDYN_EINVAL, "the last cdyn_eval must include "
                                              "CDYN_EVAL_CONTACTS and v");
    for (int i = 0; i < m->nv && a != NULL; ++i)
        if (!isfinite(a[i]))
            return cdyn_fail(report, CDYN_EINVAL, "a[%d] is not finite", i);
    if (lambda != NULL)
        for (int i = 0; i < 3 * m->nc; ++i)
            if (!isfinite(lambda[i]))
                return cdyn_fail(report, CDYN_EINVAL, "lambda[%d] is not finite", i);
    tree_derivs(m, d, d->v, a);
    cdyn_model_damping_force(m, d->v, d->id);
    cdyn_model_damping_dv(m, d);
    cdyn_model_contact_derivs(m, d, lambda, rows);
    if (d->der_q_dense != NULL) {
        scatter_dense(m, d->der_q, d->der_q_dense);
        scatter_dense(m, d->der_v, d->der_v_dense);
    }
    d->der_valid = 1;
    return CDYN_OK;
}

/* ---- accessors ---- */

const double *cdyn_data_inverse_dynamics(const cdyn_data *d)
{
    return d != NULL && d->der_valid ? d->id : NULL;
}

static cdyn_status der_csc(const cdyn_data *d, const double *vals, cdyn_csc *D)
{
    if (d == NULL || D == NULL || !d->der_valid)
        return CDYN_EINVAL;
    D->nrows = D->ncols = d->model->nv;
    D->colptr = d->model->der_colptr;
    D->rowind = d->model->der_rowind;
    D->values = vals;
    return CDYN_OK;
}

int cdyn_model_deriv_nnz(const cdyn_model *m)
{
    return m != NULL ? m->der_nnz : -1;
}

cdyn_status cdyn_model_deriv_keep(const cdyn_model *m, const int *pairs, unsigned char *keep)
{
    if (m == NULL || keep == NULL)
        return CDYN_EINVAL;
    memcpy(keep, m->der_tree, (size_t)m->der_nnz);
    for (int pi = 0; pi < m->npair; ++pi) {
        if (pairs != NULL && pairs[pi] == 0)
            continue;
        const mpair *pr = &m->pairs[pi];
        for (int k = 0; k < pr->ncols * pr->ncols; ++k)
            keep[m->der_map[pr->dmap0 + k]] = 1;
    }
    return CDYN_OK;
}

cdyn_status cdyn_data_id_dq_csc(const cdyn_data *d, cdyn_csc *D)
{
    return der_csc(d, d != NULL ? d->der_q : NULL, D);
}

cdyn_status cdyn_data_id_dv_csc(const cdyn_data *d, cdyn_csc *D)
{
    return der_csc(d, d != NULL ? d->der_v : NULL, D);
}

const double *cdyn_data_id_dq(const cdyn_data *d)
{
    return d != NULL && d->der_valid ? d->der_q_dense : NULL;
}

const double *cdyn_data_id_dv(const cdyn_data *d)
{
    return d != NULL && d->der_valid ? d->der_v_dense : NULL;
}

cdyn_status cdyn_data_jacobian_dq_v_csc(const cdyn_data *d, cdyn_dir dir, cdyn_csc *J)
{
    if (d == NULL || J == NULL || !d->der_valid || (int)dir < 0 || (int)dir > 2)
        return CDYN_EINVAL;
    J->nrows = d->model->nc;
    J->ncols = d->model->nv;
    J->colptr = d->model->jac_colptr;
    J->rowind = d->model->jac_rowind;
    J->values = d->jac_dq_v[dir];
    return CDYN_OK;
}

const double *cdyn_data_jacobian_dq_v(const cdyn_data *d, cdyn_dir dir)
{
    if (d == NULL || !d->der_valid || (int)dir < 0 || (int)dir > 2)
        return NULL;
    return d->jac_dq_v_dense[dir];
}

#include "step/contact_space.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <string.h>

size_t cs_trees_ints(int nv, int nbody)
{
    return 4 * (size_t)nv + 1 + (size_t)nbody;
}

void cs_trees_init(cs_trees *t, const cdyn_model *m, int *ints)
{
    const int nv = cdyn_model_nv(m), nb = cdyn_model_nbody(m);
    t->tree_dofs = ints;
    t->dof_tree = ints + nv;
    t->dof_local = ints + 2 * (size_t)nv;
    t->tree_ptr = ints + 3 * (size_t)nv;
    int *body_tree = ints + 4 * (size_t)nv + 1;
    /* Bodies come after their parents: a body's tree is its parent's, or a new one for a body
     * on the ground. Trees are numbered in order of their first dof-carrying body. */
    for (int b = 0; b < nb; b++)
        body_tree[b] = -1;
    int ntree = 0;
    for (int b = 0; b < nb; b++) {
        cdyn_body_info bi;
        cdyn_model_body_info(m, b, &bi);
        int tree = bi.parent == CDYN_GROUND ? -1 : body_tree[bi.parent];
        if (tree < 0 && bi.nv > 0)
            tree = ntree++;
        body_tree[b] = tree;
        for (int j = 0; j < bi.nv; j++)
            t->dof_tree[bi.vadr + j] = tree;
    }
    /* Counting sort of the dofs by tree, in dof order within each tree. */
    t->ntree = ntree;
    for (int T = 0; T <= ntree; T++)
        t->tree_ptr[T] = 0;
    for (int j = 0; j < nv; j++)
        t->tree_ptr[t->dof_tree[j] + 1]++;
    t->max_tree = 0;
    for (int T = 0; T < ntree; T++) {
        if (t->tree_ptr[T + 1] > t->max_tree)
            t->max_tree = t->tree_ptr[T + 1];
        t->tree_ptr[T + 1] += t->tree_ptr[T];
    }
    for (int T = 0; T < ntree; T++)
        body_tree[T] = t->tree_ptr[T]; /* reused as fill pointers (ntree <= nb) */
    for (int j = 0; j < nv; j++) {
        const int k = body_tree[t->dof_tree[j]]++;
        t->tree_dofs[k] = j;
        t->dof_local[j] = k - t->tree_ptr[t->dof_tree[j]];
    }
}

static void *arena_array(cdyn_stepper *s, size_t count, size_t elem)
{
    return cdyn_mem_array(&s->arena.as, count == 0 ? 1 : count, elem);
}

/* Jacobians of the three directions as CSC (one pattern). */
static void jacobians(const cdyn_stepper *s, cdyn_csc J[3])
{
    for (int d = 0; d < 3; d++)
        cdyn_data_jacobian_csc(s->data, (cdyn_dir)d, &J[d]);
}

void cs_contact_velocity(const cdyn_stepper *s, const cs_problem *p, const double *x, double *y)
{
    cdyn_csc J[3];
    jacobians(s, J);
    for (int c = 0; c < p->m; c++)
        y[c] = 0;
    const int *pos = p->rows + p->k; /* the row positions follow the rows (cs_build) */
    for (int j = 0; j < J[0].ncols; j++)
        for (int k = J[0].colptr[j]; k < J[0].colptr[j + 1]; k++) {
            const int c = pos[J[0].rowind[k]];
            if (c < 0)
                continue;
            for (int d = 0; d < p->nd; d++)
                y[c * p->nd + d] += J[d].values[k] * x[j];
        }
}

cdyn_status cs_build(cdyn_stepper *s, const cs_trees *t, const double *v, const double *tau,
                     double h, cs_problem *p, cdyn_report *r)
{
    const int nv = s->nv, nc = s->nc, nd = s->dim == 2 ? 2 : 3;
    memset(p, 0, sizeof *p);
    p->nd = nd;
    /* rows, then the position of each model row in the problem (-1: not taking part) */
    p->rows = arena_array(s, (size_t)2 * nc, sizeof(int));
    p->chol_off = arena_array(s, (size_t)t->ntree + 1, sizeof(int));
    p->vfree = arena_array(s, (size_t)nv, sizeof(double));
    if (p->rows == NULL || p->chol_off == NULL || p->vfree == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "contact space: out of memory");
    int *pos = p->rows + nc;
    const int *active = cdyn_data_active(s->data);
    for (int i = 0; i < nc; i++) {
        pos[i] = -1;
        if (active[i]) {
            pos[i] = p->k;
            p->rows[p->k++] = i;
        }
    }
    /* rows[] is read as rows[0..k) and pos as rows + k in cs_contact_velocity: move pos. */
    memmove(p->rows + p->k, pos, (size_t)nc * sizeof(int));
    pos = p->rows + p->k;
    p->m = nd * p->k;
    p->mu = arena_array(s, (size_t)p->k, sizeof(double));
    p->r = arena_array(s, (size_t)p->m, sizeof(double));
    p->wdiag = arena_array(s, (size_t)p->m, sizeof(double));
    if (p->mu == NULL || p->r == NULL || p->wdiag == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "contact space: out of memory");
    for (int c = 0; c < p->k; c++) {
        cdyn_contact ct;
        cdyn_pair_info pi;
        cdyn_data_contact(s->data, p->rows[c], &ct);
        cdyn_model_pair_info(s->model, ct.pair, &pi);
        p->mu[c] = pi.mu;
    }

    /* Factor every tree's block of M. */
    size_t total = 0;
    for (int T = 0; T < t->ntree; T++) {
        const size_t nt = (size_t)(t->tree_ptr[T + 1] - t->tree_ptr[T]);
        p->chol_off[T] = (int)total;
        total += nt * nt;
    }
    p->chol = arena_array(s, total, sizeof(double));
    if (p->chol == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "contact space: out of memory");
    memset(p->chol, 0, total * sizeof(double));
    cdyn_csc M;
    cdyn_data_mass_csc(s->data, &M);
    for (int j = 0; j < nv; j++) {
        const int T = t->dof_tree[j], nt = t->tree_ptr[T + 1] - t->tree_ptr[T];
        double *A = p->chol + p->chol_off[T];
        for (int k = M.colptr[j]; k < M.colptr[j + 1]; k++) {
            const int i = M.rowind[k];
            if (i >= j)
                A[t->dof_local[i] + (size_t)t->dof_local[j] * nt] = M.values[k];
        }
    }
    /* Joint damping implicitly: M + h D in place of M (D diagonal; the bias holds D v, so
     * (M + h D)(v+ - v) = h (tau - bias) + J' p is M (v+ - v) = h (tau - h0 - D v+) + J' p). */
    double *damp = arena_array(s, (size_t)nv, sizeof(double));
    if (damp == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "contact space: out of memory");
    if (cdyn_model_joint_damping(s->model, damp) > 0)
        for (int j = 0; j < nv; j++) {
            const int T = t->dof_tree[j], nt = t->tree_ptr[T + 1] - t->tree_ptr[T];
            const size_t jl = (size_t)t->dof_local[j];
            p->chol[p->chol_off[T] + jl + jl * (size_t)nt] += h * damp[j];
        }
    const double *bias = cdyn_data_bias(s->data);
    double *b = arena_array(s, (size_t)t->max_tree, sizeof(double));
    if (b == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "contact space: out of memory");
    for (int T = 0; T < t->ntree; T++) {
        const int nt = t->tree_ptr[T + 1] - t->tree_ptr[T];
        double *A = p->chol + p->chol_off[T];
        /* Only the lower triangle was filled from M's CSC; dense_chol reads it alone. */
        if (cdyn_dense_chol(nt, A, nt) != CDYN_OK)
            return cdyn_fail(r, CDYN_ESINGULAR, "M(q) is not positive definite (tree %d)", T);
        const int *dofs = t->tree_dofs + t->tree_ptr[T];
        for (int a = 0; a < nt; a++)
            b[a] = h * ((tau != NULL ? tau[dofs[a]] : 0.0) - bias[dofs[a]]);
        cdyn_dense_chol_solve(nt, A, nt, 1, b, nt);
        for (int a = 0; a < nt; a++)
            p->vfree[dofs[a]] = v[dofs[a]] + b[a];
    }

    /* r = J v_free + Psi / h on the normals. */
    cs_contact_velocity(s, p, p->vfree, p->r);
    const double *gap = cdyn_data_gap(s->data);
    for (int c = 0; c < p->k; c++)
        p->r[c * nd] += gap[p->rows[c]] / h;

    /* W = sum_T J_T M_T^-1 J_T': first the rows touching each tree, to size everything. */
    cdyn_csc J[3];
    jacobians(s, J);
    int *mark = arena_array(s, (size_t)nc, sizeof(int));       /* last tree that saw the row */
    int *local = arena_array(s, (size_t)nc, sizeof(int));      /* its index in that tree */
    int *trows = arena_array(s, (size_t)nc, sizeof(int));      /* rows of the current tree */
    int *tcount = arena_array(s, (size_t)t->ntree, sizeof(int));
    if (mark == NULL || local == NULL || trows == NULL || tcount == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "contact space: out of memory");
    for (int i = 0; i < nc; i++)
        mark[i] = -1;
    size_t ntrip = 0, maxjt = 0, maxw = 0;
    for (int T = 0; T < t->ntree; T++) {
        int cnt = 0;
        for (int a = t->tree_ptr[T]; a < t->tree_ptr[T + 1]; a++) {
            const int j = t->tree_dofs[a];
            for (int k = J[0].colptr[j]; k < J[0].colptr[j + 1]; k++) {
                const int i = J[0].rowind[k];
                if (pos[i] >= 0 && mark[i] != T) {
                    mark[i] = T;
                    cnt++;
                }
            }
        }
        tcount[T] = cnt;
        const size_t w = (size_t)nd * cnt, nt = (size_t)(t->tree_ptr[T + 1] - t->tree_ptr[T]);
        ntrip += w * (w + 1) / 2;
        if (w * nt > maxjt)
            maxjt = w * nt;
        if (w * w > maxw)
            maxw = w * w;
    }
    if (ntrip > (size_t)0x7fffffff)
        return cdyn_fail(r, CDYN_ETOOBIG, "contact space: W has too many entries");
    p->ti = arena_array(s, ntrip, sizeof(int));
    p->tj = arena_array(s, ntrip, sizeof(int));
    p->tx = arena_array(s, ntrip, sizeof(double));
    double *JT = arena_array(s, maxjt, sizeof(double));
    double *WT = arena_array(s, maxw, sizeof(double));
    if (p->ti == NULL || p->tj == NULL || p->tx == NULL || JT == NULL || WT == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "contact space: out of memory");
    for (int i = 0; i < nc; i++)
        mark[i] = -1;
    for (int c = 0; c < p->m; c++)
        p->wdiag[c] = 0;
    for (int T = 0; T < t->ntree; T++) {
        if (tcount[T] == 0)
            continue;
        const int nt = t->tree_ptr[T + 1] - t->tree_ptr[T], w = nd * tcount[T];
        int cnt = 0;
        memset(JT, 0, (size_t)w * nt * sizeof(double));
        for (int a = t->tree_ptr[T]; a < t->tree_ptr[T + 1]; a++) {
            const int j = t->tree_dofs[a], jl = a - t->tree_ptr[T];
            for (int k = J[0].colptr[j]; k < J[0].colptr[j + 1]; k++) {
                const int i = J[0].rowind[k];
                if (pos[i] < 0)
                    continue;
                if (mark[i] != T) {
                    mark[i] = T;
                    local[i] = cnt;
                    trows[cnt++] = i;
                }
                for (int d = 0; d < nd; d++)
                    JT[jl + (size_t)(local[i] * nd + d) * nt] = J[d].values[k];
            }
        }
        /* dof order within the tree is tree_dofs order = dof_local order */
        const double *L = p->chol + p->chol_off[T];
        cdyn_dense_chol_lsolve(nt, L, nt, w, JT, nt);
        cdyn_dense_gemm(1, 0, w, w, nt, 1.0, JT, nt, JT, nt, 0.0, WT, w);
        for (int bcol = 0; bcol < w; bcol++) {
            const int gj = pos[trows[bcol / nd]] * nd + bcol % nd;
            for (int a = 0; a < w; a++) {
                const int gi = pos[trows[a / nd]] * nd + a % nd;
                if (gi < gj)
                    continue;
                p->ti[p->ntrip] = gi;
                p->tj[p->ntrip] = gj;
                p->tx[p->ntrip] = WT[a + (size_t)bcol * w];
                p->ntrip++;
                if (gi == gj)
                    p->wdiag[gi] += WT[a + (size_t)bcol * w];
            }
        }
    }
    return CDYN_OK;
}

cdyn_status cs_apply_impulses(cdyn_stepper *s, const cs_trees *t, const cs_problem *p,
                              const double *imp, double *v_plus)
{
    const int nv = s->nv, nd = p->nd;
    const int *pos = p->rows + p->k;
    cdyn_csc J[3];
    jacobians(s, J);
    double *b = arena_array(s, (size_t)nv, sizeof(double));
    if (b == NULL)
        return CDYN_ENOMEM;
    for (int j = 0; j < nv; j++) {
        double acc = 0;
        for (int k = J[0].colptr[j]; k < J[0].colptr[j + 1]; k++) {
            const int c = pos[J[0].rowind[k]];
            if (c < 0)
                continue;
            for (int d = 0; d < nd; d++)
                acc += J[d].values[k] * imp[c * nd + d];
        }
        b[j] = acc;
    }
    double *bt = arena_array(s, (size_t)t->max_tree, sizeof(double));
    if (bt == NULL)
        return CDYN_ENOMEM;
    for (int T = 0; T < t->ntree; T++) {
        const int nt = t->tree_ptr[T + 1] - t->tree_ptr[T];
        const int *dofs = t->tree_dofs + t->tree_ptr[T];
        for (int a = 0; a < nt; a++)
            bt[a] = b[dofs[a]];
        cdyn_dense_chol_solve(nt, p->chol + p->chol_off[T], nt, 1, bt, nt);
        for (int a = 0; a < nt; a++)
            v_plus[dofs[a]] = p->vfree[dofs[a]] + bt[a];
    }
    return CDYN_OK;
}

void cs_solve_mass(const cs_trees *t, const cs_problem *p, double *x, double *scratch)
{
    for (int T = 0; T < t->ntree; T++) {
        const int nt = t->tree_ptr[T + 1] - t->tree_ptr[T];
        const int *dofs = t->tree_dofs + t->tree_ptr[T];
        int any = 0;
        for (int a = 0; a < nt; a++) {
            scratch[a] = x[dofs[a]];
            any |= scratch[a] != 0.0;
        }
        if (!any)
            continue;
        cdyn_dense_chol_solve(nt, p->chol + p->chol_off[T], nt, 1, scratch, nt);
        for (int a = 0; a < nt; a++)
            x[dofs[a]] = scratch[a];
    }
}

cdyn_status cs_begin(cdyn_stepper *s, const cs_trees *t, const double *tau, double h,
                     const cdyn_state *x0, cdyn_state *x1, cs_problem *p, cdyn_step_report *rep)
{
    cdyn_report *r = &rep->solver;
    /* cdyn_eval clears the report it is given: the step's report keeps summing iterations. */
    cdyn_report er;
    cdyn_status st = cdyn_eval(s->model, s->data, x0->q, x0->v,
                               CDYN_EVAL_MASS | CDYN_EVAL_BIAS | CDYN_EVAL_CONTACTS, &er);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "%s", er.message);
    if ((st = cs_build(s, t, x0->v, tau, h, p, r)) != CDYN_OK)
        return st;
    rep->nactive = p->k;
    memset(x1->delta, 0, 3 * (size_t)s->nc * sizeof(double));
    memset(x1->lambda, 0, 3 * (size_t)s->nc * sizeof(double));
    for (int i = 0; i < s->nc; i++)
        x1->mode[i] = CDYN_MODE_FREE;
    memcpy(x1->v, p->vfree, (size_t)s->nv * sizeof(double));
    return CDYN_OK;
}

cdyn_status cs_finish(cdyn_stepper *s, const cdyn_state *x0, double h, cdyn_state *x1,
                      cdyn_report *r)
{
    double *qdot = arena_array(s, (size_t)s->nq, sizeof(double));
    if (qdot == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "out of memory");
    /* The checks of these calls passed in cdyn_eval at x0. */
    cdyn_report mr;
    cdyn_status st = cdyn_model_qdot(s->model, x0->q, x1->v, qdot, &mr);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "%s", mr.message);
    for (int j = 0; j < s->nq; j++)
        x1->q[j] = x0->q[j] + h * qdot[j];
    st = cdyn_model_normalize_q(s->model, x1->q, &mr);
    return st == CDYN_OK ? CDYN_OK : cdyn_fail(r, st, "%s", mr.message);
}

/* The frictional contact problem: validation, the block view, u = W r + q and the natural-map
 * residual (include/cdyn/fc3d.h). */
#include "solvers/fc3d/fc3d_internal.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"

void fc3d_report_method(cdyn_fc3d_report *rep, const char *method)
{
    if (rep == NULL)
        return;
    snprintf(rep->method, sizeof rep->method, "%s", method != NULL ? method : "");
}

void fc3d_report_clear(cdyn_fc3d_report *rep, const char *method)
{
    if (rep == NULL)
        return;
    memset(rep, 0, sizeof *rep);
    rep->status = CDYN_OK;
    fc3d_report_method(rep, method);
}

cdyn_status fc3d_fail(cdyn_fc3d_report *rep, cdyn_status status, const char *fmt, ...)
{
    if (rep != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rep->message, sizeof rep->message, fmt, ap);
        va_end(ap);
        rep->status = status;
    }
    return status;
}

static cdyn_status check_blocks(int n, const cdyn_fc3d_blocks *b, cdyn_fc3d_report *rep)
{
    if (b->rowptr == NULL || b->colind == NULL || b->values == NULL)
        return fc3d_fail(rep, CDYN_EINVAL, "blocks: rowptr, colind or values is NULL");
    if (b->rowptr[0] != 0)
        return fc3d_fail(rep, CDYN_EINVAL, "blocks: rowptr[0] = %d, expected 0", b->rowptr[0]);
    /* The whole of rowptr before any walk over colind and values: their length is rowptr[n],
       and a row that ends past it (rowptr = {0, 3, 2}) would read beyond them (issue 18). */
    for (int i = 0; i < n; i++)
        if (b->rowptr[i + 1] < b->rowptr[i] || b->rowptr[i + 1] > INT_MAX / 9)
            return fc3d_fail(rep, CDYN_EINVAL, "blocks: rowptr[%d] = %d is out of order", i + 1,
                             b->rowptr[i + 1]);
    for (int i = 0; i < n; i++) {
        for (int k = b->rowptr[i]; k < b->rowptr[i + 1]; k++) {
            int j = b->colind[k];
            if (j < 0 || j >= n || (k > b->rowptr[i] && j <= b->colind[k - 1]))
                return fc3d_fail(rep, CDYN_EINVAL,
                                 "blocks: block row %d: column %d out of range or not increasing",
                                 i, j);
            if (fc3d_vec_bad(9, b->values + 9 * (size_t)k))
                return fc3d_fail(rep, CDYN_EINVAL, "blocks: block (%d, %d) is not finite", i, j);
        }
    }
    return CDYN_OK;
}

static cdyn_status check_problem(const cdyn_fc3d *p, cdyn_fc3d_report *rep)
{
    if (p == NULL)
        return fc3d_fail(rep, CDYN_EINVAL, "problem is NULL");
    if (p->n <= 0 || p->n > INT_MAX / 3)
        return fc3d_fail(rep, CDYN_EINVAL, "n = %d contacts: must be in 1..INT_MAX/3", p->n);
    if ((p->W == NULL) == (p->blocks == NULL))
        return fc3d_fail(rep, CDYN_EINVAL, "exactly one of W (dense) and blocks must be set");
    if (p->q == NULL || p->mu == NULL)
        return fc3d_fail(rep, CDYN_EINVAL, "q or mu is NULL");
    int m = 3 * p->n;
    for (int k = 0; k < m; k++)
        if (!isfinite(p->q[k]))
            return fc3d_fail(rep, CDYN_EINVAL, "q[%d] is not finite", k);
    for (int i = 0; i < p->n; i++)
        if (!(p->mu[i] >= 0.0) || !isfinite(p->mu[i]))
            return fc3d_fail(rep, CDYN_EINVAL, "mu[%d] = %g: must be finite and >= 0", i,
                             p->mu[i]);
    if (p->blocks != NULL)
        return check_blocks(p->n, p->blocks, rep);
    size_t len = cdyn_mem_matrix_len((size_t)m, (size_t)m);
    if (len == 0)
        return fc3d_fail(rep, CDYN_ETOOBIG, "dense W of %d rows does not fit in memory", m);
    for (size_t k = 0; k < len; k++)
        if (!isfinite(p->W[k]))
            return fc3d_fail(rep, CDYN_EINVAL, "W[%zu] (row %zu, column %zu) is not finite", k,
                             k % (size_t)m, k / (size_t)m);
    return CDYN_OK;
}

cdyn_status cdyn_fc3d_check(const cdyn_fc3d *problem, cdyn_fc3d_report *report)
{
    fc3d_report_clear(report, "check");
    return check_problem(problem, report);
}

/* Whether block (i, j) of a dense W (m = 3n rows) has a nonzero entry. */
int fc3d_dense_block_nonzero(const double *W, int m, int i, int j)
{
    for (int b = 0; b < 3; b++)
        for (int a = 0; a < 3; a++)
            if (W[(size_t)(3 * i + a) + (size_t)(3 * j + b) * (size_t)m] != 0.0)
                return 1;
    return 0;
}

static double qnorm(const double *q, int m)
{
    double s = 0.0;
    for (int k = 0; k < m; k++)
        s += q[k] * q[k];
    return sqrt(s);
}

cdyn_status fc3d_check_problem(const cdyn_fc3d *p, cdyn_fc3d_report *rep)
{
    return check_problem(p, rep);
}

cdyn_status fc3d_sys_init(fc3d_sys *sys, const cdyn_fc3d *p, const cdyn_allocator *allocator,
                          cdyn_fc3d_report *rep)
{
    memset(sys, 0, sizeof *sys);
    cdyn_status st = check_problem(p, rep);
    if (st != CDYN_OK)
        return st;
    int n = p->n, m = 3 * n;
    size_t nblocks = 0;
    if (p->W != NULL)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                nblocks += (size_t)(i == j || fc3d_dense_block_nonzero(p->W, m, i, j));
    if (nblocks > (size_t)INT_MAX / 9)
        return fc3d_fail(rep, CDYN_ETOOBIG, "W has too many blocks");
    cdyn_carve cv = {0, 0};
    size_t o_diag = cdyn_carve_take(&cv, (size_t)n, sizeof(int));
    size_t o_rp = cdyn_carve_take(&cv, p->W != NULL ? (size_t)n + 1 : 0, sizeof(int));
    size_t o_ci = cdyn_carve_take(&cv, nblocks, sizeof(int));
    size_t o_v = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, nblocks, 9), sizeof(double));
    if (cv.overflow)
        return fc3d_fail(rep, CDYN_ETOOBIG, "W's block copy does not fit in memory");
    char *mem = cdyn_mem_alloc(allocator, cv.off);
    if (mem == NULL)
        return fc3d_fail(rep, CDYN_ENOMEM, "out of memory for the block view of W (%zu bytes)",
                         cv.off);
    sys->owned = mem;
    sys->allocator = allocator;
    sys->n = n;
    sys->q = p->q;
    sys->mu = p->mu;
    int *diag = (int *)(mem + o_diag);
    if (p->W != NULL) {
        int *rp = (int *)(mem + o_rp), *ci = (int *)(mem + o_ci);
        double *v = (double *)(mem + o_v);
        int k = 0;
        rp[0] = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i != j && !fc3d_dense_block_nonzero(p->W, m, i, j))
                    continue;
                ci[k] = j;
                for (int b = 0; b < 3; b++)
                    for (int a = 0; a < 3; a++)
                        v[9 * (size_t)k + a + 3 * b] =
                            p->W[(size_t)(3 * i + a) + (size_t)(3 * j + b) * (size_t)m];
                k++;
            }
            rp[i + 1] = k;
        }
        sys->rowptr = rp;
        sys->colind = ci;
        sys->values = v;
    } else {
        sys->rowptr = p->blocks->rowptr;
        sys->colind = p->blocks->colind;
        sys->values = p->blocks->values;
    }
    for (int i = 0; i < n; i++) {
        diag[i] = -1;
        for (int k = sys->rowptr[i]; k < sys->rowptr[i + 1]; k++)
            if (sys->colind[k] == i)
                diag[i] = k;
    }
    sys->diag = diag;
    sys->qnorm = qnorm(p->q, m);
    return CDYN_OK;
}

void fc3d_sys_refresh(fc3d_sys *sys, const cdyn_fc3d *p)
{
    const int n = p->n, m = 3 * n;
    sys->q = p->q;
    sys->mu = p->mu;
    sys->qnorm = qnorm(p->q, m);
    if (p->W == NULL) {
        sys->rowptr = p->blocks->rowptr;
        sys->colind = p->blocks->colind;
        sys->values = p->blocks->values;
        return;
    }
    double *v = (double *)sys->values; /* the owned copy of a dense W's blocks */
    for (int i = 0; i < n; i++)
        for (int k = sys->rowptr[i]; k < sys->rowptr[i + 1]; k++) {
            const int j = sys->colind[k];
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++)
                    v[9 * (size_t)k + a + 3 * b] =
                        p->W[(size_t)(3 * i + a) + (size_t)(3 * j + b) * (size_t)m];
        }
}

void fc3d_sys_free(fc3d_sys *sys)
{
    if (sys != NULL && sys->owned != NULL) {
        cdyn_mem_free(sys->allocator, sys->owned);
        sys->owned = NULL;
    }
}

void fc3d_sys_velocity(const fc3d_sys *sys, const double *r, double *u)
{
    for (int i = 0; i < sys->n; i++) {
        double u0 = sys->q[3 * i], u1 = sys->q[3 * i + 1], u2 = sys->q[3 * i + 2];
        for (int k = sys->rowptr[i]; k < sys->rowptr[i + 1]; k++) {
            const double *B = sys->values + 9 * (size_t)k;
            const double *x = r + 3 * sys->colind[k];
            u0 += B[0] * x[0] + B[3] * x[1] + B[6] * x[2];
            u1 += B[1] * x[0] + B[4] * x[1] + B[7] * x[2];
            u2 += B[2] * x[0] + B[5] * x[1] + B[8] * x[2];
        }
        u[3 * i] = u0;
        u[3 * i + 1] = u1;
        u[3 * i + 2] = u2;
    }
}

/* A bound on the rounding error of contact i's computed u_i = sum_j W_ij r_j + q_i: k terms
 * summed in floating point err by at most k eps (sum of their magnitudes) per component (Higham,
 * Accuracy and Stability of Numerical Algorithms, 2nd ed., Sec. 3.1); through û the error of e_i
 * grows by at most (1 + mu_i) (the projection does not expand distances). */
static double rounding_bound2(const fc3d_sys *sys, int i, const double *r)
{
    double s[3] = {fabs(sys->q[3 * i]), fabs(sys->q[3 * i + 1]), fabs(sys->q[3 * i + 2])};
    int terms = 1;
    for (int k = sys->rowptr[i]; k < sys->rowptr[i + 1]; k++, terms += 3) {
        const double *B = sys->values + 9 * (size_t)k, *x = r + 3 * sys->colind[k];
        for (int a = 0; a < 3; a++)
            s[a] += fabs(B[a]) * fabs(x[0]) + fabs(B[a + 3]) * fabs(x[1]) +
                    fabs(B[a + 6]) * fabs(x[2]);
    }
    double f = (terms + 2) * DBL_EPSILON * (1.0 + sys->mu[i]);
    return f * f * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
}

double fc3d_sys_residual(const fc3d_sys *sys, const double *r, const double *u)
{
    double s = 0.0, b = 0.0;
    for (int i = 0; i < sys->n; i++) {
        s += fc3d_local_error2(sys->mu[i], r + 3 * i, u + 3 * i);
        b += rounding_bound2(sys, i, r);
    }
    return sqrt(s) + sqrt(b);
}

double fc3d_sys_relative(const fc3d_sys *sys, double abs_residual)
{
    return sys->qnorm > 0.0 ? abs_residual / sys->qnorm : abs_residual;
}

cdyn_status cdyn_fc3d_residual(const cdyn_fc3d *problem, const double *r, double *u,
                               double *residual, double *relative)
{
    fc3d_sys sys;
    if (r == NULL)
        return CDYN_EINVAL;
    cdyn_status st = fc3d_sys_init(&sys, problem, NULL, NULL);
    if (st != CDYN_OK)
        return st;
    int m = 3 * sys.n;
    if (fc3d_vec_bad(m, r)) {
        fc3d_sys_free(&sys);
        return CDYN_EINVAL;
    }
    double *w = cdyn_mem_array(NULL, (size_t)m, sizeof(double));
    if (w == NULL) {
        fc3d_sys_free(&sys);
        return CDYN_ENOMEM;
    }
    fc3d_sys_velocity(&sys, r, w);
    double abs_res = fc3d_sys_residual(&sys, r, w);
    if (u != NULL)
        memcpy(u, w, (size_t)m * sizeof(double));
    if (residual != NULL)
        *residual = abs_res;
    if (relative != NULL)
        *relative = fc3d_sys_relative(&sys, abs_res);
    cdyn_mem_free(NULL, w);
    fc3d_sys_free(&sys);
    return CDYN_OK;
}

cdyn_status fc3d_run_public(const cdyn_fc3d *problem, const cdyn_allocator *allocator,
                            fc3d_stage stage, const void *opts, double *r, double *u,
                            cdyn_fc3d_report *rep)
{
    /* Every argument is checked before anything is allocated: bad input is CDYN_EINVAL even
       when memory is short. */
    cdyn_status st = check_problem(problem, rep);
    if (st != CDYN_OK)
        return st;
    size_t m = 3 * (size_t)problem->n;
    if (r == NULL || fc3d_vec_bad((int)m, r))
        return fc3d_fail(rep, CDYN_EINVAL, "r is NULL or not finite");
    fc3d_sys sys;
    if ((st = fc3d_sys_init(&sys, problem, allocator, rep)) != CDYN_OK)
        return st;
    double *x = cdyn_mem_array(allocator, 2 * m, sizeof(double));
    if (x == NULL) {
        fc3d_sys_free(&sys);
        return fc3d_fail(rep, CDYN_ENOMEM, "out of memory");
    }
    memcpy(x, r, m * sizeof(double));
    double res = 0.0;
    st = stage(&sys, opts, x, x + m, &res, rep);
    if (rep != NULL) {
        rep->status = st;
        rep->residual = res;
        rep->residual_rel = fc3d_sys_relative(&sys, res);
        if (st == CDYN_OK)
            rep->message[0] = '\0';
    }
    if (st == CDYN_OK) {
        memcpy(r, x, m * sizeof(double));
        if (u != NULL)
            memcpy(u, x + m, m * sizeof(double));
    }
    cdyn_mem_free(allocator, x);
    fc3d_sys_free(&sys);
    return st;
}

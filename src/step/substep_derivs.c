/* The derivative of a step taken in substeps: the chain rule over the substeps cdyn_step
 * recorded (substep_record.c), each re-solved (substep_derivs.h). */
#include "step/substep_derivs.h"
#include "step/step_internal.h"

#include "core/memory.h"
#include "core/report.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

/* The smaller margins of a substep's report into the step's. */
static void merge_report(cdyn_step_deriv_report *to, const cdyn_step_deriv_report *from)
{
    to->rows = from->rows > to->rows ? from->rows : to->rows;
    to->degenerate += from->degenerate;
    to->forced_released += from->forced_released;
    if (from->normal_margin < to->normal_margin)
        to->normal_margin = from->normal_margin, to->normal_row = from->normal_row;
    if (from->cone_margin < to->cone_margin)
        to->cone_margin = from->cone_margin, to->cone_row = from->cone_row;
    if (from->slip_margin < to->slip_margin)
        to->slip_margin = from->slip_margin, to->slip_row = from->slip_row;
    memcpy(to->solver.method, from->solver.method, sizeof to->solver.method);
}

/* C (n x m) := Ai C + Ci (Ci may be NULL: none), through tmp (n x m). */
static void chain(int n, int m, const double *Ai, double *C, const double *Ci, double *tmp)
{
    if (m == 0)
        return;
    if (Ci != NULL)
        memcpy(tmp, Ci, (size_t)n * (size_t)m * sizeof(double));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, m, n, 1.0, Ai, n, C, n,
                Ci != NULL ? 1.0 : 0.0, tmp, n);
    memcpy(C, tmp, (size_t)n * (size_t)m * sizeof(double));
}

cdyn_status substeps_derivatives(cdyn_stepper *s, cdyn_deriv_side side, int nx, double *A,
                                 double *B, int np, const cdyn_param *params, double *P,
                                 scheme_derivs_fn one, cdyn_step_deriv_report *rep)
{
    const substep_record *rec = &s->sub;
    cdyn_report *r = &rep->solver;
    if (rec->lost || rec->n != s->last_substeps)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: the last step's %d substeps "
                         "were not recorded (out of memory)", s->last_substeps);
    const int nu = s->nv;
    const size_t xx = (size_t)nx * (size_t)nx, xu = (size_t)nx * (size_t)nu,
                 xp = (size_t)nx * (size_t)np;
    const size_t tmpn = xx > xu ? (xx > xp ? xx : xp) : (xu > xp ? xu : xp);
    /* the products and one substep's Jacobians, outside the arena the re-solves reset */
    const cdyn_allocator *a = s->opts.allocator;
    double *buf = cdyn_mem_array(a, 2 * (xx + xu + xp) + tmpn + 1, sizeof(double));
    if (buf == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    double *cA = buf, *cB = cA + xx, *cP = cB + xu, *Ai = cP + xp, *Bi = Ai + xx, *Pi = Bi + xu,
           *tmp = Pi + xp;
    cdyn_status st = CDYN_OK;
    cdyn_step_report srep;
    for (int i = 0; i < rec->n && st == CDYN_OK; i++) {
        memset(&srep, 0, sizeof srep);
        st = step_advance(s, rec->tau, rec->k[i], rec->x[i], s->a, &srep);
        if (st != CDYN_OK) {
            cdyn_fail(r, st, "cdyn_step_derivatives: re-solving substep %d of %d failed: %s",
                      i + 1, rec->n, srep.solver.message);
            break;
        }
        cdyn_step_deriv_report one_rep = *rep;
        st = one(s, side, Ai, Bi, np, params, np > 0 ? Pi : NULL, &one_rep);
        if (st != CDYN_OK) {
            cdyn_fail(r, st, "cdyn_step_derivatives: substep %d of %d: %s", i + 1, rec->n,
                      one_rep.solver.message);
            break;
        }
        merge_report(rep, &one_rep);
        if (i == 0) {
            memcpy(cA, Ai, xx * sizeof(double));
            memcpy(cB, Bi, xu * sizeof(double));
            memcpy(cP, Pi, xp * sizeof(double));
        } else {
            chain(nx, nx, Ai, cA, NULL, tmp);
            chain(nx, nu, Ai, cB, Bi, tmp);
            chain(nx, np, Ai, cP, Pi, tmp);
        }
    }
    if (st == CDYN_OK) {
        if (A != NULL)
            memcpy(A, cA, xx * sizeof(double));
        if (B != NULL)
            memcpy(B, cB, xu * sizeof(double));
        if (P != NULL)
            memcpy(P, cP, xp * sizeof(double));
    }
    cdyn_mem_free(a, buf);
    return st;
}

/* The frictional contact solver object: the default chain (fc3d_chain.c) on memory kept from
 * solve to solve. Its shape is n, dense W or blocks, and W's block pattern (a dense W's nonzero
 * blocks); a solve whose problem has another shape drops the workspace and builds one for the
 * new shape (once: it is kept for the solves that follow). */
#include "solvers/fc3d/fc3d_internal.h"
#include "solvers/fc3d/fc3d_solvers.h"

#include <limits.h>
#include <string.h>

#include "core/memory.h"

struct cdyn_fc3d_solver {
    cdyn_fc3d_options o; /* checked, the stages' tol and allocator filled in */
    int have;            /* a shape is held */
    int n, dense, nb;    /* its size, kind and number of blocks */
    int *rowptr, *colind; /* its block pattern (n + 1 and nb), ours */
    fc3d_sys sys;         /* the block view (owns diag and a dense W's blocks) */
    double *x;            /* 15n: the working point and velocity (6n), the chain's memory (9n) */
    fc3d_newton_ws *nw;   /* Newton's workspace, made at the first Newton stage of the shape */
    int shapes;           /* shapes taken so far */
};

static void drop_shape(cdyn_fc3d_solver *s)
{
    const cdyn_allocator *al = s->o.allocator;
    fc3d_newton_ws_free(s->nw);
    fc3d_sys_free(&s->sys);
    cdyn_mem_free(al, s->rowptr);
    cdyn_mem_free(al, s->colind);
    cdyn_mem_free(al, s->x);
    s->nw = NULL;
    s->rowptr = s->colind = NULL;
    s->x = NULL;
    s->have = 0;
}

/* Whether the (checked) problem has the held shape. */
static int same_shape(const cdyn_fc3d_solver *s, const cdyn_fc3d *p)
{
    if (!s->have || p->n != s->n || (p->W != NULL) != s->dense)
        return 0;
    const int n = p->n;
    if (p->W == NULL) {
        const cdyn_fc3d_blocks *b = p->blocks;
        return memcmp(b->rowptr, s->rowptr, ((size_t)n + 1) * sizeof(int)) == 0 &&
               memcmp(b->colind, s->colind, (size_t)s->nb * sizeof(int)) == 0;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (s->rowptr[i] != k)
            return 0;
        for (int j = 0; j < n; j++) {
            if (i != j && !fc3d_dense_block_nonzero(p->W, 3 * n, i, j))
                continue;
            if (k >= s->nb || s->colind[k] != j)
                return 0;
            k++;
        }
    }
    return k == s->nb;
}

/* Build the workspace of the (checked) problem's shape. On failure the solver holds none. */
static cdyn_status take_shape(cdyn_fc3d_solver *s, const cdyn_fc3d *p, cdyn_fc3d_report *rep)
{
    drop_shape(s);
    const cdyn_allocator *al = s->o.allocator;
    cdyn_status st = fc3d_sys_init(&s->sys, p, al, rep);
    if (st != CDYN_OK)
        return st;
    const int n = p->n, nb = s->sys.rowptr[n];
    s->rowptr = cdyn_mem_array(al, (size_t)n + 1, sizeof(int));
    s->colind = cdyn_mem_array(al, nb > 0 ? (size_t)nb : 1, sizeof(int));
    s->x = cdyn_mem_array(al, 15 * (size_t)n, sizeof(double));
    if (s->rowptr == NULL || s->colind == NULL || s->x == NULL) {
        drop_shape(s);
        return fc3d_fail(rep, CDYN_ENOMEM, "out of memory");
    }
    memcpy(s->rowptr, s->sys.rowptr, ((size_t)n + 1) * sizeof(int));
    memcpy(s->colind, s->sys.colind, (size_t)nb * sizeof(int));
    s->n = n;
    s->nb = nb;
    s->dense = p->W != NULL;
    s->have = 1;
    s->shapes++;
    return CDYN_OK;
}

cdyn_status cdyn_fc3d_solver_create(const cdyn_fc3d *problem, const cdyn_fc3d_options *opts,
                                    cdyn_fc3d_solver **out, cdyn_fc3d_report *report)
{
    fc3d_report_clear(report, "fc3d");
    if (out == NULL)
        return fc3d_fail(report, CDYN_EINVAL, "out is NULL");
    *out = NULL;
    cdyn_fc3d_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_fc3d_defaults(&o);
    cdyn_status st = fc3d_check_options(&o, report);
    if (st == CDYN_OK && problem != NULL)
        st = fc3d_check_problem(problem, report);
    if (st != CDYN_OK)
        return st;
    cdyn_fc3d_solver *s = cdyn_mem_alloc(o.allocator, sizeof *s);
    if (s == NULL)
        return fc3d_fail(report, CDYN_ENOMEM, "out of memory");
    memset(s, 0, sizeof *s);
    s->o = o;
    if (problem != NULL && (st = take_shape(s, problem, report)) != CDYN_OK) {
        cdyn_fc3d_solver_free(s);
        return st;
    }
    *out = s;
    return CDYN_OK;
}

cdyn_status cdyn_fc3d_solver_solve(cdyn_fc3d_solver *solver, const cdyn_fc3d *problem,
                                   double *r, double *u, cdyn_fc3d_report *report)
{
    fc3d_report_clear(report, "fc3d");
    if (solver == NULL)
        return fc3d_fail(report, CDYN_EINVAL, "solver is NULL");
    /* Every argument is checked before anything is allocated. */
    cdyn_status st = fc3d_check_problem(problem, report);
    if (st != CDYN_OK)
        return st;
    const size_t m = 3 * (size_t)problem->n;
    if (r == NULL || fc3d_vec_bad((int)m, r))
        return fc3d_fail(report, CDYN_EINVAL, "r is NULL or not finite");
    if (same_shape(solver, problem))
        fc3d_sys_refresh(&solver->sys, problem);
    else if ((st = take_shape(solver, problem, report)) != CDYN_OK)
        return st;
    double *x = solver->x;
    memcpy(x, r, m * sizeof(double));
    double res = 0.0;
    st = fc3d_chain_run(&solver->sys, &solver->o, x + 2 * m, &solver->nw, x, x + m, &res, report);
    if (report != NULL) {
        report->status = st;
        report->residual = res;
        report->residual_rel = fc3d_sys_relative(&solver->sys, res);
        if (st == CDYN_OK)
            report->message[0] = '\0';
    }
    if (st == CDYN_OK) {
        memcpy(r, x, m * sizeof(double));
        if (u != NULL)
            memcpy(u, x + m, m * sizeof(double));
    }
    return st;
}

int cdyn_fc3d_solver_shapes(const cdyn_fc3d_solver *solver)
{
    return solver != NULL ? solver->shapes : 0;
}

void cdyn_fc3d_solver_free(cdyn_fc3d_solver *solver)
{
    if (solver == NULL)
        return;
    drop_shape(solver);
    cdyn_mem_free(solver->o.allocator, solver);
}

/* The frictional contact solver object: the default chain (fc3d_chain.c) on memory kept from
 * solve to solve. A shape is n, dense W or blocks, and W's block pattern (a dense W's nonzero
 * blocks). The solver keeps the workspaces of its FC3D_KEPT most recently used shapes: a solve
 * whose problem has one of them reuses it; another shape replaces the least recently used one
 * (built once, then kept) — so a contact set that flickers between two shapes, a contact
 * touching and leaving, stops allocating once both were seen. */
#include "solvers/fc3d/fc3d_internal.h"
#include "solvers/fc3d/fc3d_solvers.h"

#include <limits.h>
#include <string.h>

#include "core/memory.h"

#define FC3D_KEPT 2

/* The workspace of one shape. */
typedef struct shape_ws {
    int have;             /* a shape is held */
    int n, dense, nb;     /* its size, kind and number of blocks */
    int *rowptr, *colind; /* its block pattern (n + 1 and nb), ours */
    fc3d_sys sys;         /* the block view (owns diag and a dense W's blocks) */
    double *x;            /* 18n: the working point and velocity (6n), the chain's memory (12n) */
    fc3d_newton_ws *nw;   /* Newton's workspace, made at the first Newton stage of the shape */
    unsigned long used;   /* when it was last used (the solver's clock) */
} shape_ws;

struct cdyn_fc3d_solver {
    cdyn_fc3d_options o; /* checked, the stages' tol and allocator filled in */
    shape_ws ws[FC3D_KEPT];
    unsigned long clock; /* solves so far */
    int shapes;          /* shapes built so far */
};

static void drop_shape(const cdyn_allocator *al, shape_ws *w)
{
    fc3d_newton_ws_free(w->nw);
    fc3d_sys_free(&w->sys);
    cdyn_mem_free(al, w->rowptr);
    cdyn_mem_free(al, w->colind);
    cdyn_mem_free(al, w->x);
    memset(w, 0, sizeof *w);
}

/* Whether the (checked) problem has w's shape. */
static int same_shape(const shape_ws *w, const cdyn_fc3d *p)
{
    if (!w->have || p->n != w->n || (p->W != NULL) != w->dense)
        return 0;
    const int n = p->n;
    if (p->W == NULL) {
        const cdyn_fc3d_blocks *b = p->blocks;
        return memcmp(b->rowptr, w->rowptr, ((size_t)n + 1) * sizeof(int)) == 0 &&
               memcmp(b->colind, w->colind, (size_t)w->nb * sizeof(int)) == 0;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (w->rowptr[i] != k)
            return 0;
        for (int j = 0; j < n; j++) {
            if (i != j && !fc3d_dense_block_nonzero(p->W, 3 * n, i, j))
                continue;
            if (k >= w->nb || w->colind[k] != j)
                return 0;
            k++;
        }
    }
    return k == w->nb;
}

/* Build in w the workspace of the (checked) problem's shape. On failure w holds none. */
static cdyn_status take_shape(cdyn_fc3d_solver *s, shape_ws *w, const cdyn_fc3d *p,
                              cdyn_fc3d_report *rep)
{
    const cdyn_allocator *al = s->o.allocator;
    drop_shape(al, w);
    cdyn_status st = fc3d_sys_init(&w->sys, p, al, rep);
    if (st != CDYN_OK)
        return st;
    const int n = p->n, nb = w->sys.rowptr[n];
    w->rowptr = cdyn_mem_array(al, (size_t)n + 1, sizeof(int));
    w->colind = cdyn_mem_array(al, nb > 0 ? (size_t)nb : 1, sizeof(int));
    w->x = cdyn_mem_array(al, 18 * (size_t)n, sizeof(double));
    if (w->rowptr == NULL || w->colind == NULL || w->x == NULL) {
        drop_shape(al, w);
        return fc3d_fail(rep, CDYN_ENOMEM, "out of memory");
    }
    memcpy(w->rowptr, w->sys.rowptr, ((size_t)n + 1) * sizeof(int));
    memcpy(w->colind, w->sys.colind, (size_t)nb * sizeof(int));
    w->n = n;
    w->nb = nb;
    w->dense = p->W != NULL;
    w->have = 1;
    s->shapes++;
    return CDYN_OK;
}

/* The workspace for the (checked) problem: a kept one of its shape, refreshed with its values,
 * or the least recently used (an empty one first) rebuilt for it. */
static cdyn_status workspace_for(cdyn_fc3d_solver *s, const cdyn_fc3d *p, shape_ws **out,
                                 cdyn_fc3d_report *rep)
{
    shape_ws *victim = &s->ws[0];
    s->clock++;
    for (int i = 0; i < FC3D_KEPT; i++) {
        shape_ws *w = &s->ws[i];
        if (same_shape(w, p)) {
            fc3d_sys_refresh(&w->sys, p);
            w->used = s->clock;
            *out = w;
            return CDYN_OK;
        }
        if (victim->have && (!w->have || w->used < victim->used))
            victim = w;
    }
    cdyn_status st = take_shape(s, victim, p, rep);
    if (st != CDYN_OK)
        return st;
    victim->used = s->clock;
    *out = victim;
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
    shape_ws *w = NULL;
    if (problem != NULL && (st = workspace_for(s, problem, &w, report)) != CDYN_OK) {
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
    shape_ws *w = NULL;
    if ((st = workspace_for(solver, problem, &w, report)) != CDYN_OK)
        return st;
    double *x = w->x;
    memcpy(x, r, m * sizeof(double));
    double res = 0.0;
    st = fc3d_chain_run(&w->sys, &solver->o, x + 2 * m, &w->nw, x, x + m, &res, report);
    if (report != NULL) {
        report->status = st;
        report->residual = res;
        report->residual_rel = fc3d_sys_relative(&w->sys, res);
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
    for (int i = 0; i < FC3D_KEPT; i++)
        drop_shape(solver->o.allocator, &solver->ws[i]);
    cdyn_mem_free(solver->o.allocator, solver);
}

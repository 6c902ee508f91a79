/* The friction-pyramid LCP step (Stewart-Trinkle / Anitescu-Potra). With the matrices at q and
 * the contact space of contact_space.h (u = W p + r, u = J v+ + (Psi_n / h, 0, 0)), each row
 * taking part has a normal impulse p_n and n_d direction impulses beta_k >= 0 along
 * d_k = cos(2 pi k / n_d) t + sin(2 pi k / n_d) o (planar: +t, -t), so p_T = sum_k beta_k d_k:
 *
 *   0 <= p_n    ⊥  u_n                      >= 0
 *   0 <= beta_k ⊥  d_k . u_T + sigma_g(k)    >= 0
 *   0 <= sigma_g ⊥ mu p_n - sum_{k in g} beta_k >= 0
 *
 * with one group g of all directions ("diamond": sum beta_k <= mu p_n) or, for n_d = 4, one group
 * per axis ("box": |p_t|, |p_o| <= mu p_n). sigma is the sliding speed. The LCP in
 * z = (p_n, beta per row, then sigma) is solved by Lemke warm-started from the last step's basis
 * (or by FB-Newton). Newton restitution (options.restitution, restitution_rows below): a row
 * with coefficient e > 0 that approaches at the start and closes within the step leaves at
 * about e times its approach speed, never gaining energy. Joint rows (joint_rows.h): per dof
 * with friction f_max > 0, impulses f+, f- >= 0 along +-e_j and a sliding speed s_j,
 *
 *   0 <= f+  ⊥  v+_j + s_j >= 0,   0 <= f-  ⊥  -v+_j + s_j >= 0,   0 <= s_j ⊥ h f_max - f+ - f- >= 0
 *
 * (a pyramid direction pair with a fixed bound in place of mu p_n), and per finite end of a
 * limited joint an impulse 0 <= p ⊥ (+-v+_j) + gap / h >= 0 (as a contact's normal row).
 * docs/theory.md, "Time stepping". */
#include "step/contact_space.h"
#include "step/joint_rows.h"
#include "step/rigid_derivs.h"

#include "core/memory.h"
#include "core/report.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Largest LCP handled (dense n x n matrix): beyond it the cone step (sparse) is the scheme. */
#define PYR_MAX_LCP 4000

/* Lemke's pivot tolerance on the step's LCPs: at least this (relative to the entering column's
 * largest entry; the option's default is 1e-12). The LCP's data carry noise up to 1e-12 of their
 * rows' sizes (clean_delassus), and a degenerate pivot (x_r = 0) on an entry of that size, which
 * the exact column has as 0, leaves a basis of condition 1e12: on the random-scene stress (seed
 * 35, 7 spheres) Lemke pivoted on y_r = 2.5e-12 ymax at pivot 110 and its basis became singular
 * 50 pivots later, and every fallback failed the certificate after it. 1e-10, 1e-9 and 1e-8 all
 * gave the same counts there (40 scenes, up to 8 spheres: 38 -> 39 complete). */
#define PYR_PIVOT_TOL 1e-9

typedef struct pyr_ws {
    cs_trees trees;
    int ndir;      /* directions per row */
    int ngroup;    /* sigma per row: 1 (diamond) or 2 (box) */
    int njr;       /* joint rows: friction dofs and limit ends (joint_rows.h) */
    double *cosk, *sink; /* ndir */
    /* Lemke backend: the LCP solver (its arena, the last answer's basis as the next warm
       start) and the contact rows that basis is for: when they change, the basis is dropped */
    cdyn_lcp_solver *lcp;
    int *basis_rows; /* nc */
    int basis_k;     /* rows of basis_rows (-1: none) */
} pyr_ws;

static cdyn_step_backend pyr_pick(const cdyn_stepper *s)
{
    (void)s;
    return CDYN_BACKEND_LEMKE;
}

static void pyr_destroy(cdyn_stepper *s)
{
    pyr_ws *w = s->ws;
    cdyn_lcp_solver_free(w->lcp);
    cdyn_mem_free(s->opts.allocator, w);
    s->ws = NULL;
}

static cdyn_status pyr_create(cdyn_stepper *s, cdyn_report *r)
{
    const cdyn_step_options *o = &s->opts;
    const int ndir = s->dim == 2 ? 2 : o->directions;
    if (s->dim != 2 && (o->directions < 3 || o->directions > 64))
        return cdyn_fail(r, CDYN_EINVAL, "pyramid: directions = %d, need 3..64", o->directions);
    if ((int)o->bound < 0 || (int)o->bound > CDYN_PYRAMID_BOX)
        return cdyn_fail(r, CDYN_EINVAL, "pyramid: unknown bound %d", (int)o->bound);
    if (o->bound == CDYN_PYRAMID_BOX && s->dim != 2 && o->directions != 4)
        return cdyn_fail(r, CDYN_EINVAL, "pyramid: the box bound needs directions = 4 (+t, +o, "
                         "-t, -o), not %d", o->directions);
    const size_t nints = cs_trees_ints(s->nv, cdyn_model_nbody(s->model)) + (size_t)s->nc;
    pyr_ws *w = cdyn_mem_alloc(o->allocator, sizeof(pyr_ws) + (nints + 1) * sizeof(int) +
                                                 2 * (size_t)ndir * sizeof(double));
    if (w == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
    memset(w, 0, sizeof *w);
    int *ints = (int *)(w + 1);
    cs_trees_init(&w->trees, s->model, ints);
    w->basis_rows = ints + (nints - (size_t)s->nc);
    w->basis_k = -1;
    w->cosk = (double *)(void *)(ints + nints + (nints & 1)); /* 8-byte aligned after ints */
    w->sink = w->cosk + ndir;
    w->ndir = ndir;
    w->ngroup = o->bound == CDYN_PYRAMID_BOX && s->dim != 2 ? 2 : 1;
    w->njr = jr_friction_count(s->model) + jr_limit_count(s->model);
    for (int k = 0; k < ndir; k++) {
        /* cos(pi/2) is 6e-17 in floating point: snap such values so that the four-direction
         * pyramid has exact axes (its t and o friction then decouple exactly). */
        const double th = 2.0 * 3.14159265358979323846 * k / ndir;
        w->cosk[k] = fabs(cos(th)) < 1e-15 ? 0.0 : cos(th);
        w->sink[k] = fabs(sin(th)) < 1e-15 ? 0.0 : sin(th);
    }
    if (s->opts.backend == CDYN_BACKEND_LEMKE) {
        /* Lemke's pivot tolerance raised to PYR_PIVOT_TOL; the solver's capacity the largest
           LCP of the model (every contact row with friction, every joint row), at most
           PYR_MAX_LCP: reserving it now, the steps never grow it. */
        cdyn_lcp_options lo = o->lcp;
        lo.lemke.pivot_tol = fmax(lo.lemke.pivot_tol, PYR_PIVOT_TOL);
        lo.lemke.allocator = o->allocator;
        const int nf = jr_friction_count(s->model), nl = jr_limit_count(s->model);
        const double nmax = (double)s->nc * (1 + ndir + w->ngroup) + 3.0 * nf + nl;
        const int cap = nmax < 1 ? 1 : nmax > PYR_MAX_LCP ? PYR_MAX_LCP : (int)nmax;
        cdyn_report lr;
        const cdyn_status st = cdyn_lcp_solver_create(cap, &lo, &w->lcp, &lr);
        if (st != CDYN_OK) {
            cdyn_mem_free(o->allocator, w);
            return cdyn_fail(r, st, "pyramid: %s", lr.message);
        }
    }
    s->ws = w;
    return CDYN_OK;
}

/* Group of direction k in the box bound: 0 for the t axis (k = 0, 2), 1 for o (k = 1, 3). */
static int group_of(const pyr_ws *w, int k)
{
    return w->ngroup == 2 ? (k & 1) : 0;
}

/* Newton restitution in the normal rows (options.restitution): a row of a pair with e > 0 that
 * approaches at the start (u0 = Gamma_n v < 0) and closes within the step (Psi_n + h Gamma_n
 * v_free <= 0, i.e. the rigid step would push on it) asks Gamma_n v+ >= jr_newton_target(...)
 * instead of Gamma_n v+ >= -Psi_n / h. Rows further apart keep the gap term: no bounce in the
 * air. */
static cdyn_status restitution_rows(cdyn_stepper *s, cs_problem *p, const double *v0, double h,
                                    cdyn_report *r)
{
    double *u0 = cdyn_mem_array(&s->arena.as, (size_t)p->m, sizeof(double));
    double *uf = cdyn_mem_array(&s->arena.as, (size_t)p->m, sizeof(double));
    if (u0 == NULL || uf == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
    cs_contact_velocity(s, p, v0, u0);
    cs_contact_velocity(s, p, p->vfree, uf);
    const double *gap = cdyn_data_gap(s->data);
    for (int c = 0; c < p->k; c++) {
        const int i = c * p->nd, row = p->rows[c];
        cdyn_contact ct;
        cdyn_pair_info pi;
        cdyn_data_contact(s->data, row, &ct);
        cdyn_model_pair_info(s->model, ct.pair, &pi);
        if (pi.restitution > 0 && u0[i] < 0 && gap[row] + h * uf[i] <= 0)
            p->r[i] = uf[i] - jr_newton_target(pi.restitution, u0[i], uf[i]);
    }
    return CDYN_OK;
}

/* Free contact velocities at the level of rounding, or inside the tie band of the pivoting, are
 * set to 0: below rel V, with V the scene's largest free contact velocity (normal velocity
 * without the gap term, tangential ones; a normal row adds its own gap term Psi_n / h, which
 * cancels J_n v_free for a body at rest) and rel = max(64 eps, tie_tol, tol of Lemke's
 * options; 1e-10 by default). They are noise of the data (a frame computed to eps tilts a normal velocity
 * into the tangents; a body at rest carries the rounding of earlier steps), or values Lemke's
 * ratio test takes for ties with 0 anyway (its band is tie_tol times the largest basic value):
 * it then ends on a basis that leaves such a row's w_i = q_i = -1e-14 basic, which the LCP's
 * componentwise certificate counts against a row whose scale is that same 1e-14 (a sphere
 * resting on a plane had no certified solution, a contact sliding at 1e-14 m/s failed after
 * every fallback). Sliding slower than rel V is not a motion this step resolves: over the step
 * it moves the contact by h rel V. rel is also at least the certificate's tolerance tol (Lemke's
 * tol, default 1e-10), the relative size of the data perturbation clean_delassus makes: at 1e-12
 * (tie_tol) the stress kept free normal velocities of -1e-12 V (resting contacts, 4e-12 of V),
 * a sub-problem of impulses of 1e-12 that Lemke's band (1e-12 of basic values of order 1) and
 * FB-Newton's absolute accuracy (1e-15) both left failing its certificate by 1e-4 (seed 35 of
 * the long stress, 7 spheres in a box); 1e-11 still failed there. */
static void clean_tangential(const cdyn_stepper *s, cs_problem *p,
                             double h)
{
    const double tol = s->opts.lcp.lemke.tol > 0 ? s->opts.lcp.lemke.tol : 1e-10;
    const double rel = fmax(fmax(64 * DBL_EPSILON, s->opts.lcp.lemke.tie_tol), tol);
    const int nd = p->nd;
    const double *gap = cdyn_data_gap(s->data);
    double V = 0;
    for (int c = 0; c < p->k; c++) {
        const double *rc = p->r + (size_t)c * nd;
        double v = fabs(rc[0] - gap[p->rows[c]] / h);
        for (int d = 1; d < nd; d++)
            v += fabs(rc[d]);
        V = fmax(V, v);
    }
    for (int c = 0; c < p->k; c++) {
        double *rc = p->r + (size_t)c * nd;
        for (int d = 1; d < nd; d++)
            if (fabs(rc[d]) <= rel * V)
                rc[d] = 0.0;
        /* the normal row: the gap term and the velocity cancelling to rounding (at rest) */
        const double g = gap[p->rows[c]] / h;
        if (fabs(rc[0]) <= rel * (V + fabs(g)))
            rc[0] = 0.0;
    }
}

/* Couplings at the level of rounding in the impulse block A = M[0:nx, 0:nx] = B' W B of the LCP
 * (symmetric positive semidefinite) are set to 0: entries with |A_ij| <= delta sqrt(A_ii A_jj),
 * delta the certificate's tolerance (Lemke's tol, default 1e-10). Such entries are noise of the
 * data: W_ij = J_i M^-1 J_j' is a dot product of L^-1 J_i' and L^-1 J_j' with an error of a few
 * eps ||L^-1 J_i'|| ||L^-1 J_j'|| = a few eps sqrt(W_ii W_jj), contact frames computed to eps (a
 * wall normal from a quaternion is (1, 0, 1.2e-16)) tilt orthogonal rows into each other, lever
 * arms from positions far from the origin lose digits, and the directions d_k = (cos, sin) turn
 * W_to = 0 into sums that cancel to the same level. Over 2.7 million off-diagonal entries of the
 * random-scene stress (40 scenes, up to 8 spheres) the relative sizes |A_ij| / sqrt(A_ii A_jj)
 * fall into two groups: up to 1e-12 (noise) and from 1e-8 up (geometry); delta lies in the gap.
 * Noise entries matter because the certificate counts the row of a direction that does not
 * slide, w_i = sum_j A_ij z_j of such entries only (-3e-18), against that same sum: a violation
 * of 100 %, which no basis cures. Dropping an entry changes a contact velocity by at most delta
 * sqrt(A_ii / A_jj) times the change the same impulse makes in its own row, A_jj z_j: below the
 * accuracy the answer is certified to. Dropping e from A_ij and A_ji and adding |e| sqrt(A_ii /
 * A_jj) to A_ii and |e| sqrt(A_jj / A_ii) to A_jj adds |e| (a e_i - sgn(e) b e_j)(a e_i - sgn(e)
 * b e_j)' with a b = 1, positive semidefinite: A stays positive semidefinite, so the LCP stays
 * copositive (Stewart-Trinkle) and Lemke's method keeps its guarantee; each diagonal grows by at
 * most delta of itself per dropped entry. dadd: nx doubles of scratch. */
static void clean_delassus(double *M, int n, int nx, double delta, double *dadd)
{
    const size_t nn = (size_t)n;
    for (int i = 0; i < nx; i++)
        dadd[i] = 0;
    for (int j = 0; j < nx; j++) {
        const double djj = M[j + (size_t)j * nn];
        for (int i = j + 1; i < nx; i++) {
            double *aij = M + i + (size_t)j * nn, *aji = M + j + (size_t)i * nn;
            if (*aij == 0 && *aji == 0)
                continue;
            const double dii = M[i + (size_t)i * nn], e = fmax(fabs(*aij), fabs(*aji));
            if (!(dii > 0 && djj > 0) || !(e <= delta * sqrt(dii * djj)))
                continue;
            const double ratio = sqrt(dii / djj);
            dadd[i] += e * ratio;
            dadd[j] += e / ratio;
            *aij = *aji = 0;
        }
    }
    for (int i = 0; i < nx; i++)
        M[i + (size_t)i * nn] += dadd[i];
}

/* The normal rows of contacts far apart: q_i = u_n + Psi_n / h, whose gap term (0.4 m / 1e-3 s
 * = 400 m/s) can exceed the scene's contact velocities by six decades and more. Such a row does
 * not take part in the solution (its w_i stays positive, z_i = 0), but it sets the scale of
 * Lemke's tie band (tie_tol times the largest basic value): genuine small contact velocities
 * (1e-12 m/s next to 400) then count as ties with 0, and the method ends on a basis whose
 * solution has w_i = q_i < 0 in such a row (seed 2 of the random-scene stress). So q_i above
 * CAP_FAR V (V: the largest free contact velocity without gap terms, clean_tangential) is lowered
 * to CAP_FAR V for the solve. This is exact when the capped rows stay unloaded: an answer with
 * z_i = 0 and w_i > 0 in every capped row solves the LCP as built as well, its w_i there larger
 * by the cap's difference and still > 0, every other row unchanged (so the componentwise
 * certificate of the capped LCP holds for it too: a capped row has z_i = 0, and its w_i, which
 * passed w_i >= -tol s_i, grows by qt_i - q_i > 0 while s_i grows by the same amount, so
 * w_i >= -tol s_i and |min(z_i, w_i)| <= tol s_i still hold). far_rows_hold checks z_i = 0;
 * otherwise the step solves the LCP as built (one more solve). CAP_FAR = 1: the smallest cap
 * keeps the band narrowest; of 1, 2, 4 and 16 tried on the random-scene stress (40 scenes, up
 * to 8 spheres) 1 and 2 complete 38 runs, 4 37, 16 35 (35 without the cap), and only 1 also
 * completes seed 2 of the CI run (10 scenes, up to 6 spheres). Returns the number
 * of rows capped (q is modified in place). */
#define CAP_FAR 1.0
static int cap_far(const cdyn_stepper *s, const cs_problem *p, const int *off, double h,
                   double *q)
{
    const double *gap = cdyn_data_gap(s->data);
    double V = 0;
    for (int c = 0; c < p->k; c++) {
        const double *rc = p->r + (size_t)c * p->nd;
        double v = fabs(rc[0] - gap[p->rows[c]] / h);
        for (int d = 1; d < p->nd; d++)
            v += fabs(rc[d]);
        V = fmax(V, v);
    }
    const double cap = CAP_FAR * V;
    int capped = 0;
    if (!(cap > 0))
        return 0;
    for (int c = 0; c < p->k; c++)
        if (q[off[c]] > cap) {
            q[off[c]] = cap;
            capped++;
        }
    return capped;
}

/* The limit rows of joints far from their limits, as cap_far's normal rows: q_a = +-v_free,j +
 * gap / h above V, the largest |g_r' v_free| of the joint rows and free contact velocities
 * (without gap terms), is lowered to V for the solve, with the same check after it. Returns the
 * number of rows capped. */
static int cap_far_limits(const cs_problem *p, const jrows *jr, int jb, int nju,
                          const int *ju_row, double *q)
{
    double V = 0;
    for (int rr = 0; rr < jr->n; rr++)
        V = fmax(V, fabs(p->vfree[jr->dof[rr]]));
    for (int i = 0; i < p->m; i++)
        V = fmax(V, fabs(p->r[i]) * (i % p->nd != 0)); /* tangential; normals carry gaps */
    int capped = 0;
    if (!(V > 0))
        return 0;
    for (int a = 0; a < nju; a++)
        if (ju_row[a] >= jr->nfric && q[jb + a] > CAP_FAR * V) {
            q[jb + a] = CAP_FAR * V;
            capped++;
        }
    return capped;
}

/* The capped answer holds for the LCP as built (cap_far): every capped row (q_i < qt_i) has
 * z_i = 0. */
static int far_rows_hold(int n, const double *qt, const double *q, const double *z)
{
    for (int i = 0; i < n; i++)
        if (q[i] < qt[i] && !(z[i] == 0))
            return 0;
    return 1;
}

/* Keep what the step's derivatives need (rigid_derivs.h): the rows, their impulses and each
 * row's LCP unknowns as (p_n, beta_0 .. beta_ndir-1, sigma per group) (zeros for a
 * frictionless row's friction), in the arena. 0, or 1 (memory). */
static int keep_rows(cdyn_stepper *s, pyr_ws *w, const cs_problem *p, const int *off,
                     const int *sg, const double *z, const double *imp)
{
    const int per = 1 + w->ndir + w->ngroup;
    double *zr = cdyn_mem_array(&s->arena.as, (size_t)p->k * per + 1, sizeof(double));
    if (zr == NULL)
        return 1;
    memset(zr, 0, ((size_t)p->k * per + 1) * sizeof(double));
    for (int c = 0; c < p->k; c++) {
        zr[c * per] = z[off[c]];
        if (sg[c] >= 0) {
            memcpy(zr + c * per + 1, z + off[c] + 1, (size_t)w->ndir * sizeof(double));
            memcpy(zr + c * per + 1 + w->ndir, z + sg[c], (size_t)w->ngroup * sizeof(double));
        }
    }
    rigid_keep_rows(s, p, imp);
    rigid_last *L = &s->rlast;
    L->z = zr;
    L->ndir = w->ndir;
    L->ngroup = w->ngroup;
    L->cosk = w->cosk;
    L->sink = w->sink;
    return 0;
}

static cdyn_status pyr_advance(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
                               cdyn_state *x1, cdyn_step_report *rep)
{
    pyr_ws *w = s->ws;
    cdyn_report *r = &rep->solver;
    cs_problem p;
    s->rlast.ok = 0;
    s->rlast.k = 0;
    cdyn_status st = cs_begin(s, &w->trees, tau, h, x0, x1, &p, rep);
    if (st != CDYN_OK)
        return st;
    cdyn_report_method(r, "pyramid-lcp");
    const int k = p.k, nd = p.nd, ndir = w->ndir, per = 1 + ndir, ng = w->ngroup;
    /* A frictionless row (mu = 0) has its normal unknown only: its direction impulses would be
       held at 0 by sum beta <= mu p_n = 0, and their rows and sigma would only add degenerate
       pivots (w_sigma = -sum beta, zero in exact arithmetic, rounding noise in a basic
       solution). off[c]: the first unknown of row c, cnt[c]: 1 or 1 + ndir, sg[c]: its first
       sigma, or -1. */
    int *off = cdyn_mem_array(&s->arena.as, 3 * (size_t)k + 1, sizeof(int));
    if (off == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
    int *cnt = off + k, *sg = cnt + k;
    int nx = 0, nfric = 0;
    for (int c = 0; c < k; c++) {
        cnt[c] = p.mu[c] > 0 ? per : 1;
        off[c] = nx;
        nx += cnt[c];
        nfric += p.mu[c] > 0;
    }
    for (int c = 0, t = nx; c < k; c++) {
        sg[c] = p.mu[c] > 0 ? t : -1;
        t += p.mu[c] > 0 ? ng : 0;
    }
    /* joint rows after the contacts' unknowns: f+, f- per friction row and p per limit row
     * (unknown a acts along ju_phi[a] g_{ju_row[a]}), then the friction rows' s */
    jrows jr = {0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (w->njr > 0 && (st = jr_build(s, &w->trees, &p, x0->q, h, &jr, r)) != CDYN_OK)
        return st;
    if (s->opts.restitution)
        jr_restitution(&jr, &p, x0->v, h);
    const int nju = jr.nfric + jr.n, jb = nx + nfric * ng, js0 = jb + nju;
    const int n = js0 + jr.nfric;
    int *ju_row = cdyn_mem_array(&s->arena.as, (size_t)nju + 1, sizeof(int));
    double *ju_phi = cdyn_mem_array(&s->arena.as, (size_t)nju + 1, sizeof(double));
    if (ju_row == NULL || ju_phi == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
    for (int a = 0, rr = 0; rr < jr.n; rr++)
        for (int t2 = 0; t2 < (rr < jr.nfric ? 2 : 1); t2++, a++) {
            ju_row[a] = rr;
            ju_phi[a] = t2 == 0 ? 1.0 : -1.0;
        }
    if (k > 0 || nju > 0) {
        if (n > PYR_MAX_LCP)
            return cdyn_fail(r, CDYN_ETOOBIG, "pyramid: an LCP of %d unknowns (%d contact rows) "
                             "is too large for the dense pivoting method; the cone step "
                             "(sparse) handles large scenes", n, k);
        const size_t nn = (size_t)n;
        double *Wd = cdyn_mem_array(&s->arena.as, (size_t)p.m * p.m + 1, sizeof(double));
        double *B = cdyn_mem_array(&s->arena.as, (size_t)p.m * per + 1, sizeof(double));
        double *M = cdyn_mem_array(&s->arena.as, nn * nn, sizeof(double));
        double *q = cdyn_mem_array(&s->arena.as, nn, sizeof(double));
        double *z = cdyn_mem_array(&s->arena.as, nn, sizeof(double));
        double *wv = cdyn_mem_array(&s->arena.as, nn, sizeof(double));
        double *imp =
            cdyn_mem_array(&s->arena.as, (size_t)p.m + (size_t)jr.n + 1, sizeof(double));
        int *saved = cdyn_mem_array(&s->arena.as, nn, sizeof(int)); /* a warm basis, kept */
        if (Wd == NULL || B == NULL || M == NULL || q == NULL || z == NULL || wv == NULL ||
            imp == NULL || saved == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
        /* W dense (both triangles) from the lower-triangle triplets. */
        memset(Wd, 0, (size_t)p.m * p.m * sizeof(double));
        for (int e = 0; e < p.ntrip; e++) {
            Wd[p.ti[e] + (size_t)p.tj[e] * p.m] += p.tx[e];
            if (p.ti[e] != p.tj[e])
                Wd[p.tj[e] + (size_t)p.ti[e] * p.m] += p.tx[e];
        }
        if (s->opts.restitution && k > 0) {
            st = restitution_rows(s, &p, x0->v, h, r);
            if (st != CDYN_OK)
                return st;
        }
        clean_tangential(s, &p, h);
        /* B: column a of row c's impulse unknowns (a = 0: p_n, a = 1 + k: beta_k) in contact
         * coordinates, only row c's nd entries (stored as B[d + a * nd + c * nd * per]). */
        for (int c = 0; c < k; c++) {
            double *Bc = B + (size_t)c * nd * per;
            memset(Bc, 0, (size_t)nd * per * sizeof(double));
            Bc[0] = 1.0;
            for (int a = 0; a < ndir; a++) {
                Bc[(1 + a) * nd + 1] = w->cosk[a];
                if (nd == 3)
                    Bc[(1 + a) * nd + 2] = w->sink[a];
            }
        }
        /* M_xx = B' W B (block by block), q_x = B' r; sigma rows and columns. */
        memset(M, 0, nn * nn * sizeof(double));
        memset(q, 0, nn * sizeof(double));
        for (int c1 = 0; c1 < k; c1++) {
            const double *B1 = B + (size_t)c1 * nd * per;
            for (int a = 0; a < cnt[c1]; a++) {
                const int i = off[c1] + a;
                double qi = 0;
                for (int d = 0; d < nd; d++)
                    qi += B1[a * nd + d] * p.r[c1 * nd + d];
                q[i] = qi;
                for (int c2 = 0; c2 < k; c2++) {
                    const double *B2 = B + (size_t)c2 * nd * per;
                    /* the nd x nd block W(c1, c2) */
                    double Wb[9];
                    int any = 0;
                    for (int d1 = 0; d1 < nd; d1++)
                        for (int d2 = 0; d2 < nd; d2++) {
                            Wb[d1 + 3 * d2] = Wd[(c1 * nd + d1) + (size_t)(c2 * nd + d2) * p.m];
                            any |= Wb[d1 + 3 * d2] != 0.0;
                        }
                    if (!any)
                        continue;
                    double t1[3];
                    for (int d2 = 0; d2 < nd; d2++) {
                        t1[d2] = 0;
                        for (int d1 = 0; d1 < nd; d1++)
                            t1[d2] += B1[a * nd + d1] * Wb[d1 + 3 * d2];
                    }
                    for (int b = 0; b < cnt[c2]; b++) {
                        double v = 0;
                        for (int d2 = 0; d2 < nd; d2++)
                            v += t1[d2] * B2[b * nd + d2];
                        M[i + (size_t)(off[c2] + b) * nn] = v;
                    }
                }
            }
            for (int g = 0; g < ng && sg[c1] >= 0; g++) {
                const int js = sg[c1] + g;
                M[js + (size_t)off[c1] * nn] = p.mu[c1];
                for (int a = 0; a < ndir; a++)
                    if (group_of(w, a) == g) {
                        M[(off[c1] + 1 + a) + (size_t)js * nn] = 1.0;
                        M[js + (size_t)(off[c1] + 1 + a) * nn] = -1.0;
                    }
            }
        }
        /* joint rows: couplings through y_r = (M + h D)^-1 g_r (u_r = J y_r for contacts) */
        for (int a = 0; a < nju; a++) {
            const int ra = ju_row[a], ia = jb + a;
            const double pa = ju_phi[a], ga = jr.sign[ra]; /* g_ra = ga e_dof */
            q[ia] = pa * ga * p.vfree[jr.dof[ra]] + (ra < jr.nfric ? 0.0 : jr.val[ra]);
            if (ra < jr.nfric) { /* the friction row's s */
                M[ia + (size_t)(js0 + ra) * nn] = 1.0;
                M[js0 + ra + (size_t)ia * nn] = -1.0;
                q[js0 + ra] = jr.val[ra];
            }
            for (int b2 = 0; b2 < nju; b2++) {
                const int rb = ju_row[b2];
                M[ia + (size_t)(jb + b2) * nn] =
                    pa * ju_phi[b2] * ga * jr.y[(size_t)rb * s->nv + jr.dof[ra]];
            }
            const double *ua = jr.u + (size_t)ra * p.m;
            for (int c = 0; c < k; c++) {
                const double *Bc = B + (size_t)c * nd * per;
                for (int b2 = 0; b2 < cnt[c]; b2++) {
                    double e = 0;
                    for (int d = 0; d < nd; d++)
                        e += Bc[b2 * nd + d] * ua[c * nd + d];
                    const size_t i = (size_t)(off[c] + b2);
                    M[i + (size_t)ia * nn] = M[ia + i * nn] = pa * e;
                }
            }
        }
        double *dadd = cdyn_mem_array(&s->arena.as, (size_t)nx + 1, sizeof(double));
        if (dadd == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
        clean_delassus(M, n, nx, s->opts.lcp.lemke.tol > 0 ? s->opts.lcp.lemke.tol : 1e-10, dadd);
        /* Normal rows far apart (q_i above CAP_FAR V) are solved with q_i capped, then checked
           (cap_far, far_rows_hold); the LCP as built when the check fails. */
        double *qt = cdyn_mem_array(&s->arena.as, nn, sizeof(double));
        if (qt == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
        memcpy(qt, q, nn * sizeof(double));
        int capped = cap_far(s, &p, off, h, q);
        capped += cap_far_limits(&p, &jr, jb, nju, ju_row, q);
        cdyn_lcp lcp = {n, M, q};
        cdyn_report lr;
        int pivots = 0, saved_n = 0;
        if (w->lcp != NULL) {
            /* The solver warm-starts from its basis when the rows are those it was for. */
            cdyn_status ls = CDYN_OK;
            if (w->basis_k != k ||
                (k > 0 && memcmp(w->basis_rows, p.rows, (size_t)k * sizeof(int)) != 0))
                ls = cdyn_lcp_solver_set_basis(w->lcp, 0, NULL, &lr);
            if (ls == CDYN_OK)
                ls = cdyn_lcp_solver_reserve(w->lcp, n, &lr);
            /* a capped answer that loads a capped row is dropped, and its basis with it: the
               basis before it is saved for the LCP as built */
            if (ls == CDYN_OK && capped &&
                (ls = cdyn_lcp_solver_get_basis(w->lcp, &saved_n, saved, n, &lr)) ==
                    CDYN_ETOOBIG) {
                saved_n = 0; /* a basis of more unknowns cannot warm-start this LCP */
                ls = CDYN_OK;
            }
            if (ls != CDYN_OK)
                return cdyn_fail(r, ls, "pyramid: %s", lr.message);
            if (k > 0)
                memcpy(w->basis_rows, p.rows, (size_t)k * sizeof(int));
            w->basis_k = k;
        }
        for (int pass = !capped; pass < 2; pass++) {
            if (pass == 1 && capped) { /* the capped answer loads a capped row: the LCP as built */
                memcpy(q, qt, nn * sizeof(double));
                /* pass 0's answer was OK and dropped: the basis from before it */
                if (w->lcp != NULL && st == CDYN_OK &&
                    cdyn_lcp_solver_set_basis(w->lcp, saved_n, saved, &lr) != CDYN_OK)
                    return cdyn_fail(r, CDYN_EINVAL, "pyramid: %s", lr.message);
            }
            if (w->lcp == NULL) { /* CDYN_BACKEND_FB_DENSE */
                memset(z, 0, nn * sizeof(double));
                st = cdyn_lcp_fb_newton(&lcp, &s->opts.mcp, z, wv, &lr);
            } else {
                st = cdyn_lcp_solver_solve(w->lcp, &lcp, z, wv, &lr);
            }
            pivots += lr.iterations;
            if (pass == 0 && st == CDYN_OK && far_rows_hold(n, qt, q, z)) {
                for (int i = 0; i < n; i++) { /* w of the LCP as built */
                    wv[i] += qt[i] - q[i];
                    q[i] = qt[i];
                }
                break;
            }
        }
        lr.iterations = pivots;
        r->iterations += lr.iterations;
        r->residual = lr.residual;
        cdyn_report_method(r, lr.method);
        if (st != CDYN_OK)
            return cdyn_fail(r, st, "pyramid: %s", lr.message);
        /* Impulses in contact coordinates, new velocities, forces and modes. */
        for (int c = 0; c < k; c++) {
            const double *Bc = B + (size_t)c * nd * per;
            for (int d = 0; d < nd; d++) {
                double v = 0;
                for (int a = 0; a < cnt[c]; a++)
                    v += Bc[a * nd + d] * z[off[c] + a];
                imp[c * nd + d] = v;
            }
        }
        if (cs_apply_impulses(s, &w->trees, &p, imp, x1->v) != CDYN_OK)
            return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
        double *fj = imp + p.m; /* net impulse of each joint row along its g */
        for (int rr = 0; rr < jr.n; rr++)
            fj[rr] = 0;
        for (int a = 0; a < nju; a++)
            fj[ju_row[a]] += ju_phi[a] * z[jb + a];
        jr_apply(&jr, s->nv, fj, x1->v);
        jr_limit_forces(&jr, fj, h, x1);
        if (rigid_keep_limits(s, &jr, fj) != 0)
            return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
        /* A frictionless row slides when its tangential velocity after the step exceeds 1e-8 of
           the velocity scale max(1, |v+|_inf) (as the Coulomb step decides). */
        double *u = NULL, vscale = 1;
        if (nfric < k) {
            if ((u = cdyn_mem_array(&s->arena.as, (size_t)p.m, sizeof(double))) == NULL)
                return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
            cs_contact_velocity(s, &p, x1->v, u);
            for (int j = 0; j < s->nv; j++)
                vscale = fmax(vscale, fabs(x1->v[j]));
        }
        for (int c = 0; c < k; c++) {
            const int i = p.rows[c];
            for (int d = 0; d < nd; d++)
                x1->lambda[3 * i + d] = imp[c * nd + d] / h;
            if (!(z[off[c]] > 0)) {
                x1->mode[i] = CDYN_MODE_FREE;
                continue;
            }
            int sliding = 0;
            if (sg[c] >= 0)
                for (int g = 0; g < ng; g++)
                    sliding |= z[sg[c] + g] > 0;
            else
                sliding = hypot(u[c * nd + 1], nd == 3 ? u[c * nd + 2] : 0.0) > 1e-8 * vscale;
            x1->mode[i] = sliding ? CDYN_MODE_SLIP : CDYN_MODE_STICK;
        }
        if (keep_rows(s, w, &p, off, sg, z, imp) != 0)
            return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
    }
    st = cs_finish(s, x0, h, x1, r);
    s->rlast.nd = p.nd;
    if (st == CDYN_OK && rigid_keep(s, tau, h, x0, x1) != 0)
        return cdyn_fail(r, CDYN_ENOMEM, "pyramid: out of memory");
    return st;
}

/* What the pyramid's derivatives do not take yet (NULL: none): rigid_derivs_pyr.c. */
const char *pyr_deriv_unsupported(const cdyn_stepper *s)
{
    if (jr_friction_count(s->model) > 0)
        return "joint friction rows";
    if (s->opts.restitution)
        return "Newton restitution";
    return NULL;
}

const step_scheme cdyn_scheme_pyramid_lcp = {
    "pyramid-lcp", (1u << CDYN_BACKEND_LEMKE) | (1u << CDYN_BACKEND_FB_DENSE), pyr_pick,
    pyr_create, pyr_destroy, pyr_advance,
};

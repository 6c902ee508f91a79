/* A real pile: 27 spheres in three layers, each layer resting in the gaps of the one below, in a
 * box, stepped by the Coulomb step, whose problem is solved on a working set of rows
 * (src/step/working_set.h). Every step's answer is checked afresh against the whole problem
 * from the model's own evaluation at the start of the step — every row that takes part, those
 * left out of the working set included — and the positions are checked directly (sphere
 * centres against each other and the walls, not through contact rows). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/model.h"
#include "cdyn/step.h"
#include "core/memory.h"
#include "step/working_set.h"
#include "step_scenes.h"

#define SIDE 3
#define NS (SIDE * SIDE * 3)
#define R 0.05
#define MASS 0.2
#define HALF (4 * R) /* the box's half width */
#define H 0.005
#define MU 0.5

static int add_wall(cdyn_builder *b, double nx, double ny, double px, double py)
{
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    if (nx != 0 || ny != 0) { /* the plane's +z turned to (nx, ny, 0): 90 degrees about z x n */
        const double ax = -ny, ay = nx;
        g.frame.quat[0] = cos(M_PI / 4);
        g.frame.quat[1] = sin(M_PI / 4) * ax;
        g.frame.quat[2] = sin(M_PI / 4) * ay;
    }
    g.frame.pos[0] = px;
    g.frame.pos[1] = py;
    int id;
    assert_int_equal(cdyn_builder_add_geom(b, &g, &id, NULL), CDYN_OK);
    return id;
}

/* The floor, four walls at +-HALF and NS spheres; every sphere against every other and every
 * wall, margin one radius (rows within the margin take part in the step's problem). */
static cdyn_model *pile_model(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -G_ACC;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    int walls[5] = {add_wall(b, 0, 0, 0, 0), add_wall(b, 1, 0, -HALF, 0),
                    add_wall(b, -1, 0, HALF, 0), add_wall(b, 0, 1, 0, -HALF),
                    add_wall(b, 0, -1, 0, HALF)};
    int gs[NS];
    for (int i = 0; i < NS; i++)
        gs[i] = scene_add_ball(b, R, MASS);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.mu = MU;
    p.margin = R;
    assert_int_equal(cdyn_builder_add_pair_group(b, walls, 5, gs, NS, &p, NULL, NULL, NULL),
                     CDYN_OK);
    assert_int_equal(cdyn_builder_add_pair_group(b, gs, NS, NULL, 0, &p, NULL, NULL, NULL),
                     CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* Layers of SIDE x SIDE at spacing 2.2 r, offset by half the spacing from layer to layer (so a
 * sphere falls into the gap between four below), a small jitter, the lowest layer 2 mm up. */
static void pile_q(double *q)
{
    for (int i = 0; i < NS; i++) {
        double *qi = q + 7 * i;
        const int a = i % SIDE, b = (i / SIDE) % SIDE, c = i / (SIDE * SIDE);
        const double shift = (c % 2 - 0.5) * 1.1 * R;
        qi[0] = (a - 1) * 2.2 * R + shift + 0.0004 * ((i * 7) % 11 - 5);
        qi[1] = (b - 1) * 2.2 * R + shift + 0.0004 * ((i * 13) % 11 - 5);
        qi[2] = R + 0.002 + c * 2.2 * R;
        qi[3] = 1;
    }
}

/* Deepest interpenetration from the centres (0 when none). */
static double depth(const double *q)
{
    double worst = 0;
    for (int i = 0; i < NS; i++) {
        const double *a = q + 7 * i;
        worst = fmax(worst, R - a[2]);
        worst = fmax(worst, R - (HALF - fabs(a[0])));
        worst = fmax(worst, R - (HALF - fabs(a[1])));
        for (int j = i + 1; j < NS; j++) {
            const double *c = q + 7 * j;
            worst = fmax(worst, 2 * R - sqrt((a[0] - c[0]) * (a[0] - c[0]) +
                                             (a[1] - c[1]) * (a[1] - c[1]) +
                                             (a[2] - c[2]) * (a[2] - c[2])));
        }
    }
    return worst;
}

/* Kinetic plus potential energy (spheres: I = 2/5 m r^2 about any axis). */
static double energy(const cdyn_state *x)
{
    double e = 0;
    for (int i = 0; i < NS; i++) {
        const double *v = x->v + 6 * i;
        e += 0.5 * MASS * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
             0.5 * 0.4 * MASS * R * R * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]) +
             MASS * G_ACC * x->q[7 * i + 2];
    }
    return e;
}

/* The step's problem afresh from the evaluation at x0: for every row taking part, the normal
 * velocity at the end of the step plus the gap term, u_n = Gamma_n v+ + Psi_n / h, and the
 * impulse p_n = h lambda_n are complementary, 0 <= p_n ⊥ u_n >= 0, to what the solver's
 * natural-map residual allows (it measures impulses and velocities alike):
 * |e| <= 1e-10 ||r|| with r = Gamma v_free + (Psi_n / h, 0, 0) over the rows (the working set's
 * r is a part of it), and a row's |min(u_n, ...)| <= sqrt(1 + mu^2) |e_i| (the cone's
 * projection). v_free = v0 - h g e_z: spheres have no velocity-dependent bias. */
static void check_step(const cdyn_model *m, cdyn_data *d, const cdyn_state *x0,
                       const cdyn_state *x1, int *loaded)
{
    const int nc = cdyn_model_ncontact(m), nv = cdyn_model_nv(m);
    assert_int_equal(cdyn_eval(m, d, x0->q, x0->v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    const double *gap = cdyn_data_gap(d);
    const int *act = cdyn_data_active(d);
    const double *J[3] = {cdyn_data_jacobian(d, CDYN_DIR_N), cdyn_data_jacobian(d, CDYN_DIR_T),
                          cdyn_data_jacobian(d, CDYN_DIR_O)};
    assert_non_null(J[0]);
    double *vfree = malloc(sizeof(double) * (size_t)nv), rr = 0;
    memcpy(vfree, x0->v, sizeof(double) * (size_t)nv);
    for (int i = 0; i < NS; i++)
        vfree[6 * i + 2] -= H * G_ACC;
    for (int c = 0; c < nc; c++)
        for (int k = 0; act[c] && k < 3; k++) {
            double rk = k == 0 ? gap[c] / H : 0.0;
            for (int j = 0; j < nv; j++)
                rk += J[k][c + (size_t)nc * j] * vfree[j];
            rr += rk * rk;
        }
    const double bound = sqrt(1 + MU * MU) * 1e-10 * sqrt(rr) + 1e-13; /* + our own rounding */
    for (int c = 0; c < nc; c++) {
        if (!act[c])
            continue;
        double un = gap[c] / H;
        for (int j = 0; j < nv; j++)
            un += J[0][c + (size_t)nc * j] * x1->v[j];
        const double pn = x1->lambda[3 * c] * H;
        if (un < -bound || pn < -bound || fmin(un, pn) > bound)
            fail_msg("row %d: u_n = %.3g, p_n = %.3g (bound %.3g)", c, un, pn, bound);
        *loaded += pn > bound;
    }
    free(vfree);
}

/* The cone step's answer against its whole QP (min 1/2 p'Wp + c'p over p in K_mu, c = Gamma
 * v_free + (Psi_n / h, 0, 0)), afresh from the evaluation at x0: u = Gamma v+ + (Psi_n / h, 0, 0)
 * = W p + c must lie in the dual cone K*_mu (mu ||u_T|| <= u_n) for every row taking part — a
 * row left out of the working set with u outside K* would make p = 0 wrong for it. The interior
 * point returns s in K* exactly with ||W p + c - s||_inf <= tol_abs + tol_rel max(||c||, ||W p||,
 * ||s||, max|W_ij| ||p||) (docs/theory.md, the cone QP's §6), so mu ||u_T|| - u_n <= (1 + mu
 * sqrt 2) times that. W = Gamma M^-1 Gamma' with M diagonal (free spheres). */
static void check_cone_step(const cdyn_model *m, cdyn_data *d, const cdyn_state *x0,
                            const cdyn_state *x1)
{
    const int nc = cdyn_model_ncontact(m), nv = cdyn_model_nv(m);
    assert_int_equal(cdyn_eval(m, d, x0->q, x0->v, CDYN_EVAL_CONTACTS | CDYN_EVAL_MASS, NULL),
                     CDYN_OK);
    const double *gap = cdyn_data_gap(d), *M = cdyn_data_mass(d);
    const int *act = cdyn_data_active(d);
    const double *J[3] = {cdyn_data_jacobian(d, CDYN_DIR_N), cdyn_data_jacobian(d, CDYN_DIR_T),
                          cdyn_data_jacobian(d, CDYN_DIR_O)};
    assert_non_null(J[0]);
    assert_non_null(M);
    double cmax = 0, wpmax = 0, umax = 0, wmax = 0, pmax = 0;
    double *u = calloc(3 * (size_t)nc, sizeof(double));
    for (int c = 0; c < nc; c++)
        for (int k = 0; act[c] && k < 3; k++) {
            double ck = k == 0 ? gap[c] / H : 0.0, uk = ck, wkk = 0;
            for (int j = 0; j < nv; j++) {
                const double g = J[k][c + (size_t)nc * j];
                const double vf = x0->v[j] - (j % 6 == 2 ? H * G_ACC : 0.0);
                ck += g * vf;
                uk += g * x1->v[j];
                wkk += g * g / M[j + (size_t)nv * j];
            }
            u[3 * c + k] = uk;
            cmax = fmax(cmax, fabs(ck));
            wpmax = fmax(wpmax, fabs(uk - ck));
            umax = fmax(umax, fabs(uk));
            wmax = fmax(wmax, wkk); /* |W_ij| <= max W_ii (W is positive semidefinite) */
            pmax = fmax(pmax, fabs(x1->lambda[3 * c + k] * H));
        }
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_CONE_STEP);
    const double rx = o.coneqp.tol_abs +
                      o.coneqp.tol_rel * fmax(fmax(cmax, wpmax), fmax(umax, wmax * pmax));
    const double bound = (1 + MU * sqrt(2.0)) * rx + 1e-13; /* + our own rounding */
    for (int c = 0; c < nc; c++) {
        if (!act[c])
            continue;
        const double out = MU * hypot(u[3 * c + 1], u[3 * c + 2]) - u[3 * c];
        if (out > bound)
            fail_msg("row %d: u outside K* by %.3g (bound %.3g)", c, out, bound);
    }
    free(u);
}

/* A scheme stepping the pile, and the data to check its steps with. */
typedef struct pile_run {
    cdyn_model *m;
    cdyn_stepper *s;
    cdyn_state *x, *x0; /* the state, and a copy of it before the last step */
    cdyn_data *d;
} pile_run;

static void pile_start(pile_run *r, cdyn_scheme scheme)
{
    r->m = pile_model();
    r->s = scene_stepper(r->m, scheme, H);
    assert_int_equal(cdyn_state_create(r->m, NULL, &r->x, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(r->m, NULL, &r->x0, NULL), CDYN_OK);
    assert_int_equal(cdyn_data_create(r->m, NULL, &r->d, NULL), CDYN_OK);
    pile_q(r->x->q);
}

/* Step k; a failed step fails the test with the solver's message. */
static void pile_step(pile_run *r, int k, cdyn_step_report *sr)
{
    assert_int_equal(cdyn_state_copy(r->x0, r->x, NULL), CDYN_OK);
    if (cdyn_step(r->s, NULL, r->x, sr) != CDYN_OK)
        fail_msg("step %d: %s", k, sr->solver.message);
}

static void pile_end(pile_run *r)
{
    cdyn_data_free(r->d);
    cdyn_state_free(r->x);
    cdyn_state_free(r->x0);
    cdyn_stepper_free(r->s);
    cdyn_model_free(r->m);
}

/* 80 steps (0.4 s: the layers land and settle): no step fails, each answer solves the whole
 * problem (above), no interpenetration beyond h times that bound (for spheres the gap after the
 * step is at least its linearization Psi + h Gamma_n v+: |x + h dv| >= n . (x + h dv) for the
 * centres' distance, exact for a plane), and the energy never grows (rounding: 1e-12 J). */
static void test_coulomb_pile(void **unused)
{
    (void)unused;
    pile_run r;
    pile_start(&r, CDYN_SCHEME_COULOMB_STEP);
    int loaded = 0, rounds = 0, taking_part = 0;
    double e = energy(r.x);
    for (int k = 0; k < 80; k++) {
        cdyn_step_report sr;
        pile_step(&r, k, &sr);
        check_step(r.m, r.d, r.x0, r.x, &loaded);
        rounds += sr.working_rounds;
        taking_part += sr.nactive;
        assert_true(depth(r.x->q) <= H * 1e-9);
        const double e1 = energy(r.x);
        if (e1 > e + 1e-12)
            fail_msg("step %d: energy grew by %.3g J", k, e1 - e);
        e = e1;
    }
    /* the pile is loaded (three layers: 9 on the floor, 4 below each upper sphere at most) */
    assert_true(loaded > 80 * 9);
    assert_true(rounds >= 80);
    print_message("pile: %d loaded rows over 80 steps, %d working-set rounds, %d rows taking "
                  "part\n", loaded, rounds, taking_part);
    pile_end(&r);
}

/* The working set's algebra on three contacts with a known W (9 x 9, symmetric, diagonally
 * dominant; lower-triangle triplets with one entry split in two, as the contact space sums
 * them): the first set leaves out the contact that separates faster than the fastest approach,
 * the restriction renumbers, and the check's velocities equal W p + r computed densely; a row
 * left out that the impulses push in (u_n < 0) is reported and joins the set, one that they do
 * not push in stays out. */
static void test_working_set_algebra(void **unused)
{
    (void)unused;
    double W[81] = {0};
    for (int i = 0; i < 9; i++)
        W[i + 9 * i] = 4.0;
    const int cpl[4][2] = {{6, 0}, {6, 3}, {7, 1}, {5, 2}};
    const double cv[4] = {-1.0, -1.0, 0.5, 0.25};
    int ti[40], tj[40], nt = 0;
    double tx[40];
    for (int j = 0; j < 9; j++)
        for (int i = j; i < 9; i++) {
            for (int c = 0; c < 4; c++)
                if ((cpl[c][0] == i && cpl[c][1] == j) || (cpl[c][0] == j && cpl[c][1] == i))
                    W[i + 9 * j] = W[j + 9 * i] = cv[c];
            if (W[i + 9 * j] == 0.0)
                continue;
            const int split = i == 6 && j == 0; /* one entry as two triplets */
            ti[nt] = i, tj[nt] = j, tx[nt++] = split ? 0.25 * W[i + 9 * j] : W[i + 9 * j];
            if (split)
                ti[nt] = i, tj[nt] = j, tx[nt++] = 0.75 * W[i + 9 * j];
        }
    int rows[3 + 3] = {0, 1, 2, 0, 1, 2};
    double mu[3] = {0.5, 0.5, 0.5}, r[9] = {-1, 0.1, 0, -0.5, 0, 0.2, 2, 0, 0}, wdiag[9];
    for (int i = 0; i < 9; i++)
        wdiag[i] = W[i + 9 * i];
    cs_problem p;
    memset(&p, 0, sizeof p);
    p.nd = 3, p.k = 3, p.m = 9, p.rows = rows, p.mu = mu, p.r = r, p.wdiag = wdiag;
    p.ntrip = nt, p.ti = ti, p.tj = tj, p.tx = tx;
    cdyn_state x0;
    double lambda[9] = {0};
    int mode[3] = {CDYN_MODE_FREE, CDYN_MODE_FREE, CDYN_MODE_FREE};
    memset(&x0, 0, sizeof x0);
    x0.lambda = lambda;
    x0.mode = mode;
    int pos[3];
    assert_int_equal(wset_first(&p, &x0, 0, pos), 2); /* contact 2: r_n = 2 > 1 */
    assert_true(pos[0] && pos[1] && !pos[2]);
    cs_problem sub;
    assert_int_equal(wset_restrict(&p, pos, NULL, &sub), CDYN_OK);
    assert_int_equal(sub.k, 2);
    assert_true(pos[0] == 0 && pos[1] == 1 && pos[2] == -1);
    for (int e = 0; e < sub.ntrip; e++) /* no triplet of contact 2 */
        assert_true(sub.ti[e] < 6 && sub.tj[e] < 6);
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: p_n = 1.5 and 1 push contact 2 in (u_n = 2 - 1.5 - 1); pass 1: 0.5 and 0.5 */
        const double imp[6] = {pass ? 0.5 : 1.5, 0.1, 0, pass ? 0.5 : 1.0, 0, 0.2};
        double full[9] = {0}, u[9];
        memcpy(full, imp, sizeof imp);
        int q[3] = {0, 1, -1};
        assert_int_equal(wset_check(&p, q, imp, 3, 0, u), pass ? 0 : 1);
        for (int i = 0; i < 9; i++) {
            double ui = r[i];
            for (int j = 0; j < 9; j++)
                ui += W[i + 9 * j] * full[j];
            assert_true(fabs(u[i] - ui) <= 1e-15 * (1 + fabs(ui)));
        }
        assert_true(q[0] == 1 && q[1] == 1 && q[2] == !pass);
    }
    cdyn_mem_free(NULL, sub.mu);
    cdyn_mem_free(NULL, sub.r);
    cdyn_mem_free(NULL, sub.wdiag);
    cdyn_mem_free(NULL, sub.ti);
    cdyn_mem_free(NULL, sub.tj);
    cdyn_mem_free(NULL, sub.tx);
}

/* The cone step on the same pile, 80 steps: no step fails, every row's velocity lies in the
 * dual cone (above), and no interpenetration (the relaxation lifts sliding contacts off, it
 * never pushes them in: the linearized gap is u_n h >= mu ||u_T|| h - bound h). */
static void test_cone_pile(void **unused)
{
    (void)unused;
    pile_run r;
    pile_start(&r, CDYN_SCHEME_CONE_STEP);
    int rounds = 0;
    for (int k = 0; k < 80; k++) {
        cdyn_step_report sr;
        pile_step(&r, k, &sr);
        check_cone_step(r.m, r.d, r.x0, r.x);
        rounds += sr.working_rounds;
        assert_true(depth(r.x->q) <= H * 1e-9);
    }
    assert_true(rounds >= 80);
    pile_end(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_working_set_algebra),
        cmocka_unit_test(test_coulomb_pile),
        cmocka_unit_test(test_cone_pile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Quasistatic UCP (Pang, Trinkle & Lo, "A complementarity approach to a quasistatic
 * multi-rigid-body contact problem", 1994; the paper is /work/shared/papers/
 * pang-trinkle-lo-quasistatic-ucp.txt). Expected results and where they come from:
 *   - Data Sets 1-3 (Section 5): solved with x^T y = 0 using no more than two (x, y) pairs, six LPs
 *     counting the two initial ones (the paper's statement in Section 5).
 *   - Data Set 4 (Section 5, "jamming"): no solution; the paper's algorithm stops without one.
 *     Checked independently here by enumerating all 2^9 complementary patterns against X and Y
 *     built from the paper's closed form Z = [Wn^-T  -Wt^-T] (Section 2), not the library's SVD.
 *   - Every returned solution satisfies the paper's equations (2)-(10) at the recovered forces,
 *     velocities and efforts.
 *   - The random generator's witness points lie in X and Y (the paper's construction, Section 5).
 *   - Bad input, empty X or Y, allocation failure. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/lp.h"
#include "cdyn/ucp.h"
#include "solvers/ucp/ucp_build.h"
#include "support.h"
#include "ptl_data_sets.h"

/* The paper's data sets (Section 5): examples/ptl_data_sets.h holds the one transcription. */

/* The transcription is consistent with the geometry the paper describes (Section 2, eq. (1)):
 * each normal is a unit vector (to the printed three digits), the tangent is the normal turned by
 * +90 degrees (n x t points out of the plane), and the normal points into the object: with
 * t = rot90(n) the printed torques satisfy r x t = r . n, which must be negative for a contact
 * point r whose normal points back toward the reference point. A garbled digit would break one
 * of these. */
static void test_dataset_transcription_consistent(void **state)
{
    (void)state;
    for (int which = 1; which <= 2; ++which) {
        ptl_data_set d;
        ptl_make(&d, which);
        for (int i = 0; i < 3; ++i) {
            const double *n = d.Wn + 3 * i, *t = d.Wt + 3 * i;
            assert_true(fabs(hypot(n[0], n[1]) - 1.0) < 2e-3);
            assert_true(fabs(t[0] + n[1]) < 1e-12 && fabs(t[1] - n[0]) < 1e-12);
            /* r x n = n[2] and r x t = t[2]; with t = rot90(n): r . n = r x t */
            assert_true(t[2] < 0.0);
        }
    }
}

static void inv3(const double *A, double *B) /* B = A^-1, column-major 3x3 (cofactors) */
{
#define E(i, j) A[(i) + 3 * (j)]
    double c00 = E(1, 1) * E(2, 2) - E(1, 2) * E(2, 1), c01 = E(1, 2) * E(2, 0) - E(1, 0) * E(2, 2),
           c02 = E(1, 0) * E(2, 1) - E(1, 1) * E(2, 0);
    double det = E(0, 0) * c00 + E(0, 1) * c01 + E(0, 2) * c02;
    B[0 + 3 * 0] = c00 / det;
    B[1 + 3 * 0] = c01 / det;
    B[2 + 3 * 0] = c02 / det;
    B[0 + 3 * 1] = (E(0, 2) * E(2, 1) - E(0, 1) * E(2, 2)) / det;
    B[1 + 3 * 1] = (E(0, 0) * E(2, 2) - E(0, 2) * E(2, 0)) / det;
    B[2 + 3 * 1] = (E(0, 1) * E(2, 0) - E(0, 0) * E(2, 1)) / det;
    B[0 + 3 * 2] = (E(0, 1) * E(1, 2) - E(0, 2) * E(1, 1)) / det;
    B[1 + 3 * 2] = (E(0, 2) * E(1, 0) - E(0, 0) * E(1, 2)) / det;
    B[2 + 3 * 2] = (E(0, 0) * E(1, 1) - E(0, 1) * E(1, 0)) / det;
#undef E
}

/* X and Y of a data set from the paper's closed forms (Section 2): X = {x >= 0 : A_X x = b_X}
 * with Z = [Wn^-T  -Wt^-T], A_X = [Z_n  Z_t  -Z_t], b_X = -Z J theta_dot; Y = {y >= 0 : C y = -d}
 * with C and d as printed above Theorem 1. */
static void paper_polyhedra(const ptl_data_set *d, double *AX, double *bX, double *AY, double *bY)
{
    double Ni[9], Ti[9];
    inv3(d->Wn, Ni);
    inv3(d->Wt, Ti);
    double g[6] = {0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 6; ++j) {
            g[i] += d->Jn[i + 3 * j] * d->p.theta_dot[j];
            g[3 + i] += d->Jt[i + 3 * j] * d->p.theta_dot[j];
        }
    for (int k = 0; k < 3; ++k) { /* row k of Z: Z_n(k, i) = (Wn^-T)(k, i) = Ni(i, k) */
        double zg = 0.0;
        for (int i = 0; i < 3; ++i) {
            double zn = Ni[i + 3 * k], zt = -Ti[i + 3 * k];
            AX[k + 3 * i] = zn;
            AX[k + 3 * (3 + i)] = zt;
            AX[k + 3 * (6 + i)] = -zt;
            zg += zn * g[i] + zt * g[3 + i];
        }
        bX[k] = -zg;
    }
    memset(AY, 0, sizeof(double) * 6 * 9);
    for (int i = 0; i < 3; ++i) {
        double mu = d->p.mu[i];
        AY[i + 6 * i] = 2.0 * mu;
        AY[i + 6 * (3 + i)] = -1.0;
        AY[i + 6 * (6 + i)] = -1.0;
        bY[i] = 0.0;
        for (int k = 0; k < 3; ++k) {
            AY[3 + k + 6 * i] = d->Wn[k + 3 * i] - d->Wt[k + 3 * i] * mu;
            AY[3 + k + 6 * (3 + i)] = d->Wt[k + 3 * i];
        }
    }
    for (int k = 0; k < 3; ++k)
        bY[3 + k] = -PTL_GOBJ[k];
}

static double resid(int m, int n, const double *A, const double *b, const double *x)
{
    double r = 0.0;
    for (int i = 0; i < m; ++i) {
        double s = -b[i];
        for (int j = 0; j < n; ++j)
            s += A[i + (size_t)m * j] * x[j];
        r = fmax(r, fabs(s));
    }
    return r;
}

/* Is {z >= 0 : A z = b, z_j = 0 for banned j} nonempty? (phase 1 of cdyn_lp_solve) */
static int face_nonempty(int m, const double *A, const double *b, const int *banned)
{
    double Af[6 * 9], c[9] = {0}, z[9];
    memcpy(Af, A, sizeof(double) * (size_t)m * 9);
    for (int j = 0; j < 9; ++j)
        if (banned[j])
            for (int i = 0; i < m; ++i)
                Af[i + m * j] = 0.0; /* a zero column leaves the rest of the system unchanged */
    cdyn_lp lp = {m, 9, Af, b, c};
    cdyn_status s = cdyn_lp_solve(&lp, NULL, z, NULL, NULL, NULL, NULL);
    assert_true(s == CDYN_OK || s == CDYN_EINFEASIBLE);
    return s == CDYN_OK;
}

/* Number of complementary patterns S (x_i = 0 for i in S, y_i = 0 otherwise) with both faces
 * nonempty: a solution of the UCP exists iff this is positive. */
static int count_patterns(const ptl_data_set *d)
{
    double AX[3 * 9], bX[3], AY[6 * 9], bY[6];
    paper_polyhedra(d, AX, bX, AY, bY);
    int count = 0;
    for (int mask = 0; mask < 512; ++mask) {
        int xz[9], yz[9];
        for (int i = 0; i < 9; ++i) {
            xz[i] = (mask >> i) & 1;
            yz[i] = !xz[i];
        }
        count += face_nonempty(3, AX, bX, xz) && face_nonempty(6, AY, bY, yz);
    }
    return count;
}

/* The paper's equations (2)-(10) at a solution (theta_dot all given, g_man = 0). */
static void assert_physics(const ptl_data_set *d, const cdyn_ucp_solution *s, double tol)
{
    const cdyn_ucp_problem *p = &d->p;
    for (int k = 0; k < 3; ++k) { /* (2) */
        double f = p->g_obj[k];
        for (int i = 0; i < 3; ++i)
            f += p->Wn[k + 3 * i] * s->c_n[i] + p->Wt[k + 3 * i] * s->c_t[i];
        assert_true(fabs(f) < tol);
    }
    for (int j = 0; j < 6; ++j) { /* (3) with g_man = 0: tau = J^T c */
        double t = 0.0;
        for (int i = 0; i < 3; ++i)
            t += p->Jn[i + 3 * j] * s->c_n[i] + p->Jt[i + 3 * j] * s->c_t[i];
        assert_true(fabs(t - s->tau[j]) < tol);
        assert_true(s->theta_dot[j] == p->theta_dot[j]);
    }
    for (int i = 0; i < 3; ++i) {
        double vn = 0.0, vt = 0.0; /* (4), (5) */
        for (int k = 0; k < 3; ++k) {
            vn += p->Wn[k + 3 * i] * s->qdot[k];
            vt += p->Wt[k + 3 * i] * s->qdot[k];
        }
        for (int j = 0; j < 6; ++j) {
            vn -= p->Jn[i + 3 * j] * p->theta_dot[j];
            vt -= p->Jt[i + 3 * j] * p->theta_dot[j];
        }
        assert_true(fabs(vn - s->v_n[i]) < tol && fabs(vt - s->v_t[i]) < tol);
        double mu = p->mu[i], cn = s->c_n[i], ct = s->c_t[i];
        assert_true(s->v_n[i] >= -tol);                       /* (6) */
        assert_true(fabs(ct) <= mu * cn + tol && cn >= -tol); /* (7) */
        if (cn > tol)                                         /* (8) rolling / touching */
            assert_true(fabs(s->v_n[i]) < tol);
        if (s->v_n[i] > tol) /* (9) breaking */
            assert_true(cn < tol && fabs(ct) < tol);
        if (s->v_t[i] > tol) /* (10) sliding opposes the motion */
            assert_true(fabs(ct + mu * cn) < tol);
        if (s->v_t[i] < -tol)
            assert_true(fabs(ct - mu * cn) < tol);
    }
}

typedef struct outbuf {
    double x[9], y[9], cn[3], ct[3], vn[3], vt[3], q[3], th[6], tau[6];
    cdyn_ucp_solution s;
} outbuf;

static void outbuf_init(outbuf *o)
{
    for (int i = 0; i < 9; ++i)
        o->x[i] = o->y[i] = -99.0;
    cdyn_ucp_solution s = {o->x, o->y, o->cn, o->ct, o->vn, o->vt, o->q, o->th, o->tau};
    o->s = s;
}

static void test_data_sets_1_to_3_solved(void **state)
{
    (void)state;
    for (int which = 1; which <= 3; ++which) {
        ptl_data_set d;
        ptl_make(&d, which);
        outbuf o;
        outbuf_init(&o);
        cdyn_ucp_stats st;
        cdyn_report rep;
        assert_int_equal(cdyn_ucp_solve(&d.p, NULL, &o.s, &st, &rep), CDYN_OK);
        /* Section 5: "no more than two (x, y) pairs (a total of 6 linear programs, including the
         * two initial ones)" */
        assert_true(st.pairs <= 2);
        assert_true(st.linear_programs <= 6);
        assert_int_equal(st.rank_P, 3);
        double xty = 0.0;
        for (int i = 0; i < 9; ++i) {
            assert_true(o.x[i] >= 0.0 && o.y[i] >= 0.0);
            xty += o.x[i] * o.y[i];
        }
        assert_true(xty <= 1e-10); /* the paper's termination rule */
        /* membership in X and Y built independently from the paper's closed forms */
        double AX[27], bX[3], AY[54], bY[6];
        paper_polyhedra(&d, AX, bX, AY, bY);
        assert_true(resid(3, 9, AX, bX, o.x) < 1e-9);
        assert_true(resid(6, 9, AY, bY, o.y) < 1e-9);
        assert_physics(&d, &o.s, 1e-9);
        assert_true(st.residual < 1e-12);
        assert_int_equal(rep.iterations, st.pairs);
        assert_int_equal(rep.evaluations, st.linear_programs);
    }
}

static void test_data_set_4_no_solution(void **state)
{
    (void)state;
    ptl_data_set d;
    ptl_make(&d, 4);
    outbuf o;
    outbuf_init(&o);
    cdyn_ucp_stats st;
    cdyn_report rep;
    assert_int_equal(cdyn_ucp_solve(&d.p, NULL, &o.s, &st, &rep), CDYN_ENOSOLUTION);
    assert_int_equal(rep.status, CDYN_ENOSOLUTION);
    assert_true(strlen(rep.message) > 0);
    assert_true(st.best_xty > 1e-6);
    assert_true(st.stationary >= 1);
    assert_true(o.x[0] == -99.0 && o.y[0] == -99.0); /* outputs untouched */
    /* stopping at the first stationary pair also reports no solution found */
    cdyn_ucp_options opt;
    cdyn_ucp_defaults(&opt);
    opt.escape = CDYN_UCP_ESCAPE_NONE;
    assert_int_equal(cdyn_ucp_solve(&d.p, &opt, NULL, &st, NULL), CDYN_ENOSOLUTION);
    assert_int_equal(st.stationary, 1);
    for (int mode = CDYN_UCP_ESCAPE_ORIGINAL; mode <= CDYN_UCP_ESCAPE_RESTART; ++mode) {
        opt.escape = (cdyn_ucp_escape)mode;
        assert_int_equal(cdyn_ucp_solve(&d.p, &opt, NULL, &st, NULL), CDYN_ENOSOLUTION);
    }
}

/* Independent existence check: complementary patterns from the paper's closed-form X and Y. */
static void test_pattern_enumeration_agrees_with_paper(void **state)
{
    (void)state;
    for (int which = 1; which <= 4; ++which) {
        ptl_data_set d;
        ptl_make(&d, which);
        int patterns = count_patterns(&d);
        if (which < 4)
            assert_true(patterns >= 1);
        else
            assert_int_equal(patterns, 0);
        /* the library's own exhaustive census over the vertices of X agrees */
        cdyn_ucp_census c;
        outbuf o;
        outbuf_init(&o);
        cdyn_status s = cdyn_ucp_enumerate(&d.p, NULL, 1000, &o.s, &c, NULL);
        assert_int_equal(c.complete, 1);
        if (which < 4) {
            assert_int_equal(s, CDYN_OK);
            assert_true(c.solutions >= 1);
            assert_physics(&d, &o.s, 1e-9);
        } else {
            assert_int_equal(s, CDYN_ENOSOLUTION);
            assert_int_equal(c.solutions, 0);
        }
    }
}

/* Bland's rule in the LPs reaches the same verdicts. */
static void test_bland_lps(void **state)
{
    (void)state;
    cdyn_ucp_options opt;
    cdyn_ucp_defaults(&opt);
    opt.lp.rule = CDYN_LP_RULE_BLAND;
    for (int which = 1; which <= 4; ++which) {
        ptl_data_set d;
        ptl_make(&d, which);
        outbuf o;
        outbuf_init(&o);
        cdyn_status s = cdyn_ucp_solve(&d.p, &opt, &o.s, NULL, NULL);
        assert_int_equal(s, which < 4 ? CDYN_OK : CDYN_ENOSOLUTION);
        if (which < 4)
            assert_physics(&d, &o.s, 1e-9);
    }
}

/* ---- Random problems ---------------------------------------------------------------------- */

/* The generator's witness x lies in X and y in Y (the paper's construction: forces inside the
 * cones fix g_obj and g_man, velocities with v_n >= 0 fix theta_dot). */
static void test_random_witness_feasible(void **state)
{
    (void)state;
    for (int finger = 0; finger <= 1; ++finger)
        for (int seed = 1; seed <= 20; ++seed) {
            int nc = 1 + seed % 12;
            cdyn_ucp_random_spec spec = {nc, 1.0, (seed * 7) % (2 * nc + 1), (uint64_t)seed,
                                         (cdyn_ucp_finger)finger};
            cdyn_ucp_instance *inst = NULL;
            assert_int_equal(cdyn_ucp_random(&spec, NULL, &inst, NULL), CDYN_OK);
            int na = 0;
            for (int j = 0; j < 2 * nc; ++j)
                na += inst->problem.alpha[j] != 0;
            assert_int_equal(na, spec.n_alpha);
            cdyn_ucp_sys *sys = NULL;
            assert_int_equal(cdyn_ucp_check(&inst->problem, NULL), CDYN_OK);
            assert_int_equal(cdyn_ucp_sys_create(&inst->problem, NULL, &sys), CDYN_OK);
            for (int i = 0; i < 3 * nc; ++i)
                assert_true(inst->witness_x[i] >= 0.0 && inst->witness_y[i] >= 0.0);
            assert_true(resid(sys->mX, sys->nx, sys->AX, sys->bX, inst->witness_x) < 1e-10);
            assert_true(resid(sys->mY, sys->nx, sys->AY, sys->bY, inst->witness_y) < 1e-10);
            cdyn_ucp_sys_free(sys);
            cdyn_ucp_instance_free(inst);
        }
}

/* Generic residual check of a random instance's solution against (2)-(7) and the contact law,
 * including the recovered efforts of velocity joints and velocities of effort joints. */
static void assert_random_solution(const cdyn_ucp_problem *p, const double *x, const double *y,
                                   const double *cn, const double *ct, const double *q,
                                   const double *th, const double *tau)
{
    const int nc = p->nc, nt = p->ntheta;
    const double tol = 1e-8;
    double xty = 0.0;
    for (int i = 0; i < 3 * nc; ++i)
        xty += x[i] * y[i];
    assert_true(xty <= 1e-9);
    for (int k = 0; k < 3; ++k) {
        double f = p->g_obj[k];
        for (int i = 0; i < nc; ++i)
            f += p->Wn[k + 3 * i] * cn[i] + p->Wt[k + 3 * i] * ct[i];
        assert_true(fabs(f) < tol);
    }
    for (int j = 0; j < nt; ++j) {
        double t = p->g_man[j];
        for (int i = 0; i < nc; ++i)
            t += p->Jn[i + (size_t)nc * j] * cn[i] + p->Jt[i + (size_t)nc * j] * ct[i];
        assert_true(fabs(t - tau[j]) < tol * (1.0 + fabs(tau[j])));
        if (p->alpha[j])
            assert_true(th[j] == p->theta_dot[j]);
        else
            assert_true(tau[j] == p->tau[j]);
    }
    for (int i = 0; i < nc; ++i) {
        double vn = 0.0, vt = 0.0;
        for (int k = 0; k < 3; ++k) {
            vn += p->Wn[k + 3 * i] * q[k];
            vt += p->Wt[k + 3 * i] * q[k];
        }
        for (int j = 0; j < nt; ++j) {
            vn -= p->Jn[i + (size_t)nc * j] * th[j];
            vt -= p->Jt[i + (size_t)nc * j] * th[j];
        }
        assert_true(fabs(vn - x[i]) < tol && fabs(vt - (x[nc + i] - x[2 * nc + i])) < tol);
        assert_true(fabs(ct[i]) <= p->mu[i] * cn[i] + tol);
        if (x[i] > tol)
            assert_true(cn[i] < tol);
        if (vt > tol)
            assert_true(fabs(ct[i] + p->mu[i] * cn[i]) < tol);
        if (vt < -tol)
            assert_true(fabs(ct[i] - p->mu[i] * cn[i]) < tol);
    }
}

/* Small random problems: every answer of the algorithm satisfies the physics; the exhaustive
 * census never contradicts it (a solution found implies the census finds one); and the
 * algorithm finds solutions for most instances the census proves solvable. */
static void test_random_small(void **state)
{
    (void)state;
    int solvable = 0, found = 0;
    for (int finger = 0; finger <= 1; ++finger)
        for (int seed = 1; seed <= 30; ++seed) {
            int nc = 2 + seed % 7;
            cdyn_ucp_random_spec spec = {nc, 0.2 + 0.05 * (seed % 20), 2 * nc - seed % 3,
                                         (uint64_t)(100 + seed), (cdyn_ucp_finger)finger};
            cdyn_ucp_instance *inst = NULL;
            assert_int_equal(cdyn_ucp_random(&spec, NULL, &inst, NULL), CDYN_OK);
            const cdyn_ucp_problem *p = &inst->problem;
            double x[30], y[30], cn[10], ct[10], vn[10], vt[10], q[3], th[20], tau[20];
            cdyn_ucp_solution sol = {x, y, cn, ct, vn, vt, q, th, tau};
            cdyn_ucp_stats st;
            cdyn_status s = cdyn_ucp_solve(p, NULL, &sol, &st, NULL);
            assert_true(s == CDYN_OK || s == CDYN_ENOSOLUTION);
            cdyn_ucp_census c;
            cdyn_status cs = cdyn_ucp_enumerate(p, NULL, 100000, NULL, &c, NULL);
            assert_int_equal(c.complete, 1);
            if (s == CDYN_OK) {
                assert_random_solution(p, x, y, cn, ct, q, th, tau);
                assert_int_equal(cs, CDYN_OK);
            }
            solvable += cs == CDYN_OK;
            found += cs == CDYN_OK && s == CDYN_OK;
            cdyn_ucp_instance_free(inst);
        }
    /* A heuristic for an NP-complete problem: no guarantee, but on these small instances it
     * misses few (measured: see docs/theory.md). */
    print_message("random small: %d solvable, %d found\n", solvable, found);
    assert_true(solvable >= 20);
    assert_true(found >= (9 * solvable) / 10);
}

static void test_random_deterministic(void **state)
{
    (void)state;
    cdyn_ucp_random_spec spec = {10, 2.0, 20, 3000, CDYN_UCP_FINGER_TWO_LINK};
    cdyn_ucp_instance *inst = NULL;
    assert_int_equal(cdyn_ucp_random(&spec, NULL, &inst, NULL), CDYN_OK);
    cdyn_ucp_stats a, b;
    cdyn_status sa = cdyn_ucp_solve(&inst->problem, NULL, NULL, &a, NULL);
    cdyn_status sb = cdyn_ucp_solve(&inst->problem, NULL, NULL, &b, NULL);
    assert_int_equal(sa, sb);
    assert_int_equal(a.pairs, b.pairs);
    assert_int_equal(a.linear_programs, b.linear_programs);
    assert_true(a.best_xty == b.best_xty);
    cdyn_ucp_instance_free(inst);
}

/* A block of unit weight resting on a fixed table (no manipulator joints, ntheta = 0) with
 * contacts at (-1, -h) and (1, -h), normals (0, 1), tangents (-1, 0). Statics: the vertical and
 * moment balances give c_n = (1/2, 1/2); the horizontal balance c_t1 + c_t2 = 0 leaves an internal
 * squeeze undetermined. Kinematics: v_n = 0 at both contacts forces v_y = omega = 0, and sliding
 * (v_x != 0) would need c_t1 = c_t2 = -+mu c_n, violating c_t1 + c_t2 = 0; so qdot = 0. */
static void test_block_on_table(void **state)
{
    (void)state;
    const double h = 0.5, mu[2] = {0.4, 0.4}, g[3] = {0.0, -1.0, 0.0};
    const double Wn[6] = {0, 1, -1, 0, 1, 1};    /* (n, r x n) per contact */
    const double Wt[6] = {-1, 0, -h, -1, 0, -h}; /* (t, r x t) per contact */
    cdyn_ucp_problem p = {2, 3, 0, Wn, Wt, NULL, NULL, mu, NULL, NULL, NULL, g, NULL};
    double x[6], y[6], cn[2], ct[2], vn[2], vt[2], q[3];
    cdyn_ucp_solution s = {x, y, cn, ct, vn, vt, q, NULL, NULL};
    assert_int_equal(cdyn_ucp_solve(&p, NULL, &s, NULL, NULL), CDYN_OK);
    assert_true(fabs(cn[0] - 0.5) < 1e-12 && fabs(cn[1] - 0.5) < 1e-12);
    assert_true(fabs(ct[0] + ct[1]) < 1e-12);
    assert_true(fabs(ct[0]) <= 0.4 * cn[0] + 1e-12);
    for (int k = 0; k < 3; ++k)
        assert_true(fabs(q[k]) < 1e-12);
    assert_true(fabs(vn[0]) < 1e-12 && fabs(vt[1]) < 1e-12);
}

/* ---- Empty X or Y -------------------------------------------------------------------------- */

/* A rigid 1-D object squeezed by two fingers moving toward each other at unit speed:
 * v_n1 = qdot - 1 >= 0 and v_n2 = -qdot - 1 >= 0 cannot both hold, so X is empty. */
static void test_x_empty(void **state)
{
    (void)state;
    const double Wn[2] = {1.0, -1.0}, Wt[2] = {0.0, 0.0}, Jn[4] = {1, 0, 0, 1}, Jt[4] = {0},
                 mu[2] = {0.5, 0.5}, th[2] = {1.0, 1.0}, g[1] = {0.0};
    cdyn_ucp_problem p = {2, 1, 2, Wn, Wt, Jn, Jt, mu, NULL, th, NULL, g, NULL};
    cdyn_report rep;
    cdyn_ucp_stats st;
    assert_int_equal(cdyn_ucp_solve(&p, NULL, NULL, &st, &rep), CDYN_EINFEASIBLE);
    assert_non_null(strstr(rep.message, "X is empty"));
    assert_int_equal(cdyn_ucp_enumerate(&p, NULL, 10, NULL, NULL, NULL), CDYN_EINFEASIBLE);
}

/* A load pulling the object away from its only contact: W_n c_n + g = c_n + 1 = 0 needs
 * c_n = -1 < 0, so Y is empty. */
static void test_y_empty(void **state)
{
    (void)state;
    const double Wn[1] = {1.0}, Wt[1] = {0.0}, Jn[1] = {1.0}, Jt[1] = {0.0}, mu[1] = {0.3},
                 th[1] = {0.0}, g[1] = {1.0};
    cdyn_ucp_problem p = {1, 1, 1, Wn, Wt, Jn, Jt, mu, NULL, th, NULL, g, NULL};
    cdyn_report rep;
    assert_int_equal(cdyn_ucp_solve(&p, NULL, NULL, NULL, &rep), CDYN_EINFEASIBLE);
    assert_non_null(strstr(rep.message, "Y is empty"));
}

/* ---- Bad input and allocation failure ------------------------------------------------------ */

static void expect_einval(const cdyn_ucp_problem *p, const cdyn_ucp_options *o, const char *what)
{
    outbuf ob;
    outbuf_init(&ob);
    cdyn_report rep;
    assert_int_equal(cdyn_ucp_solve(p, o, &ob.s, NULL, &rep), CDYN_EINVAL);
    assert_true(strlen(rep.message) > 0);
    if (what != NULL)
        assert_non_null(strstr(rep.message, what));
    assert_true(ob.x[0] == -99.0 && ob.y[8] == -99.0);
}

static void test_bad_input(void **state)
{
    (void)state;
    ptl_data_set d;
    ptl_make(&d, 1);
    expect_einval(NULL, NULL, "NULL");
    cdyn_ucp_problem p = d.p;
    p.nc = 0;
    expect_einval(&p, NULL, "nc");
    p = d.p;
    p.nq = -1;
    expect_einval(&p, NULL, NULL);
    p = d.p;
    p.ntheta = -2;
    expect_einval(&p, NULL, NULL);
    p = d.p;
    p.Wn = NULL;
    expect_einval(&p, NULL, "NULL");
    p = d.p;
    p.Jt = NULL;
    expect_einval(&p, NULL, "NULL");
    double Wn[9];
    memcpy(Wn, d.Wn, sizeof Wn);
    Wn[4] = NAN;
    p = d.p;
    p.Wn = Wn;
    expect_einval(&p, NULL, "NaN");
    double Jn[18];
    memcpy(Jn, d.Jn, sizeof Jn);
    Jn[7] = INFINITY;
    p = d.p;
    p.Jn = Jn;
    expect_einval(&p, NULL, "NaN");
    const double mu_neg[3] = {0.5, -0.1, 0.3}, mu_nan[3] = {0.5, NAN, 0.3};
    p = d.p;
    p.mu = mu_neg;
    expect_einval(&p, NULL, "mu[1]");
    p.mu = mu_nan;
    expect_einval(&p, NULL, "mu[1]");
    double th[6];
    memcpy(th, PTL_TH1, sizeof th);
    th[3] = NAN;
    p = d.p;
    p.theta_dot = th;
    expect_einval(&p, NULL, "theta_dot[3]");
    const double g_nan[3] = {0, NAN, 0};
    p = d.p;
    p.g_obj = g_nan;
    expect_einval(&p, NULL, "g_obj");
    const int alpha[6] = {1, 1, 0, 1, 1, 1};
    p = d.p;
    p.alpha = alpha; /* joint 2 effort-controlled but no tau given */
    expect_einval(&p, NULL, "tau");
    const double tau_nan[6] = {0, 0, NAN, 0, 0, 0};
    p.tau = tau_nan;
    expect_einval(&p, NULL, "tau[2]");
    cdyn_ucp_options o;
    cdyn_ucp_defaults(&o);
    o.comp_tol = NAN;
    expect_einval(&d.p, &o, "comp_tol");
    cdyn_ucp_defaults(&o);
    o.max_pairs = 0;
    expect_einval(&d.p, &o, NULL);
    cdyn_ucp_defaults(&o);
    o.escape = (cdyn_ucp_escape)9;
    expect_einval(&d.p, &o, "escape");
    cdyn_ucp_defaults(&o);
    o.lp.rule = (cdyn_lp_rule)9;
    expect_einval(&d.p, &o, "rule");
    assert_int_equal(cdyn_ucp_enumerate(&d.p, NULL, 0, NULL, NULL, NULL), CDYN_EINVAL);

    cdyn_ucp_instance dummy;
    cdyn_ucp_instance *inst = &dummy;
    cdyn_ucp_random_spec spec = {0, 1.0, 0, 1, CDYN_UCP_FINGER_TWO_LINK};
    assert_int_equal(cdyn_ucp_random(&spec, NULL, &inst, NULL), CDYN_EINVAL);
    assert_null(inst);
    spec.nc = 3;
    spec.n_alpha = 7;
    assert_int_equal(cdyn_ucp_random(&spec, NULL, &inst, NULL), CDYN_EINVAL);
    spec.n_alpha = 6;
    spec.mu_max = NAN;
    assert_int_equal(cdyn_ucp_random(&spec, NULL, &inst, NULL), CDYN_EINVAL);
    assert_int_equal(cdyn_ucp_random(NULL, NULL, &inst, NULL), CDYN_EINVAL);
    cdyn_ucp_instance_free(NULL);
}

static void test_alloc_failure(void **state)
{
    (void)state;
    ptl_data_set d;
    ptl_make(&d, 2);
    cdyn_ucp_options o;
    cdyn_ucp_defaults(&o);
    test_failing_alloc fa;
    int reached_ok = 0;
    for (int k = 0; k < 20 && !reached_ok; ++k) {
        test_failing_alloc_init(&fa, k);
        o.allocator = &fa.allocator;
        outbuf ob;
        outbuf_init(&ob);
        cdyn_status s = cdyn_ucp_solve(&d.p, &o, &ob.s, NULL, NULL);
        assert_int_equal(fa.live, 0);
        if (s == CDYN_OK)
            reached_ok = 1;
        else {
            assert_int_equal(s, CDYN_ENOMEM);
            assert_true(ob.x[0] == -99.0);
        }
    }
    assert_true(reached_ok);
    reached_ok = 0;
    for (int k = 0; k < 20 && !reached_ok; ++k) {
        test_failing_alloc_init(&fa, k);
        o.allocator = &fa.allocator;
        cdyn_status s = cdyn_ucp_enumerate(&d.p, &o, 100, NULL, NULL, NULL);
        assert_int_equal(fa.live, 0);
        reached_ok = s == CDYN_OK;
        if (!reached_ok)
            assert_int_equal(s, CDYN_ENOMEM);
    }
    assert_true(reached_ok);
    test_failing_alloc_init(&fa, 0);
    cdyn_ucp_random_spec spec = {4, 1.0, 6, 1, CDYN_UCP_FINGER_TWO_LINK};
    cdyn_ucp_instance *inst = NULL;
    assert_int_equal(cdyn_ucp_random(&spec, &fa.allocator, &inst, NULL), CDYN_ENOMEM);
    assert_null(inst);
    test_failing_alloc_init(&fa, -1);
    assert_int_equal(cdyn_ucp_random(&spec, &fa.allocator, &inst, NULL), CDYN_OK);
    assert_int_equal(fa.live, 1);
    cdyn_ucp_instance_free(inst);
    assert_int_equal(fa.live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dataset_transcription_consistent),
        cmocka_unit_test(test_data_sets_1_to_3_solved),
        cmocka_unit_test(test_data_set_4_no_solution),
        cmocka_unit_test(test_pattern_enumeration_agrees_with_paper),
        cmocka_unit_test(test_bland_lps),
        cmocka_unit_test(test_random_witness_feasible),
        cmocka_unit_test(test_random_small),
        cmocka_unit_test(test_random_deterministic),
        cmocka_unit_test(test_block_on_table),
        cmocka_unit_test(test_x_empty),
        cmocka_unit_test(test_y_empty),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

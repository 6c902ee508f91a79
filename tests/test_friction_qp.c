/* The friction QP over a disk (src/step/friction_qp.c): each solution is certified by the KKT
 * conditions of the convex QP (which are sufficient), the closed-form cases are checked against
 * their formulas, the minimizers against the interior-point cone QP's disk problem (a second,
 * independent solver), and the derivatives against central differences of the solution map. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/coneqp.h"
#include "step/friction_qp.h"

/* KKT of min 1/2 x'Sx + d'x s.t. |x| <= r: |x| <= r, nu >= 0, (S + nu I) x + d = 0, and
 * nu (r - |x|) = 0, each to 1e-12 of the data's scale. */
static void check_kkt(int n, const double *S, const double *d, double r, const friction_qp_sol *s)
{
    double scale = 0, xn = 0;
    for (int i = 0; i < n; i++) {
        scale = fmax(scale, fabs(d[i]));
        xn += s->x[i] * s->x[i];
    }
    xn = sqrt(xn);
    for (int i = 0; i < n * n; i++)
        scale = fmax(scale, fabs(S[i]) * fmax(r, xn));
    assert_true(xn <= r * (1 + 1e-14) + 1e-300);
    assert_true(s->nu >= 0);
    for (int i = 0; i < n; i++) {
        double g = d[i] + s->nu * s->x[i];
        for (int j = 0; j < n; j++)
            g += S[i + j * n] * s->x[j];
        assert_true(fabs(g) <= 1e-12 * scale);
    }
    assert_true(s->nu * fabs(r - xn) <= 1e-12 * scale); /* nu x has the units of d */
}

static double objective(int n, const double *S, const double *d, const double *x)
{
    double f = 0;
    for (int i = 0; i < n; i++) {
        f += d[i] * x[i];
        for (int j = 0; j < n; j++)
            f += 0.5 * x[i] * S[i + j * n] * x[j];
    }
    return f;
}

/* The same QP as cdyn_coneqp's disk problem (normal force r, mu = 1), a second, independent
 * solver: its feasible x may not have a lower objective than ours (to rounding), and since S is
 * strongly convex with eig_min(S) = l, f(x) - f(x*) >= l/2 |x - x*|^2 for every feasible x, so
 * the two minimizers must be as close as the objective gap allows. */
static void check_coneqp(int n, const double *S, const double *d, double r,
                         const friction_qp_sol *s)
{
    const double mu = 1.0;
    cdyn_coneqp p = {.ncontacts = 1, .dim = n + 1, .mu = &mu, .normal = &r, .H = S, .c = d};
    double x[2], u[2];
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, u, NULL, NULL), CDYN_OK);
    const double fc = objective(n, S, d, x), fo = objective(n, S, d, s->x);
    const double tiny = 1e-13 * (fabs(fo) + 1e-300);
    assert_true(fo <= fc + tiny);
    double l = S[0], dist2 = 0;
    if (n == 2) {
        const double m = 0.5 * (S[0] + S[3]);
        l = m - hypot(0.5 * (S[0] - S[3]), S[1]);
    }
    for (int i = 0; i < n; i++)
        dist2 += (x[i] - s->x[i]) * (x[i] - s->x[i]);
    assert_true(0.5 * l * dist2 <= fc - fo + tiny);
}

/* Dd and Dr against central differences of the solution (h = 1e-7 of the scale). */
static void check_derivatives(int n, const double *S, const double *d, double r,
                              const friction_qp_sol *s)
{
    friction_qp_sol p, m;
    double dd[2];
    for (int j = 0; j < n; j++) {
        const double eps = 1e-7 * fmax(1.0, fabs(d[j]));
        memcpy(dd, d, sizeof(double) * (size_t)n);
        dd[j] = d[j] + eps;
        assert_int_equal(friction_qp_solve(n, S, dd, r, &p), 0);
        dd[j] = d[j] - eps;
        assert_int_equal(friction_qp_solve(n, S, dd, r, &m), 0);
        for (int i = 0; i < n; i++) {
            const double fd = (p.x[i] - m.x[i]) / (2 * eps);
            assert_true(fabs(fd - s->Dd[i + j * n]) <= 1e-6 * fmax(1.0, fabs(fd)));
        }
    }
    const double eps = 1e-7 * fmax(1.0, r);
    assert_int_equal(friction_qp_solve(n, S, d, r + eps, &p), 0);
    assert_int_equal(friction_qp_solve(n, S, d, r - eps, &m), 0);
    for (int i = 0; i < n; i++) {
        const double fd = (p.x[i] - m.x[i]) / (2 * eps);
        assert_true(fabs(fd - s->Dr[i]) <= 1e-6 * fmax(1.0, fabs(fd)));
    }
}

/* Planar: the clamp of -d/S to [-r, r]. */
static void test_planar(void **unused)
{
    (void)unused;
    const double S = 4.0;
    friction_qp_sol s;
    const double d_in = 2.0, d_out = -12.0;
    assert_int_equal(friction_qp_solve(1, &S, &d_in, 1.0, &s), 0);
    assert_false(s.on_boundary);
    assert_true(fabs(s.x[0] + 0.5) < 1e-15 && fabs(s.Dd[0] + 0.25) < 1e-15);
    check_kkt(1, &S, &d_in, 1.0, &s);
    check_coneqp(1, &S, &d_in, 1.0, &s);
    check_derivatives(1, &S, &d_in, 1.0, &s);
    assert_int_equal(friction_qp_solve(1, &S, &d_out, 1.0, &s), 0);
    assert_true(s.on_boundary && s.x[0] == 1.0 && s.Dr[0] == 1.0 && fabs(s.nu - 8.0) < 1e-14);
    check_kkt(1, &S, &d_out, 1.0, &s);
    check_coneqp(1, &S, &d_out, 1.0, &s);
    check_derivatives(1, &S, &d_out, 1.0, &s);
}

/* Spatial, isotropic S = s I: the projection of -d/s onto the disk (closed form). */
static void test_isotropic(void **unused)
{
    (void)unused;
    const double S[4] = {2.0, 0, 0, 2.0}, d[2] = {-6.0, 8.0};
    friction_qp_sol s;
    assert_int_equal(friction_qp_solve(2, S, d, 2.5, &s), 0);
    assert_true(s.on_boundary);
    assert_true(fabs(s.x[0] - 1.5) < 1e-14 && fabs(s.x[1] + 2.0) < 1e-14);
    assert_true(fabs(s.nu - 2.0) < 1e-13); /* |d| / r - s */
    check_kkt(2, S, d, 2.5, &s);
    check_derivatives(2, S, d, 2.5, &s);
}

/* Anisotropic S (a compliance with coupled t-o rows): interior and boundary points over a
 * sweep of directions and radii, including a radius where the force nearly vanishes. */
static void test_anisotropic(void **unused)
{
    (void)unused;
    const double S[4] = {3.0, 1.2, 1.2, 0.5};
    int inside = 0, boundary = 0;
    for (int a = 0; a < 24; a++) {
        const double d[2] = {5.0 * cos(0.27 * a), 5.0 * sin(0.27 * a)};
        const double radii[4] = {1e-6, 0.3, 2.0, 400.0};
        for (int k = 0; k < 4; k++) {
            friction_qp_sol s;
            assert_int_equal(friction_qp_solve(2, S, d, radii[k], &s), 0);
            check_kkt(2, S, d, radii[k], &s);
            check_derivatives(2, S, d, radii[k], &s);
            check_coneqp(2, S, d, radii[k], &s);
            inside += !s.on_boundary;
            boundary += s.on_boundary;
        }
    }
    assert_true(inside > 0 && boundary > 0);
}

/* The apex r = 0: x = 0, leaving along -d as r grows; bad data refused. */
static void test_apex_and_errors(void **unused)
{
    (void)unused;
    const double S[4] = {1.0, 0, 0, 1.0}, d[2] = {3.0, -4.0};
    friction_qp_sol s;
    assert_int_equal(friction_qp_solve(2, S, d, 0.0, &s), 0);
    assert_true(s.x[0] == 0 && s.x[1] == 0);
    assert_true(fabs(s.Dr[0] + 0.6) < 1e-15 && fabs(s.Dr[1] - 0.8) < 1e-15);
    const double indefinite[4] = {1.0, 2.0, 2.0, 1.0}, nan_d[2] = {NAN, 0};
    assert_int_equal(friction_qp_solve(2, indefinite, d, 1.0, &s), 1);
    assert_int_equal(friction_qp_solve(2, S, nan_d, 1.0, &s), 1);
    assert_int_equal(friction_qp_solve(2, S, d, -1.0, &s), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planar),
        cmocka_unit_test(test_isotropic),
        cmocka_unit_test(test_anisotropic),
        cmocka_unit_test(test_apex_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

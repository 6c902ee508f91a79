/* Random LCP generators shared by the tests and the benchmarks. All matrices are column-major,
 * n-by-n with n given by the generator (M[i + j*n]); every draw comes from the caller's seeded
 * test_rng, so a (seed, size) pair names a problem. */
#ifndef CDYN_TEST_LCP_PROBLEMS_H
#define CDYN_TEST_LCP_PROBLEMS_H

#include "support.h"

/* M = B B^T / n + 0.1 I with B uniform in [-1, 1] (symmetric positive definite, eigenvalues in
 * [0.1, about 4.1]); q uniform in [-1, 1]. Unique solution (M is a P-matrix). */
void lcpgen_spd(test_rng *rng, int n, double *M, double *q);

/* M = S + K with S drawn as in lcpgen_spd and K = (A - A^T) / sqrt(n), A uniform in [-1, 1]:
 * x^T M x = x^T S x > 0, so M is positive definite, hence a (nonsymmetric) P-matrix;
 * q uniform in [-1, 1]. */
void lcpgen_pmatrix(test_rng *rng, int n, double *M, double *q);

/* Size of the friction-pyramid LCP with nc contacts: pn (nc), pd (4 nc), sigma (nc). */
int lcpgen_pyramid_size(int nc);

/* Anitescu–Potra friction-pyramid LCP (Anitescu & Potra 1997) for nc random contacts between
 * nc/3 + 1 rigid bodies (6 dof each) and the ground. Each contact has a random frame (n, t, o),
 * random lever arms, and touches one body or two; the Jacobian rows G = [Jn; D] with D = (+t, -t,
 * +o, -o) per contact give the Delassus matrix W = G Minv G^T (random masses and inertias), whose
 * rank is at most 6 (nc/3 + 1) < 3 nc for nc > 6: rank-deficient as in real stacks. Unknowns
 * (pn, pd, sigma), n = 6 nc:
 *     M = [ Wnn   WnD   0 ]      q = [ Jn v + g ]
 *         [ WDn   WDD   E ]          [ D v      ]
 *         [ mu I  -E^T  0 ]          [ 0        ]
 * with E the 4nc-by-nc block of ones per contact, v a random velocity in [-1, 1]^m and g uniform
 * in [-0.2, 0.1] (a mix of approaching and separating contacts). M is copositive but not
 * copositive-plus and the problem is degenerate (q = 0 on the sigma rows). */
void lcpgen_pyramid(test_rng *rng, int nc, double mu, double *M, double *q);

#endif

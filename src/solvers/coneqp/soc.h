/* Internal: algebra of the second-order (Lorentz) cone Q^m = {(v0, v1) : ||v1||_2 <= v0} for the
 * small blocks of the friction-cone QP (1 <= m <= CDYN_SOC_MAX). Q^1 is the half-line v0 >= 0.
 *
 * Jordan algebra: u o v = (u'v, u0 v1 + v0 u1), identity e = (1, 0, ..., 0). Nesterov-Todd
 * scaling of a pair s, z in int Q^m: the symmetric W with W z = W^{-1} s =: lambda that maps
 * Q^m onto itself. Small matrices are m-by-m, column-major with leading dimension CDYN_SOC_MAX.
 * See docs/theory.md for the formulas. */
#ifndef CDYN_SOLVERS_SOC_H
#define CDYN_SOLVERS_SOC_H

#define CDYN_SOC_MAX 3

/* sqrt(v0^2 - ||v1||^2) computed as sqrt((v0 - ||v1||)(v0 + ||v1||)) (no cancellation inside
 * the product); 0 when v is on the boundary or outside. */
double cdyn_soc_det_sqrt(int m, const double *v);

/* Nonzero when v is in the interior: v0 > ||v1|| (and every entry finite). */
int cdyn_soc_interior(int m, const double *v);

/* out := u o v (out may not alias u or v). */
void cdyn_soc_prod(int m, const double *u, const double *v, double *out);

/* out := the x with lam o x = r, for lam in int Q (out may not alias lam; may alias r). */
void cdyn_soc_div(int m, const double *lam, const double *r, double *out);

/* Nesterov-Todd scaling of s, z in int Q^m: W, W^{-1} (m-by-m, ld CDYN_SOC_MAX) and
 * lambda = W z. Returns 0, or -1 when s or z is not in the interior (outputs then unset). */
int cdyn_soc_nt(int m, const double *s, const double *z, double *W, double *Winv, double *lambda);

/* The square of the smallest eigenvalue of the Nesterov-Todd point lambda of s, z in int Q^m,
 * lambda_min^2 = (lambda0 - ||lambda1||)^2, from s and z without the scaling: lambda'lambda = s'z
 * and det(lambda) = sqrt(det s det z) give lambda_min^2 = D / (s'z + sqrt((s'z)^2 - D)) with
 * D = det s det z (m = 1: s z). 0 when s or z is not in the interior. It equals s'z exactly on
 * the central path (lambda a multiple of e) and tends to 0 when the pair leaves it. */
double cdyn_soc_lambda_min_sq(int m, const double *s, const double *z);

/* Largest alpha >= 0 with u + alpha d in Q^m for u in int Q^m; INFINITY when there is none. */
double cdyn_soc_max_step(int m, const double *u, const double *d);

/* y := A x for an m-by-m matrix with ld CDYN_SOC_MAX (y may not alias x). */
void cdyn_soc_matvec(int m, const double *A, const double *x, double *y);

#endif

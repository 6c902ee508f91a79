/* The peer solvers: Siconos Numerics' lexicographic Lemke (SICONOS_LCP_LEMKE, lcp_lexicolemke)
 * and its Newton–Fischer–Burmeister method (SICONOS_LCP_NEWTON_FB_FBLSA, lcp_newton_FB), called
 * through its LCP driver so that Siconos' own validity check (lcp_compute_error, applied by the
 * driver) decides its reported status, as it would for a Siconos user. */
#ifndef CDYN_BENCH_SICONOS_LCP_H
#define CDYN_BENCH_SICONOS_LCP_H

typedef struct siconos_lcp siconos_lcp;

/* Wraps M (n-by-n, column-major, not copied, not modified) and q (n values) for Siconos;
 * max_pivots sets iparam[SICONOS_IPARAM_MAX_ITER]. Returns NULL when out of memory. */
siconos_lcp *siconos_lcp_create(int n, const double *M, const double *q, int max_pivots);

/* The same for Newton–FB with Siconos' default options except the tolerance
 * dparam[SICONOS_DPARAM_TOL] = tol (Siconos' error is ||min(z, Mz+q)||_2 / ||q||_2, or the
 * unscaled norm when ||q||_2 <= DBL_EPSILON). */
siconos_lcp *siconos_lcp_create_newton_fb(int n, const double *M, const double *q, double tol);

/* The defaults of solver_options_create(SICONOS_LCP_NEWTON_FB_FBLSA): iteration limit and
 * tolerance. Returns 0, or -1 when out of memory. */
int siconos_newton_fb_defaults(int *max_iter, double *tol);

/* Solves from the z given (the Newton method's starting point; Lemke ignores it); returns the
 * driver's info (0 = solved and accepted by lcp_compute_error, else failure) and stores the
 * iterations Siconos reports (iparam[SICONOS_IPARAM_ITER_DONE]: Newton iterations, or pivots
 * for Lemke, where Siconos does not count the initial pivot that brings the artificial
 * variable into the basis). */
int siconos_lcp_solve(siconos_lcp *s, double *z, double *w, int *iterations);

/* The iteration limit iparam[SICONOS_IPARAM_MAX_ITER] in use. */
int siconos_lcp_max_iter(const siconos_lcp *s);

/* Siconos' own error measure of the last solve (dparam[SICONOS_DPARAM_RESIDU]). */
double siconos_lcp_error(const siconos_lcp *s);

void siconos_lcp_free(siconos_lcp *s);

/* Redirects stdout to /dev/null (returns a token for stdout_restore, or -1 if it could not),
 * so that messages a peer library may print do not corrupt the benchmark's table. */
int stdout_silence(void);
void stdout_restore(int token);

#endif

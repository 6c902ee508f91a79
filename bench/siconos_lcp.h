/* The peer solver: Siconos Numerics' lexicographic Lemke (SICONOS_LCP_LEMKE, lcp_lexicolemke),
 * called through its LCP driver so that Siconos' own validity check (lcp_compute_error, applied
 * by the driver) decides its reported status, as it would for a Siconos user. */
#ifndef CDYN_BENCH_SICONOS_LCP_H
#define CDYN_BENCH_SICONOS_LCP_H

typedef struct siconos_lcp siconos_lcp;

/* Wraps M (n-by-n, column-major, not copied, not modified) and q (n values) for Siconos;
 * max_pivots sets iparam[SICONOS_IPARAM_MAX_ITER]. Returns NULL when out of memory. */
siconos_lcp *siconos_lcp_create(int n, const double *M, const double *q, int max_pivots);

/* Solves; returns the driver's info (0 = solved and accepted by lcp_compute_error, else
 * failure) and stores the pivots Siconos reports (iparam[SICONOS_IPARAM_ITER_DONE]; Siconos
 * does not count the initial pivot that brings the artificial variable into the basis). */
int siconos_lcp_solve(siconos_lcp *s, double *z, double *w, int *pivots);

/* Siconos' own error measure of the last solve (dparam[SICONOS_DPARAM_RESIDU]). */
double siconos_lcp_error(const siconos_lcp *s);

void siconos_lcp_free(siconos_lcp *s);

/* Redirects stdout to /dev/null (returns a token for stdout_restore, or -1 if it could not),
 * so that messages a peer library may print do not corrupt the benchmark's table. */
int stdout_silence(void);
void stdout_restore(int token);

#endif

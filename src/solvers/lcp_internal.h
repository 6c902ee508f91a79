/* Internal: helpers shared by the LCP solvers (not installed). */
#ifndef CDYN_SOLVERS_LCP_INTERNAL_H
#define CDYN_SOLVERS_LCP_INTERNAL_H

#include "cdyn/lcp.h"

/* Validate lcp (non-NULL, n > 0, M and q present and finite); *mnorm (may be NULL) receives the
 * induced infinity norm of M (largest absolute row sum). */
cdyn_status cdyn_lcp_validate(const cdyn_lcp *lcp, double *mnorm, cdyn_report *rep);

/* cdyn_lemke_ex for an lcp that passed cdyn_lcp_validate (mnorm: the norm it returned) and a
 * report already cleared: cdyn_lcp_solve validates once for all its attempts. */
cdyn_status cdyn_lemke_validated(const cdyn_lcp *lcp, double mnorm, const cdyn_lemke_options *opts,
                                 double *z, double *w, int *basis, cdyn_report *report);

/* cdyn_lcp_enumerate that also counts the complementary bases skipped as singular
 * (*singular may be NULL). With *count == 0 and *singular == 0 the LCP has no solution. */
cdyn_status cdyn_lcp_enumerate_ex(const cdyn_lcp *lcp, double *solutions, int max_solutions,
                                  int *count, int *singular, const cdyn_allocator *allocator,
                                  cdyn_report *report);

#endif

/* cdyn — status codes and the solver report shared by every entry point. */
#ifndef CDYN_STATUS_H
#define CDYN_STATUS_H

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One list generates the enum and the message table so they cannot drift apart. */
#define CDYN_STATUS_LIST(X)                                                          \
    X(CDYN_OK, 0, "success")                                                         \
    X(CDYN_EINVAL, -1, "invalid argument")                                           \
    X(CDYN_ENOMEM, -2, "out of memory")                                              \
    X(CDYN_ENOCONV, -3, "no convergence within the iteration or pivot limit")        \
    X(CDYN_ESINGULAR, -4, "singular or not positive definite matrix")                \
    X(CDYN_ERAY, -5, "ray termination: the pivoting method found no solution")      \
    X(CDYN_EINFEASIBLE, -6, "the problem is infeasible")                             \
    X(CDYN_EUNBOUNDED, -7, "the problem is unbounded")                               \
    X(CDYN_ENUMERIC, -8, "numerical failure (loss of accuracy)")                     \
    X(CDYN_EIO, -9, "input/output error")                                            \
    X(CDYN_EFORMAT, -10, "malformed input data")                                     \
    X(CDYN_ETOOBIG, -11, "problem too large for this method")                        \
    X(CDYN_ENOSOLUTION, -12, "no solution (the message says whether this is proven)")     \
    X(CDYN_EINACCURATE, -13,                                                           \
      "inaccurate: the answer failed its certificate (outputs hold the best point found)") \
    X(CDYN_EPENETRATION, -14, "a contact penetrated deeper than the step allows")     \
    X(CDYN_ENOTSUP, -15, "not supported (yet) for this scheme or configuration")

typedef enum cdyn_status {
#define CDYN_STATUS_ENUM_(name, value, text) name = (value),
    CDYN_STATUS_LIST(CDYN_STATUS_ENUM_)
#undef CDYN_STATUS_ENUM_
} cdyn_status;

/* Text for a status; never NULL (unknown values give "unknown status"). */
CDYN_API const char *cdyn_status_str(cdyn_status status);

#define CDYN_REPORT_TEXT 256
#define CDYN_REPORT_METHOD 32

/* What a solver says about one call. Filled on success and on failure.
 *
 * OK means certified: a solver returns CDYN_OK only after checking the answer it returns against
 * the problem's data, recomputed afresh (each solver's header says what its certificate is).
 * An answer that fails its certificate gives CDYN_EINACCURATE instead: the outputs then hold the
 * best point found and `residual` its residual, but the point is not a certified solution. */
typedef struct cdyn_report {
    cdyn_status status;               /* same value as the call returned */
    int iterations;                   /* iterations or pivots (summed over a fallback chain) */
    int evaluations;                  /* function / Jacobian evaluations where meaningful, else 0 */
    double residual;                  /* the solver class's own residual measure at the result */
    char method[CDYN_REPORT_METHOD];  /* which method produced the result, e.g. "lemke" */
    char message[CDYN_REPORT_TEXT];   /* human-readable reason, empty on plain success */
    int proven;                       /* a failure (CDYN_EINFEASIBLE, CDYN_ENOSOLUTION) that is
                                         proven from the data by a checked certificate (e.g. an
                                         LCP row with q_i < 0 and M_ij <= 0 for every j): 1;
                                         a numerical conclusion or no such failure: 0 */
} cdyn_report;

#ifdef __cplusplus
}
#endif
#endif

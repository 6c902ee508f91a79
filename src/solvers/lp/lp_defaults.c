/* The LP options' defaults (cdyn_lp_defaults in cdyn/lp.h), in a file of their own: the simplex
 * engine (simplex.c) starts from them, and the entry points (lp.c) call that engine: the calls
 * between the two files run one way. */
#include "cdyn/lp.h"

#include <stddef.h>

void cdyn_lp_defaults(cdyn_lp_options *opts)
{
    if (opts == NULL)
        return;
    opts->max_iterations = 0;
    opts->rule = CDYN_LP_RULE_LEXICOGRAPHIC;
    opts->feas_tol = 1e-9;
    opts->opt_tol = 1e-9;
    opts->pivot_tol = 1e-9;
    opts->refactor_every = 32;
    opts->max_bases = 256;
    opts->allocator = NULL;
}

/* Test cases shared by the model tests: every supported geometry pair, built on any two mounts
 * (tm_add_mount), and random states near contact. */
#ifndef CDYN_TEST_PAIR_CASES_H
#define CDYN_TEST_PAIR_CASES_H

#include "cdyn/model.h"
#include "model_support.h"
#include "support.h"

typedef struct tm_pair_case {
    const char *name;
    int dim;
    cdyn_geom_type ta;
    double sa[3];
    cdyn_geom_type tb;
    double sb[3];
    double cb[3]; /* centre of b relative to a (at the origin) */
    int plane_a;  /* a is a plane: only ground / free / chain mounts matter the same */
} tm_pair_case;

extern const tm_pair_case TM_PAIR_CASES[];
extern const int TM_NPAIR_CASES;
extern const char *const TM_MOUNT_NAME[TM_NMOUNT];

/* The pair of case pc with a on mount ma and b on mount mb (declared as (b, a) when swap), with
 * the given patch (patch_n = 1: none); default contact parameters. cmocka assertions fail when
 * the builder refuses. */
cdyn_model *tm_build_pair(const tm_pair_case *pc, int ma, int mb, int swap, int patch_n,
                          double patch_w);

/* Random state: chain joints within +-0.15, free bodies jittered by +-jit around their default
 * pose with a random orientation (planar: angle; spatial: quaternion within 0.6 rad of the
 * reference when `small_rot`), velocities within +-2. */
void tm_random_state(const cdyn_model *m, test_rng *rng, double jit, int small_rot, double *q,
                     double *v);

#endif

/* MuJoCo scenes for the benchmarks that compare with it (bench_step, bench_derivs): MJCF text
 * built in a growing buffer and loaded through a temporary file (MuJoCo 2.2 reads XML from
 * files only). */
#ifndef CDYN_BENCH_MUJOCO_H
#define CDYN_BENCH_MUJOCO_H

#include <stddef.h>

#include <mujoco/mujoco.h>

/* XML text in a malloc'd buffer (free s when done). */
typedef struct bench_text {
    char *s;
    size_t len, cap;
} bench_text;

void bench_put(bench_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* <mujoco>, the options (elliptic cones, Euler) and <worldbody>; nconmax: room for this many
 * contacts (MuJoCo 2.2 preallocates; an overflow drops contacts). */
void bench_mj_header(bench_text *t, double h, const char *gravity, int nconmax);

/* A free sphere of radius r and mass m at (x, y, z), friction mu, condim 3. */
void bench_mj_ball(bench_text *t, double x, double y, double z, double r, double m, double mu);

/* The model, or NULL with MuJoCo's message on stderr (prefixed by who). */
mjModel *bench_mj_from_xml(const char *xml, const char *who);

#endif

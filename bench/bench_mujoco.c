#define _GNU_SOURCE /* mkstemps, fdopen */
#include "bench_mujoco.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void bench_put(bench_text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)n + 1024;
        t->s = realloc(t->s, t->cap);
    }
}

void bench_mj_header(bench_text *t, double h, const char *gravity, int nconmax)
{
    bench_put(t, "<mujoco><option timestep=\"%g\" gravity=\"%s\" cone=\"elliptic\" "
                 "integrator=\"Euler\"/><size nconmax=\"%d\" njmax=\"%d\"/><worldbody>",
              h, gravity, nconmax, 3 * nconmax);
}

void bench_mj_ball(bench_text *t, double x, double y, double z, double r, double m, double mu)
{
    bench_put(t, "<body pos=\"%.6f %.6f %.6f\"><freejoint/><geom type=\"sphere\" size=\"%g\" "
                 "mass=\"%g\" friction=\"%g 0 0\" condim=\"3\"/></body>",
              x, y, z, r, m, mu);
}

mjModel *bench_mj_from_xml(const char *xml, const char *who)
{
    char path[] = "/tmp/cdyn_bench_mj_XXXXXX.xml";
    int fd = mkstemps(path, 4);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(xml, f);
    fclose(f);
    char err[1000] = "";
    mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
    remove(path);
    if (m == NULL)
        fprintf(stderr, "%s: MuJoCo: %s\n", who, err);
    return m;
}

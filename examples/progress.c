/* Progress lines: in place on a terminal, whole lines otherwise (progress.h). */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty */
#include "progress.h"

#include <stdarg.h>
#include <unistd.h>

static int in_place(FILE *f)
{
    return isatty(fileno(f));
}

void progress_line(FILE *f, const char *fmt, ...)
{
    const int tty = in_place(f);
    va_list ap;
    va_start(ap, fmt);
    if (tty)
        fputc('\r', f);
    vfprintf(f, fmt, ap);
    fputs(tty ? "   " : "\n", f); /* on a terminal: blank what a longer line left */
    va_end(ap);
    fflush(f);
}

void progress_done(FILE *f)
{
    if (in_place(f))
        fputc('\n', f);
}

/* A progress line on stderr for the examples' long solves: on a terminal it is rewritten in
 * place ('\r'); otherwise (a log, a pipe, CI) every call prints one whole line, so that a log
 * keeps each report on its own line instead of one line full of carriage returns. */
#ifndef CDYN_EXAMPLES_PROGRESS_H
#define CDYN_EXAMPLES_PROGRESS_H

#include <stdio.h>

/* Print one progress report (printf format) to f. */
void progress_line(FILE *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* After the last report: end the line rewritten in place (nothing when f is not a terminal). */
void progress_done(FILE *f);

#endif

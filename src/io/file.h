/* Internal: whole-file reads through the caller's allocator, and messages naming a path. */
#ifndef CDYN_IO_FILE_H
#define CDYN_IO_FILE_H

#include <stddef.h>

#include "cdyn/alloc.h"
#include "cdyn/status.h"

/* Read the whole file into a new buffer (one extra byte, set to NUL, after *length bytes).
 * Returns CDYN_OK, CDYN_EIO (message: path and the system's reason) or CDYN_ENOMEM. */
cdyn_status cdyn_io_read_all(const char *path, const cdyn_allocator *allocator, char **text,
                             size_t *length, cdyn_report *report);

/* A parser of text held in memory into *out (the readers' *_parse functions, out passed as
 * void *). */
typedef cdyn_status (*cdyn_io_parse_fn)(const char *text, size_t length,
                                        const cdyn_allocator *allocator, void *out,
                                        cdyn_report *report);

/* Read path whole and parse it; a failure's message is prefixed with the file's name, so a
 * message about line 7 says which file. */
cdyn_status cdyn_io_read_parse(const char *path, const cdyn_allocator *allocator,
                               cdyn_io_parse_fn parse, void *out, cdyn_report *report);

/* The path for a message: its last characters when it is too long to show whole. */
const char *cdyn_io_path_tail(const char *path);

/* The system's text for an errno value, reentrant. Returns buf. */
const char *cdyn_io_errno_text(int err, char *buf, size_t size);

#endif

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

/* The path for a message: its last characters when it is too long to show whole. */
const char *cdyn_io_path_tail(const char *path);

/* The system's text for an errno value, reentrant. Returns buf. */
const char *cdyn_io_errno_text(int err, char *buf, size_t size);

#endif

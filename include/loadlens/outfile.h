/* SPDX-License-Identifier: MIT */
/*
 * Output files opened safely by a privileged process (--json, --ndjson, --trace): never through
 * a symbolic link, never onto a device, FIFO or socket, never onto a file with other hard links,
 * and created with mode 0600 (then given to the invoking user under sudo, from SUDO_UID and
 * SUDO_GID). Open them at start, before any uid change, and write through the descriptor.
 */
#ifndef LOADLENS_OUTFILE_H
#define LOADLENS_OUTFILE_H

#include <stdio.h>

/*
 * Open `path` for writing, truncated, close-on-exec. `what` names the option in the message
 * ("--json"). On refusal or failure prints one line "prog: ..." on stderr and returns -1 with
 * errno set (ELOOP: a symbolic link; EINVAL: not a regular file or other hard links; EEXIST: it
 * appeared while being created; else open's errno). The caller exits LL_EXIT_USAGE.
 */
int ll_output_open_fd(const char *prog, const char *what, const char *path);

/* The same as a stdio stream ("w"); NULL with errno set on failure, the line printed. */
FILE *ll_output_open(const char *prog, const char *what, const char *path);

#endif /* LOADLENS_OUTFILE_H */

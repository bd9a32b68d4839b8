/* SPDX-License-Identifier: MIT */
/*
 * Input files read with a bound (--payload, --body-file, --requests-file, merge inputs): regular
 * files only, so a FIFO, a terminal or /dev/zero is refused at once instead of hanging the open or
 * the read, or filling memory; and at most a given size.
 */
#ifndef LOADLENS_INFILE_H
#define LOADLENS_INFILE_H

#include <stdint.h>
#include <stdio.h>

/*
 * Open path for reading (close-on-exec). A FIFO is opened with O_NONBLOCK, so the open never
 * waits for a writer, then refused. NULL with errno set: ENODEV (not a regular file: a FIFO,
 * device or socket), EISDIR (a directory), EFBIG (larger than max_bytes; 0: no bound), or
 * open()'s errno. ll_input_strerror() says it in words.
 */
FILE *ll_input_open(const char *path, uint64_t max_bytes);

/* What ll_input_open()'s errno means, for one line: "not a regular file (...)", or strerror. */
const char *ll_input_strerror(int err);

#endif /* LOADLENS_INFILE_H */

// SPDX-License-Identifier: MIT
/* Input files read with a bound (see loadlens/infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "loadlens/infile.h"

FILE *ll_input_open(const char *path, uint64_t max_bytes)
{
	struct stat st;
	FILE *f;
	int fd, err;

	/* O_NONBLOCK: opening a FIFO with no writer returns at once (then it is refused) */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR;
	else if (!S_ISREG(st.st_mode))
		err = ENODEV;
	else if (max_bytes && (uint64_t)st.st_size > max_bytes)
		err = EFBIG;
	else if (fcntl(fd, F_SETFL, 0)) /* blocking reads from here */
		err = errno;
	else
		err = 0;
	if (!err) {
		f = fdopen(fd, "r");
		if (f)
			return f;
		err = errno;
	}
	close(fd);
	errno = err;
	return NULL;
}

const char *ll_input_strerror(int err)
{
	switch (err) {
	case ENODEV:
		return "not a regular file (a FIFO, device or socket is not read)";
	case EISDIR:
		return "a directory, not a file";
	case EFBIG:
		return "larger than the limit";
	default:
		return strerror(err);
	}
}

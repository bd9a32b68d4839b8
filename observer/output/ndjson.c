// SPDX-License-Identifier: MIT
/* The --ndjson file, with its first write error kept and said once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/cli.h"
#include "loadlens/outfile.h"
#include "output/ndjson.h"

struct obs_ndjson {
	FILE *f;
	const char *prog;
	const char *path;
	int err;
};

struct obs_ndjson *obs_ndjson_open(const char *prog, const char *path)
{
	struct obs_ndjson *nd = calloc(1, sizeof(*nd));
	int err;

	if (!nd)
		return NULL;
	nd->prog = prog;
	nd->path = path;
	nd->f = ll_output_open(prog, "--ndjson", path);
	if (!nd->f) {
		err = errno;
		free(nd);
		errno = err;
		return NULL;
	}
	return nd;
}

static void failed(struct obs_ndjson *nd, int err)
{
	if (nd->err)
		return;
	nd->err = -err;
	ll_warn(nd->prog, "cannot write --ndjson file '%s': %s; its records are lost from here "
		"on, and the run will exit 1", nd->path, strerror(err));
}

int obs_ndjson_write(struct obs_ndjson *nd, json_t *rec)
{
	if (!nd)
		return 0;
	if (nd->err)
		return nd->err;
	errno = 0;
	if (json_dumpf(rec, nd->f, JSON_COMPACT) || fputc('\n', nd->f) == EOF ||
	    fflush(nd->f) == EOF)
		failed(nd, errno ? errno : EIO);
	return nd->err;
}

int obs_ndjson_error(const struct obs_ndjson *nd)
{
	return nd ? nd->err : 0;
}

int obs_ndjson_close(struct obs_ndjson *nd)
{
	int err;

	if (!nd)
		return 0;
	errno = 0;
	if (fclose(nd->f) == EOF)
		failed(nd, errno ? errno : EIO);
	err = nd->err;
	free(nd);
	return err;
}

// SPDX-License-Identifier: MIT
/* One interval's output (interval_out.h): the NDJSON record, then the live lines. */
#include <errno.h>
#include <string.h>
#include "loadlens/cli.h"
#include "output/interval_out.h"
#include "output/interval_record.h"
#include "output/ndjson.h"
#include "output/reqtime_report.h"
#include "output/status_live.h"
#include "output/summary.h"
#include "tick/snapshots.h"

int obs_interval_out(const char *prog, const struct obs_tick *tk, const struct obs_record *rec,
		     struct obs_ndjson *nd, FILE *live)
{
	const struct obs_requests_snap *rq = tk->req;
	json_t *j;
	int err;

	if (nd) {
		j = obs_record_json(rec);
		err = j ? obs_ndjson_write(nd, j) : -ENOMEM;
		json_decref(j);
		if (err && !obs_ndjson_error(nd))
			ll_warn(prog, "cannot write the interval record: %s", strerror(-err));
	}
	if (live) {
		obs_summary_live_line(live, tk);
		if (rq)
			obs_reqtime_fmt_live(live, rq, tk->dt);
		obs_status_live(live, tk->snap);
		fflush(live);
	}
	return obs_ndjson_error(nd);
}

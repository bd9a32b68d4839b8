// SPDX-License-Identifier: MIT
/* loadlens-driver: parse, open the output, raise the fd limit, drop privileges, run, report. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "loadlens/cli.h"
#include "loadlens/outfile.h"
#include "config/config_help.h"
#include "config/parse.h"
#include "results/hdrlog.h"
#include "base/drv.h"
#include "results/merge.h"
#include "results/plan.h"
#include "privilege.h"
#include "procs.h"
#include "config/quote.h"
#include "results/report.h"
#include "run.h"
#include "apps.h"

int main(int argc, char **argv)
{
	struct drv_result res = {0};
	struct drv_config cfg;
	struct drv_priv priv;
	char err[512];
	int r, json_fd = -1, rc = LL_EXIT_OK;

	drv_apps_register(); /* --response resp/memcache/dns, --proto ldap, grpc://, udp:// (apps.c) */
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return drv_merge_main(argc - 1, argv + 1);
	if (drv_config_parse(&cfg, argc, argv, err, sizeof(err))) {
		drv_config_fini(&cfg);
		ll_usage_error(DRV_PROG, "%s", err);
	}
	if (cfg.help || cfg.version) {
		if (cfg.help)
			drv_config_usage(stdout);
		else
			printf("%s %s\n", DRV_PROG, LOADLENS_VERSION);
		drv_config_fini(&cfg);
		return LL_EXIT_OK;
	}
	if (cfg.print_plan) { /* parsed as for a run; nothing opened, nothing sent */
		r = drv_plan_print(stdout, &cfg);
		if (r)
			ll_warn(DRV_PROG, "cannot print the plan: %s", strerror(-r));
		drv_config_fini(&cfg);
		return r ? LL_EXIT_FAIL : LL_EXIT_OK;
	}
	/*
	 * the outputs first, so a bad path fails now, not after the run: regular files only (never
	 * through a link, never onto a device such as /dev/full, never onto a file with other hard
	 * links), new ones 0600 (loadlens/outfile.h); the refusal is one line, exit 64
	 */
	if (cfg.json_path) {
		json_fd = ll_output_open_fd(DRV_PROG, "--json", cfg.json_path);
		if (json_fd < 0) {
			drv_config_fini(&cfg);
			exit(LL_EXIT_USAGE);
		}
	}
	if (cfg.hdr_log_path) {
		cfg.hdr_log_fd = ll_output_open_fd(DRV_PROG, "--hdr-log", cfg.hdr_log_path);
		if (cfg.hdr_log_fd < 0) {
			if (json_fd >= 0)
				close(json_fd);
			drv_config_fini(&cfg);
			exit(LL_EXIT_USAGE);
		}
	}
	/* a peer's reset must come back as EPIPE from write(), not kill us */
	signal(SIGPIPE, SIG_IGN);
	res.nofile_limit = drv_procs_raise_nofile(&cfg);
	cfg.procs = drv_procs_plan(&cfg, res.nofile_limit, err, sizeof(err));
	if (err[0])
		ll_warn(DRV_PROG, "%s", err);
	drv_priv_target(&priv);
	if (priv.root && priv.from_sudo && json_fd >= 0)
		(void)fchown(json_fd, priv.uid, priv.gid); /* the user behind sudo owns the results */
	if (priv.root && priv.from_sudo && cfg.hdr_log_fd >= 0)
		(void)fchown(cfg.hdr_log_fd, priv.uid, priv.gid);
	r = drv_priv_drop(&priv, err, sizeof(err));
	if (r) {
		drv_config_fini(&cfg);
		ll_usage_error(DRV_PROG, "%s", err);
	}
	if (err[0])
		ll_warn(DRV_PROG, "%s", err);
	if (!cfg.quiet)
		drv_report_banner(stdout, &cfg);
	if (cfg.procs > 1) { /* the fd limit is per process: past it, several */
		rc = drv_procs_run(&cfg, json_fd, res.nofile_limit);
		drv_config_fini(&cfg);
		return rc;
	}

	r = drv_run(&cfg, &res);
	if (r && !res.threads_started) {
		ll_warn(DRV_PROG, "cannot start the run: %s", strerror(-r));
		if (json_fd >= 0)
			close(json_fd);
		drv_result_fini(&res);
		drv_config_fini(&cfg);
		return LL_EXIT_FAIL;
	}
	if (r) {
		ll_warn(DRV_PROG, "could not start every thread: %s; results cover the rest",
			strerror(-r));
		rc = LL_EXIT_FAIL;
	}
	drv_report_summary(stdout, &cfg, &res);
	if (res.loop_close_failures) {
		ll_warn(DRV_PROG, "%d event loop(s) still had handles at exit (a driver bug)",
			res.loop_close_failures);
		rc = LL_EXIT_FAIL;
	}
	if (json_fd >= 0) {
		r = drv_report_json_write_fd(json_fd, &cfg, &res);
		if (r) {
			ll_warn(DRV_PROG, "cannot write %s: %s", cfg.json_path, strerror(-r));
			rc = LL_EXIT_FAIL;
		}
	}
	if (res.hdr_log_err) {
		ll_warn(DRV_PROG, "cannot write %s: %s", cfg.hdr_log_path,
			strerror(-res.hdr_log_err));
		rc = LL_EXIT_FAIL;
	}
	if (!res.total.requests && res.total.errors_total)
		rc = LL_EXIT_FAIL; /* nothing succeeded: scripts should notice */
	drv_result_fini(&res);
	drv_config_fini(&cfg);
	return rc;
}

// SPDX-License-Identifier: MIT
/* CPU waits from the targets' schedstat: cpu_waits.h. */
#include "rules/rules.h"
#include "rules/cpu_waits.h"

double obs_cpu_ran(const struct obs_snap *s)
{
	double busy = s->cpu_busy - s->cpu_lost;

	if (!obs_cpu_unread(s) || busy <= s->cpu_running)
		return s->cpu_running;
	return busy < s->cpu_cpus ? busy : s->cpu_cpus;
}

bool obs_cpu_unread(const struct obs_snap *s)
{
	return s->cpu_unread && s->cpu_busy >= 0;
}

/* The targets' threads kept most of the CPUs they may run on busy (OBS_RULE_CPU_BUSY). Of those
 * CPUs, the time no thread could have (steal, interrupts: cpuwait.h) is not theirs to carry. */
static bool cpus_busy(const struct obs_snap *s)
{
	double usable = (double)s->cpu_cpus - s->cpu_lost;

	return obs_cpu_ran(s) >= OBS_RULE_CPU_BUSY * (usable > 0 ? usable : 0);
}

/* The bar of waiting threads a CPU: OBS_RULE_CPU_WAITING, or OBS_RULE_CPU_WAITING_FULL where the
 * targets' threads held OBS_RULE_CPU_FULL of their CPUs outright. */
static double cpu_bar(const struct obs_snap *s)
{
	return s->cpu_running >= OBS_RULE_CPU_FULL * s->cpu_cpus ? OBS_RULE_CPU_WAITING_FULL
								  : OBS_RULE_CPU_WAITING;
}

/* The targets' threads waited for a CPU (schedstat, without --runq): `share` of the bar
 * (cpu_bar) a CPU or more on average, at least half as many as ran, and they kept their CPUs
 * busy: the server itself is what the CPUs carry. */
bool obs_cpu_waited_at(const struct obs_snap *s, double share)
{
	return s->cpu_on && s->cpu_cpus && s->cpu_waiting >= share * cpu_bar(s) * s->cpu_cpus &&
	       s->cpu_waiting >= 0.5 * s->cpu_running && cpus_busy(s);
}

bool obs_cpu_waited(const struct obs_snap *s)
{
	return obs_cpu_waited_at(s, 1);
}

/* The CPU waits were seen lately (2 x OBS_RULE_SAT_INTERVALS): a queue then is no worker
 * pool's, even in an interval whose waits dipped. */
bool obs_cpu_waited_lately(const struct obs_snap_hist *h)
{
	const struct obs_snap *s;
	unsigned int b;

	for (b = 0; b < 2 * OBS_RULE_SAT_INTERVALS && (s = obs_snap_at(h, b)); b++)
		if (obs_cpu_waited(s))
			return true;
	return false;
}

/* Each of the last OBS_RULE_SAT_INTERVALS intervals waited at OBS_RULE_CPU_OLDER of the bar, the
 * newest at `newest` of it. */
static bool cpu_waited_each(const struct obs_snap_hist *h, double newest)
{
	const struct obs_snap *s;
	unsigned int b;

	for (b = 0; b < OBS_RULE_SAT_INTERVALS; b++)
		if (!(s = obs_snap_at(h, b)) || !obs_cpu_waited_at(s, b ? OBS_RULE_CPU_OLDER : newest))
			return false;
	return true;
}

/* The waits held: in the newest interval at the bar; in an older one at OBS_RULE_CPU_OLDER of
 * it (a load that began in its middle, as the queue's p90 there). Or, once at the bar lately, at
 * OBS_RULE_CPU_OLDER of it in every interval since (obs_cpu_waited_still): a wait that dips under the
 * bar is still the CPU's, not yet nobody's. */
bool obs_cpu_waited_all(const struct obs_snap_hist *h)
{
	return cpu_waited_each(h, 1);
}

/* The waits stayed at OBS_RULE_CPU_OLDER of the bar in every interval judged, and reached it
 * lately: the CPU still, through a dip under the bar (the hysteresis of obs_cpu_waited_all) */
bool obs_cpu_waited_still(const struct obs_snap_hist *h)
{
	return cpu_waited_each(h, OBS_RULE_CPU_OLDER) && obs_cpu_waited_lately(h);
}

/* The targets' threads waited for a CPU as long as they ran, or longer, while they did not keep
 * their CPUs busy themselves: other work holds the CPUs (or a quota throttles them). */
bool obs_cpu_contended(const struct obs_snap *s)
{
	return s->cpu_on && s->cpu_cpus && s->cpu_waiting >= OBS_RULE_CPU_CONTENDED &&
	       s->cpu_waiting >= s->cpu_running && !cpus_busy(s);
}

/* Contended in the newer interval, and in the older ones the threads waited longer than they ran
 * (any amount: a load that began in the middle of one, as the queue's p90 there) */
bool obs_cpu_contended_all(const struct obs_snap_hist *h)
{
	const struct obs_snap *s;
	unsigned int b;

	if (!(s = obs_snap_at(h, 0)) || !obs_cpu_contended(s))
		return false;
	for (b = 1; b < OBS_RULE_SAT_INTERVALS; b++)
		if (!(s = obs_snap_at(h, b)) || !s->cpu_on || s->cpu_waiting <= 0 ||
		    s->cpu_waiting < s->cpu_running || obs_cpu_waited(s))
			return false;
	return true;
}

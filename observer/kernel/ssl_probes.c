// SPDX-License-Identifier: MIT
/* TLS plaintext's uprobes: possible here, planned, attached to the targets' libssl. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "loadlens/reqtime.h"
#include "loadlens/ssl.h"
#include "kernel/bpfread.h"
#include "kernel/sockets.h"
#include "kernel/ssl_probes.h"
#include "kernel/ssl_sites.h"
#include "sockets.skel.h"

#define SSL_FUNCS 5
#define SSL_FILES 8 /* files attached to (more are not) */

struct obs_ssl_probes {
	struct bpf_link **links; /* each file's, function's and process's entry and return */
	size_t nlinks;
	bool scoped; /* attached to the serving processes only (their mm), not every process */
	size_t nlibs; /* files with every uprobe attached */
	size_t emulated, stepped; /* probes at instructions the kernel emulates, or steps */
	size_t inner;		  /* wrapper pairs probed at their inner function */
	char text[1024];
};

/* The functions, and their entry and return programs. */
static void funcs(struct sockets_bpf *s, const char **name, struct bpf_program **in,
		  struct bpf_program **out)
{
#if OBS_SYSCALL_REGS
	static const char *const names[SSL_FUNCS] = {"SSL_read", "SSL_read_ex", "SSL_write",
						     "SSL_write_ex", "SSL_do_handshake"};
	struct bpf_program *e[SSL_FUNCS] = {s->progs.handle_ssl_read, s->progs.handle_ssl_read_ex,
					    s->progs.handle_ssl_write, s->progs.handle_ssl_write_ex,
					    s->progs.handle_ssl_do_handshake};
	size_t i;

	for (i = 0; i < SSL_FUNCS; i++) {
		name[i] = names[i];
		in[i] = e[i];
		out[i] = s->progs.handle_ssl_ret; /* one program for every return */
	}
#else
	(void)s, (void)name, (void)in, (void)out;
#endif
}

bool obs_ssl_probes_possible(const struct obs_sockets *conn, char *why, size_t len)
{
	*why = '\0';
#if !OBS_SYSCALL_REGS
	snprintf(why, len, "the uprobe programs read x86-64's, arm64's and ppc64's registers only");
	return false;
#else
	if (getenv("LOADLENS_OBSERVER_NO_UPROBES")) {
		snprintf(why, len, "uprobes switched off (LOADLENS_OBSERVER_NO_UPROBES)");
		return false;
	}
	if (access("/sys/bus/event_source/devices/uprobe/type", F_OK)) {
		snprintf(why, len, "the kernel has no uprobes (CONFIG_UPROBE_EVENTS)");
		return false;
	}
	return true;
#endif
}

void obs_ssl_probes_plan(struct obs_sockets *conn, bool on)
{
	struct sockets_bpf *s = obs_sockets_skel(conn);
	struct bpf_program *in[SSL_FUNCS] = {NULL}, *out[SSL_FUNCS] = {NULL};
	const char *name[SSL_FUNCS];
	size_t i;

	funcs(s, name, in, out);
	s->rodata->targ_ssl = on;
	for (i = 0; i < SSL_FUNCS; i++) {
		if (!in[i])
			continue;
		/* attached to files here, never by the skeleton */
		bpf_program__set_autoattach(in[i], false);
		bpf_program__set_autoattach(out[i], false);
		if (!on) {
			bpf_program__set_autoload(in[i], false);
			bpf_program__set_autoload(out[i], false);
		}
	}
	if (!on) {
		/* the socket programs still name these maps: at their smallest */
		bpf_map__set_max_entries(s->maps.ssl_calls, 1);
		bpf_map__set_max_entries(s->maps.ssl_socks, 1);
		bpf_map__set_max_entries(s->maps.ssl_conns, 1);
	}
}

/* Appends "SEP PATH" to buf (SEP only when buf holds something). */
static void list_add(char *buf, size_t size, const char *sep, const char *what)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", len ? sep : "", what);
}

/* How the probes sit, appended to the text: what an SSL call costs the kernel. */
static void sites_text(struct obs_ssl_probes *p)
{
	char t[256];

	obs_ssl_sites_text(p->emulated, p->stepped, p->inner, t, sizeof(t));
	list_add(p->text, sizeof(p->text), "", " (");
	list_add(p->text, sizeof(p->text), "", t);
	list_add(p->text, sizeof(p->text), "", ")");
}

/* The entry and return probes of one function at site st of file path, for process pid (-1:
 * every process), appended to p->links. 0 or -errno. */
static int attach_pair(struct obs_ssl_probes *p, struct bpf_program *in, struct bpf_program *out,
		       const char *path, const char *name, const struct obs_ssl_site *st, int pid)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = st->offset ? NULL : name);
	struct bpf_link *e, *r;
	int err;

	e = bpf_program__attach_uprobe_opts(in, pid, path, st->offset, &o);
	if (!e)
		return -errno;
	o.retprobe = true;
	r = bpf_program__attach_uprobe_opts(out, pid, path, st->offset, &o);
	if (!r) {
		err = -errno;
		bpf_link__destroy(e);
		return err;
	}
	p->links[p->nlinks++] = e;
	p->links[p->nlinks++] = r;
	return 0;
}

struct obs_ssl_probes *obs_ssl_probes_attach(struct obs_sockets *conn,
					     const struct obs_ssl_file *files, size_t nfiles,
					     const uint32_t *pids, size_t npids, bool scoped)
{
	struct sockets_bpf *s = obs_sockets_skel(conn);
	struct bpf_program *in[SSL_FUNCS] = {NULL}, *out[SSL_FUNCS] = {NULL};
	struct obs_ssl_probes *p = calloc(1, sizeof(*p));
	const char *name[SSL_FUNCS], *fail;
	char why[160], on[512] = "", off[512] = "", one[480];
	struct obs_ssl_sites sites;
	size_t i, j, k, first;
	uint32_t tgid;
	int err;

	scoped = scoped && npids;
	if (p)
		p->links = calloc(SSL_FILES * SSL_FUNCS * 2 * (scoped ? npids : 1),
				  sizeof(p->links[0]));
	if (!p || !p->links) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->scoped = scoped;
	funcs(s, name, in, out);
	for (i = 0; i < npids; i++) {
		tgid = pids[i];
		/* a taken slot stays its first process's (the BPF side counts a second one) */
		if (!s->bss->ssl_procs[tgid % RT_SSL_PROCS])
			s->bss->ssl_procs[tgid % RT_SSL_PROCS] = tgid;
	}
	for (i = 0; i < nfiles && i < SSL_FILES && in[0]; i++) {
		const struct obs_ssl_file *l = &files[i];

		first = p->nlinks;
		fail = NULL;
		/* the sites: emulated instructions where the library has them (ssl_sites.h) */
		if (obs_ssl_sites_find(l->open, getenv("LOADLENS_OBSERVER_SSL_ENTRIES") != NULL,
				       &sites))
			memset(&sites, 0, sizeof(sites)); /* each function at its symbol */
		for (k = 0; k < SSL_FUNCS && !fail; k++) {
			const struct obs_ssl_site *st = &sites.fn[k];
			/* an inner function has the _ex convention (SSL_read's: SSL_read_ex's) */
			struct bpf_program *prog = st->inner ? in[k + 1] : in[k];

			if (st->skip)
				continue; /* its pair's inner function covers it */
			/* scoped: one pair a serving process, the breakpoints in its memory only */
			for (j = 0, err = 0; j < (scoped ? npids : 1) && !err; j++)
				err = attach_pair(p, prog, out[k], l->open, name[k], st,
						  scoped ? (int)pids[j] : -1);
			if (err) {
				fail = name[k];
				snprintf(why, sizeof(why), "%s: %s", name[k], strerror(-err));
			}
		}
		if (fail) {
			/* all or nothing for a file: a read seen without its writes times nothing */
			while (p->nlinks > first)
				bpf_link__destroy(p->links[--p->nlinks]);
			snprintf(one, sizeof(one), "%s (%s)", l->path, why);
			list_add(off, sizeof(off), ", ", one);
			continue;
		}
		list_add(on, sizeof(on), ", ", l->path);
		p->nlibs++;
		p->emulated += sites.emulated;
		p->stepped += sites.stepped;
		p->inner += sites.fn[OBS_SSL_READ].inner + sites.fn[OBS_SSL_WRITE].inner;
	}
	if (p->nlibs) { /* cut at the text's size where the lists are long */
		snprintf(p->text, sizeof(p->text), "uprobes on %s", on);
		sites_text(p);
		if (scoped)
			list_add(p->text, sizeof(p->text), "", ", in the --pid processes only: "
				 "other processes' SSL calls pay nothing");
		if (*off) {
			list_add(p->text, sizeof(p->text), "", "; not on ");
			list_add(p->text, sizeof(p->text), "", off);
		}
	} else if (*off)
		snprintf(p->text, sizeof(p->text), "no uprobe attached: %s", off);
	else
		snprintf(p->text, sizeof(p->text), "no libssl in the %zu target processes' maps",
			 npids);
	return p;
}

void obs_ssl_probes_free(struct obs_ssl_probes *p)
{
	if (!p)
		return;
	while (p->nlinks)
		bpf_link__destroy(p->links[--p->nlinks]);
	free(p->links);
	free(p);
}

size_t obs_ssl_probes_count(const struct obs_ssl_probes *p)
{
	return p ? p->nlibs : 0;
}

const char *obs_ssl_probes_text(const struct obs_ssl_probes *p)
{
	return p ? p->text : "off";
}

uint64_t obs_ssl_probes_missed(struct obs_sockets *conn)
{
	struct sockets_bpf *s = obs_sockets_skel(conn);
	struct bpf_program *in[SSL_FUNCS] = {NULL}, *out[SSL_FUNCS] = {NULL}, *all[2 * SSL_FUNCS];
	const char *name[SSL_FUNCS];
	size_t i, n = 0;

	funcs(s, name, in, out);
	for (i = 0; i < SSL_FUNCS; i++) {
		if (!in[i] || !bpf_program__autoload(in[i]))
			continue;
		all[n++] = in[i];
	}
	if (n)
		all[n++] = out[0];
	return n ? obs_bpfread_progs_missed(all, n) : 0;
}

// SPDX-License-Identifier: MIT
/*
 * Load noop.bpf.o, attach the chosen no-op programs, say "attached" on stderr and hold them
 * until SIGINT or SIGTERM (or MAX_SECONDS, so a forgotten loader cannot keep them attached).
 *
 *   attach OBJ [TRACEPOINTS [MAX_SECONDS]]
 *
 * TRACEPOINTS: "all" (default: the three socket tracepoints) or a comma list of sk_data_ready,
 * sock_recv_length, sock_send_length, ssl_uprobes (no-op uprobes on SSL_read and SSL_write,
 * entry and return, in the libssl at $ATTACH_LIBSSL, default Debian's), inet_sock_set_state,
 * tcp_rcv_space_adjust and kfree_skb. MAX_SECONDS: 1..86400, default 3600.
 *
 * Exit status: 0 ok, 1 runtime failure, 64 usage error.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static const char *const tracepoints[] = { "sk_data_ready",	   "sock_recv_length",
					   "sock_send_length",	   "ssl_uprobes",
					   "inet_sock_set_state", "tcp_rcv_space_adjust",
					   "kfree_skb" };
#define N_TP (sizeof(tracepoints) / sizeof(tracepoints[0]))
#define TP_SSL 3 /* the uprobes: one program each for the entries and the returns */
#define N_LINKS (N_TP + 4)

static void usage(const char *msg)
{
	fprintf(stderr, "attach: %s\n", msg);
	fprintf(stderr, "usage: attach OBJ [all|TP[,TP...] [MAX_SECONDS]]\n"
			"  TP: sk_data_ready, sock_recv_length, sock_send_length, ssl_uprobes, "
			"inet_sock_set_state, tcp_rcv_space_adjust, kfree_skb; MAX_SECONDS "
			"1..86400 (default 3600)\n");
	exit(64);
}

/* libbpf's warnings only: its info lines would bury "attached" in a log */
static int print_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* bit i set: attach tracepoints[i] */
static unsigned int parse_tracepoints(const char *arg)
{
	char buf[256], *tok, *save;
	unsigned int mask = 0, i;

	if (!strcmp(arg, "all"))
		return (1u << TP_SSL) - 1;
	if (strlen(arg) >= sizeof(buf))
		usage("tracepoint list too long");
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < N_TP; i++)
			if (!strcmp(tok, tracepoints[i]))
				break;
		if (i == N_TP) {
			fprintf(stderr, "attach: unknown tracepoint '%s'\n", tok);
			usage("bad TRACEPOINTS");
		}
		mask |= 1u << i;
	}
	if (!mask)
		usage("no tracepoint given");
	return mask;
}

/* which of tracepoints[] a program's section "tp_btf/NAME" names, or -1 */
static int tp_index(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);
	unsigned int i;

	if (!strcmp(sec, "uprobe") || !strcmp(sec, "uretprobe"))
		return TP_SSL;
	if (strncmp(sec, "tp_btf/", 7))
		return -1;
	for (i = 0; i < N_TP; i++)
		if (!strcmp(sec + 7, tracepoints[i]))
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[N_LINKS] = { 0 };
	const char *libssl = getenv("ATTACH_LIBSSL") ? getenv("ATTACH_LIBSSL")
						      : "/usr/lib/x86_64-linux-gnu/libssl.so.3";
	static const char *const ssl_funcs[] = { "SSL_read", "SSL_write" };
	unsigned int nl = 0, k;
	struct timespec limit = { 0 };
	struct bpf_prog_info info;
	struct bpf_program *p;
	struct bpf_object *obj;
	unsigned int mask = (1u << TP_SSL) - 1, n = 0;
	__u32 len;
	sigset_t set;
	char *end;
	long secs = 3600;
	int i, sig, err;

	if (argc < 2 || argc > 4)
		usage("expected 1 to 3 arguments");
	if (argc > 2)
		mask = parse_tracepoints(argv[2]);
	if (argc > 3) {
		errno = 0;
		secs = strtol(argv[3], &end, 10);
		if (!*argv[3] || *end || errno || secs < 1 || secs > 86400)
			usage("bad MAX_SECONDS");
	}
	limit.tv_sec = secs;

	/* blocked before anything is attached: a signal from now on is waited for, not lost */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	libbpf_set_print(print_warnings);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "attach: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj)
	{
		i = tp_index(p);
		bpf_program__set_autoload(p, i >= 0 && (mask & (1u << i)));
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "attach: load: %s\n", strerror(-err));
		return 1;
	}
	fprintf(stderr, "attached:");
	bpf_object__for_each_program(p, obj)
	{
		i = tp_index(p);
		if (i < 0 || !(mask & (1u << i)))
			continue;
		for (k = 0; k < (i == TP_SSL ? 2u : 1u); k++) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = ssl_funcs[k],
				    .retprobe = !strcmp(bpf_program__section_name(p), "uretprobe"));

			links[nl] = i == TP_SSL ? bpf_program__attach_uprobe_opts(p, -1, libssl, 0, &uo)
						: bpf_program__attach(p);
			if (!links[nl]) {
				fprintf(stderr, "\nattach: %s: %s\n", tracepoints[i], strerror(errno));
				return 1;
			}
			nl++;
		}
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len);
		fprintf(stderr, " %s (prog id %u)", tracepoints[i], info.id);
		n++;
	}
	fprintf(stderr, "; %u program(s), detaching on SIGINT/SIGTERM or after %ld s\n", n, secs);

	sig = sigtimedwait(&set, NULL, &limit);
	if (sig < 0 && errno == EAGAIN)
		fprintf(stderr, "attach: %ld s passed, detaching\n", secs);
	for (k = 0; k < nl; k++)
		bpf_link__destroy(links[k]);
	bpf_object__close(obj);
	return 0;
}

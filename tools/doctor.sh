#!/bin/bash
# loadlens doctor: what this host offers the observer, and the limits that cause connection
# failures under load. Read-only except for mounting tracefs when it is missing (as root).
set -u
ok() { printf '  ok    %s\n' "$*"; }
bad() { printf '  MISS  %s\n' "$*"; problems=$((problems + 1)); }
note() { printf '  note  %s\n' "$*"; }
problems=0

echo "kernel $(uname -r)"
[ "$(id -u)" = 0 ] && ok "running as root" || bad "not root: the observer needs root or CAP_BPF+CAP_PERFMON"
[ -r /sys/kernel/btf/vmlinux ] && ok "BTF at /sys/kernel/btf/vmlinux" || bad "no kernel BTF (CONFIG_DEBUG_INFO_BTF)"
if ! grep -q ' /sys/kernel/tracing tracefs' /proc/mounts; then
	if [ "$(id -u)" = 0 ] && mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null; then
		ok "tracefs mounted now at /sys/kernel/tracing"
	else
		bad "tracefs not mounted (mount -t tracefs tracefs /sys/kernel/tracing)"
	fi
else
	ok "tracefs mounted"
fi
T=/sys/kernel/tracing/events
for tp in syscalls/sys_enter_accept4 syscalls/sys_exit_accept4 sock/inet_sock_set_state \
	sock/sk_data_ready sock/sock_recv_length sock/sock_send_length skb/kfree_skb \
	tcp/tcp_retransmit_synack tcp/tcp_send_reset tcp/tcp_receive_reset \
	sched/sched_wakeup sched/sched_switch; do
	[ -d "$T/$tp" ] && ok "tracepoint $tp" || bad "tracepoint $tp missing: the metric that needs it is off"
done
# any syscall tracepoint in use sends every syscall of the host through the slow path (a cost
# loadlens-observer avoids by default: docs/observer.md, "Syscall tier")
if command -v bpftool >/dev/null && command -v jq >/dev/null; then
	sys_users=$(bpftool perf -j 2>/dev/null |
		jq -r '[.[] | select(.tracepoint // "" | test("^sys_(enter|exit)")) | .pid] | unique | join(" ")')
	if [ -n "$sys_users" ]; then
		note "syscall tracepoints in use by pid $sys_users: every syscall on this host takes the slow path"
	else
		ok "no syscall tracepoint in use (syscalls take the fast path)"
	fi
fi
read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
note "ephemeral ports $lo-$hi ($((hi - lo + 1)) per destination address:port)"
note "TIME_WAIT sockets now: $(ss -Htan state time-wait | wc -l); tcp_tw_reuse=$(cat /proc/sys/net/ipv4/tcp_tw_reuse)"
note "somaxconn=$(cat /proc/sys/net/core/somaxconn); ulimit -n=$(ulimit -n) (soft) $(ulimit -Hn) (hard)"
read -r used _ max </proc/sys/fs/file-nr
note "open files system-wide: $used of $max"
[ $problems = 0 ] && echo "doctor: all prerequisites present" || echo "doctor: $problems problem(s)"
[ $problems = 0 ]

#!/bin/bash
# PID 1 of the guest once its root is the overlay of the host's root (tools/kernels/init.sh).
# Gives the guest what a booted Debian 12 has for loadlens (proc, sys, devpts, /run, tracefs,
# debugfs, bpffs, cgroup2, loopback up, the guest kernel's modules where modprobe looks), mounts
# the exchange directory (9p tag "xchg") at its host path, runs its cmd.sh (written by guest.py)
# with the output in out.log and on the console, leaves the exit code in rc, and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
xdir= modules=
for word in $(</proc/cmdline); do
	case $word in
	ll.xdir=*) xdir=${word#ll.xdir=} ;;
	ll.modules=*) modules=${word#ll.modules=} ;;
	esac
done

mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
mount -t tmpfs -o mode=0755 run /run
mkdir -p /run/lock /run/netns /run/user
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf -o mode=0700 bpf /sys/fs/bpf
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
# the host's /lib/modules has the host kernel's modules; the guest's come from the unpacked package
if [ -n "$modules" ] && [ -d "$modules" ]; then
	mkdir -p "/usr/lib/modules/$(uname -r)"
	mount --bind "$modules" "/usr/lib/modules/$(uname -r)"
fi
hostname loadlens-guest
ip link set lo up

# Keep the kernel's packet-timestamp static key (netstamp_needed_key) on for the whole run: the
# driver's receive stamps (SO_TIMESTAMPNS) would otherwise switch it on and off around each run,
# and each switch patches kernel code while the other vCPU may run through the site. Under
# multi-threaded TCG that raced ("Oops: int3" in netif_rx_internal; guest.py now runs TCG in one
# thread, docs/kernels.md); one patch fewer per run either way.
# (Python 3.11 has no socket.SO_TIMESTAMPNS: 35 on x86-64.)
/usr/bin/python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_TIMESTAMPNS", 35), 1)
print("on", flush=True)
time.sleep(1e9)' </dev/null >/run/netstamp-holder 2>&1 &

console() { echo "$*" >/dev/console; }
rc=125
if [ -n "$xdir" ] && mkdir -p "$xdir" &&
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none xchg "$xdir"; then
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q on /run/netstamp-holder && break
		sleep 0.5
	done
	grep -q on /run/netstamp-holder ||
		console "guest: the timestamp holder did not start: $(cat /run/netstamp-holder)"
	cut -d' ' -f1 /proc/uptime >"$xdir/up"
	console "guest: $(uname -r) up after $(cat "$xdir/up") s, $(nproc) CPUs"
	cd / && setsid bash "$xdir/cmd.sh" </dev/null 2>&1 | tee "$xdir/out.log" >/dev/console
	rc=${PIPESTATUS[0]}
	echo "$rc" >"$xdir/rc"
	sync
	umount "$xdir"
else
	console "guest: cannot mount the exchange directory '$xdir' (9p tag xchg)"
fi
console "guest: exit $rc after $(cut -d' ' -f1 /proc/uptime) s, powering off"
# busybox's poweroff calls reboot(2) itself (Debian's /sbin/poweroff asks systemd, absent here)
/bin/busybox poweroff -f
echo o >/proc/sysrq-trigger

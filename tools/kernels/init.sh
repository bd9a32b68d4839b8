#!/bin/sh
# PID 1 of the guest's initramfs (busybox only; tools/kernels/guest.py builds the archive).
# Loads the kernel's own virtio/9p/overlay modules (mod/NN-*.ko, NN = dependency order), mounts
# the host's root (9p tag "hostroot") read-only as the lower layer of an overlay whose upper layer
# is a tmpfs, mounts the other read-only shares (ll.share=TAG:PATH, a foreign guest's source tree
# and modules, tools/kernels/foreign.py) at their host paths, and hands PID 1 to stage2.sh from the
# host's tree (ll.stage2= on the command line).
/bin/busybox --install -s /bin
PATH=/bin
export PATH
mount -t devtmpfs devtmpfs /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys

# no shell to fall back to: print why on the console and power off (guest.py sees no exit code)
give_up() {
	echo "loadlens-init: $*" >/dev/console
	poweroff -f
	sleep 10
}

stage2= shares=
for word in $(cat /proc/cmdline); do
	case $word in
	ll.stage2=*) stage2=${word#ll.stage2=} ;;
	ll.share=*) shares="$shares ${word#ll.share=}" ;;
	esac
done
[ -n "$stage2" ] || give_up "no ll.stage2= on the kernel command line"

for ko in /mod/*.ko; do
	insmod "$ko" || give_up "insmod $ko failed"
done

mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose hostroot /lower ||
	give_up "cannot mount the host's root (9p tag hostroot)"
mount -t tmpfs -o mode=0755 guestwrites /upper || give_up "cannot mount a tmpfs"
mkdir /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay /newroot ||
	give_up "cannot mount the overlay"
for share in $shares; do
	mkdir -p "/newroot${share#*:}" &&
		mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose \
			"${share%%:*}" "/newroot${share#*:}" ||
		give_up "cannot mount the share $share"
done
[ -f "/newroot$stage2" ] || give_up "$stage2 is not in the host's root"
mount --move /dev /newroot/dev
umount /sys /proc
exec switch_root /newroot /bin/bash "$stage2"

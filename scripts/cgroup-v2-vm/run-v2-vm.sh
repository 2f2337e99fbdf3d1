#!/bin/bash
# run-v2-vm.sh — run one host command as root inside a throw-away QEMU VM with a pure cgroup v2 hierarchy.
#
# Adapted from the team's shared recipe /work/shared/cgroup-v2-vm/run-v2-vm.sh (its README records what it was
# verified against): without its built-in check suite and boot options; with per-run output dirs, a lock on
# the cache, qemu ended on SIGTERM, and an optional scratch disk.
#
# How: a stock Debian kernel (linux-image-amd64, cached), a tiny busybox initramfs that loads the virtio, 9p,
# overlay and ext4 modules, and the HOST's root filesystem shared read-only over virtio-9p with a tmpfs overlay on top, so
# host-built binaries run unchanged. /sys/fs/cgroup is a pure cgroup2 mount with cpu, io, memory and pids
# enabled in the root's cgroup.subtree_control, as systemd does. Only $OUT is writable back to the host.
#
#   run-v2-vm.sh -- CMD ARGS...      # CMD runs (host paths, as root, /bin/sh -c) inside the VM;
#                                    # exit status = CMD's, 124 when the VM hit TIMEOUT
#
# The guest's output streams to stdout (serial console) and lands in $OUT/guest-output.txt; $OUT also gets
# console.log, rc and qemu.time ("wall-s max-RSS-KiB user-CPU-s system-CPU-s").
#
# Env knobs [defaults]:
#   VM_DIR [${TMPDIR:-/tmp}/jetsam-v2-vm]  work dir; cache/ (kernel, modules, initramfs: ~45 MB) is reused by later runs
#   OUT [$VM_DIR/out]        per-run output dir (the only guest-writable host dir)
#   ACCEL [tcg]              tcg | kvm  (KVM does not work on the nested build machines, even with /dev/kvm)
#   SMP [2]  MEM [1024]      vCPUs / guest RAM in MiB (the tmpfs overlay, i.e. guest writes, counts too)
#   TIMEOUT [300]            hard wall-clock limit for qemu in seconds
#   DISK_MB [0]              >0: a scratch ext4 disk of that size (sparse, in $OUT) is mounted on /var/tmp, for
#                            tests that need real block-device writeback (the root is 9p + tmpfs)
#   KERNEL_PKG [linux-image-amd64]  must ship 9p modules (linux-image-cloud-amd64 has none)
#   KCMD ["quiet loglevel=4"]       extra kernel command line (KCMD=loglevel=7 shows the boot)
set -euo pipefail

W=${VM_DIR:-${TMPDIR:-/tmp}/jetsam-v2-vm}
CACHE=$W/cache
OUT=${OUT:-$W/out}
ACCEL=${ACCEL:-tcg}
SMP=${SMP:-2}
MEM=${MEM:-1024}
TIMEOUT=${TIMEOUT:-300}
KERNEL_PKG=${KERNEL_PKG:-linux-image-amd64}
log() { echo "[$(date +%T.%3N)] run-v2-vm: $*" >&2; }

[ "${1:-}" = -- ] && [ $# -ge 2 ] || { echo "usage: $0 -- CMD ARGS..." >&2; exit 64; }
shift
[ "$(id -u)" = 0 ] || { echo "run-v2-vm: needs root (9p export of /, cgroups inside)" >&2; exit 1; }
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
{ [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1; } || missing+=(busybox-static)  # must be static
command -v xz >/dev/null || missing+=(xz-utils)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  echo "run-v2-vm: missing Debian packages: ${missing[*]} (scripts/install-deps.sh test installs them)" >&2
  exit 1
fi
mkdir -p "$CACHE" "$OUT"

# ------------------------------------------------------------------ 1. kernel + initramfs, built once into cache/
# Several runs may start at once (colleagues, CI jobs): one builds the cache, the others wait for it.
exec 9>"$CACHE/.lock"
flock 9

# cache/kernel/{vmlinuz,vmlinux,config,version,modules/*.ko,modules.order}: the kernel and the few modules needed
KDIR=$CACHE/kernel
# inet_diag, tcp_diag, udp_diag: jetsam-sockets destroys a suspended app's sockets over inet_diag (SOCK_DESTROY),
# modules in Debian's kernel that nothing in the VM could load on demand.
WANT_MODS="virtio_pci 9pnet_virtio 9p overlay virtio_blk crc32c_generic ext4 inet_diag tcp_diag udp_diag"   # + dependencies, resolved below
if [ "$(cat "$KDIR/.done" 2>/dev/null)" != "$WANT_MODS" ]; then
  [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -print -quit 2>/dev/null)" ] || apt-get update -qq
  kpkg=$KERNEL_PKG
  # resolve the meta package (linux-image-amd64) to the real one (linux-image-6.1.0-NN-amd64)
  real=$(apt-cache depends "$kpkg" 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
  [ -n "$real" ] && kpkg=$real
  log "apt-get download $kpkg"
  rm -rf "$KDIR"; mkdir -p "$KDIR/tmp/deb" "$KDIR/tmp/root" "$KDIR/modules"
  (cd "$KDIR/tmp/deb" && apt-get download -qq -o APT::Sandbox::User=root "$kpkg")
  # extract only what is needed (47 MB instead of the 400 MB module tree)
  dpkg-deb --fsys-tarfile "$KDIR"/tmp/deb/*.deb | tar -x -C "$KDIR/tmp/root" --wildcards \
    './boot/*' '*/kernel/drivers/virtio/*' '*/kernel/drivers/block/*' '*/kernel/net/9p/*' '*/kernel/fs/*' \
    '*/kernel/lib/*' '*/kernel/crypto/*' '*/kernel/net/ipv4/*' '*/modules.builtin'
  vz=$(ls "$KDIR"/tmp/root/boot/vmlinuz-* | head -1); kver=${vz##*/vmlinuz-}
  mv "$vz" "$KDIR/vmlinuz"; mv "$KDIR/tmp/root/boot/config-$kver" "$KDIR/config"; echo "$kver" > "$KDIR/version"
  grep -q '^CONFIG_9P_FS=' "$KDIR/config" || { log "kernel $kver has no 9p support (use linux-image-amd64, not -cloud-)"; exit 1; }
  # module load order from each .ko's modinfo "depends=" (no depmod/kmod needed on the host)
  moddir=$(ls -d "$KDIR"/tmp/root/{usr/,}lib/modules/"$kver"/kernel 2>/dev/null | head -1 || true)
  declare -A seen=(); order=()
  addmod() {
    local m=$1 p deps d; [ -n "${seen[$m]:-}" ] && return 0; seen[$m]=1
    p=$(find "$moddir" \( -name "$m.ko" -o -name "$(echo "$m" | tr _ -).ko" \) | head -1)
    if [ -z "$p" ]; then   # built into the kernel: nothing to load
      grep -qE "/($m|$(echo "$m" | tr _ -))\.ko\$" "$moddir/../modules.builtin" && return 0
      log "module $m not found"; exit 1
    fi
    deps=$(LC_ALL=C grep -a -o 'depends=[^[:cntrl:]]*' "$p" | head -1 | cut -d= -f2 | tr , ' ')
    for d in $deps; do addmod "$d"; done
    cp "$p" "$KDIR/modules/$m.ko"; order+=("$m")
  }
  for m in $WANT_MODS; do addmod "$m"; done
  printf '%s\n' "${order[@]}" > "$KDIR/modules.order"
  rm -rf "$KDIR/tmp"
  # PVH direct boot of the uncompressed ELF skips SeaBIOS and decompression (~5 s under TCG):
  # find the xz stream inside the bzImage and unpack it
  off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$KDIR/vmlinuz" | head -1 | cut -d: -f1)
  if [ -n "$off" ]; then tail -c +$((off + 1)) "$KDIR/vmlinuz" | xz -dcq > "$KDIR/vmlinux" 2>/dev/null || true; fi  # rc=1: trailing data, output OK
  [ "$(head -c4 "$KDIR/vmlinux" 2>/dev/null | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || { log "no ELF vmlinux (will boot the bzImage)"; rm -f "$KDIR/vmlinux"; }
  echo "$WANT_MODS" > "$KDIR/.done"
fi
KVER=$(cat "$KDIR/version")
if [ -s "$KDIR/vmlinux" ]; then KERNEL_IMG=$KDIR/vmlinux; else KERNEL_IMG=$KDIR/vmlinuz; fi

# cache/initrd.gz: static busybox, the modules, and /init (below), rebuilt when this script changes
INITRD=$CACHE/initrd.gz
if [ ! -s "$INITRD" ] || [ "$0" -nt "$INITRD" ] || [ "$KDIR/.done" -nt "$INITRD" ]; then
  IR=$CACHE/initramfs; rm -rf "$IR"; mkdir -p "$IR"/{bin,dev,proc,sys,newroot,lower,upper,lib/modules}
  cp /bin/busybox "$IR/bin/busybox"
  cp "$KDIR"/modules/*.ko "$IR/lib/modules/"; cp "$KDIR/modules.order" "$IR/"
  cat > "$IR/init" <<'INIT'
#!/bin/busybox sh
# PID 1 of the VM: host root (9p, read-only) + tmpfs overlay, pure cgroup2, run $OUTDIR/guest-cmd, power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.order); do insmod /lib/modules/$m.ko || echo "[init] insmod $m failed"; done
OUTDIR=
for a in $(cat /proc/cmdline); do case $a in v2vm.out=*) OUTDIR=${a#*=};; esac; done
O9="trans=virtio,version=9p2000.L,msize=512000"
die() { echo "[init] FATAL: $*"; poweroff -f; }
mount -t 9p -o $O9,ro,cache=loose hostroot /lower || die "9p root mount failed"
mount -t tmpfs -o mode=755 upper /upper && mkdir -p /upper/u /upper/w
mount -t overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w overlay /newroot || die "overlay mount failed"
R=/newroot
ip link set lo up    # loopback is DOWN in a fresh VM; Swift Foundation needs 127.0.0.1
hostname v2vm
mount -t proc proc $R/proc; mount -t sysfs sysfs $R/sys; mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm 2>/dev/null; mount -t devpts devpts $R/dev/pts; mount -t tmpfs shm $R/dev/shm
mount -t tmpfs run $R/run
if [ -b /dev/vda ]; then mount -t ext4 /dev/vda $R/var/tmp && chmod 1777 $R/var/tmp || die "scratch disk mount failed"; fi
mount -t cgroup2 -o nsdelegate,memory_recursiveprot cgroup2 $R/sys/fs/cgroup || die "cgroup2 mount failed"
# like systemd on a pure-v2 host: the common controllers are enabled for the root's children
for c in cpu memory pids io; do echo "+$c" > $R/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; done
mount -t 9p -o $O9,rw,cache=none hostout $R$OUTDIR || die "output share mount failed"
echo "[init] uptime $(cut -d' ' -f1 /proc/uptime)s: booted, cgroup2 subtree_control: $(cat $R/sys/fs/cgroup/cgroup.subtree_control)"
# output goes live to the serial console AND to $OUTDIR/guest-output.txt (9p, cache=none: written through)
( chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TMPDIR=/tmp TERM=dumb \
    /bin/sh -c ". $OUTDIR/guest-cmd" </dev/null 2>&1; echo $? > /guest.rc ) | tee $R$OUTDIR/guest-output.txt
rc=$(cat /guest.rc)
echo "[init] uptime $(cut -d' ' -f1 /proc/uptime)s: guest command rc=$rc, powering off"
echo $rc > $R$OUTDIR/rc
sync; umount $R$OUTDIR
poweroff -f
INIT
  chmod +x "$IR/init"
  (cd "$IR" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$INITRD.new"
  mv -f "$INITRD.new" "$INITRD"   # atomically: a VM booting meanwhile (another user of the cache) reads it
  rm -rf "$IR"
  log "initramfs built: $(du -h "$INITRD" | cut -f1), modules: $(tr '\n' ' ' < "$KDIR/modules.order")"
fi
exec 9>&-   # unlocks

# ------------------------------------------------------------------ 2. boot, run, power off
rm -f "$OUT/rc" "$OUT/guest-output.txt" "$OUT/qemu.pid" "$OUT/disk.img"
DISK_ARGS=()
if [ "${DISK_MB:-0}" -gt 0 ]; then
  truncate -s "${DISK_MB}M" "$OUT/disk.img"
  mkfs.ext4 -q -F -O ^metadata_csum "$OUT/disk.img"
  DISK_ARGS=(-drive "file=$OUT/disk.img,if=virtio,format=raw,cache=unsafe")
fi
printf '%q ' "$@" > "$OUT/guest-cmd"; echo >> "$OUT/guest-cmd"
case $ACCEL in
  kvm) ACCEL_ARGS=(-accel kvm) ;;
  *)   ACCEL_ARGS=(-accel tcg,thread=multi -cpu max) ;;
esac
CMDLINE="console=ttyS0 panic=-1 ${KCMD:-quiet loglevel=4} rdinit=/init v2vm.out=$OUT mitigations=off"
log "booting ($ACCEL, $SMP vCPU, ${MEM} MiB, kernel $KVER, timeout ${TIMEOUT}s): $(cat "$OUT/guest-cmd")"

# qemu runs in the background so that a SIGINT/SIGTERM to this script still ends it (by its pid) at once.
stop_qemu() {
  local pid
  pid=$(cat "$OUT/qemu.pid" 2>/dev/null) || return 0
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
}
trap 'stop_qemu' EXIT
trap 'stop_qemu; exit 130' INT
trap 'stop_qemu; exit 143' TERM
(
  /usr/bin/time -f "%e %M %U %S" -o "$OUT/qemu.time" timeout -k 10 "$TIMEOUT" \
    qemu-system-x86_64 -nodefaults -no-user-config "${ACCEL_ARGS[@]}" -machine pc -smp "$SMP" -m "$MEM" \
      -display none -serial stdio -monitor none -no-reboot -nic none -pidfile "$OUT/qemu.pid" \
      -kernel "$KERNEL_IMG" -initrd "$INITRD" -append "$CMDLINE" \
      -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
      -virtfs local,path="$OUT",mount_tag=hostout,security_model=none,multidevs=remap "${DISK_ARGS[@]}" \
      </dev/null 2>&1 | tee "$OUT/console.log"
  exit "${PIPESTATUS[0]}"
) &
wait $! && qrc=0 || qrc=$?
rm -f "$OUT/qemu.pid" "$OUT/disk.img"   # qemu has ended (qemu removes it too): nothing for the trap to kill, not even a reused pid
read -r qwall qrss qusr qsys < <(tail -1 "$OUT/qemu.time" 2>/dev/null) || true
grc=$(cat "$OUT/rc" 2>/dev/null || echo none)
log "qemu exit=$qrc wall=${qwall:-?}s CPU=$(awk -v u="${qusr:-0}" -v s="${qsys:-0}" 'BEGIN { printf "%.0f", u + s }')s max RSS=$((${qrss:-0} / 1024)) MiB; guest command rc=$grc"
[ "$qrc" = 0 ] || exit "$qrc"                       # 124 = timeout, other = qemu failure
case $grc in ''|*[!0-9]*) exit 1;; *) exit "$grc";; esac

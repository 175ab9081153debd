#!/usr/bin/env bash
# The kiosk tier: gestured with pass-through between a uinput touchscreen and a real Wayland
# compositor (cage 0.1.4 and sway 1.7 on the host's Debian 12; labwc 0.8 and cage 0.2.0,
# `cage2`, on a Debian 13 root made by vm/kiosk-root.sh) showing a real client: wev (a Wayland client that prints every
# wl_touch event) and Chromium in kiosk mode, started exactly as docs/kiosk.md says for that
# compositor, showing the tier's page (vm/kiosk-page/probe.html, served by gestured-web);
# and `raspios`, Raspberry Pi OS's session as it ships on the Debian 13 root (labwc -m with
# Raspberry Pi OS's /etc/xdg/labwc files from vm/raspios, the guide's Raspberry Pi files,
# Raspberry Pi's touch panels, with and without a USB mouse; Chromium only); `cage2-wake`,
# cage 0.2.0 with Chromium, only its start and the wake case (`cage2` runs them all).
# Called by scripts/test.sh after vm/test.sh.
#
#   vm/test-kiosk.sh [--compositors cage,sway,labwc,raspios,cage2-wake,cage2] [--clients wev,chromium]
#                    [--daemon by-hand,systemd] [--only TEXT,...]
#
# One VM boot per root: cage and sway on the host's root, labwc and cage2 on the Debian 13
# root (made once and cached in vm/cache/roots/; making it needs root and downloads about
# 224 MB: vm/README.md "The Debian 13 root"). --compositors defaults to
# cage,sway,labwc,raspios,cage2-wake (cage 0.2.0's whole stacks are opt-in). --clients defaults to both; `--clients wev` leaves Chromium out (minutes faster).
# --daemon defaults to both: `by-hand` is the boot described below (the driver runs gestured
# itself: a clone's guard process lifts its touches when the daemon dies); `systemd` is a
# second boot with systemd as PID 1 (vm/run.sh --systemd) where gestured runs as a service
# with the packaged unit's restart and descriptor-store settings, and only wev stacks run:
# a crash, `systemctl kill -s KILL` and a watchdog timeout with a finger down (on the host's
# root only: cage and sway).
#
# Builds the release gestured, gestured-web and the driver (gestured-e2e, `--kiosk`) on the
# host and runs the driver in one VM boot per root (two boots at a time, below): systemd-udevd and seatd once, gestured-web once
# before the first browser, then per compositor and client a compositor (pixman; headless,
# sway+chromium on the virtio GPU) running the client as nobody, the cases (vm/README.md "The kiosk tier"), and the
# compositor's stop. Output: `PASS name` / `FAIL name: reason`, `NOTE …`, `BENCH …`, then
# `N passed, N failed`.
#
# Exit status: 0 when everything passed, or when qemu cannot run on this machine (prints
# "SKIP: ..."); non-zero on any failure (124: the guest never reported). Deadline
# VM_KIOSK_DEADLINE seconds (default 3600), builds included.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
started=$SECONDS
deadline=${VM_KIOSK_DEADLINE:-3600}
compositors=cage,sway,labwc,raspios,cage2-wake
clients=wev,chromium
daemon=by-hand,systemd
driver_args=()
while (($#)); do
    case "$1" in
        --compositors) compositors=${2:?--compositors needs cage,sway,labwc,raspios,cage2-wake,cage2}; shift ;;
        --clients) clients=${2:?--clients needs wev,chromium}; shift ;;
        --daemon) daemon=${2:?--daemon needs by-hand,systemd}; shift ;;
        --only) driver_args+=(--only "${2:?--only needs case names}"); shift ;;
        *) echo "vm/test-kiosk: unknown option $1 (--compositors cage,sway,labwc,raspios,cage2-wake,cage2, --clients wev,chromium, --daemon by-hand,systemd, --only TEXT,...)" >&2; exit 2 ;;
    esac
    shift
done

skip() {
    [[ -n ${lane_two:-} ]] && kill "$lane_two" 2>/dev/null
    echo "SKIP: kiosk VM tier: $*"
    exit 0
}
step() { echo "vm/test-kiosk [$((SECONDS - started))s]: $*"; }

step "setup"
set +e; vm/setup.sh; rc=$?; set -e
((rc == 77)) && skip "qemu is not available (see above)"
((rc == 0)) || { echo "vm/test-kiosk: vm/setup.sh failed ($rc)" >&2; exit "$rc"; }

# Which root each compositor runs on (Sources/gestured-e2e/Kiosk/KioskRoot.swift).
bookworm=() trixie=()
IFS=, read -ra requested <<<"$compositors"
for compositor in "${requested[@]}"; do
    case "$compositor" in
        cage | sway) bookworm+=("$compositor") ;;
        labwc | raspios | cage2-wake | cage2) trixie+=("$compositor") ;;
        *) echo "vm/test-kiosk: unknown compositor $compositor (cage, sway, labwc, raspios, cage2-wake, cage2)" >&2; exit 2 ;;
    esac
done
bookworm_list=$(IFS=,; echo "${bookworm[*]}")
trixie_list=$(IFS=,; echo "${trixie[*]}")

# The guest runs the host's programs (its root is the host's /, Sources/gestured-e2e/Kiosk/
# KioskRoot.swift): they must be installed here.
missing=()
((${#bookworm[@]} == 0)) || for program in cage sway swaymsg swayidle wev wtype xdotool xev seatd stdbuf setpriv udevadm ip chromium Xwayland; do
    command -v "$program" >/dev/null || missing+=("$program")
done
((${#missing[@]} == 0)) || { echo "vm/test-kiosk: missing ${missing[*]}: run scripts/install-deps.sh --with-kiosk" >&2; exit 1; }

# shellcheck source=vm/corpus.sh
source vm/corpus.sh

step "building the release gestured and the driver"
driver=$(scripts/build-release.sh gestured gesturectl gestured-web gestured-e2e)/gestured-e2e

# in_list ITEM LIST: whether the comma-separated LIST names ITEM.
in_list() { [[ ",$2," == *",$1,"* ]]; }
for way in ${daemon//,/ }; do
    case "$way" in by-hand|systemd) ;; *) echo "vm/test-kiosk: unknown --daemon $way (by-hand, systemd)" >&2; exit 2 ;; esac
done

# boot NAME COMPOSITORS [vm/run.sh OPTIONS...]: the driver in one VM boot, gestured run by hand.
boot() {
    local name=$1 kinds=$2
    shift 2
    local remaining=$((deadline - (SECONDS - started)))
    ((remaining > 60)) || { echo "vm/test-kiosk: no time left for the VM (${remaining}s of ${deadline}s)" >&2; return 1; }
    step "running in the VM on $name (timeout ${remaining}s): compositors $kinds, clients $clients, gestured run by hand"
    # A compositor, Chromium (350-380 MiB), gestured-web and gestured beside the driver: 1 GiB.
    # --gpu: a virtio GPU, for sway+chromium on sway's DRM backend, blanked by swayidle in
    # its last case (wake-swallow).
    VM_MEMORY=${VM_MEMORY:-1024} vm/run.sh --gpu --timeout "$remaining" --share "$corpus" "$@" -- \
        "$driver" --corpus "$corpus" --work /run/gestured-kiosk --kiosk "$kinds" --kiosk-clients "$clients" "${driver_args[@]}"
}

# The boots run in two lanes at once: each guest is one emulated CPU, so a second guest uses
# the machine's other core. Lane one: the host's root with gestured by hand (cage and sway,
# the longest boot); lane two: the Debian 13 root (labwc, Raspberry Pi OS's session,
# cage 0.2.0's wake), then the host's root again with gestured under systemd (the shortest
# boot, where it evens the lanes: docs/testing.md). Lane two's output is kept in a file and
# printed when both lanes are done; the verdicts wait for events, never for time, so the
# lanes do not depend on each other's speed.
# lane_status NAME RC: records a boot's status (77: qemu cannot run here).
status=0
lane_status() {
    step "done $1, status $2"
    ((${2} == 77)) && skip "qemu cannot run here (see above)"
    ((${2} == 0)) || status=$2
}

on_host() {
    local rc
    if in_list by-hand "$daemon" && ((${#bookworm[@]})); then
        rc=0
        boot "the host's root" "$bookworm_list" || rc=$?
        lane_status "on the host's root" "$rc"
    fi
    return "$status"
}

on_debian13_then_under_systemd() {
    local rc
    if in_list by-hand "$daemon" && ((${#trixie[@]})); then
        step "the Debian 13 root (vm/kiosk-root.sh)"
        rc=0
        if trixie_root=$(vm/kiosk-root.sh | tail -n 1) && [[ -d "$trixie_root" ]]; then
            boot "Debian 13 ($trixie_root)" "$trixie_list" --root "$trixie_root" || rc=$?
        else
            echo "vm/test-kiosk: no Debian 13 root (vm/kiosk-root.sh failed)" >&2
            rc=1
        fi
        lane_status "on Debian 13" "$rc"
    fi
    if in_list systemd "$daemon" && ((${#bookworm[@]})); then
        local remaining=$((deadline - (SECONDS - started)))
        ((remaining > 60)) || { echo "vm/test-kiosk: no time left for the systemd VM (${remaining}s of ${deadline}s)" >&2; return 1; }
        step "running in the VM under systemd (timeout ${remaining}s): compositors $bookworm_list, client wev, gestured as a service"
        rc=0
        vm/run.sh --systemd --timeout "$remaining" --share "$corpus" -- \
            "$driver" --corpus "$corpus" --work /run/gestured-kiosk --kiosk "$bookworm_list" --kiosk-clients wev \
            --kiosk-under-systemd "${driver_args[@]}" || rc=$?
        lane_status "under systemd" "$rc"
    fi
    return "$status"
}

lane_two_log=$(mktemp "${TMPDIR:-/tmp}/kiosk-lane-two.XXXXXX")
trap 'rm -f "$lane_two_log"' EXIT
set +e
on_debian13_then_under_systemd >"$lane_two_log" 2>&1 &
lane_two=$!
on_host
lane_one_status=$?
wait "$lane_two"
lane_two_status=$?
set -e
echo "vm/test-kiosk: the second lane (Debian 13, then the host's root under systemd):"
cat "$lane_two_log"
((lane_one_status == 0)) || status=$lane_one_status
((lane_two_status == 0)) || status=$lane_two_status
step "both lanes done"
exit "$status"

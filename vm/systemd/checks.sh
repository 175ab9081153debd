#!/bin/bash
# The systemd tier's checks, run inside the VM by Debian's systemd (PID 1) as the oneshot
# unit vm-test.service, after vm/test-systemd.sh installed the package with `dpkg -i` in
# the new root before boot (as an image build does).
#
#   vm/systemd/checks.sh DEB
#
# Each check prints `PASS name` or `FAIL name: reason`; the script ends with `N passed,
# N failed` and exits 1 on any failure. The evidence comes from the running system
# (systemctl show, /proc, the journal, real clients run as real users), never from the
# unit files.
set -uo pipefail

deb=${1:?usage: vm/systemd/checks.sh DEB}
demo=$PWD/demo/demo.events
work=/run/vm-tier
mkdir -p "$work"
passed=0
failed=0
started=$SECONDS
log() { echo "systemd-tier [$((SECONDS - started))s]: $*"; }

# check NAME FUNCTION [ARG...]: PASS when it succeeds; else FAIL with what it printed.
check() {
    local name=$1
    shift
    local output begun=$SECONDS
    if output=$("$@" 2>&1); then
        passed=$((passed + 1))
        echo "PASS $name  [$((SECONDS - begun)) s]${output:+  ($(printf '%s' "$output" | tail -n 1))}"
    else
        failed=$((failed + 1))
        echo "FAIL $name  [$((SECONDS - begun)) s]: $(printf '%s' "$output" | tail -n 15)"
    fi
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds; fails after SECONDS.
wait_for() {
    local until=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < until)) || return 1
        sleep 0.2
    done
}

fail() { echo "$*"; return 1; }
property() { systemctl show -p "$2" --value "$1"; }
main_pid() { property gestured.service MainPID; }
is_active() { [[ $(systemctl is-active "$1" 2>/dev/null) == active ]]; }
journal() { journalctl -u gestured.service -o short --no-pager; }
journal_has() { journal | grep -q -- "$1"; }
status_field() { awk -v field="$2:" '$1 == field { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status"; }
gesture_lines() { grep -c '"type":"gesture"' "$1" 2>/dev/null || true; }
has_device() { gesturectl status --json | grep -q '"name":"ELAN Touchscreen"'; }
has_hello() { grep -q '"type":"hello"' "$1"; }
# subscribe NAME: a member of the group gestured subscribes; output in $work/NAME.jsonl.
subscribe() {
    runuser -u kiosk -- gesturectl subscribe --json > "$work/$1.jsonl" 2> "$work/$1.err" &
    echo $!
}
gone() { ! kill -0 "$1" 2>/dev/null; }
ends_with_goodbye() { tail -n 1 "$1" | grep -q '"type":"goodbye"' || fail "last line of $1: $(tail -n 1 "$1")"; }
# Plays the demo recording (tap, double tap, long press, drag, edge swipe, two-finger tap,
# pinch) into the touchscreen and lets the stream settle.
play_demo() { evemu-play "$node" < "$demo"; sleep 2; }

# --- boot ------------------------------------------------------------------------------
installed_and_enabled() {
    dpkg-query -W -f='${Status}' gestured | grep -q "install ok installed" || fail "dpkg: $(dpkg-query -W -f='${Status}' gestured 2>&1)" || return 1
    local unit state
    for unit in gestured.socket gestured.service; do
        state=$(systemctl is-enabled "$unit" 2>&1)
        [[ $state == enabled ]] || fail "$unit is $state" || return 1
    done
}
started_by_boot() {
    is_active gestured.socket || fail "gestured.socket is $(systemctl is-active gestured.socket)" || return 1
    is_active gestured.service || { systemctl status gestured.service --no-pager; return 1; }
    local status
    status=$(gesturectl status --json) || fail "gesturectl status failed" || return 1
    # Our own status request must be the first connection the daemon ever accepted.
    [[ $status == *'"connections":1,'* || $status == *'"connections":1}'* ]] || fail "not the first connection: $status"
}
log "waiting for gestured.service (enabled by the package, started by boot)"
wait_for 120 is_active gestured.service
check "the package is installed and both units are enabled" installed_and_enabled
check "boot started gestured.socket and gestured.service, before any client connected" started_by_boot

# --- hardening, seen in the running process --------------------------------------------
runs_as_dynamic_user() {
    local pid uid name groups input access
    pid=$(main_pid)
    uid=$(status_field "$pid" Uid | awk '{print $1}')
    ((uid >= 61184 && uid <= 65519)) || fail "uid $uid is outside the dynamic range 61184-65519" || return 1
    name=$(getent passwd "$uid" | cut -d: -f1)
    [[ $name == gestured-daemon ]] || fail "uid $uid is '$name', expected gestured-daemon" || return 1
    [[ $(property gestured.service DynamicUser) == yes ]] || fail "DynamicUser is not yes" || return 1
    groups=" $(status_field "$pid" Groups) "
    input=$(getent group input | cut -d: -f3)
    access=$(getent group gestured | cut -d: -f3)
    [[ $groups == *" $input "* ]] || fail "groups [$groups] lack input ($input)" || return 1
    [[ $groups != *" $access "* ]] || fail "the daemon is in the socket's access group" || return 1
    echo "uid $uid ($name), groups$groups"
}
privileges_dropped() {
    local pid field value
    pid=$(main_pid)
    for field in CapEff CapPrm CapBnd CapAmb; do
        value=$(status_field "$pid" "$field")
        [[ $value == 0000000000000000 ]] || fail "$field = $value" || return 1
    done
    [[ $(status_field "$pid" NoNewPrivs) == 1 ]] || fail "NoNewPrivs is not 1" || return 1
    [[ $(status_field "$pid" Seccomp) == 2 ]] || fail "no seccomp filter (Seccomp: $(status_field "$pid" Seccomp))"
}
sandboxed() {
    local pid options exposure
    pid=$(main_pid)
    options=$(awk '$5 == "/" { print $6 }' "/proc/$pid/mountinfo" | tail -n 1)
    [[ $options == ro* ]] || fail "/ is mounted $options in the service's namespace" || return 1
    # No IP at all: the socket families the manager enforces (by seccomp, Seccomp: 2 above).
    local families
    families=$(property gestured.service RestrictAddressFamilies)
    [[ $families == "AF_UNIX AF_NETLINK" || $families == "AF_NETLINK AF_UNIX" ]] || fail "RestrictAddressFamilies: $families" || return 1
    [[ $(property gestured.service IPAddressDeny) == *"0.0.0.0/0"* ]] || fail "IPAddressDeny: $(property gestured.service IPAddressDeny)" || return 1
    ! nsenter -t "$pid" -m test -e /home/kiosk 2>/dev/null || fail "/home is visible to the service" || return 1
    exposure=$(systemd-analyze security gestured.service 2>/dev/null | grep 'Overall exposure' | grep -o '[0-9][0-9]*\.[0-9]*' | head -n 1)
    awk -v e="$exposure" 'BEGIN { exit !(e != "" && e + 0 < 2.0) }' || fail "systemd-analyze security: exposure '$exposure'" || return 1
    echo "systemd-analyze security: $exposure"
}
useradd --create-home --groups gestured kiosk
useradd --create-home stranger
check "runs as the dynamic user gestured-daemon, with group input and no other" runs_as_dynamic_user
check "no capabilities, no new privileges, a seccomp filter" privileges_dropped
check "read-only system, no IP sockets, no /home; exposure below 2.0" sandboxed

# --- who may connect ---------------------------------------------------------------------
stranger_refused() {
    local output
    if output=$(runuser -u stranger -- gesturectl status 2>&1); then
        fail "stranger got: $output"
        return 1
    fi
    [[ $output == *"ermission denied"* ]] || fail "refused, but not for permission: $output" || return 1
    echo "$output"
}
member_allowed() { runuser -u kiosk -- gesturectl ping | grep -qx pong; }
check "a user outside the group gestured is refused" stranger_refused
check "a member of the group gestured may connect" member_allowed

# --- a touchscreen created after start ---------------------------------------------------
evemu-device "$demo" > "$work/evemu-device.out" 2>&1 &
evemu_pid=$!
wait_for 30 grep -q /dev/input/event "$work/evemu-device.out"
node=$(grep -o '/dev/input/event[0-9]*' "$work/evemu-device.out" | head -n 1)
device_picked_up() {
    [[ -n $node ]] || fail "evemu-device made no node: $(cat "$work/evemu-device.out")" || return 1
    wait_for 30 has_device || fail "not in status: $(gesturectl status --json); $(ls -l "$node")"
}
journal_names_device() {
    journal | grep "device added" | grep -q 'device="ELAN Touchscreen"' || { journal | tail -n 5; return 1; }
    journal | grep "device added" | tail -n 1
}
check "a uinput touchscreen created after start is picked up (udev, group input)" device_picked_up
check "journalctl -u gestured names the device, without -o verbose" journal_names_device
# Sent by libsystemd's sd_journal_sendv (stderr is the journal: JOURNAL_STREAM), so the
# record has its own fields, not a stderr line's.
journal_record_has_fields() {
    local record
    record=$(journalctl -u gestured.service -o verbose --no-pager -n 1 DEVICE="ELAN Touchscreen")
    for field in "_TRANSPORT=journal" "SYSLOG_IDENTIFIER=gestured" "PRIORITY=" "CODE_FILE=" "CODE_LINE=" "LOGGER=gestured"; do
        grep -q "^ *$field" <<<"$record" || fail "no $field in: $record" || return 1
    done
}
check "its journal records come through libsystemd with their fields (DEVICE=, CODE_FILE=, _TRANSPORT=journal)" journal_record_has_fields

# --- clients before activation, while running, after a restart ---------------------------
stopped_socket_listens() {
    ! is_active gestured.service || fail "the service is still active" || return 1
    is_active gestured.socket || fail "gestured.socket is $(systemctl is-active gestured.socket)" || return 1
    ! pgrep -x gestured >/dev/null || fail "a gestured process runs: $(pgrep -a -x gestured)"
}
both_received_demo() {
    local before during kind
    before=$(gesture_lines "$work/before.jsonl")
    during=$(gesture_lines "$work/during.jsonl")
    ((before > 100 && before == during)) || fail "before activation: $before gesture lines, while running: $during" || return 1
    for kind in tap long-press drag swipe pinch; do
        grep -q "\"gesture\":\"$kind\"" "$work/before.jsonl" || fail "no $kind among them" || return 1
    done
    echo "$before gesture lines each"
}
clients_told_goodbye() {
    wait_for 20 gone "$before_pid" && wait_for 20 gone "$during_pid" || fail "a subscriber is still connected" || return 1
    ends_with_goodbye "$work/before.jsonl" && ends_with_goodbye "$work/during.jsonl"
}
after_restart_received() {
    local n
    n=$(gesture_lines "$work/after.jsonl")
    ((n > 100)) || fail "$n gesture lines"
    echo "$n gesture lines"
}
systemctl stop gestured.service
check "systemctl stop gestured.service: the socket still listens, nothing runs" stopped_socket_listens
before_pid=$(subscribe before)
check "a client's connection starts the service (socket activation)" wait_for 60 is_active gestured.service
check "it took the socket by its name (sd_listen_fds_with_names)" wait_for 30 journal_has "using the socket passed by systemd name=gestured.socket"
wait_for 30 has_hello "$work/before.jsonl"
wait_for 30 has_device
during_pid=$(subscribe during)
wait_for 30 has_hello "$work/during.jsonl"
play_demo
check "members connected before activation and while running receive the demo's gestures" both_received_demo
log "the demo through the kernel gave $(gesture_lines "$work/before.jsonl") gesture lines; gestured replay gives $(gestured replay "$demo" | grep -c '"type":"gesture"')"
systemctl restart gestured.service
check "systemctl restart: connected clients get their goodbye" clients_told_goodbye
wait_for 30 has_device
after_pid=$(subscribe after)
wait_for 30 has_hello "$work/after.jsonl"
play_demo
check "a member connecting after the restart receives gestures" after_restart_received
kill "$after_pid" 2>/dev/null

# --- reload --------------------------------------------------------------------------------
reload_kept_old() {
    local pid=$1 line
    wait_for 30 journal_has "reload failed" || { journal | tail -n 5; return 1; }
    line=$(journal | grep "reload failed" | tail -n 1)
    [[ $line == *gestured.toml:* ]] || fail "the journal line lacks the file:line reason: $line" || return 1
    is_active gestured.service && [[ $(main_pid) == "$pid" ]] || fail "the service did not survive the reload" || return 1
    member_allowed || fail "no pong after the failed reload" || return 1
    echo "$line"
}
pid=$(main_pid)
cp /etc/gestured/gestured.toml "$work/config.good"
printf '\n[daemon]\nclient-queue = "lots"\n' >> /etc/gestured/gestured.toml
systemctl reload gestured.service
check "systemctl reload with a broken configuration keeps the old one and says why" reload_kept_old "$pid"
cp "$work/config.good" /etc/gestured/gestured.toml
systemctl reload gestured.service
check "systemctl reload with a good configuration applies it" wait_for 30 journal_has "configuration reloaded"

# --- pass-through under the real unit: the clone outlives the daemon -----------------------
# The daemon, sandboxed as the unit says, clones the touchscreen and keeps the clone's uinput
# descriptor in the service's file descriptor store (FileDescriptorStoreMax=). A finger is
# put down on the panel (so on the clone, where the compositor has it); then the daemon dies
# without lifting it, three ways: a crash of the main process (SIGSEGV), `systemctl kill -s
# KILL` (every process of the unit) and a watchdog timeout (the main process stopped, so
# WatchdogSec= kills it). Each time systemd restarts it; the new process takes the clone back
# from the store and lifts the finger on it; the clone is the same device all along (its node
# and sysfs path unchanged, and the reader on it never sees it vanish: evemu-record would
# end). The finger then lifts on the panel, the daemon grabs the panel again and a new touch
# reaches the clone.
clone_node() {
    local event phys
    for event in /sys/class/input/event*; do
        phys=$(cat "$event/device/phys" 2>/dev/null)
        [[ $phys == "gestured-pass-through:$node" ]] && { echo "/dev/input/${event##*/}"; return 0; }
    done
    return 1
}
sysfs_of() { readlink -f "/sys/class/input/${1##*/}"; }
finger() {  # finger down ID | finger up: one contact in slot 0 in the middle of the panel, or its lift
    if [[ $1 == down ]]; then
        evemu-event "$node" --type EV_ABS --code ABS_MT_SLOT --value 0
        evemu-event "$node" --type EV_ABS --code ABS_MT_TRACKING_ID --value "$2"
        evemu-event "$node" --type EV_ABS --code ABS_MT_POSITION_X --value 1000
        evemu-event "$node" --type EV_ABS --code ABS_MT_POSITION_Y --value 600
        evemu-event "$node" --type EV_KEY --code BTN_TOUCH --value 1 --sync
    else
        evemu-event "$node" --type EV_ABS --code ABS_MT_TRACKING_ID --value -1
        evemu-event "$node" --type EV_KEY --code BTN_TOUCH --value 0 --sync
    fi
}
unit_processes() { cat "/sys/fs/cgroup$(property gestured.service ControlGroup)/cgroup.procs"; }
clone_stored() {
    local procs
    procs=$(unit_processes)
    (($(wc -l <<<"$procs") == 1)) || fail "processes in the unit (no guard expected): $procs" || return 1
    [[ $(property gestured.service NFileDescriptorStore) == 1 ]] || fail "NFileDescriptorStore=$(property gestured.service NFileDescriptorStore)" || return 1
    journal_has 'kept-by="descriptor store (gestured-clone-' || { journal | grep "pass-through clone" | tail -n 3; return 1; }
}
# recorded TYPE CODE: the values of that event in the clone's recording (evemu-record's
# `E: TIME TYPE CODE VALUE` lines, type and code in hex), one per line.
recorded() { awk -v type="$1" -v code="$2" '$1 == "E:" && $3 == type && $4 == code { print $5 + 0 }' "$work/clone.rec"; }
# on_clone ID: the clone's last tracking id is ID (the finger reached it).
on_clone() { [[ $(recorded 0003 0039 | tail -n 1) == "$1" ]]; }
# more_lines PATTERN N: the journal has more than N lines matching PATTERN.
more_lines() { (($(journal | grep -c -- "$1") > $2)); }
restarted_since() { local now; now=$(main_pid); [[ $now != 0 && $now != "$1" ]] && is_active gestured.service; }
# survived WHAT PID RESTARTS: after the daemon PID died (WHAT), systemd restarted it, the new
# process took the clone back and lifted the finger on it, and the clone is the same device.
survived() {
    local what=$1 pid=$2 restarts=$3
    wait_for 150 restarted_since "$pid" || fail "not restarted after $what: MainPID $(main_pid), $(systemctl is-active gestured.service)" || return 1
    (($(property gestured.service NRestarts) > restarts)) || fail "NRestarts did not grow" || return 1
    wait_for 30 on_clone -1 || fail "the clone's reader saw no lift: $(tail -n 5 "$work/clone.rec")" || return 1
    [[ $(recorded 0001 014a | tail -n 1) == 0 ]] || fail "BTN_TOUCH not released on the clone: $(recorded 0001 014a | tr '\n' ' ')" || return 1
    wait_for 30 more_lines "took back the pass-through clone.*clone=$clone " "$took_back" || { journal | tail -n 8; return 1; }
    ! gone "$record_pid" || fail "the clone's reader ended: the clone vanished ($(tail -n 2 "$work/clone.rec"))" || return 1
    [[ $(clone_node) == "$clone" && $(sysfs_of "$clone") == "$clone_sysfs" ]] ||
        fail "the clone changed: $(clone_node) $(sysfs_of "$(clone_node)") (was $clone $clone_sysfs)"
}
# touch_after: the finger lifts on the panel, the restarted daemon grabs it and takes the clone
# into use; a new touch (ID) reaches the clone, and so does its lift.
touch_after() {
    finger up
    wait_for 30 more_lines "pass-through clone taken back.*clone=$clone " "$taken_back" || { journal | tail -n 8; return 1; }
    finger down "$1"
    wait_for 20 on_clone "$1" || fail "the touch did not reach the clone: $(tail -n 5 "$work/clone.rec")" || return 1
    finger up
    wait_for 20 on_clone -1 || fail "its lift did not reach the clone"
}
cp /etc/gestured/gestured.toml "$work/config.before-pass-through"
printf '\n[[device]]\nmatch-name = "ELAN Touchscreen"\npass-through = true\n' >> /etc/gestured/gestured.toml
systemctl reload gestured.service
wait_for 30 clone_node
clone=$(clone_node)
clone_sysfs=$(sysfs_of "$clone")
check "pass-through under the unit: the clone's descriptor is in the service's store, no guard process" clone_stored
stdbuf -oL evemu-record "$clone" > "$work/clone.rec" 2>&1 &
record_pid=$!
wait_for 10 grep -q "^#" "$work/clone.rec"
sleep 1
# die WHAT ID: a finger (ID) down on the clone, then the daemon killed the way WHAT says.
die() {
    finger down "$2"
    wait_for 10 on_clone "$2" || log "the finger $2 did not reach the clone"
    pid=$(main_pid)
    restarts=$(property gestured.service NRestarts)
    took_back=$(journal | grep -c "took back the pass-through clone")
    taken_back=$(journal | grep -c "pass-through clone taken back")
    case $1 in
        crash) kill -SEGV "$pid" ;;
        kill-unit) systemctl kill -s KILL gestured.service ;;
        watchdog) kill -STOP "$pid" ;;
    esac
}
die crash 71
check "a crash (SIGSEGV of the main process) with a finger down: the restarted daemon takes the clone back and lifts it; same node" survived crash "$pid" "$restarts"
check "after the crash a touch reaches the same clone" touch_after 72
die kill-unit 73
check "systemctl kill -s KILL (every process of the unit) with a finger down: lifted on the same clone" survived "systemctl kill" "$pid" "$restarts"
check "after systemctl kill a touch reaches the same clone" touch_after 74
log "SIGSTOP to gestured with a finger down: WatchdogSec=30 must kill it"
die watchdog 75
check "a watchdog timeout with a finger down: lifted on the same clone" survived watchdog "$pid" "$restarts"
check "the journal says the watchdog killed it" journal_has "Watchdog timeout"
check "clients reconnect after the watchdog's restart" wait_for 30 has_device
check "after the watchdog's restart a touch reaches the same clone" touch_after 76
# A configuration broken while the daemon ran, then a crash with a finger down: the restart
# fails on the configuration, but first takes the clone back, lifts the finger and destroys
# the clone, so no touch stays down when the unit fails and systemd drops the store.
broken_restart_lifted() {
    wait_for 30 on_clone -1 || fail "the clone's reader saw no lift: $(tail -n 5 "$work/clone.rec")" || return 1
    [[ $(recorded 0001 014a | tail -n 1) == 0 ]] || fail "BTN_TOUCH not released on the clone" || return 1
    wait_for 30 journal_has "destroyed and removed from the descriptor store.*configuration cannot be loaded" ||
        { journal | tail -n 8; return 1; }
}
cp /etc/gestured/gestured.toml "$work/config.working"
echo "[daemon" >> /etc/gestured/gestured.toml
die crash 77
check "a crash with a finger down and the configuration broken meanwhile: the failing restart lifts the finger" broken_restart_lifted
finger up
cp "$work/config.working" /etc/gestured/gestured.toml
systemctl reset-failed gestured.service 2>/dev/null
systemctl restart gestured.service
check "with the configuration mended the daemon makes its clone again" wait_for 30 clone_node
kill "$record_pid" 2>/dev/null
store_emptied() {
    wait_for 30 journal_has "pass-through clone removed" || return 1
    [[ $(property gestured.service NFileDescriptorStore) == 0 ]] || fail "NFileDescriptorStore=$(property gestured.service NFileDescriptorStore)"
}
cp "$work/config.before-pass-through" /etc/gestured/gestured.toml
systemctl reload gestured.service
check "pass-through turned off: the clone is removed, and so is its descriptor from the store" store_emptied

# --- stop ------------------------------------------------------------------------------------
stop_said_goodbye() {
    wait_for 20 gone "$stop_pid" || fail "still connected" || return 1
    ends_with_goodbye "$work/stop.jsonl"
}
journal_says_why_stopped() { journal | grep "stopping on signal" | tail -n 1 | grep -q "signal=15" || { journal | tail -n 5; return 1; }; }
stop_pid=$(subscribe stop)
wait_for 30 has_hello "$work/stop.jsonl"
systemctl stop gestured.service
check "systemctl stop sends clients their goodbye" stop_said_goodbye
check "the journal's message says why it stopped" journal_says_why_stopped

# --- removal ---------------------------------------------------------------------------------
removed() {
    tail -n 3 "$work/dpkg-r.out"
    ! pgrep -x gestured >/dev/null || fail "gestured still runs" || return 1
    local unit
    for unit in gestured.socket gestured.service; do
        ! is_active "$unit" || fail "$unit is still active" || return 1
    done
    [[ ! -e /run/gestured/gestured.sock ]] || fail "the socket file is left" || return 1
    [[ ! -e /lib/systemd/system/gestured.service && ! -e /usr/bin/gestured ]] || fail "files are left" || return 1
    [[ -f /etc/gestured/gestured.toml ]] || fail "the configuration went with dpkg -r (it is a conffile)"
}
purged() {
    tail -n 3 "$1"
    local left
    left=$(find /etc /lib/systemd /usr/lib/systemd /usr/lib/sysusers.d /var/lib/systemd /run -name '*gestured*' 2>/dev/null)
    [[ -z $left ]] || fail "left behind: $left" || return 1
    ! getent group gestured >/dev/null || fail "the group gestured is left" || return 1
    [[ $(dpkg-query -W -f='${Status}' gestured 2>/dev/null) != *installed* || $(dpkg-query -W -f='${Status}' gestured) == *not-installed* ]] \
        || fail "dpkg: $(dpkg-query -W -f='${Status}' gestured)" || return 1
    ! pgrep -x gestured >/dev/null || fail "gestured still runs" || return 1
    local units
    units=$(systemctl list-units --all --no-legend 'gestured*')
    [[ -z $units ]] || fail "units still loaded: $units"
}
live_install_runs() {
    tail -n 3 "$work/dpkg-i.out"
    wait_for 60 is_active gestured.service || fail "gestured.service is $(systemctl is-active gestured.service)" || return 1
    is_active gestured.socket && gesturectl ping | grep -qx pong
}
# uinput_is STATE: /dev/uinput's owner, group and mode as `stat -c '%U:%G %a'` prints them.
# With the package: gestured-uinput, 0660 (71-gestured-uinput.rules). Without it, what
# Debian 12's own udev rules give the node: root:root 0600 (none of them names uinput).
uinput_is() {
    local state
    state=$(stat -c '%U:%G %a' /dev/uinput) || return 1
    [[ $state == "$1" ]] || fail "/dev/uinput is $state (gid $(stat -c %g /dev/uinput)), not $1" || return 1
    echo "/dev/uinput $state"
}
# uinput_returned GID: the node is the system's again, and no longer carries the gid the
# removed group gestured-uinput had (a group created later could reuse it).
uinput_returned() {
    [[ $(stat -c %g /dev/uinput) != "$1" ]] || fail "/dev/uinput still has gid $1 (gestured-uinput's): $(stat -c '%U:%G %a' /dev/uinput)" || return 1
    uinput_is "root:root 600"
}
uinput_gid=$(getent group gestured-uinput | cut -d: -f3)
kill "$evemu_pid" 2>/dev/null
systemctl start gestured.socket
check "the package's udev rule gives /dev/uinput to the group gestured-uinput, 0660" uinput_is "root:gestured-uinput 660"
dpkg -r gestured > "$work/dpkg-r.out" 2>&1
check "dpkg -r stops everything and removes the program; the configuration stays" removed
check "dpkg -r gives /dev/uinput back to the system's rules: root:root 0600" uinput_returned "$uinput_gid"
dpkg -P gestured > "$work/dpkg-p.out" 2>&1
check "dpkg -P leaves nothing running and nothing behind" purged "$work/dpkg-p.out"
check "after dpkg -P /dev/uinput is root:root 0600, not the deleted group's gid" uinput_returned "$uinput_gid"
dpkg -i "$deb" > "$work/dpkg-i.out" 2>&1
check "dpkg -i on the running system starts the socket and the service" live_install_runs
check "dpkg -i on the running system gives /dev/uinput to gestured-uinput, 0660, at once" uinput_is "root:gestured-uinput 660"
uinput_gid=$(getent group gestured-uinput | cut -d: -f3)
dpkg -P gestured > "$work/dpkg-p2.out" 2>&1
check "dpkg -P after a live install leaves nothing running and nothing behind" purged "$work/dpkg-p2.out"
check "dpkg -P of the installed package leaves /dev/uinput root:root 0600, not the deleted group's gid" uinput_returned "$uinput_gid"

# --- /dev/uinput as a static node --------------------------------------------------------
# At boot /dev/uinput is a static node until something opens it (the module not loaded yet:
# no device in sysfs); udevd gives it the rule's group at its start (static_node=uinput),
# and no trigger reaches it afterwards. Made so here: the module unloaded, the node made as
# systemd-tmpfiles makes it from modules.devname, udevd restarted.
udevd_ready() { [[ -S /run/udev/control ]] && udevadm settle --timeout=30; }
dpkg -i "$deb" > "$work/dpkg-i2.out" 2>&1
systemctl stop gestured.service gestured.socket
busybox rmmod uinput > "$work/rmmod.out" 2>&1
mknod -m 0600 /dev/uinput c 10 223
systemctl restart systemd-udevd.service
wait_for 60 udevd_ready
static_node_has_group() {
    [[ ! -e /sys/class/misc/uinput ]] || fail "the uinput module is still loaded: $(cat "$work/rmmod.out")" || return 1
    uinput_is "root:gestured-uinput 660"
}
check "a static /dev/uinput (module not loaded) gets gestured-uinput, 0660, from udevd's start" static_node_has_group
uinput_gid=$(getent group gestured-uinput | cut -d: -f3)
dpkg -P gestured > "$work/dpkg-p3.out" 2>&1
check "dpkg -P gives a static /dev/uinput back too: root:root 0600, not the deleted group's gid" uinput_returned "$uinput_gid"
# Installed on the running system while /dev/uinput is a static node: postinst gives the
# node what udevd's start would, so pass-through works at once, not only after a reboot.
static_before_install=$([[ -e /sys/class/misc/uinput ]] && echo loaded || echo static)
dpkg -i "$deb" > "$work/dpkg-i3.out" 2>&1
static_node_installed() {
    [[ $static_before_install == static ]] || fail "the uinput module was loaded before dpkg -i; nothing was checked" || return 1
    uinput_is "root:gestured-uinput 660"
}
check "dpkg -i on a running system whose /dev/uinput is a static node gives it to gestured-uinput, 0660, at once" static_node_installed
uinput_gid=$(getent group gestured-uinput | cut -d: -f3)
dpkg -P gestured > "$work/dpkg-p4.out" 2>&1
check "dpkg -P after that leaves /dev/uinput root:root 0600" uinput_returned "$uinput_gid"

echo "$passed passed, $failed failed ($((SECONDS - started)) s)"
if ((failed > 0)); then
    echo "--- journalctl -u gestured.service -u gestured.socket, last 40 lines ---"
    journalctl -u gestured.service -u gestured.socket -o short-monotonic --no-pager | tail -n 40
    exit 1
fi

#!/usr/bin/env bash
# Sets up gestured on this machine and runs it: the first of the README's two commands.
#
#  1. installs the Debian packages it needs (apt-get, through sudo when not root);
#  2. builds a release (scripts/build-release.sh: the Swift runtime linked statically), packs
#     it as the Debian package (scripts/package-deb.sh) and installs that with apt-get, so
#     what runs here is exactly what ships: gestured, gesturectl and gestured-web in
#     /usr/bin, the units in /lib/systemd/system, the group `gestured` whose members may
#     connect to the socket, the commented configurations /etc/gestured/gestured.toml and
#     gestured-web.toml (conffiles: edited ones are kept), the live view in
#     /usr/share/gestured/web; where systemd runs, the package's postinst enables and starts
#     gestured.socket, gestured.service and gestured-web.socket (the web bridge on
#     http://127.0.0.1:7412/, started on the first connection);
#  3. where no touch device is present (a laptop, CI, a container), shows the product
#     working anyway: plays the bundled demo recording through `gestured run --replay` on
#     a private socket and prints what a subscriber receives (`gesturectl subscribe
#     --compact`: one line per gesture), saying that it does so.
#
# Options: --no-demo (skip step 3), --demo-only (skip step 2),
#   --prefix DIR: install from source instead of the package (the same binaries, units,
#   sysusers file, configurations and live view; binaries in DIR/bin, the live view in
#   DIR/share/gestured/web, units in /etc/systemd/system,
#   the group from /etc/sysusers.d/gestured.conf). The default where dpkg is missing,
#   with DIR /usr/local. Refused while the package is installed.
# Undo: sudo apt-get purge gestured; after --prefix, the files listed in
#   /etc/gestured/installed-from-source (a later run.sh without --prefix removes them).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packaging.sh

prefix=""
demo=auto
while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-demo) demo=never ;;
        --demo-only) demo=only ;;
        --prefix) prefix="$2"; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
say() { printf '\033[1mgestured:\033[0m %s\n' "$*"; }
# The files a --prefix installation wrote, so that installing the package later removes them
# (units in /etc/systemd/system would otherwise override the package's).
manifest=/etc/gestured/installed-from-source
package_installed() { dpkg-query -W -f='${Status}' gestured 2>/dev/null | grep -q "install ok installed"; }
systemd_running() { [[ -d /run/systemd/system ]]; }

if [[ "$demo" == only ]]; then
    install=none
elif [[ -z "$prefix" ]] && command -v dpkg >/dev/null && command -v apt-get >/dev/null; then
    install=package
else
    install=prefix
    prefix=${prefix:-/usr/local}
    if package_installed; then
        say "the Debian package gestured is installed; remove it first (sudo apt-get remove gestured) or run without --prefix" >&2
        exit 1
    fi
fi

if [[ "$install" == package ]]; then
    ./scripts/install-deps.sh --with-package
else
    ./scripts/install-deps.sh
fi
# Everything temporary of this run in one directory, removed at exit: the toolchain's own
# temporary folders too (every swift command leaves /tmp/TemporaryDirectory.* behind).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gestured-run.XXXXXX")
export TMPDIR="$scratch"
log="$scratch/log"
trap 'rm -rf "$scratch"' EXIT
# quietly COMMAND...: runs COMMAND with its progress in $log, shown only when it fails.
quietly() { "$@" 2>"$log" || { cat "$log" >&2; say "failed: $*" >&2; exit 1; }; }
say "building a release (scripts/build-release.sh)…"
bin=$(quietly scripts/build-release.sh | tail -n 1)

# Removes what an earlier `run.sh --prefix` installed (listed in the manifest).
remove_source_installation() {
    [[ -f "$manifest" ]] || return 0
    say "removing the installation from source listed in $manifest"
    if systemd_running; then
        $sudo systemctl disable --now gestured-web.service gestured-web.socket gestured.service gestured.socket >/dev/null 2>&1 || true
    fi
    local file web=""
    while IFS= read -r file; do
        [[ -n "$file" ]] && $sudo rm -f "$file"
        [[ "$file" == */share/gestured/web/* ]] && web=${file%/*}
    done <"$manifest"
    $sudo rm -f "$manifest"
    # The live view's directories, once empty.
    [[ -z "$web" ]] || $sudo rmdir "$web" "${web%/web}" 2>/dev/null || true
    if systemd_running; then $sudo systemctl daemon-reload; fi
}

install_package() {
    local deb
    deb=$(quietly scripts/package-deb.sh --bin-path "$bin" | tail -n 1)
    remove_source_installation
    for unit in /etc/systemd/system/gestured{,-web}.{service,socket}; do
        if [[ -f "$unit" ]]; then
            say "warning: $unit overrides the package's unit in /lib/systemd/system; remove it unless you mean it to" >&2
        fi
    done
    say "installing the Debian package $(basename "$deb") (apt-get installs its Depends)"
    # --reinstall: a rebuild of the same version replaces the installed one (and postinst
    # restarts the service on the new binary). --force-confold: an edited (or earlier
    # run.sh's) /etc/gestured/gestured.toml is kept without asking. A missing Depends needs
    # the package lists, which a fresh system may not have yet.
    local apt_install=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall --no-install-recommends
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$deb")
    if ! $sudo "${apt_install[@]}" >"$log" 2>&1; then
        $sudo apt-get update -qq
        quietly $sudo "${apt_install[@]}" >/dev/null
    fi
    installed_bin=/usr/bin
}

install_from_source() {
    say "installing from source into $prefix/bin, $prefix/share/gestured/web, /etc/systemd/system, /etc/systemd/user, /etc/sysusers.d, /etc/udev/rules.d and /etc/gestured"
    local web_root="$prefix/share/gestured/web"
    local units=(gestured.service gestured.socket gestured-web.service gestured-web.socket)
    local files=("$prefix/bin/gestured" "$prefix/bin/gesturectl" "$prefix/bin/gestured-web" "${units[@]/#//etc/systemd/system/}"
        /etc/sysusers.d/gestured.conf /etc/udev/rules.d/71-gestured-uinput.rules
        /etc/systemd/user/gestured-actions.service
        "$web_root/index.html" "$web_root/live.js" "$web_root/live.css" "$web_root/gestured.js")
    $sudo install -d "$prefix/bin" "$web_root" /etc/gestured /etc/systemd/system /etc/sysusers.d /etc/systemd/user /etc/udev/rules.d
    # gesturectl actions' user unit (docs/actions.md), as the package has it.
    unit_for_prefix "$prefix" systemd/gestured-actions.service | $sudo tee /etc/systemd/user/gestured-actions.service >/dev/null
    $sudo install -m 0755 "$bin/gestured" "$bin/gesturectl" "$bin/gestured-web" "$prefix/bin/"
    # gestured-web finds its live view in share/gestured/web beside its bin/.
    $sudo install -m 0644 web/index.html web/live.js web/live.css web/gestured.js "$web_root/"
    for unit in "${units[@]}"; do
        unit_for_prefix "$prefix" "systemd/$unit" | $sudo tee "/etc/systemd/system/$unit" >/dev/null
    done
    $sudo install -m 0644 systemd/gestured.sysusers /etc/sysusers.d/gestured.conf
    $sudo install -m 0644 systemd/71-gestured-uinput.rules /etc/udev/rules.d/71-gestured-uinput.rules
    printf '%s\n' "${files[@]}" | $sudo tee "$manifest" >/dev/null
    for config in gestured.toml gestured-web.toml; do
        if [[ -f "/etc/gestured/$config" ]]; then
            say "keeping the existing /etc/gestured/$config (the shipped one is config/$config)"
        else
            $sudo install -m 0644 "config/$config" "/etc/gestured/$config"
        fi
    done
    # As the package's postinst does.
    if command -v systemd-sysusers >/dev/null; then
        $sudo systemd-sysusers gestured.conf
    else
        getent group gestured >/dev/null || $sudo groupadd --system gestured
        getent group gestured-uinput >/dev/null || $sudo groupadd --system gestured-uinput
    fi
    # /dev/uinput to the group gestured-uinput now, not at the next boot.
    if command -v udevadm >/dev/null && [[ -S /run/udev/control ]]; then
        $sudo udevadm control --reload-rules || true
        $sudo udevadm trigger --sysname-match=uinput || true
    fi
    if systemd_running; then
        $sudo systemctl daemon-reload
        $sudo systemctl enable --now gestured.socket gestured.service gestured-web.socket
    fi
    installed_bin="$prefix/bin"
}

if [[ "$install" != none ]]; then
    if [[ "$install" == package ]]; then install_package; else install_from_source; fi
    "$installed_bin/gestured" check-config /etc/gestured/gestured.toml
    if systemd_running; then
        say "gestured is running under systemd: systemctl status gestured; journalctl -u gestured"
        say "apps in the group 'gestured' may connect: sudo usermod -aG gestured KIOSK-USER"
        say "web pages: the live touch view is http://127.0.0.1:7412/ (gestured-web, docs/web.md)"
    else
        say "systemd is not running here; run the daemon by hand: sudo $installed_bin/gestured run --config /etc/gestured/gestured.toml"
    fi
fi

touch_devices=$("$bin/gestured" devices --json 2>/dev/null | grep -c '"used" *: *true' || true)
if [[ "$demo" == never ]] || [[ "$demo" == auto && "$touch_devices" -gt 0 ]]; then
    if [[ "$touch_devices" -gt 0 ]]; then
        say "$touch_devices touch device(s) in use. Watch gestures with: gesturectl subscribe"
    else
        say "no touch device yet: the daemon picks devices up when they appear (gestured devices lists them)"
    fi
    exit 0
fi

say "no touch device found: playing the bundled demo recording (demo/demo.events: tap, double"
say "tap, long press, drag, edge swipe, two-finger tap, pinch) through 'gestured run --replay'"
say "on a private socket. What a subscriber receives:"
workdir="$scratch/demo"
mkdir "$workdir"
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$scratch"' EXIT
"$bin/gestured" run --replay demo/demo.events --wait-for-subscriber --exit-after-replay --socket "$workdir/gestured.sock" \
    --log-level warning &
daemon=$!
for _ in $(seq 100); do [[ -S "$workdir/gestured.sock" ]] && break; sleep 0.1; done
# Each gesture on one line, or two for one with a duration (began, and ended with how many
# changed events --compact left out); not the press events (every touch's down/up feedback).
timeout 30 "$bin/gesturectl" subscribe --socket "$workdir/gestured.sock" --compact \
    --gesture tap --gesture long-press --gesture drag --gesture swipe --gesture pinch || true
say "demo done: that was 'gesturectl subscribe --compact' for taps, long presses, drags, swipes and pinches."
say "'gesturectl subscribe' prints every event (press and each change too), one line each;"
say "'gesturectl subscribe --json' prints the wire's JSON lines as an app receives them (docs/protocol.md)."

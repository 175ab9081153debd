#!/usr/bin/env bash
# Sets up gestured on this machine and runs it: the README's one command.
#
#  1. installs the Debian packages it needs (apt-get, through sudo when not root);
#  2. builds a release and installs gestured and gesturectl into /usr/local/bin, the
#     systemd units into /etc/systemd/system and, if absent, the commented configuration
#     into /etc/gestured/gestured.toml; creates the system group `gestured` whose members
#     may connect to the socket;
#  3. where systemd runs, enables and starts gestured.socket and gestured.service;
#  4. where no touch device is present (a laptop, CI, a container), shows the product
#     working anyway: plays the bundled demo recording through `gestured run --replay` on
#     a private socket and prints what a subscriber receives, saying that it does so.
#
# Options: --no-demo (skip step 4), --demo-only (skip 2 and 3), --prefix DIR (default /usr/local).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
demo=auto
while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-demo) demo=never ;;
        --demo-only) demo=only ;;
        --prefix) prefix="$2"; shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
say() { printf '\033[1mgestured:\033[0m %s\n' "$*"; }

./scripts/install-deps.sh
say "building a release (swift build -c release)…"
swift build -c release --product gestured >/dev/null
swift build -c release --product gesturectl >/dev/null
bin="$(swift build -c release --show-bin-path)"

if [[ "$demo" != only ]]; then
    say "installing into $prefix/bin, /etc/gestured and /etc/systemd/system"
    $sudo install -d "$prefix/bin" /etc/gestured /etc/systemd/system
    $sudo install -m 0755 "$bin/gestured" "$bin/gesturectl" "$prefix/bin/"
    if [[ -f /etc/gestured/gestured.toml ]]; then
        say "keeping the existing /etc/gestured/gestured.toml (the shipped one is config/gestured.toml)"
    else
        $sudo install -m 0644 config/gestured.toml /etc/gestured/gestured.toml
    fi
    getent group gestured >/dev/null || $sudo groupadd --system gestured
    for unit in systemd/gestured.service systemd/gestured.socket; do
        sed "s|/usr/local/bin/|$prefix/bin/|g" "$unit" | $sudo tee "/etc/systemd/system/$(basename "$unit")" >/dev/null
    done
    "$prefix/bin/gestured" check-config /etc/gestured/gestured.toml
    if [[ -d /run/systemd/system ]]; then
        $sudo systemctl daemon-reload
        $sudo systemctl enable --now gestured.socket gestured.service
        say "gestured is running under systemd: systemctl status gestured; journalctl -u gestured"
        say "apps in the group 'gestured' may connect: sudo usermod -aG gestured KIOSK-USER"
    else
        say "systemd is not running here; run the daemon by hand: sudo $prefix/bin/gestured run --config /etc/gestured/gestured.toml"
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
say "on a private socket. These are the lines a subscriber receives:"
workdir="$(mktemp -d)"
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$workdir"' EXIT
"$bin/gestured" run --replay demo/demo.events --wait-for-subscriber --exit-after-replay --socket "$workdir/gestured.sock" \
    --log-level warning &
daemon=$!
for _ in $(seq 100); do [[ -S "$workdir/gestured.sock" ]] && break; sleep 0.1; done
timeout 30 "$bin/gesturectl" subscribe --socket "$workdir/gestured.sock" --json || true
say "demo done. That was 'gesturectl subscribe --json'; without --json it prints one readable line per event."

#!/usr/bin/env bash
# Regenerates packaging/gestured.order, the symbol order scripts/build-release.sh links with
# (docs/performance.md "Idle memory"): the functions `gestured` runs while it starts, takes a
# client and serves gestures and touch lines, then those `gestured-web` runs while it starts,
# serves its page and bridges one browser to that daemon, so that the linker (lld) places
# them together at the start of .text and each process touches a few contiguous pages of its
# binary instead of pages spread over all of it. One file serves both binaries: a name one of
# them lacks is skipped for it. Run it after large changes to the daemon's or the bridge's
# code paths; a stale order only costs memory (names that no longer exist are skipped), never
# correctness.
#
#   scripts/link-order.sh
#
# Needs valgrind (callgrind) and socat. Method: a release build (scripts/build-release.sh),
# its debug information stripped (valgrind 3.19 cannot read Swift 6's DWARF 5), runs under
# callgrind as `gestured run --replay demo/demo.events --speed 1 --wait-for-subscriber` with
# one client subscribed with touch lines; then `gestured-web` runs under callgrind in front
# of such a daemon (not profiled) while a WebSocket client (Python, standard library) fetches
# the page and subscribes through it. Every function of each binary callgrind saw run is
# written, in callgrind's order, one mangled name a line, the daemon's first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for tool in valgrind socat python3; do
    command -v "$tool" >/dev/null || { echo "scripts/link-order.sh: needs $tool" >&2; exit 1; }
done
bin=$(scripts/build-release.sh gestured gestured-web)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
objcopy --strip-debug "$bin/gestured" "$work/gestured"
objcopy --strip-debug "$bin/gestured-web" "$work/gestured-web"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/profile" \
    "$work/gestured" run --replay demo/demo.events --speed 1 --wait-for-subscriber --socket "$work/socket" \
    >"$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do [[ -S "$work/socket" ]] && break; sleep 0.2; done
# The client stays until the replay ends and the daemon says the device went.
(echo '{"type":"subscribe","touches":true}'; sleep 30) | timeout 60 socat -t 5 - "UNIX-CONNECT:$work/socket" |
    grep -m1 '"phase":"removed"' >/dev/null || true
kill -TERM "$daemon"
wait "$daemon" || true

# The bridge, in front of a daemon replaying the same recording (that one not profiled).
"$bin/gestured" run --replay demo/demo.events --speed 1 --wait-for-subscriber --socket "$work/bridged" \
    >"$work/bridged.log" 2>&1 &
daemon=$!
: >"$work/empty.toml"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/web-profile" \
    "$work/gestured-web" --listen "127.0.0.1:$port" --socket "$work/bridged" --config "$work/empty.toml" \
    >"$work/web.log" 2>&1 &
web=$!
python3 - "$port" <<'PYTHON' || echo "scripts/link-order.sh: the browser session did not complete" >&2
import base64, os, socket, sys, time
port = int(sys.argv[1])
def connect():
    for _ in range(150):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=30)
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gestured-web never listened")
page = connect()
page.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
while page.recv(65536):
    pass
ws = connect()
key = base64.b64encode(os.urandom(16)).decode()
ws.sendall(("GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
received = b""
while b"\r\n\r\n" not in received:
    received += ws.recv(4096)
assert received.startswith(b"HTTP/1.1 101"), received[:80]
payload, mask = b'{"type":"subscribe","touches":true}', os.urandom(4)
ws.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
deadline = time.time() + 60
while b'"phase":"removed"' not in received and time.time() < deadline:
    chunk = ws.recv(65536)
    if not chunk:
        break
    received = received[-4096:] + chunk
PYTHON
kill -TERM "$web" "$daemon" 2>/dev/null || true
wait "$web" || true
wait "$daemon" || true

python3 - "$work/profile" "$work/web-profile" >packaging/gestured.order <<'PYTHON'
import re, sys

def functions(profile, binary):
    """The functions of `binary` (a path's ending) callgrind saw run, in its order."""
    names, objects, current = {}, {}, None
    for line in open(profile):
        line = line.rstrip("\n")
        match = re.match(r"^(c?)ob=\((\d+)\)(?: (.*))?$", line)
        if match:
            if match.group(3):
                objects[match.group(2)] = match.group(3)
            if not match.group(1):
                current = objects.get(match.group(2))
            continue
        match = re.match(r"^(c?)fn=\((\d+)\)(?: (.*))?$", line)
        if match:
            if match.group(3):
                names[match.group(2)] = match.group(3)
            name = names.get(match.group(2))
            if not match.group(1) and current and current.endswith(binary) and name and not name.startswith("0x"):
                yield name

seen = set()
for profile, binary in zip(sys.argv[1:], ["/gestured", "/gestured-web"]):
    for name in functions(profile, binary):
        if name not in seen:
            seen.add(name)
            print(name)
PYTHON
echo "scripts/link-order.sh: packaging/gestured.order: $(wc -l <packaging/gestured.order) functions" >&2

#!/usr/bin/env python3
"""The systemd tier's checks, run inside the VM by Debian's systemd (PID 1).

vm/test-systemd.sh installs the package with `dpkg -i` in the new root before boot (as an
image build does), and vm/run.sh runs this as the oneshot unit vm-test.service:

    vm/systemd/checks.py DEB          # the checks, on the live system in the VM
    vm/systemd/checks.py --self-test  # its own tests (the parsers and the harness), anywhere

Each check prints `PASS name  [N s]  (its last line of output)` or `FAIL name  [N s]: the
last 15 lines of its output`; the run ends with `N passed, N failed (N s)` and exits 1 on
any failure, after the unit's last 40 journal lines. The evidence comes from the running
system (systemctl show, /proc, /sys, the journal, real clients run as real users), never
from the unit files. A setup command that fails is logged with its status and output.
"""

import grp
import os
import pwd
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demo", "demo.events")
WORK = "/run/vm-tier"
SERVICE = "gestured.service"
SOCKET = "gestured.socket"
DEVICE_NAME = "ELAN Touchscreen"
CONFIG = "/etc/gestured/gestured.toml"
# The dynamic users systemd hands out (DynamicUser=), systemd's own documented range.
DYNAMIC_UIDS = range(61184, 65519 + 1)
# evemu-record's type and code columns, in hex as it prints them.
EV_KEY, BTN_TOUCH, BTN_LEFT = "0001", "014a", "0110"
EV_ABS, ABS_MT_TRACKING_ID = "0003", "0039"


class Failure(Exception):
    """A check's assertion that did not hold; its message says what was seen."""


# --- pure readings of what the system prints (tested by --self-test) -------------------


def status_field(status_text, field):
    """The value of FIELD in a /proc/PID/status text, or None."""
    for line in status_text.splitlines():
        name, _, value = line.partition(":")
        if name == field:
            return value.strip()
    return None


def root_mount_options(mountinfo_text):
    """The mount options of the last mount on / in a /proc/PID/mountinfo text, or None."""
    options = None
    for line in mountinfo_text.splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[4] == "/":
            options = fields[5]
    return options


def overall_exposure(analyze_text):
    """The number on `systemd-analyze security`'s "Overall exposure" line, or None."""
    for line in analyze_text.splitlines():
        if "Overall exposure" in line:
            match = re.search(r"[0-9]+\.[0-9]+", line)
            return float(match.group(0)) if match else None
    return None


def recorded(record_text, event_type, code):
    """The values of the events TYPE CODE in an evemu-record output, in order.

    Its event lines are `E: TIME TYPE CODE VALUE`, type and code in hex, value in decimal.
    """
    values = []
    for line in record_text.splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[0] == "E:" and fields[2] == event_type and fields[3] == code:
            values.append(int(fields[4]))
    return values


def last_recorded(record_text, event_type, code):
    """The last value of TYPE CODE in an evemu-record output, or None."""
    values = recorded(record_text, event_type, code)
    return values[-1] if values else None


def gesture_lines(stream_text):
    """How many lines of a `gesturectl subscribe --json` output are gestures."""
    return sum('"type":"gesture"' in line for line in stream_text.splitlines())


def last_line(text):
    """The last line of TEXT (as `tail -n 1` prints it), or the empty string."""
    lines = text.splitlines()
    return lines[-1] if lines else ""


def tail(text, count):
    """The last COUNT lines of TEXT, joined by newlines."""
    return "\n".join(text.splitlines()[-count:])


def is_first_connection(status_json):
    """Whether a `gesturectl status --json` answer counts exactly one connection."""
    return '"connections":1,' in status_json or '"connections":1}' in status_json


def matching_lines(text, pattern):
    """The lines of TEXT in which the regular expression PATTERN is found (as grep does)."""
    compiled = re.compile(pattern)
    return [line for line in text.splitlines() if compiled.search(line)]


def missing_fields(verbose_record, fields):
    """Which of FIELDS (`NAME=` prefixes) no line of a `journalctl -o verbose` record starts with."""
    return [field for field in fields if not re.search(r"(?m)^ *" + re.escape(field), verbose_record)]


def package_gone(dpkg_status):
    """Whether `dpkg-query -W -f='${Status}'` says the package is not installed."""
    return "installed" not in dpkg_status or "not-installed" in dpkg_status


CLONE_PHYS, POINTER_PHYS = "gestured-pass-through:", "gestured-pointer:"


def clone_node(sysfs_input, panel, prefix=CLONE_PHYS):
    """The /dev/input node of the pass-through clone of PANEL (with POINTER_PHYS: its
    pointer), from SYSFS_INPUT's event*/device/phys."""
    try:
        events = sorted(name for name in os.listdir(sysfs_input) if name.startswith("event"))
    except OSError:
        return None
    for event in events:
        try:
            with open(os.path.join(sysfs_input, event, "device", "phys")) as handle:
                phys = handle.read().strip()
        except OSError:
            continue
        if phys == prefix + panel:
            return "/dev/input/" + event
    return None


def touch_events(frames):
    """An evemu-play event text for FRAMES: (seconds, tracking id, x) each, slot 0 at y 600;
    a tracking id of -1 lifts the finger."""
    lines = []
    for seconds, tracking_id, x in frames:
        stamp = f"E: {seconds:.6f}"
        lines.append(f"{stamp} 0003 002f 0")
        if tracking_id == -1:
            lines += [f"{stamp} 0003 0039 -1", f"{stamp} 0001 014a 0"]
        else:
            lines += [f"{stamp} 0003 0039 {tracking_id}", f"{stamp} 0003 0035 {x}", f"{stamp} 0003 0036 600",
                      f"{stamp} 0001 014a 1"]
        lines.append(f"{stamp} 0000 0000 0")
    return "\n".join(lines) + "\n"


def sysfs_device(node):
    """The sysfs path of the input node NODE (a device made again gets a new one)."""
    return os.path.realpath(f"/sys/class/input/{os.path.basename(node or '')}")


def still_the_same(what, reader, record, now, node, sysfs):
    """The device WHAT (NODE at SYSFS) never went: its reader (evemu-record, RECORD so far)
    still runs, and NOW, its node found again, is the same node with the same sysfs path."""
    if gone(reader):
        raise Failure(f"the {what}'s reader ended: the {what} vanished ({tail(record, 2)})")
    if now != node or sysfs_device(now) != sysfs:
        raise Failure(f"the {what} changed: {now} {sysfs_device(now)} (was {node} {sysfs})")


def node_state(owner, group, mode):
    """A node's owner, group and mode as `stat -c '%U:%G %a'` prints them."""
    return f"{owner}:{group} {mode & 0o7777:o}"


def wait_for(seconds, predicate, clock=time.monotonic, sleep=time.sleep):
    """Whether PREDICATE becomes true within SECONDS, asked every 0.2 s; an exception is false."""
    until = clock() + seconds
    while True:
        try:
            if predicate():
                return True
        except Exception:  # noqa: BLE001 (a predicate's error means "not yet", as in a retry loop)
            pass
        if clock() >= until:
            return False
        sleep(0.2)


class Harness:
    """Runs named checks, prints PASS or FAIL for each, and counts them."""

    def __init__(self, clock=time.monotonic, write=print):
        self.clock = clock
        self.write = write
        self.started = clock()
        self.passed = 0
        self.failed = 0
        self.output = []

    def log(self, message):
        self.write(f"systemd-tier [{int(self.clock() - self.started)}s]: {message}")

    def say(self, text):
        """Adds TEXT to the running check's output (the last line shows on PASS, 15 on FAIL)."""
        self.output.extend(str(text).splitlines())

    def check(self, name, function, *args):
        """PASS when FUNCTION(*ARGS) returns without Failure (its returned text is output)."""
        self.output = []
        begun = self.clock()
        try:
            result = function(*args)
            if result is False:
                raise Failure("")
            if isinstance(result, str) and result:
                self.say(result)
            ok = True
        except Failure as failure:
            if str(failure):
                self.say(str(failure))
            ok = False
        except Exception as error:  # noqa: BLE001 (a broken check is a failed one, with its reason)
            self.say(f"{type(error).__name__}: {error}")
            ok = False
        seconds = int(self.clock() - begun)
        if ok:
            self.passed += 1
            detail = f"  ({self.output[-1]})" if self.output else ""
            self.write(f"PASS {name}  [{seconds} s]{detail}")
        else:
            self.failed += 1
            self.write(f"FAIL {name}  [{seconds} s]: " + "\n".join(self.output[-15:]))

    def summary(self):
        return f"{self.passed} passed, {self.failed} failed ({int(self.clock() - self.started)} s)"


# --- the live system ---------------------------------------------------------------------


def run(*command, stdin=None):
    """COMMAND's status and its output (stdout and stderr together)."""
    with open(stdin) if stdin else open(os.devnull) as source:
        done = subprocess.run(command, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.returncode, done.stdout


def output(*command):
    """COMMAND's standard output, stripped (stderr dropped, as `$(...)` with 2>/dev/null)."""
    done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return done.stdout.strip()


def read(path):
    try:
        with open(path, errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def append(path, text):
    with open(path, "a") as handle:
        handle.write(text)


def copy(source, target):
    with open(source) as reading, open(target, "w") as writing:
        writing.write(reading.read())


def prop(unit, name):
    return output("systemctl", "show", "-p", name, "--value", unit)


def main_pid():
    return prop(SERVICE, "MainPID")


def is_active(unit):
    return output("systemctl", "is-active", unit) == "active"


def journal():
    return output("journalctl", "-u", SERVICE, "-o", "short", "--no-pager")


def journal_has(pattern):
    return bool(matching_lines(journal(), pattern))


def journal_count(pattern):
    return len(matching_lines(journal(), pattern))


def journal_tail(count):
    return tail(journal(), count)


def proc_status(pid, field):
    return status_field(read(f"/proc/{pid}/status"), field)


def has_device():
    return f'"name":"{DEVICE_NAME}"' in output("gesturectl", "status", "--json")


def has_hello(path):
    return '"type":"hello"' in read(path)


def gone(process):
    return process.poll() is not None


def gestured_running():
    return run("pgrep", "-x", "gestured")[0] == 0


def group_id(name):
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        return None


def name_of(lookup, number):
    try:
        return lookup(number)[0]
    except KeyError:
        return "UNKNOWN"


def uinput_state():
    info = os.stat("/dev/uinput")
    return node_state(name_of(pwd.getpwuid, info.st_uid), name_of(grp.getgrgid, info.st_gid), info.st_mode)


class Tier:
    """The checks, in the order they change the system, and the state they share."""

    def __init__(self, deb, harness):
        self.deb = deb
        self.h = harness
        self.node = None
        self.clone = None
        self.clone_sysfs = None
        self.pointer = None
        self.pointer_sysfs = None
        self.pointer_recorder = None
        self.subscribers = {}
        self.evemu = None
        self.recorder = None
        self.killed_pid = None
        self.restarts = 0
        self.took_back = 0
        self.taken_back = 0

    # -- helpers that act --

    def sh(self, *command, stdin=None):
        """Runs a setup COMMAND; a failure is logged (the checks after it say what it broke)."""
        status, text = run(*command, stdin=stdin)
        if status != 0:
            self.h.log(f"`{' '.join(command)}` exited {status}: {tail(text, 5)}")
        return status, text

    def to_file(self, path, *command):
        status, text = run(*command)
        with open(path, "w") as handle:
            handle.write(text)
        return status

    def subscribe(self, name):
        """A member of the group gestured subscribes; its output in WORK/NAME.jsonl."""
        with open(f"{WORK}/{name}.jsonl", "w") as out, open(f"{WORK}/{name}.err", "w") as err:
            process = subprocess.Popen(
                ["runuser", "-u", "kiosk", "--", "gesturectl", "subscribe", "--json"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        self.subscribers[name] = process
        return process

    def stream(self, name):
        return read(f"{WORK}/{name}.jsonl")

    def play_demo(self):
        """The demo recording (tap, double tap, long press, drag, edge swipe, two-finger tap,
        pinch) played into the touchscreen, and the stream left to settle."""
        self.sh("evemu-play", self.node, stdin=DEMO)
        time.sleep(2)

    def reload_passing_through(self, keys, saving):
        """Copies the configuration to SAVING, adds a pass-through [[device]] entry for the
        panel with KEYS (TOML lines), and reloads the service."""
        copy(CONFIG, saving)
        append(CONFIG, f'\n[[device]]\nmatch-name = "{DEVICE_NAME}"\npass-through = true\n{keys}')
        self.sh("systemctl", "reload", SERVICE)

    def record_on(self, node, path):
        """evemu-record reading NODE into PATH, once it has printed its header."""
        with open(path, "w") as out:
            process = subprocess.Popen(["stdbuf", "-oL", "evemu-record", node or "/nonexistent"],
                                       stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        wait_for(10, lambda: any(line.startswith("#") for line in read(path).splitlines()))
        time.sleep(1)
        return process

    def play(self, name, frames):
        """FRAMES (`touch_events`) played into the touchscreen by one evemu-play."""
        path = f"{WORK}/{name}.events"
        with open(path, "w") as handle:
            handle.write(touch_events(frames))
        self.sh("evemu-play", self.node, stdin=path)

    def event(self, event_type, code, value, sync=False):
        command = ["evemu-event", self.node, "--type", event_type, "--code", code, "--value", str(value)]
        self.sh(*command, *(["--sync"] if sync else []))

    def finger_down(self, tracking_id):
        """One contact in slot 0 in the middle of the panel."""
        self.event("EV_ABS", "ABS_MT_SLOT", 0)
        self.event("EV_ABS", "ABS_MT_TRACKING_ID", tracking_id)
        self.event("EV_ABS", "ABS_MT_POSITION_X", 1000)
        self.event("EV_ABS", "ABS_MT_POSITION_Y", 600)
        self.event("EV_KEY", "BTN_TOUCH", 1, sync=True)

    def finger_up(self):
        self.event("EV_ABS", "ABS_MT_TRACKING_ID", -1)
        self.event("EV_KEY", "BTN_TOUCH", 0, sync=True)

    def current_clone(self):
        return clone_node("/sys/class/input", self.node)

    def current_pointer(self):
        return clone_node("/sys/class/input", self.node, POINTER_PHYS)

    def pointer_record(self):
        return read(f"{WORK}/pointer.rec")

    def left_button(self):
        """The left button's last state on the pointer (None: never pressed)."""
        return last_recorded(self.pointer_record(), EV_KEY, BTN_LEFT)

    def record(self):
        return read(f"{WORK}/clone.rec")

    def on_clone(self, tracking_id):
        """The clone's last tracking id is TRACKING_ID (the finger reached it)."""
        return last_recorded(self.record(), EV_ABS, ABS_MT_TRACKING_ID) == tracking_id

    def member_pong(self):
        status, text = run("runuser", "-u", "kiosk", "--", "gesturectl", "ping")
        return status == 0 and "pong" in text.splitlines()

    # -- the run --

    def run(self):
        os.makedirs(WORK, exist_ok=True)
        self.boot()
        self.hardening()
        self.access()
        self.hot_plug()
        self.activation()
        self.reload()
        self.pass_through()
        self.pointer_pass_through()
        self.stop()
        self.removal()
        self.static_uinput()

    # --- boot ---

    def boot(self):
        self.h.log("waiting for gestured.service (enabled by the package, started by boot)")
        wait_for(120, lambda: is_active(SERVICE))
        self.h.check("the package is installed and both units are enabled", self.installed_and_enabled)
        self.h.check("boot started gestured.socket and gestured.service, before any client connected",
                     self.started_by_boot)

    def installed_and_enabled(self):
        text = run("dpkg-query", "-W", "-f=${Status}", "gestured")[1]
        if "install ok installed" not in text:
            raise Failure(f"dpkg: {text}")
        for unit in (SOCKET, SERVICE):
            state = run("systemctl", "is-enabled", unit)[1].strip()
            if state != "enabled":
                raise Failure(f"{unit} is {state}")

    def started_by_boot(self):
        if not is_active(SOCKET):
            raise Failure(f"gestured.socket is {output('systemctl', 'is-active', SOCKET)}")
        if not is_active(SERVICE):
            raise Failure(run("systemctl", "status", SERVICE, "--no-pager")[1])
        status, text = run("gesturectl", "status", "--json")
        if status != 0:
            raise Failure(f"gesturectl status failed: {text}")
        # Our own status request must be the first connection the daemon ever accepted.
        if not is_first_connection(text):
            raise Failure(f"not the first connection: {text}")

    # --- hardening, seen in the running process ---

    def hardening(self):
        self.sh("useradd", "--create-home", "--groups", "gestured", "kiosk")
        self.sh("useradd", "--create-home", "stranger")
        self.h.check("runs as the dynamic user gestured-daemon, with group input and no other",
                     self.runs_as_dynamic_user)
        self.h.check("no capabilities, no new privileges, a seccomp filter", self.privileges_dropped)
        self.h.check("read-only system, no IP sockets, no /home; exposure below 2.0", self.sandboxed)

    def runs_as_dynamic_user(self):
        pid = main_pid()
        uid = int((proc_status(pid, "Uid") or "-1").split()[0])
        if uid not in DYNAMIC_UIDS:
            raise Failure(f"uid {uid} is outside the dynamic range 61184-65519")
        name = name_of(pwd.getpwuid, uid)
        if name != "gestured-daemon":
            raise Failure(f"uid {uid} is '{name}', expected gestured-daemon")
        if prop(SERVICE, "DynamicUser") != "yes":
            raise Failure("DynamicUser is not yes")
        groups = (proc_status(pid, "Groups") or "").split()
        input_gid, access_gid = group_id("input"), group_id("gestured")
        if str(input_gid) not in groups:
            raise Failure(f"groups {groups} lack input ({input_gid})")
        if access_gid is None or str(access_gid) in groups:
            raise Failure(f"the daemon is in the socket's access group ({access_gid}): {groups}")
        return f"uid {uid} ({name}), groups {' '.join(groups)}"

    def privileges_dropped(self):
        pid = main_pid()
        for field in ("CapEff", "CapPrm", "CapBnd", "CapAmb"):
            value = proc_status(pid, field)
            if value != "0000000000000000":
                raise Failure(f"{field} = {value}")
        if proc_status(pid, "NoNewPrivs") != "1":
            raise Failure("NoNewPrivs is not 1")
        if proc_status(pid, "Seccomp") != "2":
            raise Failure(f"no seccomp filter (Seccomp: {proc_status(pid, 'Seccomp')})")

    def sandboxed(self):
        pid = main_pid()
        options = root_mount_options(read(f"/proc/{pid}/mountinfo")) or ""
        if not options.startswith("ro"):
            raise Failure(f"/ is mounted {options} in the service's namespace")
        # No IP at all: the socket families the manager enforces (by seccomp, Seccomp: 2).
        families = prop(SERVICE, "RestrictAddressFamilies")
        if sorted(families.split()) != ["AF_NETLINK", "AF_UNIX"]:
            raise Failure(f"RestrictAddressFamilies: {families}")
        denied = prop(SERVICE, "IPAddressDeny")
        if "0.0.0.0/0" not in denied:
            raise Failure(f"IPAddressDeny: {denied}")
        if run("nsenter", "-t", pid, "-m", "test", "-e", "/home/kiosk")[0] == 0:
            raise Failure("/home is visible to the service")
        exposure = overall_exposure(output("systemd-analyze", "security", SERVICE))
        if exposure is None or exposure >= 2.0:
            raise Failure(f"systemd-analyze security: exposure '{exposure}'")
        return f"systemd-analyze security: {exposure}"

    # --- who may connect ---

    def access(self):
        self.h.check("a user outside the group gestured is refused", self.stranger_refused)
        self.h.check("a member of the group gestured may connect", self.member_pong)

    def stranger_refused(self):
        status, text = run("runuser", "-u", "stranger", "--", "gesturectl", "status")
        if status == 0:
            raise Failure(f"stranger got: {text}")
        if "ermission denied" not in text:
            raise Failure(f"refused, but not for permission: {text}")
        return text

    # --- a touchscreen created after start ---

    def hot_plug(self):
        with open(f"{WORK}/evemu-device.out", "w") as out:
            self.evemu = subprocess.Popen(["evemu-device", DEMO], stdin=subprocess.DEVNULL, stdout=out,
                                          stderr=subprocess.STDOUT)
        wait_for(30, lambda: "/dev/input/event" in read(f"{WORK}/evemu-device.out"))
        found = re.search(r"/dev/input/event[0-9]+", read(f"{WORK}/evemu-device.out"))
        self.node = found.group(0) if found else None
        self.h.check("a uinput touchscreen created after start is picked up (udev, group input)",
                     self.device_picked_up)
        self.h.check("journalctl -u gestured names the device, without -o verbose", self.journal_names_device)
        # Sent by libsystemd's sd_journal_sendv (stderr is the journal: JOURNAL_STREAM), so
        # the record has its own fields, not a stderr line's.
        self.h.check("its journal records come through libsystemd with their fields "
                     "(DEVICE=, CODE_FILE=, _TRANSPORT=journal)", self.journal_record_has_fields)

    def device_picked_up(self):
        if not self.node:
            raise Failure(f"evemu-device made no node: {read(f'{WORK}/evemu-device.out')}")
        if not wait_for(30, has_device):
            raise Failure(f"not in status: {output('gesturectl', 'status', '--json')}; "
                          f"{run('ls', '-l', self.node)[1]}")

    def journal_names_device(self):
        added = matching_lines(journal(), "device added")
        if not any(f'device="{DEVICE_NAME}"' in line for line in added):
            raise Failure(journal_tail(5))
        return added[-1]

    def journal_record_has_fields(self):
        record = output("journalctl", "-u", SERVICE, "-o", "verbose", "--no-pager", "-n", "1",
                        f"DEVICE={DEVICE_NAME}")
        fields = ["_TRANSPORT=journal", "SYSLOG_IDENTIFIER=gestured", "PRIORITY=", "CODE_FILE=", "CODE_LINE=",
                  "LOGGER=gestured"]
        missing = missing_fields(record, fields)
        if missing:
            raise Failure(f"no {missing[0]} in: {record}")

    # --- clients before activation, while running, after a restart ---

    def activation(self):
        self.sh("systemctl", "stop", SERVICE)
        self.h.check("systemctl stop gestured.service: the socket still listens, nothing runs",
                     self.stopped_socket_listens)
        self.subscribe("before")
        self.h.check("a client's connection starts the service (socket activation)",
                     wait_for, 60, lambda: is_active(SERVICE))
        self.h.check("it took the socket by its name (sd_listen_fds_with_names)",
                     wait_for, 30, lambda: journal_has("using the socket passed by systemd name=gestured.socket"))
        wait_for(30, lambda: has_hello(f"{WORK}/before.jsonl"))
        wait_for(30, has_device)
        self.subscribe("during")
        wait_for(30, lambda: has_hello(f"{WORK}/during.jsonl"))
        self.play_demo()
        self.h.check("members connected before activation and while running receive the demo's gestures",
                     self.both_received_demo)
        replayed = gesture_lines(output("gestured", "replay", DEMO))
        self.h.log(f"the demo through the kernel gave {gesture_lines(self.stream('before'))} gesture lines; "
                   f"gestured replay gives {replayed}")
        self.sh("systemctl", "restart", SERVICE)
        self.h.check("systemctl restart: connected clients get their goodbye", self.clients_told_goodbye)
        wait_for(30, has_device)
        after = self.subscribe("after")
        wait_for(30, lambda: has_hello(f"{WORK}/after.jsonl"))
        self.play_demo()
        self.h.check("a member connecting after the restart receives gestures", self.after_restart_received)
        after.terminate()

    def stopped_socket_listens(self):
        if is_active(SERVICE):
            raise Failure("the service is still active")
        if not is_active(SOCKET):
            raise Failure(f"gestured.socket is {output('systemctl', 'is-active', SOCKET)}")
        if gestured_running():
            raise Failure(f"a gestured process runs: {run('pgrep', '-a', '-x', 'gestured')[1]}")

    def both_received_demo(self):
        before, during = gesture_lines(self.stream("before")), gesture_lines(self.stream("during"))
        if not (before > 100 and before == during):
            raise Failure(f"before activation: {before} gesture lines, while running: {during}")
        for kind in ("tap", "long-press", "drag", "swipe", "pinch"):
            if f'"gesture":"{kind}"' not in self.stream("before"):
                raise Failure(f"no {kind} among them")
        return f"{before} gesture lines each"

    def ends_with_goodbye(self, name):
        last = last_line(self.stream(name))
        if '"type":"goodbye"' not in last:
            raise Failure(f"last line of {WORK}/{name}.jsonl: {last}")

    def clients_told_goodbye(self):
        for name in ("before", "during"):
            if not wait_for(20, lambda: gone(self.subscribers[name])):
                raise Failure("a subscriber is still connected")
        self.ends_with_goodbye("before")
        self.ends_with_goodbye("during")

    def after_restart_received(self):
        count = gesture_lines(self.stream("after"))
        if count <= 100:
            raise Failure(f"{count} gesture lines")
        return f"{count} gesture lines"

    # --- reload ---

    def reload(self):
        pid = main_pid()
        copy(CONFIG, f"{WORK}/config.good")
        append(CONFIG, '\n[daemon]\nclient-queue = "lots"\n')
        self.sh("systemctl", "reload", SERVICE)
        self.h.check("systemctl reload with a broken configuration keeps the old one and says why",
                     self.reload_kept_old, pid)
        copy(f"{WORK}/config.good", CONFIG)
        self.sh("systemctl", "reload", SERVICE)
        self.h.check("systemctl reload with a good configuration applies it",
                     wait_for, 30, lambda: journal_has("configuration reloaded"))

    def reload_kept_old(self, pid):
        if not wait_for(30, lambda: journal_has("reload failed")):
            raise Failure(journal_tail(5))
        line = matching_lines(journal(), "reload failed")[-1]
        if "gestured.toml:" not in line:
            raise Failure(f"the journal line lacks the file:line reason: {line}")
        if not (is_active(SERVICE) and main_pid() == pid):
            raise Failure("the service did not survive the reload")
        if not self.member_pong():
            raise Failure("no pong after the failed reload")
        return line

    # --- pass-through under the real unit: the clone outlives the daemon ---
    # The daemon, sandboxed as the unit says, clones the touchscreen and keeps the clone's
    # uinput descriptor in the service's file descriptor store (FileDescriptorStoreMax=). A
    # finger is put down on the panel (so on the clone, where the compositor has it); then
    # the daemon dies without lifting it, three ways: a crash of the main process (SIGSEGV),
    # `systemctl kill -s KILL` (every process of the unit) and a watchdog timeout (the main
    # process stopped, so WatchdogSec= kills it). Each time systemd restarts it; the new
    # process takes the clone back from the store and lifts the finger on it; the clone is
    # the same device all along (its node and sysfs path unchanged, and the reader on it
    # never sees it vanish: evemu-record would end). The finger then lifts on the panel, the
    # daemon grabs the panel again and a new touch reaches the clone.

    def pass_through(self):
        self.reload_passing_through("", saving=f"{WORK}/config.before-pass-through")
        wait_for(30, self.current_clone)
        self.clone = self.current_clone()
        self.clone_sysfs = sysfs_device(self.clone)
        self.h.check("pass-through under the unit: the clone's descriptor is in the service's store, "
                     "no guard process", self.clone_stored)
        self.recorder = self.record_on(self.clone, f"{WORK}/clone.rec")
        self.die("crash", 71)
        self.h.check("a crash (SIGSEGV of the main process) with a finger down: the restarted daemon takes "
                     "the clone back and lifts it; same node", self.survived, "crash")
        self.h.check("after the crash a touch reaches the same clone", self.touch_after, 72)
        self.die("kill-unit", 73)
        self.h.check("systemctl kill -s KILL (every process of the unit) with a finger down: lifted on the "
                     "same clone", self.survived, "systemctl kill")
        self.h.check("after systemctl kill a touch reaches the same clone", self.touch_after, 74)
        self.h.log("SIGSTOP to gestured with a finger down: WatchdogSec=30 must kill it")
        self.die("watchdog", 75)
        self.h.check("a watchdog timeout with a finger down: lifted on the same clone", self.survived, "watchdog")
        self.h.check("the journal says the watchdog killed it", lambda: journal_has("Watchdog timeout"))
        self.h.check("clients reconnect after the watchdog's restart", wait_for, 30, has_device)
        self.h.check("after the watchdog's restart a touch reaches the same clone", self.touch_after, 76)
        # A configuration broken while the daemon ran, then a crash with a finger down: the
        # restart fails on the configuration, but first takes the clone back, lifts the finger
        # and destroys the clone, so no touch stays down when the unit fails and systemd drops
        # the store.
        copy(CONFIG, f"{WORK}/config.working")
        append(CONFIG, "[daemon\n")
        self.die("crash", 77)
        self.h.check("a crash with a finger down and the configuration broken meanwhile: the failing "
                     "restart lifts the finger", self.broken_restart_lifted)
        self.finger_up()
        copy(f"{WORK}/config.working", CONFIG)
        run("systemctl", "reset-failed", SERVICE)
        self.sh("systemctl", "restart", SERVICE)
        self.h.check("with the configuration mended the daemon makes its clone again",
                     wait_for, 30, self.current_clone)
        self.recorder.terminate()
        copy(f"{WORK}/config.before-pass-through", CONFIG)
        self.sh("systemctl", "reload", SERVICE)
        self.h.check("pass-through turned off: the clone is removed, and so is its descriptor from the store",
                     self.store_emptied)

    def clone_stored(self):
        if not self.clone:
            raise Failure(f"no pass-through clone of {self.node} in /sys/class/input")
        cgroup = prop(SERVICE, "ControlGroup")
        procs = read(f"/sys/fs/cgroup{cgroup}/cgroup.procs").split()
        if len(procs) != 1:
            raise Failure(f"processes in the unit (no guard expected): {' '.join(procs)}")
        stored = prop(SERVICE, "NFileDescriptorStore")
        if stored != "1":
            raise Failure(f"NFileDescriptorStore={stored}")
        if not journal_has(re.escape('kept-by="descriptor store (gestured-clone-')):
            raise Failure(tail("\n".join(matching_lines(journal(), "pass-through clone")), 3))

    def die(self, how, tracking_id):
        """A finger (TRACKING_ID) down on the clone, then the daemon killed the way HOW says."""
        self.finger_down(tracking_id)
        if not wait_for(10, lambda: self.on_clone(tracking_id)):
            self.h.log(f"the finger {tracking_id} did not reach the clone")
        self.killed_pid = main_pid()
        self.restarts = int(prop(SERVICE, "NRestarts") or 0)
        self.took_back = journal_count("took back the pass-through clone")
        self.taken_back = journal_count("pass-through clone taken back")
        if how == "kill-unit":
            self.sh("systemctl", "kill", "-s", "KILL", SERVICE)
            return
        try:
            os.kill(int(self.killed_pid), signal.SIGSEGV if how == "crash" else signal.SIGSTOP)
        except (OSError, ValueError) as error:
            self.h.log(f"could not signal MainPID '{self.killed_pid}': {error}")

    def restarted(self):
        now = main_pid()
        return now not in ("", "0", self.killed_pid) and is_active(SERVICE)

    def survived(self, what):
        """After the daemon died (WHAT), systemd restarted it, the new process took the clone
        back and lifted the finger on it, and the clone is the same device."""
        if not wait_for(150, self.restarted):
            raise Failure(f"not restarted after {what}: MainPID {main_pid()}, {output('systemctl', 'is-active', SERVICE)}")
        restarts = int(prop(SERVICE, "NRestarts") or 0)
        if restarts <= self.restarts:
            raise Failure(f"NRestarts did not grow ({self.restarts} before, {restarts} now)")
        self.lifted_on_clone()
        clone = re.escape(f"clone={self.clone} ")
        if not wait_for(30, lambda: journal_count("took back the pass-through clone.*" + clone) > self.took_back):
            raise Failure(journal_tail(8))
        still_the_same("clone", self.recorder, self.record(), self.current_clone(), self.clone, self.clone_sysfs)

    def lifted_on_clone(self):
        if not wait_for(30, lambda: self.on_clone(-1)):
            raise Failure(f"the clone's reader saw no lift: {tail(self.record(), 5)}")
        touches = recorded(self.record(), EV_KEY, BTN_TOUCH)
        if not touches or touches[-1] != 0:
            raise Failure(f"BTN_TOUCH not released on the clone: {' '.join(map(str, touches))}")

    def touch_after(self, tracking_id):
        """The finger lifts on the panel, the restarted daemon grabs it and takes the clone into
        use; a new touch (TRACKING_ID) reaches the clone, and so does its lift."""
        self.finger_up()
        clone = re.escape(f"clone={self.clone} ")
        if not wait_for(30, lambda: journal_count("pass-through clone taken back.*" + clone) > self.taken_back):
            raise Failure(journal_tail(8))
        self.finger_down(tracking_id)
        if not wait_for(20, lambda: self.on_clone(tracking_id)):
            raise Failure(f"the touch did not reach the clone: {tail(self.record(), 5)}")
        self.finger_up()
        if not wait_for(20, lambda: self.on_clone(-1)):
            raise Failure("its lift did not reach the clone")

    def broken_restart_lifted(self):
        self.lifted_on_clone()
        pattern = "destroyed and removed from the descriptor store.*configuration cannot be loaded"
        if not wait_for(30, lambda: journal_has(pattern)):
            raise Failure(journal_tail(8))

    def store_emptied(self):
        if not wait_for(30, lambda: journal_has("pass-through clone removed")):
            raise Failure(journal_tail(5))
        stored = prop(SERVICE, "NFileDescriptorStore")
        if stored != "0":
            raise Failure(f"NFileDescriptorStore={stored}")

    # --- mouse emulation under the real unit: the pointer outlives the daemon too ---
    # With `app-input = "pointer"` the daemon makes an absolute pointer beside the clone and
    # keeps its descriptor in the store as well. A one-finger drag holds the pointer's left
    # button; `systemctl kill -s KILL` kills the daemon with it held; the restarted process
    # takes the pointer back and releases the button on the same node (the compositor never
    # sees the device go), and a tap after that is one left click.

    def pointer_pass_through(self):
        self.reload_passing_through('app-input = "pointer"\n', saving=f"{WORK}/config.before-pointer")
        wait_for(30, self.current_pointer)
        self.pointer = self.current_pointer()
        self.pointer_sysfs = sysfs_device(self.pointer)
        self.h.check("mouse emulation under the unit: the pointer's and the clone's descriptors are in the "
                     "service's store", self.pointer_stored)
        self.pointer_recorder = self.record_on(self.pointer, f"{WORK}/pointer.rec")
        self.h.check("a one-finger drag holds the pointer's left button", self.drag_holds_left_button, 81)
        self.killed_pid = main_pid()
        self.restarts = int(prop(SERVICE, "NRestarts") or 0)
        taken = journal_count("pass-through pointer taken back")
        self.sh("systemctl", "kill", "-s", "KILL", SERVICE)
        self.h.check("systemctl kill -s KILL with the left button held: the restarted daemon takes the pointer "
                     "back and releases the button; same node", self.pointer_survived)
        self.h.check("after the restart a tap is one left click on the same pointer", self.click_after, 82, taken)
        self.pointer_recorder.terminate()
        copy(f"{WORK}/config.before-pointer", CONFIG)
        self.sh("systemctl", "reload", SERVICE)
        self.h.check("pass-through turned off: the pointer and the clone are removed, and their descriptors "
                     "from the store", self.store_emptied_of_pointer)

    def pointer_stored(self):
        if not self.pointer:
            raise Failure(f"no pointer of {self.node} in /sys/class/input")
        stored = prop(SERVICE, "NFileDescriptorStore")
        if stored != "2":
            raise Failure(f"NFileDescriptorStore={stored}")
        if not journal_has("pass-through pointer created.*" + re.escape('kept-by="descriptor store (')):
            raise Failure(tail("\n".join(matching_lines(journal(), "pass-through pointer")), 3))

    def drag_holds_left_button(self, tracking_id):
        # One evemu-play: its frames keep their times, where a process per event could stretch
        # a short touch into a long press on a slow guest.
        self.play("drag", [(0.05 * step, tracking_id, 1000 + 80 * step) for step in range(6)])
        if not wait_for(20, lambda: self.left_button() == 1):
            raise Failure(f"the drag pressed no left button: {tail(self.pointer_record(), 5)}")

    def pointer_survived(self):
        if not wait_for(150, self.restarted):
            raise Failure(f"not restarted: MainPID {main_pid()}, {output('systemctl', 'is-active', SERVICE)}")
        if not wait_for(30, lambda: self.left_button() == 0):
            raise Failure(f"the left button was not released: {tail(self.pointer_record(), 5)}")
        still_the_same("pointer", self.pointer_recorder, self.pointer_record(), self.current_pointer(), self.pointer,
                       self.pointer_sysfs)

    def click_after(self, tracking_id, taken):
        """The finger lifts on the panel, the restarted daemon takes the pointer into use; a
        tap (TRACKING_ID) is one press and release of the left button on it."""
        self.finger_up()
        if not wait_for(30, lambda: journal_count("pass-through pointer taken back") > taken):
            raise Failure(journal_tail(8))
        before = len(recorded(self.pointer_record(), EV_KEY, BTN_LEFT))
        self.play("tap", [(0, tracking_id, 1000), (0.05, -1, 0)])
        if not wait_for(20, lambda: recorded(self.pointer_record(), EV_KEY, BTN_LEFT)[before:] == [1, 0]):
            raise Failure(f"the tap gave {recorded(self.pointer_record(), EV_KEY, BTN_LEFT)[before:]}: "
                          f"{tail(self.pointer_record(), 5)}")

    def store_emptied_of_pointer(self):
        if not wait_for(30, lambda: self.current_pointer() is None):
            raise Failure(f"the pointer is still there: {self.current_pointer()}")
        if not wait_for(10, lambda: prop(SERVICE, "NFileDescriptorStore") == "0"):
            raise Failure(f"NFileDescriptorStore={prop(SERVICE, 'NFileDescriptorStore')}")

    # --- stop ---

    def stop(self):
        self.subscribe("stop")
        wait_for(30, lambda: has_hello(f"{WORK}/stop.jsonl"))
        self.sh("systemctl", "stop", SERVICE)
        self.h.check("systemctl stop sends clients their goodbye", self.stop_said_goodbye)
        self.h.check("the journal's message says why it stopped", self.journal_says_why_stopped)

    def stop_said_goodbye(self):
        if not wait_for(20, lambda: gone(self.subscribers["stop"])):
            raise Failure("still connected")
        self.ends_with_goodbye("stop")

    def journal_says_why_stopped(self):
        lines = matching_lines(journal(), "stopping on signal")
        if not lines or "signal=15" not in lines[-1]:
            raise Failure(journal_tail(5))
        return lines[-1]

    # --- removal ---
    # /dev/uinput's owner, group and mode: with the package gestured-uinput, 0660
    # (71-gestured-uinput.rules); without it what Debian 12's own udev rules give the node,
    # root:root 0600 (none of them names uinput).

    def removal(self):
        self.evemu.terminate()
        self.sh("systemctl", "start", SOCKET)
        self.h.check("the package's udev rule gives /dev/uinput to the group gestured-uinput, 0660",
                     self.uinput_is, "root:gestured-uinput 660")
        uinput_gid = group_id("gestured-uinput")
        self.to_file(f"{WORK}/dpkg-r.out", "dpkg", "-r", "gestured")
        self.h.check("dpkg -r stops everything and removes the program; the configuration stays", self.removed)
        self.h.check("dpkg -r gives /dev/uinput back to the system's rules: root:root 0600",
                     self.uinput_returned, uinput_gid)
        self.to_file(f"{WORK}/dpkg-p.out", "dpkg", "-P", "gestured")
        self.h.check("dpkg -P leaves nothing running and nothing behind", self.purged, f"{WORK}/dpkg-p.out")
        self.h.check("after dpkg -P /dev/uinput is root:root 0600, not the deleted group's gid",
                     self.uinput_returned, uinput_gid)
        self.to_file(f"{WORK}/dpkg-i.out", "dpkg", "-i", self.deb)
        self.h.check("dpkg -i on the running system starts the socket and the service", self.live_install_runs)
        self.h.check("dpkg -i on the running system gives /dev/uinput to gestured-uinput, 0660, at once",
                     self.uinput_is, "root:gestured-uinput 660")
        uinput_gid = group_id("gestured-uinput")
        self.to_file(f"{WORK}/dpkg-p2.out", "dpkg", "-P", "gestured")
        self.h.check("dpkg -P after a live install leaves nothing running and nothing behind",
                     self.purged, f"{WORK}/dpkg-p2.out")
        self.h.check("dpkg -P of the installed package leaves /dev/uinput root:root 0600, not the deleted "
                     "group's gid", self.uinput_returned, uinput_gid)

    def uinput_is(self, expected):
        state = uinput_state()
        if state != expected:
            raise Failure(f"/dev/uinput is {state} (gid {os.stat('/dev/uinput').st_gid}), not {expected}")
        return f"/dev/uinput {state}"

    def uinput_returned(self, gid):
        """The node is the system's again, and no longer carries the gid the removed group
        gestured-uinput had (a group created later could reuse it)."""
        if gid is None:
            raise Failure("the group gestured-uinput did not exist while the package was installed")
        if os.stat("/dev/uinput").st_gid == gid:
            raise Failure(f"/dev/uinput still has gid {gid} (gestured-uinput's): {uinput_state()}")
        return self.uinput_is("root:root 600")

    def removed(self):
        self.h.say(tail(read(f"{WORK}/dpkg-r.out"), 3))
        if gestured_running():
            raise Failure("gestured still runs")
        for unit in (SOCKET, SERVICE):
            if is_active(unit):
                raise Failure(f"{unit} is still active")
        if os.path.exists("/run/gestured/gestured.sock"):
            raise Failure("the socket file is left")
        if os.path.exists("/lib/systemd/system/gestured.service") or os.path.exists("/usr/bin/gestured"):
            raise Failure("files are left")
        if not os.path.isfile(CONFIG):
            raise Failure("the configuration went with dpkg -r (it is a conffile)")

    def purged(self, dpkg_output):
        self.h.say(tail(read(dpkg_output), 3))
        left = output("find", "/etc", "/lib/systemd", "/usr/lib/systemd", "/usr/lib/sysusers.d",
                      "/var/lib/systemd", "/run", "-name", "*gestured*")
        if left:
            raise Failure(f"left behind: {left}")
        if group_id("gestured") is not None:
            raise Failure("the group gestured is left")
        status = output("dpkg-query", "-W", "-f=${Status}", "gestured")
        if not package_gone(status):
            raise Failure(f"dpkg: {status}")
        if gestured_running():
            raise Failure("gestured still runs")
        units = output("systemctl", "list-units", "--all", "--no-legend", "gestured*")
        if units:
            raise Failure(f"units still loaded: {units}")

    def live_install_runs(self):
        self.h.say(tail(read(f"{WORK}/dpkg-i.out"), 3))
        if not wait_for(60, lambda: is_active(SERVICE)):
            raise Failure(f"gestured.service is {output('systemctl', 'is-active', SERVICE)}")
        if not is_active(SOCKET):
            raise Failure(f"gestured.socket is {output('systemctl', 'is-active', SOCKET)}")
        if "pong" not in output("gesturectl", "ping").splitlines():
            raise Failure("no pong from gesturectl ping")

    # --- /dev/uinput as a static node ---
    # At boot /dev/uinput is a static node until something opens it (the module not loaded
    # yet: no device in sysfs); udevd gives it the rule's group at its start
    # (static_node=uinput), and no trigger reaches it afterwards. Made so here: the module
    # unloaded, the node made as systemd-tmpfiles makes it from modules.devname, udevd
    # restarted.

    def static_uinput(self):
        self.to_file(f"{WORK}/dpkg-i2.out", "dpkg", "-i", self.deb)
        self.sh("systemctl", "stop", SERVICE, SOCKET)
        self.to_file(f"{WORK}/rmmod.out", "busybox", "rmmod", "uinput")
        self.sh("mknod", "-m", "0600", "/dev/uinput", "c", "10", "223")
        self.sh("systemctl", "restart", "systemd-udevd.service")
        wait_for(60, lambda: os.path.exists("/run/udev/control")
                 and run("udevadm", "settle", "--timeout=30")[0] == 0)
        self.h.check("a static /dev/uinput (module not loaded) gets gestured-uinput, 0660, from udevd's start",
                     self.static_node_has_group)
        uinput_gid = group_id("gestured-uinput")
        self.to_file(f"{WORK}/dpkg-p3.out", "dpkg", "-P", "gestured")
        self.h.check("dpkg -P gives a static /dev/uinput back too: root:root 0600, not the deleted group's gid",
                     self.uinput_returned, uinput_gid)
        # Installed on the running system while /dev/uinput is a static node: postinst gives
        # the node what udevd's start would, so pass-through works at once, not only after a
        # reboot.
        static_before_install = not os.path.exists("/sys/class/misc/uinput")
        self.to_file(f"{WORK}/dpkg-i3.out", "dpkg", "-i", self.deb)
        self.h.check("dpkg -i on a running system whose /dev/uinput is a static node gives it to "
                     "gestured-uinput, 0660, at once", self.static_node_installed, static_before_install)
        uinput_gid = group_id("gestured-uinput")
        self.to_file(f"{WORK}/dpkg-p4.out", "dpkg", "-P", "gestured")
        self.h.check("dpkg -P after that leaves /dev/uinput root:root 0600", self.uinput_returned, uinput_gid)

    def static_node_has_group(self):
        if os.path.exists("/sys/class/misc/uinput"):
            raise Failure(f"the uinput module is still loaded: {read(f'{WORK}/rmmod.out')}")
        return self.uinput_is("root:gestured-uinput 660")

    def static_node_installed(self, static_before_install):
        if not static_before_install:
            raise Failure("the uinput module was loaded before dpkg -i; nothing was checked")
        return self.uinput_is("root:gestured-uinput 660")


# --- its own tests ---------------------------------------------------------------------------


class FakeClock:
    """A virtual clock: time moves only when sleep is called."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


class ReadingTests(unittest.TestCase):
    def test_status_field(self):
        text = "Name:\tgestured\nUid:\t61200\t61200\t61200\t61200\nCapEff:\t0000000000000000\nSeccomp:\t2\n"
        self.assertEqual(status_field(text, "Uid"), "61200\t61200\t61200\t61200")
        self.assertEqual(status_field(text, "Seccomp"), "2")
        self.assertIsNone(status_field(text, "NoNewPrivs"))
        self.assertIsNone(status_field(text, "Cap"))

    def test_root_mount_options_takes_the_last_mount_on_root(self):
        text = ("22 1 0:21 / / rw,relatime shared:1 - overlay overlay rw\n"
                "30 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs dev rw\n"
                "41 22 0:21 / / ro,nosuid,relatime shared:9 - overlay overlay rw\n")
        self.assertEqual(root_mount_options(text), "ro,nosuid,relatime")
        self.assertIsNone(root_mount_options("30 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs dev rw\n"))

    def test_overall_exposure(self):
        text = "  NAME  DESCRIPTION  EXPOSURE\n✗ PrivateNetwork= ... 0.5\n→ Overall exposure level for gestured.service: 1.6 OK 🙂\n"
        self.assertEqual(overall_exposure(text), 1.6)
        self.assertIsNone(overall_exposure("Failed to parse\n"))
        self.assertIsNone(overall_exposure("→ Overall exposure level for x.service: n/a\n"))

    def test_recorded_reads_event_lines_only(self):
        text = ("# EVEMU 1.3\nN: gestured pass-through\n"
                "E: 0.000001 0003 0039 0071\t# EV_ABS / ABS_MT_TRACKING_ID 71\n"
                "E: 0.000001 0001 014a 0001\t# EV_KEY / BTN_TOUCH 1\n"
                "E: 0.000001 0000 0000 0000\t# ------------ SYN_REPORT (0) ----------\n"
                "E: 1.200000 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID -1\n"
                "E: 1.200000 0001 014a 0000\t# EV_KEY / BTN_TOUCH 0\n")
        self.assertEqual(recorded(text, EV_ABS, ABS_MT_TRACKING_ID), [71, -1])
        self.assertEqual(last_recorded(text, EV_KEY, BTN_TOUCH), 0)
        self.assertIsNone(last_recorded("# EVEMU 1.3\n", EV_KEY, BTN_TOUCH))

    def test_gesture_lines_and_last_line(self):
        text = ('{"type":"hello"}\n{"type":"gesture","gesture":"tap"}\n'
                '{"type":"gesture","gesture":"drag"}\n{"type":"goodbye"}\n')
        self.assertEqual(gesture_lines(text), 2)
        self.assertEqual(last_line(text), '{"type":"goodbye"}')
        self.assertEqual(last_line(""), "")
        self.assertEqual(tail("a\nb\nc\n", 2), "b\nc")

    def test_is_first_connection(self):
        self.assertTrue(is_first_connection('{"connections":1,"devices":[]}'))
        self.assertTrue(is_first_connection('{"stats":{"connections":1}}'))
        self.assertFalse(is_first_connection('{"connections":11,"devices":[]}'))
        self.assertFalse(is_first_connection('{"connections":2}'))

    def test_matching_lines_is_per_line_like_grep(self):
        text = ("gestured[9]: took back the pass-through clone panel=/dev/input/event3 clone=/dev/input/event5 x\n"
                "gestured[9]: took back the pass-through clone panel=/dev/input/event3\n clone=/dev/input/event5 \n")
        pattern = "took back the pass-through clone.*" + re.escape("clone=/dev/input/event5 ")
        self.assertEqual(len(matching_lines(text, pattern)), 1)
        self.assertEqual(matching_lines(text, re.escape("clone=/dev/input/event50 ")), [])

    def test_missing_fields(self):
        record = ("Wed 2026-12-02 04:00:00 UTC [s=1;i=2]\n    _TRANSPORT=journal\n    PRIORITY=6\n"
                  "    SYSLOG_IDENTIFIER=gestured\n    CODE_FILE=Device.swift\n    MESSAGE=x CODE_LINE=3\n")
        self.assertEqual(missing_fields(record, ["_TRANSPORT=journal", "PRIORITY=", "CODE_FILE=", "CODE_LINE="]),
                         ["CODE_LINE="])
        self.assertEqual(missing_fields(record.replace("journal", "stdout"), ["_TRANSPORT=journal"]),
                         ["_TRANSPORT=journal"])

    def test_package_gone(self):
        self.assertTrue(package_gone(""))
        self.assertTrue(package_gone("unknown ok not-installed"))
        self.assertFalse(package_gone("install ok installed"))
        self.assertTrue(package_gone("deinstall ok config-files"))

    def test_node_state(self):
        self.assertEqual(node_state("root", "gestured-uinput", 0o20660), "root:gestured-uinput 660")
        self.assertEqual(node_state("root", "root", 0o20600), "root:root 600")

    def test_touch_events_are_evemu_frames(self):
        text = touch_events([(0.05, 7, 1000), (0.1, -1, 0)])
        self.assertEqual(recorded(text, EV_ABS, ABS_MT_TRACKING_ID), [7, -1])
        self.assertEqual(recorded(text, EV_KEY, BTN_TOUCH), [1, 0])
        self.assertEqual(recorded(text, "0000", "0000"), [0, 0])
        self.assertTrue(text.startswith("E: 0.050000 0003 002f 0\n"))

    def test_clone_node_matches_the_panel_exactly(self):
        with tempfile.TemporaryDirectory() as sysfs:
            for event, phys in (("event3", "usb-0000:00:14.0-1/input0"),
                                ("event5", "gestured-pass-through:/dev/input/event30"),
                                ("event6", "gestured-pass-through:/dev/input/event3"),
                                ("event8", "gestured-pointer:/dev/input/event3")):
                os.makedirs(os.path.join(sysfs, event, "device"))
                with open(os.path.join(sysfs, event, "device", "phys"), "w") as handle:
                    handle.write(phys + "\n")
            os.makedirs(os.path.join(sysfs, "event7"))  # no device/phys: skipped
            self.assertEqual(clone_node(sysfs, "/dev/input/event3"), "/dev/input/event6")
            self.assertEqual(clone_node(sysfs, "/dev/input/event3", POINTER_PHYS), "/dev/input/event8")
            self.assertIsNone(clone_node(sysfs, "/dev/input/event30", POINTER_PHYS))
            self.assertIsNone(clone_node(sysfs, "/dev/input/event4"))
        self.assertIsNone(clone_node("/nonexistent-sysfs", "/dev/input/event3"))


class HarnessTests(unittest.TestCase):
    def test_wait_for_on_a_virtual_clock(self):
        clock = FakeClock()
        self.assertTrue(wait_for(5, lambda: clock() >= 1.9, clock=clock, sleep=clock.sleep))
        self.assertAlmostEqual(clock(), 2.0, places=6)
        clock = FakeClock()
        self.assertFalse(wait_for(3, lambda: False, clock=clock, sleep=clock.sleep))
        self.assertGreaterEqual(clock(), 3.0)
        self.assertLess(clock(), 3.3)

    def test_wait_for_treats_an_error_as_not_yet(self):
        clock = FakeClock()
        answers = iter([OSError("gone"), ValueError("partial"), True])

        def predicate():
            answer = next(answers)
            if isinstance(answer, Exception):
                raise answer
            return answer

        self.assertTrue(wait_for(10, predicate, clock=clock, sleep=clock.sleep))

    def test_check_prints_pass_fail_and_counts(self):
        clock, lines = FakeClock(), []
        harness = Harness(clock=clock, write=lines.append)

        def slow_pass():
            clock.sleep(3)
            harness.say("first")
            return "the detail"

        def failing():
            harness.say("\n".join(f"context {n}" for n in range(20)))
            raise Failure("what was seen")

        harness.check("passes", slow_pass)
        harness.check("fails", failing)
        harness.check("returns false", lambda: False)
        harness.check("raises", lambda: int("x"))
        harness.check("returns true", lambda: True)
        self.assertEqual(lines[0], "PASS passes  [3 s]  (the detail)")
        self.assertTrue(lines[1].startswith("FAIL fails  [0 s]: context 6\n"))
        self.assertTrue(lines[1].endswith("context 19\nwhat was seen"))
        self.assertEqual(lines[2], "FAIL returns false  [0 s]: ")
        self.assertIn("ValueError", lines[3])
        self.assertEqual(lines[4], "PASS returns true  [0 s]")
        self.assertEqual((harness.passed, harness.failed), (2, 3))
        self.assertEqual(harness.summary(), "2 passed, 3 failed (3 s)")


def main(arguments):
    if arguments == ["--self-test"]:
        suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
        result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
        return 0 if result.wasSuccessful() else 1
    if len(arguments) != 1 or arguments[0].startswith("-"):
        print("usage: vm/systemd/checks.py DEB | --self-test", file=sys.stderr)
        return 2
    sys.stdout.reconfigure(line_buffering=True)
    harness = Harness()
    try:
        Tier(arguments[0], harness).run()
    except Exception:  # noqa: BLE001 (a broken step ends the run as a failure, with its traceback)
        harness.failed += 1
        print("FAIL the harness stopped: " + traceback.format_exc())
    print(harness.summary())
    if harness.failed:
        print("--- journalctl -u gestured.service -u gestured.socket, last 40 lines ---")
        print(tail(output("journalctl", "-u", SERVICE, "-u", SOCKET, "-o", "short-monotonic", "--no-pager"), 40))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

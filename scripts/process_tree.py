#!/usr/bin/env python3
"""What the suite runner asks of /proc about processes, as small commands.

scripts/suite-scope.sh and scripts/test.sh call it; each answer is one value a line.

    scripts/process_tree.py start-time PID            # field 22 of /proc/PID/stat, nothing
                                                      # when PID is gone or a zombie
    scripts/process_tree.py threads-under PID         # every thread of PID and of each
                                                      # process descended from it
    scripts/process_tree.py marked MARKER DIRECTORY   # processes with GESTURED_SUITE=MARKER
                                                      # in their environment or DIRECTORY/
                                                      # on their command line, other than
                                                      # this one and its ancestors
    scripts/process_tree.py --self-test               # its tests, on a made /proc and the real one

A process that ends while it is being read is simply not there: /proc is read without
locks, and every read tolerates a file gone between listing and opening.
"""

import os
import subprocess
import sys
import tempfile
import unittest

PROC = "/proc"


def read(path, mode="r"):
    """The file's content, or None when it (or its process) is gone or unreadable."""
    try:
        with open(path, mode) as handle:
            return handle.read()
    except OSError:
        return None


def pids(proc=PROC):
    """The ids of the processes /proc lists now."""
    try:
        return sorted(int(name) for name in os.listdir(proc) if name.isdigit())
    except OSError:
        return []


def stat_fields(pid, proc=PROC):
    """/proc/PID/stat's fields after the command's ")" (the state is the first), or None."""
    stat = read(f"{proc}/{pid}/stat")
    if stat is None or ")" not in stat:
        return None
    return stat[stat.rindex(")") + 1 :].split()


def start_time(pid, proc=PROC):
    """The start time of PID (stat's field 22, clock ticks since boot), or None when it is
    gone or a zombie (killed, not yet reaped)."""
    fields = stat_fields(pid, proc)
    if fields is None or len(fields) < 20 or fields[0] == "Z":
        return None
    return fields[19]


def parent(pid, proc=PROC):
    """PID's parent, or None when it is gone."""
    fields = stat_fields(pid, proc)
    return int(fields[1]) if fields and len(fields) > 1 else None


def ancestors(pid, proc=PROC):
    """PID and every process above it, up to (not including) 0."""
    chain = []
    while pid and pid not in chain:
        chain.append(pid)
        pid = parent(pid, proc)
    return chain


def threads_under(root, proc=PROC):
    """The thread ids of `root` and of every process descended from it."""
    parents = {pid: parent(pid, proc) for pid in pids(proc)}
    children = {}
    for pid, up in parents.items():
        children.setdefault(up, []).append(pid)
    found, todo = [], [root] if root in parents else []
    while todo:
        pid = todo.pop()
        try:
            tasks = sorted(int(name) for name in os.listdir(f"{proc}/{pid}/task") if name.isdigit())
        except OSError:
            tasks = []
        found.extend(tasks)
        todo.extend(children.get(pid, []))
    return sorted(found)


def marked(marker, directory, proc=PROC, besides=None):
    """The processes with GESTURED_SUITE=`marker` in their environment or `directory`/ on
    their command line, other than `besides` and its ancestors (this process by default)."""
    spared = set(ancestors(os.getpid() if besides is None else besides, proc))
    wanted_environment = f"GESTURED_SUITE={marker}".encode()
    wanted_argument = f"{directory}/".encode()
    found = []
    for pid in pids(proc):
        if pid in spared:
            continue
        environment = read(f"{proc}/{pid}/environ", "rb") or b""
        command = read(f"{proc}/{pid}/cmdline", "rb") or b""
        if wanted_environment in environment.split(b"\0") or any(
            wanted_argument in argument for argument in command.split(b"\0")
        ):
            found.append(pid)
    return found


class MadeProcTests(unittest.TestCase):
    """On a /proc made in a temporary directory: every answer is known."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.proc = self.directory.name

    def tearDown(self):
        self.directory.cleanup()

    def process(self, pid, ppid, state="S", start=100, threads=(), environment=(), command=()):
        base = f"{self.proc}/{pid}"
        os.makedirs(f"{base}/task")
        fields = [state, str(ppid)] + ["0"] * 17 + [str(start), "0"]
        with open(f"{base}/stat", "w") as handle:
            handle.write(f"{pid} (a name) with) {' '.join(fields)}\n")
        for tid in (pid, *threads):
            os.makedirs(f"{base}/task/{tid}")
        with open(f"{base}/environ", "wb") as handle:
            handle.write(b"".join(entry.encode() + b"\0" for entry in environment))
        with open(f"{base}/cmdline", "wb") as handle:
            handle.write(b"".join(argument.encode() + b"\0" for argument in command))

    def test_start_time_of_a_live_process(self):
        self.process(7, 1, start=4242)
        self.assertEqual(start_time(7, self.proc), "4242")

    def test_no_start_time_for_a_zombie_or_a_process_gone(self):
        self.process(7, 1, state="Z")
        self.assertIsNone(start_time(7, self.proc))
        self.assertIsNone(start_time(8, self.proc))

    def test_threads_under_a_process_take_every_descendant_and_nothing_else(self):
        self.process(1, 0)
        self.process(10, 1, threads=(11, 12))
        self.process(20, 10)
        self.process(30, 20, threads=(31,))
        self.process(40, 1, threads=(41,))  # a sibling: not under 10
        self.assertEqual(threads_under(10, self.proc), [10, 11, 12, 20, 30, 31])
        self.assertEqual(threads_under(99, self.proc), [])

    def test_marked_processes_by_environment_or_command_line_spare_the_asker(self):
        self.process(1, 0, environment=["GESTURED_SUITE=run.a"])
        self.process(5, 1, environment=["GESTURED_SUITE=run.a"])  # the asker's parent
        self.process(6, 5, environment=["GESTURED_SUITE=run.a"])  # the asker
        self.process(7, 1, environment=["HOME=/", "GESTURED_SUITE=run.a"])
        self.process(8, 1, environment=["GESTURED_SUITE=run.ab"])  # another run's marker
        self.process(9, 1, command=["qemu", "-drive", "file=/tmp/run.a/disk"])
        self.process(10, 1, command=["ls", "/tmp/run.a"])  # the directory itself, not below it
        self.process(11, 1, environment=["X=GESTURED_SUITE=run.a"])
        self.assertEqual(marked("run.a", "/tmp/run.a", self.proc, besides=6), [7, 9])


class RealProcTests(unittest.TestCase):
    """On this machine's /proc, with a child of this process's own."""

    def test_a_marked_child_is_found_under_this_process_and_then_gone(self):
        marker = f"process-tree-self-test.{os.getpid()}"
        environment = dict(os.environ, GESTURED_SUITE=marker)
        # Popen returns once exec has begun, which is before the kernel has set up the new
        # program's environment: until then /proc/PID/environ reads empty. The child says a
        # line when it runs, and waits on its stdin, so it is found with its environment.
        child = subprocess.Popen(
            ["sh", "-c", "echo running; read -r line"],
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        try:
            self.assertEqual(child.stdout.readline(), b"running\n")
            self.assertIn(child.pid, marked(marker, "/nonexistent-directory"))
            self.assertIn(child.pid, threads_under(os.getpid()))
            self.assertIn(os.getpid(), threads_under(os.getpid()))
            self.assertIsNotNone(start_time(child.pid))
        finally:
            child.kill()
            child.wait()
            child.stdin.close()
            child.stdout.close()
        self.assertNotIn(child.pid, marked(marker, "/nonexistent-directory"))
        self.assertIsNone(start_time(child.pid))

    def test_this_process_and_its_ancestors_are_never_marked(self):
        marker = f"process-tree-self-test.{os.getpid()}"
        self.assertNotIn(os.getpid(), marked(marker, "/"))
        self.assertNotIn(os.getppid(), marked(marker, "/"))


def main(arguments):
    if arguments == ["--self-test"]:
        suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
        result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
        return 0 if result.wasSuccessful() else 1
    if len(arguments) == 2 and arguments[0] == "start-time" and arguments[1].isdigit():
        value = start_time(int(arguments[1]))
        if value is not None:
            print(value)
        return 0
    if len(arguments) == 2 and arguments[0] == "threads-under" and arguments[1].isdigit():
        for tid in threads_under(int(arguments[1])):
            print(tid)
        return 0
    if len(arguments) == 3 and arguments[0] == "marked":
        for pid in marked(arguments[1], arguments[2]):
            print(pid)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

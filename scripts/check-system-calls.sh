#!/usr/bin/env bash
# Checks the rule that every system call goes through SystemCalls (docs/architecture.md):
# lists each line of Sources/ (the shipped code and the test side's GestureTestSupport and VM
# driver gestured-e2e alike) that calls one of the system calls below straight from Glibc
# (`read(fd, …)`, `Glibc.write(…)`), and fails when there is one.
#
# What is not a direct call: code in Sources/SystemCalls (the layer itself); a call inside a
# `SystemCall.posix { … }` closure (SystemCalls' errno handling, the pattern for
# calls it has no wrapper of their own for) on the same line or the two before; a method or
# a qualified name (`fd.close()`, `RegularFile.read(path:)`); a Swift function of the same
# name (a labelled argument, an implicit member `.ping`, no argument, or one where the C
# call takes several); a declaration (`func read(`), a comment, a string. The C-wrapper modules
# (EvdevInput for libevdev, Systemd for libsystemd) call their own library
# directly, as they must; the Glibc calls around those are checked like everyone else's.
#
#   scripts/check-system-calls.sh          # Sources/
#   scripts/check-system-calls.sh FILE…    # these files (what a reviewer is looking at)
#   scripts/check-system-calls.sh --self-test   # finds a direct call in a fixture, passes a clean one
#
# scripts/test.sh runs it beside the format lint, before anything is built.
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/.."

# System calls (and the libc functions that are one system call each) whose wrappers live in
# Sources/SystemCalls: files and pipes, sockets, polling, processes and signals, inotify.
calls=(
    open openat creat close read pread readv write pwrite writev lseek fsync ftruncate
    pipe pipe2 dup dup2 dup3 fcntl ioctl
    stat fstat lstat fstatat access faccessat readlink readlinkat unlink unlinkat rename renameat renameat2
    mkdir mkdirat mkfifo rmdir chmod fchmod fchmodat chown fchown fchownat lchown
    socket socketpair bind listen accept accept4 connect shutdown
    send sendto sendmsg recv recvfrom recvmsg getsockopt setsockopt getsockname getpeername
    poll ppoll select pselect epoll_create epoll_create1 epoll_ctl epoll_wait
    fork vfork execve execv execvp waitpid wait4 waitid kill killpg
    posix_spawn posix_spawnp sigaction sigprocmask pthread_sigmask signal raise
    inotify_init inotify_init1 inotify_add_watch inotify_rm_watch
    eventfd signalfd timerfd_create timerfd_settime clock_gettime nanosleep usleep sleep
    mmap munmap
)

# --self-test: the check finds a direct call and passes what only looks like one, or it
# could pass a tree it does not read.
if [[ ${1:-} == --self-test ]]; then
    fixtures=$(mktemp -d)
    trap 'rm -rf "$fixtures"' EXIT
    cat >"$fixtures/Direct.swift" <<'SWIFT'
func f(fd: Int32) { var b: UInt8 = 0; _ = read(fd, &b, 1) }
SWIFT
    cat >"$fixtures/Qualified.swift" <<'SWIFT'
func g(fd: Int32) { _ = Glibc.write(fd, nil, 0) }
SWIFT
    cat >"$fixtures/Clean.swift" <<'SWIFT'
// read(fd, &b, 1) in a comment
func read(path: String) {}
func h(fd: FileDescriptor) throws {
    try fd.close(); close(code: 1, reason: "x"); send(.ping); write(&writer); let s = "poll(a, b)"
    _ = try SystemCall.posix("read") { read(fd.rawValue, nil, 0) }
}
SWIFT
    for fixture in Direct Qualified; do
        if "$self" "$fixtures/$fixture.swift" >/dev/null 2>&1; then
            echo "check-system-calls: the self-test's $fixture.swift passed: the check is broken" >&2
            exit 1
        fi
    done
    "$self" "$fixtures/Clean.swift" >/dev/null || { echo "check-system-calls: the self-test's Clean.swift failed" >&2; exit 1; }
    echo "check-system-calls: self-test passed"
    exit 0
fi

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
    mapfile -t files < <(find Sources -name '*.swift' -not -path 'Sources/SystemCalls/*' | sort)
fi

NAMES="${calls[*]}" perl -e '
    my %name = map { $_ => 1 } split / /, $ENV{NAMES};
    # C calls that take more than one argument: a one-argument call of that name is Swift.
    my %several = map { $_ => 1 } grep { !/^(close|pipe|pipe2|dup|unlink|rmdir|usleep|sleep|raise|inotify_init1?|epoll_create1?|fsync)$/ } keys %name;
    my $found = 0;
    for my $file (@ARGV) {
        open my $in, "<", $file or die "$file: $!";
        my @lines = <$in>;
        for my $index (0 .. $#lines) {
            my $line = $lines[$index];
            next if $line =~ m{^\s*//};
            (my $code = $line) =~ s/"(?:[^"\\]|\\.)*"/""/g;    # strings say nothing
            $code =~ s{//.*}{};
            my $wrapped = join("", @lines[($index >= 2 ? $index - 2 : 0) .. $index]) =~ /\bSystemCall\./;
            while ($code =~ /(?:(?<![\w.])|Glibc\.)(\w+)\(/g) {
                my ($call, $start) = ($1, pos($code));
                next unless $name{$call};
                next if substr($code, 0, $start) =~ /\bfunc\s+\w+\($/;
                # The arguments, up to the matching parenthesis (or the line end).
                my ($depth, $arguments) = (1, "");
                for my $character (split //, substr($code, $start)) {
                    $depth++ if $character eq "(";
                    $depth-- if $character eq ")";
                    last if $depth == 0;
                    $arguments .= $character;
                }
                next if $arguments =~ /(?:^|[(,])\s*[A-Za-z_]\w*:(?!:)/;    # a label: Swift
                next if $arguments =~ /^\s*(?:\.|&self\b)/;                  # .member, &self: Swift
                next if $several{$call} && $arguments !~ /,/ && $depth == 0;
                next if $arguments =~ /^\s*$/ && $depth == 0 && $call !~ /^(fork|vfork|inotify_init)$/;    # close(): Swift
                next if $wrapped;
                print "$file:", $index + 1, ": $line";
                $found++;
            }
        }
    }
    if ($found) {
        print STDERR "check-system-calls: $found direct system call(s) outside Sources/SystemCalls: wrap them there (docs/architecture.md)\n";
        exit 1;
    }
    print "check-system-calls: every system call in ", scalar(@ARGV), " file(s) goes through Sources/SystemCalls\n";
' "${files[@]}"

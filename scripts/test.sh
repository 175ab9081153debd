#!/usr/bin/env bash
# The whole test suite: unit, replay-over-the-corpus and property tests with `swift test`;
# the same once more under AddressSanitizer (scripts/test-asan.sh: about 8 minutes more, its
# own build included, docs/testing.md and docs/reliability.md) and under ThreadSanitizer
# (scripts/test-tsan.sh: about 8 minutes more, a race fails it); the Python client against the
# debug daemon (clients/python/test.sh: pytest and mypy from PyPI into .build/python-client);
# the live view and the WebSocket bridge
# in headless Chromium (web/test.sh: Debian's chromium, websockets from PyPI into
# .build/web-test; the screenshot lands in .build/web-test-output); then what ships: the release build
# (once, scripts/build-release.sh), the Debian package made from it (scripts/package-deb.sh)
# and checked on this machine (scripts/test-deb.sh);
# then the VM tiers (each skipped with a message where qemu cannot run), never more than
# two guests at once (a third beside the kiosk tier's two made verdicts depend on the host's
# load, docs/testing.md): the end-to-end tier (vm/test.sh) beside that package under a real
# systemd (vm/test-systemd.sh), then the kiosk tier (vm/test-kiosk.sh: gestured between a
# touchscreen and cage, sway and labwc with Wayland and X11 clients and Chromium, in two
# lanes); the VM's kernel and the kiosk tier's Debian 13 root are made in the background from
# the start; then the arm64 package (docs/packaging.md "The arm64 package"):
# its cross toolchain is made (cached in /var/cache/gestured-build) and the package built
# beside the tiers above, in the background at a lower priority, from the start (the
# toolchain) and from after `swift build` (the package, the kernel tier's driver and
# kernel); at the end its checks (scripts/test-arm64.sh: the corpus byte-identical under
# qemu-user, Depends resolved against Debian 12's and 13's arm64 lists, the shim) and the
# arm64-kernel tier (vm/test-arm64-kernel.sh) run. The arm64 parts need root (a chroot,
# mounts): through sudo when the suite is not run as root.
# Installs the Debian packages it needs first. Before anything is built, the sources must
# be formatted as .swift-format says (the toolchain's `swift format`; any finding fails), and
# no shipped code may call the system around SystemCalls (scripts/check-system-calls.sh), and
# no text may cite the issue tracker by number (scripts/check-issue-numbers.sh), and every
# relative link of the documentation must resolve (scripts/check-doc-links.py), and the
# module map of docs/architecture.md must be Package.swift's (scripts/check-module-map.py),
# and every shell script must pass shellcheck (scripts/check-shell.sh).
# Nothing the run creates outlives it (scripts/suite-scope.sh): its temporary files and
# directories, sockets and VM work folders all live in one directory under /tmp, removed
# at exit with every process the run started, passed or failed; what an interrupted run
# left there is removed by the next one.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/suite-scope.sh
suite_scope_begin

./scripts/install-deps.sh --with-vm --with-kiosk --with-package --with-lintian --with-python --with-chromium \
    --with-arm64 --with-arm64-vm
# Format: `swift format format -i -r Sources Tests` fixes what this finds.
swift format lint --strict --recursive Sources Tests
# The evdev name table is what the kernel header gives (scripts/generate-event-codes.py).
scripts/generate-event-codes.py --check
# Every system call through Sources/SystemCalls (docs/architecture.md); its own fixtures first.
scripts/check-system-calls.sh --self-test
scripts/check-system-calls.sh
# No tracker issue numbers in the tree (the tracker is not in it); its own fixtures first.
scripts/check-issue-numbers.sh --self-test
scripts/check-issue-numbers.sh
# Every shell script passes shellcheck (a check disabled only with its reason beside it).
scripts/check-shell.sh
# The suite runner's reading of /proc (scripts/suite-scope.sh, the arm64 jobs' priority).
scripts/process_tree.py --self-test
# The systemd VM tier's harness: its parsers and PASS/FAIL reporting, on fixtures.
vm/systemd/checks.py --self-test
# docs/architecture.md's layers and module table say what Package.swift declares; its own
# fixtures first.
scripts/check-module-map.py --self-test
scripts/check-module-map.py
# Every relative link and #anchor of the documentation resolves; its own fixtures first.
scripts/check-doc-links.py --self-test
scripts/check-doc-links.py
# No merge left half done: conflict markers at the start of a line anywhere in the tree.
if git grep -nE '^(<<<<<<<|>>>>>>>)( |$)' -- .; then
    echo "scripts/test.sh: merge conflict markers above" >&2
    exit 1
fi

# Each tier's wall-clock time, printed as it ends and again at the end (docs/testing.md).
tier_times=()
tier() {
    local name=$1 began=$SECONDS
    shift
    "$@"
    tier_times+=("$name $((SECONDS - began)) s")
    echo "suite: $name took $((SECONDS - began)) s"
}

# The arm64 parts, as root, niced (the tiers keep the machine first).
as_root=()
# shellcheck disable=SC2054  # --preserve-env takes one comma-separated list
[[ $(id -u) -eq 0 ]] || as_root=(sudo --preserve-env=TMPDIR,GESTURED_SUITE,GESTURED_BUILD_CACHE,GESTURED_CORPUS)
# background NAME COMMAND...: starts COMMAND beside the tiers, its output in a log under
# TMPDIR; join NAME [--print] waits for it, records its time, prints its log (--print) and
# fails the suite with its log's end when it failed.
declare -A background_pid background_began background_log
background() {
    local name=$1
    shift
    background_began[$name]=$(date +%s)
    background_log[$name]="$TMPDIR/background-${name// /-}.log"
    { "$@" && date +%s >"${background_log[$name]}.ended"; } >"${background_log[$name]}" 2>&1 &
    background_pid[$name]=$!
}
# Once the tiers are done a job is all that is left: unnice NAME gives every thread of
# every process of it (and so the compilers they start next) the normal priority back, so
# that a CPU-bound job beside the suite does not starve it (beside stress-ng --cpu 2, a cold
# cross build left niced took 4567 s, and the suite waited 1477 s for it). Every thread:
# Linux keeps a nice value per thread, and swift-build starts its compilers from worker
# threads, which a renice of its process id alone leaves at nice 10.
unnice() {
    local threads=()
    mapfile -t threads < <(scripts/process_tree.py threads-under "${background_pid[$1]}")
    [[ ${#threads[@]} -eq 0 ]] || "${as_root[@]}" renice -n 0 -p "${threads[@]}" >/dev/null 2>&1 || true
}
join() {
    local name=$1 print=${2:-} waited=$SECONDS status=0 took
    unnice "$name"
    wait "${background_pid[$name]}" || status=$?
    [[ $print != --print ]] || cat "${background_log[$name]}"
    if [[ $status -ne 0 ]]; then
        [[ $print == --print ]] || tail -n 60 "${background_log[$name]}" >&2
        echo "suite: $name (in the background) failed; its log is above" >&2
        exit 1
    fi
    took=$(($(cat "${background_log[$name]}.ended") - background_began[$name]))
    tier_times+=("$name (background) $took s, waited for $((SECONDS - waited)) s")
    echo "suite: $name (in the background) took $took s; waited for it $((SECONDS - waited)) s"
}
# The toolchain from the start (downloads, two debootstraps' worth of unpacking: mostly
# waiting for the network and the disk while `swift build` keeps the cores busy).
background "arm64 toolchain" "${as_root[@]}" nice -n 10 bash -c 'source scripts/arm64-toolchain.sh && arm64_prepare'
# The VM tiers' parts from the start too, at the normal priority: the VM's kernel and
# initramfs (vm/setup.sh) and the kiosk tier's Debian 13 root (vm/kiosk-root.sh), each
# cached behind a lock that the tiers take again: once made, nothing to do. On a machine
# that never ran the suite they are a download and a debootstrap, here off the path of the
# kiosk tier's second lane. A failure here fails nothing: the tiers make them again, and
# say why they cannot (or skip where qemu cannot run).
background "VM parts" bash -c 'vm/setup.sh --quiet && vm/kiosk-root.sh >/dev/null ||
    echo "suite: the VM parts were not made in the background; the VM tiers try again"'

tier "swift build" swift build --build-tests
# The package once the host build has resolved the dependencies (the cross build clones
# them from the same repository cache); it waits for the toolchain's lock.
# shellcheck disable=SC2016  # the script is the inner bash's, its variables its own
background "arm64 package" "${as_root[@]}" nice -n 10 bash -c 'set -eo pipefail
    deb=$(scripts/package-deb.sh --arch arm64 | tail -n 1)
    vm/test-arm64-kernel.sh --deb "$deb" --fetch-only
    echo "deb $deb"'
tier "swift test" swift test --skip-build
tier "ASan" ./scripts/test-asan.sh
tier "TSan" ./scripts/test-tsan.sh
tier "Python client" env GESTURED_BIN="$(swift build --show-bin-path)/gestured" clients/python/test.sh
tier "browser" env GESTURED_BIN_DIR="$(swift build --show-bin-path)" web/test.sh

began=$SECONDS
release_bin=$(scripts/build-release.sh)
# The VM tiers' driver too, built here on both cores rather than beside a guest.
scripts/build-release.sh gestured-e2e >/dev/null
deb=$(scripts/package-deb.sh --bin-path "$release_bin" | tail -n 1)
tier_times+=("release build and package $((SECONDS - began)) s")
tier "package checks" scripts/test-deb.sh "$deb"

# The end-to-end and systemd tiers side by side: one guest each, one emulated CPU each, so
# two guests on the two cores, as in the kiosk tier's two lanes (never three); their
# verdicts wait for events, not for time. The end-to-end tier's output follows the
# systemd tier's.
join "VM parts" --print
background "e2e VM" vm/test.sh
tier "systemd VM" vm/test-systemd.sh --deb "$deb"
join "e2e VM" --print
tier "kiosk VM" vm/test-kiosk.sh

join "arm64 toolchain"
join "arm64 package"
arm64_deb=$(sed -n 's/^deb //p' "${background_log[arm64 package]}" | tail -n 1)
tier "arm64 package checks" "${as_root[@]}" scripts/test-arm64.sh --deb "$arm64_deb" --amd64-bin "$release_bin" \
    --only package,compat,shim,corpus,depends,lintian
tier "arm64 kernel VM" "${as_root[@]}" vm/test-arm64-kernel.sh --deb "$arm64_deb"
echo "suite: tier times: $(printf '%s; ' "${tier_times[@]}")total $SECONDS s"

#!/usr/bin/env bash
# Installs the arm64 package with apt into Debian 12 and Debian 13 arm64 roots and runs it
# there (docs/packaging.md "The arm64 package"): what a Raspberry Pi OS bookworm or trixie
# owner does, on this amd64 machine through qemu-user.
#
#   scripts/check-arm64-install.sh [--deb DEB] [--suites "bookworm trixie"]
#
#   --deb DEB     the arm64 .deb (default: made with scripts/package-deb.sh --arch arm64)
#   --suites ...  the Debian releases to install on (default: bookworm trixie)
#
# Each root is made once with `debootstrap --arch=arm64` (its second stage runs emulated:
# 8 minutes each on 2 quiet cores, 20 to 50 on a busy machine) and cached as
# $GESTURED_BUILD_CACHE/roots/SUITE-arm64 (about 300 MB each); every run works on a copy. In the copy: `apt-get install ./DEB` (the
# dependencies from the suite's archive; services are not started: policy-rc.d), then dpkg's
# state of the package, `gestured --version`, the group, the units as systemd-analyze verify
# and systemctl is-enabled see them, `gestured check-config` of the installed configuration,
# and `gestured replay demo/demo.events`, whose output must equal this machine's build's.
# Not part of scripts/test.sh (the time); scripts/test-arm64.sh checks the same Depends
# against both suites' lists there. Ends with "N passed, N failed"; exit 1 on a failure.
# Needs root.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
absolute() { [[ "$1" == /* ]] && echo "$1" || echo "$PWD/$1"; }
deb=""
suites="bookworm trixie"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --deb) deb=$(absolute "$2"); shift ;;
        --suites) suites=$2; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "check-arm64-install.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
cd "$root"
source scripts/packaging.sh
source scripts/arm64-toolchain.sh
started=$SECONDS

./scripts/install-deps.sh --with-arm64
[[ $(id -u) -eq 0 ]] || arm64_fail "check-arm64-install.sh needs root (debootstrap, chroot, binfmt_misc)"
arm64_binfmt

# The roots first (they take longest), each under the cache's exclusive lock.
for suite in $suites; do
    pristine="$arm64_cache/roots/$suite-arm64"
    [[ -f "$pristine/.gestured-ready" ]] && continue
    arm64_lock -x roots.lock
    if [[ ! -f "$pristine/.gestured-ready" ]]; then
        arm64_remove_partial "$pristine.partial"
        mkdir -p "$arm64_cache/roots"
        arm64_say "debootstrap --arch=arm64 $suite into $pristine (8 to 50 minutes, as busy as the machine is; log: $pristine.log)"
        suite_started=$SECONDS
        debootstrap --arch=arm64 "$suite" "$pristine.partial" "$arm64_mirror" >"$pristine.log" 2>&1 ||
            { tail -n 20 "$pristine.log" >&2; arm64_fail "debootstrap of $suite arm64 failed"; }
        printf '#!/bin/sh\nexit 101\n' >"$pristine.partial/usr/sbin/policy-rc.d"
        chmod 0755 "$pristine.partial/usr/sbin/policy-rc.d"
        touch "$pristine.partial/.gestured-ready"
        mv "$pristine.partial" "$pristine"
        arm64_say "$suite arm64 root made in $((SECONDS - suite_started)) s"
    fi
    exec 9>&-
done

[[ -n "$deb" ]] || deb=$(scripts/package-deb.sh --arch arm64 | tail -n 1)
[[ -f "$deb" ]] || { echo "check-arm64-install: no package at $deb" >&2; exit 1; }
version=$(gestured_version)
host_replay=$(mktemp)
work=""
trap 'rm -f "$host_replay"; [[ -z $work ]] || rm -rf "$work"' EXIT
amd64_bin=$(scripts/build-release.sh gestured)
"$amd64_bin/gestured" replay demo/demo.events >"$host_replay"

# in_root ROOT COMMAND...: COMMAND in the arm64 ROOT (arm64_in_build_root's mounts).
in_root() {
    local target=$1
    shift
    (arm64_build_root=$target && arm64_in_build_root "$@")
}

for suite in $suites; do
    pristine="$arm64_cache/roots/$suite-arm64"
    work=$(mktemp -d "$arm64_cache/roots/$suite-arm64.run.XXXXXX")
    cp -a "$pristine/." "$work/"
    cp "$deb" "$work/tmp/"
    cp demo/demo.events "$work/tmp/demo.events"
    echo "check-arm64-install: Debian $suite arm64 ($(cat "$work/etc/debian_version"))"
    package=/tmp/$(basename "$deb")
    log="$work/install.log"
    installs() {
        in_root "$work" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$package" \
            >"$log" 2>&1 || { tail -n 30 "$log"; return 1; }
    }
    # shellcheck disable=SC2016  # a dpkg-query format, not a shell expansion
    installed() { [ "$(in_root "$work" dpkg-query -W -f='${Status} ${Version}' gestured)" = "install ok installed $version" ]; }
    check "apt-get install $package on Debian $suite arm64" installs
    awk '/^The following NEW/ { print; getline; print } /^Setting up/' "$log" | sed 's/^/    /' || true
    check "dpkg: gestured $version is installed ($suite)" installed
    check "gestured --version prints $version ($suite)" [ "$(in_root "$work" gestured --version)" = "$version" ]
    check "the group gestured exists ($suite)" in_root "$work" getent group gestured
    # The units as installed: systemd-analyze of the suite's own systemd (emulated) loads
    # them with the packaged binaries; postinst enabled the sockets and the service
    # (deb-systemd-helper; nothing is started in a chroot). The roots have no man-db (not an
    # important package), so the manual pages the units' Documentation= names are looked for
    # as files instead of through man.
    check "systemd-analyze verify accepts the installed units ($suite)" in_root "$work" systemd-analyze verify --man=no \
        /lib/systemd/system/gestured.service /lib/systemd/system/gestured.socket \
        /lib/systemd/system/gestured-web.service /lib/systemd/system/gestured-web.socket
    for page in gestured gesturectl gestured-web; do
        check "the manual page $page(1) is installed ($suite)" [ -f "$work/usr/share/man/man1/$page.1.gz" ]
    done
    for unit in gestured.socket gestured.service gestured-web.socket; do
        check "$unit is enabled ($suite)" [ "$(in_root "$work" systemctl is-enabled "$unit")" = enabled ]
    done
    check "gestured check-config accepts the installed configuration ($suite)" \
        in_root "$work" gestured check-config /etc/gestured/gestured.toml
    check "gestured replay demo/demo.events prints what this machine's build prints ($suite)" \
        same "$host_replay" <(in_root "$work" gestured replay /tmp/demo.events)
    # shellcheck disable=SC2016  # a dpkg-query format, not a shell expansion
    echo "    replay: $(wc -l <"$host_replay") lines, libc6 $(in_root "$work" dpkg-query -W -f='${Version}' libc6)"
    rm -rf "$work"
    work=""
done

echo "check-arm64-install: $((SECONDS - started)) s"
echo "check-arm64-install: $passed passed, $failed failed"
[[ $failed -eq 0 ]]

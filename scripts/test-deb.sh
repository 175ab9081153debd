#!/usr/bin/env bash
# shellcheck disable=SC2016  # the single-quoted $1, $2 … are the arguments of the `bash -c` checks, given after `_`
# Checks the Debian package on this machine without installing it (installing would start
# services and change /etc here; the VM tier installs it under a real systemd):
#
#   scripts/test-deb.sh [DEB]      (default: builds it with scripts/package-deb.sh)
#
# It reads the package with dpkg-deb and checks its control fields, Depends, file list,
# conffiles, maintainer scripts and md5sums; that the units, the sysusers file and the
# configuration are those of systemd/ and config/ (the units with /usr/local/bin rewritten
# to /usr/bin and nothing else changed); that systemd-sysusers creates the group from the
# packaged file and systemd-analyze verify accepts the packaged units (both in a scratch
# root); that the binaries run, report the version and load no Swift runtime; and that
# lintian reports no error and no warning. Ends with "N passed, N failed"; exit 1 on a failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deb=${1:+$(cd "$(dirname "$1")" && pwd)/$(basename "$1")}
cd "$root"
source scripts/packaging.sh

./scripts/install-deps.sh --with-package --with-lintian
[[ -n "$deb" ]] || deb=$(scripts/package-deb.sh | tail -n 1)
[[ -f "$deb" ]] || { echo "test-deb: no package at $deb" >&2; exit 1; }


work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree="$work/tree"
dpkg-deb --extract "$deb" "$tree"
dpkg-deb --control "$deb" "$work/DEBIAN"
field() { dpkg-deb --field "$deb" "$1"; }
version=$(gestured_version)
arch=$(dpkg --print-architecture)
echo "test-deb: $deb"

check "the file is named gestured_<version>_<arch>.deb" [ "$(basename "$deb")" = "gestured_${version}_${arch}.deb" ]
check "Package: gestured" [ "$(field Package)" = gestured ]
check "Version is gesturedVersion ($version)" [ "$(field Version)" = "$version" ]
check "Architecture is dpkg's ($arch)" [ "$(field Architecture)" = "$arch" ]
depends=$(field Depends)
for dependency in "libc6 (>=" "libevdev2 (>=" "libsystemd0 (>=" \
    "systemd | systemd-standalone-sysusers | systemd-sysusers | adduser" procps; do
    check "Depends names $dependency" contains "$depends" "$dependency"
done
check "Depends names no Swift runtime package" bash -c '! grep -qi swift <<<"$1"' _ "$depends"
check "Recommends wtype (gesturectl actions types keys with it)" [ "$(field Recommends)" = wtype ]
check "Suggests xdotool (keyboard = \"x11\")" [ "$(field Suggests)" = xdotool ]

expected_files="./etc/gestured/gestured-web.toml
./etc/gestured/gestured.toml
./lib/systemd/system/gestured-web.service
./lib/systemd/system/gestured-web.socket
./lib/systemd/system/gestured.service
./lib/systemd/system/gestured.socket
./usr/bin/gesturectl
./usr/bin/gestured
./usr/bin/gestured-web
./usr/lib/systemd/user/gestured-actions.service
./usr/lib/sysusers.d/gestured.conf
./usr/lib/udev/rules.d/71-gestured-uinput.rules
./usr/share/doc/gestured/changelog.gz
./usr/share/doc/gestured/copyright
./usr/share/doc/gestured/examples/actions.toml
./usr/share/gestured/web/gestured.js
./usr/share/gestured/web/index.html
./usr/share/gestured/web/live.css
./usr/share/gestured/web/live.js
./usr/share/man/man1/gesturectl.1.gz
./usr/share/man/man1/gestured-web.1.gz
./usr/share/man/man1/gestured.1.gz"
check "the package holds exactly the expected files" \
    diff -u <(echo "$expected_files") <(cd "$tree" && find . -type f -o -type l | LC_ALL=C sort)
check "everything is owned by root:root" \
    bash -c '! dpkg-deb --contents "$1" | awk "\$2 != \"root/root\"" | grep .' _ "$deb"
check "the binaries are mode 0755, other files 0644, directories 0755" bash -c '
    cd "$1" && ! find . \( -type f ! -path "./usr/bin/*" ! -perm 0644 \) -o \( -type d ! -perm 0755 \) | grep . &&
    ! find usr/bin -type f ! -perm 0755 | grep .' _ "$tree"
check "conffiles: /etc/gestured/gestured-web.toml and gestured.toml" \
    same <(printf '%s\n' /etc/gestured/gestured-web.toml /etc/gestured/gestured.toml) "$work/DEBIAN/conffiles"
for conffile in gestured.toml gestured-web.toml; do
    check "the conffile $conffile is config/$conffile" same "config/$conffile" "$tree/etc/gestured/$conffile"
done
for file in index.html live.js live.css gestured.js; do
    check "the live view's $file is web/$file" same "web/$file" "$tree/usr/share/gestured/web/$file"
done
check "the sysusers file is systemd/gestured.sysusers" same systemd/gestured.sysusers "$tree/usr/lib/sysusers.d/gestured.conf"
check "the udev rule is systemd/71-gestured-uinput.rules" same systemd/71-gestured-uinput.rules "$tree/usr/lib/udev/rules.d/71-gestured-uinput.rules"
check "md5sums match the files" bash -c 'cd "$1" && md5sum --check --quiet "$2"' _ "$tree" "$work/DEBIAN/md5sums"
for script in postinst prerm postrm; do
    check "$script is packaging/deb/$script, executable, valid sh" bash -c \
        'cmp "$1" "$2" && [ -x "$2" ] && sh -n "$2"' _ "packaging/deb/$script" "$work/DEBIAN/$script"
done

for unit in gestured.service gestured.socket gestured-web.service gestured-web.socket; do
    packaged="$tree/lib/systemd/system/$unit"
    check "$unit is systemd/$unit with /usr/local/bin rewritten to /usr/bin" \
        same <(unit_for_prefix /usr "systemd/$unit") "$packaged"
    check "$unit names no /usr/local path" bash -c '! grep -n /usr/local "$1"' _ "$packaged"
done
check "gestured-actions.service is systemd/gestured-actions.service with /usr/local/bin rewritten to /usr/bin" \
    same <(unit_for_prefix /usr systemd/gestured-actions.service) "$tree/usr/lib/systemd/user/gestured-actions.service"
check "gestured-actions.service runs /usr/bin/gesturectl actions" \
    grep -qx 'ExecStart=/usr/bin/gesturectl actions' "$tree/usr/lib/systemd/user/gestured-actions.service"
check "no udev rule gives /dev/uinput to a session user (uaccess)" bash -c '! grep -rn uaccess "$1"/usr/lib/udev "$1"/lib/udev 2>/dev/null' _ "$tree"
check "the example actions file is config/actions.toml" same config/actions.toml "$tree/usr/share/doc/gestured/examples/actions.toml"
check "gestured.service runs /usr/bin/gestured" \
    grep -qx 'ExecStart=/usr/bin/gestured run --config /etc/gestured/gestured.toml' "$tree/lib/systemd/system/gestured.service"
check "gestured-web.service runs /usr/bin/gestured-web" \
    grep -qx 'ExecStart=/usr/bin/gestured-web --config /etc/gestured/gestured-web.toml' "$tree/lib/systemd/system/gestured-web.service"

# A scratch root: the package's files, the host's unit files (targets the units refer to)
# and what ExecReload= runs, so systemd-analyze checks the packaged units as installed,
# ExecStart=/usr/bin/gestured included, and the manual pages Documentation= names.
scratch="$work/root"
cp -a "$tree" "$scratch"
cp -an /lib/systemd/system/. "$scratch/lib/systemd/system/"
install -D /bin/kill "$scratch/bin/kill"
check "systemd-analyze verify accepts the installed units" env MANPATH="$scratch/usr/share/man" \
    systemd-analyze verify --root="$scratch" /lib/systemd/system/gestured.service /lib/systemd/system/gestured.socket \
    /lib/systemd/system/gestured-web.service /lib/systemd/system/gestured-web.socket
# The user manager takes no --root: the unit is verified with ExecStart= pointing into
# the scratch root (that it runs /usr/bin/gesturectl as installed is checked above).
mkdir -p "$work/runtime" "$work/user-unit"
sed "s|^ExecStart=/usr/bin/|ExecStart=$scratch/usr/bin/|" "$scratch/usr/lib/systemd/user/gestured-actions.service" \
    >"$work/user-unit/gestured-actions.service"
check "systemd-analyze verify accepts the installed user unit" env MANPATH="$scratch/usr/share/man" XDG_RUNTIME_DIR="$work/runtime" \
    systemd-analyze --user verify "$work/user-unit/gestured-actions.service"
mkdir -p "$scratch/etc"
touch "$scratch/etc/group" "$scratch/etc/passwd"
check "systemd-sysusers creates the group gestured from the packaged file" bash -c \
    'systemd-sysusers --root="$1" gestured.conf && grep -q "^gestured:x:[0-9]*:$" "$1/etc/group"' _ "$scratch"

for binary in gestured gesturectl gestured-web; do
    check "$binary --version prints $version" [ "$("$tree/usr/bin/$binary" --version)" = "$version" ]
    check "$binary needs no Swift library" [ -z "$(swift_runtime_needs "$tree/usr/bin/$binary")" ]
    check "$binary loads nothing from the Swift toolchain (ldd)" bash -c '! ldd "$1" | grep -E "swift|Foundation|/opt/"' _ "$tree/usr/bin/$binary"
    # Linked in (scripts/build-release.sh, docs/performance.md "Idle memory").
    check "$binary has no RUNPATH or RPATH (readelf -d)" bash -c '! readelf -d "$1" | grep -E "RUNPATH|RPATH"' _ "$tree/usr/bin/$binary"
    check "$binary links libstdc++ and libgcc statically (ldd)" bash -c '! ldd "$1" | grep -E "libstdc\+\+|libgcc_s"' _ "$tree/usr/bin/$binary"
done
check "Depends names neither libstdc++6 nor libgcc-s1" bash -c '! grep -E "libstdc\+\+6|libgcc-s1" <<<"$1"' _ "$depends"
# The bridge takes from systemd only what the Systemd module has (sd-daemon, journald): it
# must not pull the daemon, and libevdev with it, back in (docs/architecture.md).
check "gestured-web does not link libevdev (ldd)" bash -c '! ldd "$1" | grep -q libevdev' _ "$tree/usr/bin/gestured-web"
check "gestured links libevdev (ldd; the check above can fail)" bash -c 'ldd "$1" | grep -q libevdev' _ "$tree/usr/bin/gestured"
# libsystemd for systemd's protocols (docs/architecture.md, "libsystemd"): in the daemon and
# the bridge, through the Systemd module (libsystemd0 in Depends, above); not in the client.
# The daemon's loop is sd-event, its hot-plug and udev properties sd-device; libudev is gone.
check "gestured uses sd-event (readelf --dyn-syms)" bash -c \
    'readelf --dyn-syms --wide "$1" | grep -qE "UND sd_event_run"' _ "$tree/usr/bin/gestured"
check "gestured uses sd-device (readelf --dyn-syms)" bash -c \
    'readelf --dyn-syms --wide "$1" | grep -qE "UND sd_device_monitor_start"' _ "$tree/usr/bin/gestured"
check "gestured does not link libudev (readelf -d)" bash -c '! readelf -d "$1" | grep -q "NEEDED.*libudev"' _ "$tree/usr/bin/gestured"
check "Depends does not name libudev1" bash -c '! grep -q libudev1 <<<"$1"' _ "$depends"
for binary in gestured gestured-web; do
    check "$binary needs libsystemd (readelf -d)" bash -c 'readelf -d "$1" | grep -q "NEEDED.*libsystemd\.so\.0"' _ "$tree/usr/bin/$binary"
    check "$binary loads libsystemd (ldd)" bash -c 'ldd "$1" | grep -q libsystemd' _ "$tree/usr/bin/$binary"
done
check "gesturectl does not need libsystemd (readelf -d)" bash -c '! readelf -d "$1" | grep "NEEDED.*libsystemd"' _ "$tree/usr/bin/gesturectl"
check "gestured check-config accepts the packaged configuration" \
    "$tree/usr/bin/gestured" check-config "$tree/etc/gestured/gestured.toml"
check "gesturectl actions --check accepts the packaged example actions file" \
    "$tree/usr/bin/gesturectl" actions --check "$tree/usr/share/doc/gestured/examples/actions.toml"

lintian_output="$work/lintian.txt"
# --fail-on error,warning: what the issue and Debian's archive reject; the informational
# tags that remain are printed and explained in docs/packaging.md.
if lintian --display-info --fail-on error,warning "$deb" >"$lintian_output" 2>&1; then lintian_status=0; else lintian_status=$?; fi
# One line per tag, with how often it was raised.
grep -E '^[EWI]: ' "$lintian_output" | awk '{ print $1, $3 }' | sort | uniq -c | sed 's/^ */    lintian: /' || true
check "lintian reports no error and no warning" bash -c 'exit "$1"' _ "$lintian_status"

echo "test-deb: $passed passed, $failed failed"
[[ $failed -eq 0 ]]

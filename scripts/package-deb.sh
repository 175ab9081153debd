#!/usr/bin/env bash
# Builds the Debian package gestured_<version>_<arch>.deb (docs/packaging.md).
#
#   scripts/package-deb.sh [--arch arm64] [--bin-path DIR] [--output DIR]
#
#   --arch arm64    the package for arm64 (Raspberry Pi OS, Debian 12 and 13): the binaries
#                   cross-compiled by scripts/build-release.sh --arch arm64, the man pages
#                   made by running them under qemu-user, Depends computed against the
#                   Debian 12 arm64 sysroot (docs/packaging.md "The arm64 package"; needs
#                   root; about 1.3 GB downloaded once into /var/cache/gestured-build)
#   --bin-path DIR  take gestured, gesturectl and gestured-web from DIR, as printed by
#                   scripts/build-release.sh (so a test run builds once); without it, this
#                   script runs scripts/build-release.sh
#   --output DIR    where the .deb is written (default: .build/deb)
#
# The last line on standard output is the path of the .deb; progress goes to standard error.
#
# Contents: the binaries in /usr/bin (stripped; the Swift runtime linked in statically, no
# Swift library needed on the target), the units of systemd/ in /lib/systemd/system with
# their /usr/local/bin paths rewritten to /usr/bin (scripts/packaging.sh), the access group in
# /usr/lib/sysusers.d/gestured.conf, config/gestured.toml and config/gestured-web.toml as the
# conffiles /etc/gestured/gestured.toml and gestured-web.toml, the live view of web/ (the JS
# client included) in /usr/share/gestured/web, copyright, changelog and manual pages. The
# maintainer scripts are packaging/deb/{postinst,prerm,postrm}; Depends is computed by
# dpkg-shlibdeps from the binaries plus what those scripts and the units call.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
absolute() { [[ "$1" == /* ]] && echo "$1" || echo "$PWD/$1"; }

bin_path=""
arch=$(dpkg --print-architecture)
output="$root/.build/deb"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bin-path) bin_path=$(absolute "$2"); shift ;;
        --output) output=$(absolute "$2"); shift ;;
        --arch) arch=$2; shift ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "package-deb.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
say() { echo "package-deb: $*" >&2; }
fail() { echo "package-deb: $*" >&2; exit 1; }
cd "$root"
source scripts/packaging.sh

./scripts/install-deps.sh --with-package >&2
host_arch=$(dpkg --print-architecture)
[[ $arch == "$host_arch" || $arch == arm64 ]] || fail "cannot package for $arch (only $host_arch or arm64)"
# swift runs where the package's binaries are built (for arm64, in the build root);
# strip and dpkg-shlibdeps read the target's binaries and libraries.
swift=(swift)
run_in_build_place=()
strip='strip'
shlibdeps_options=()
if [[ $arch != "$host_arch" ]]; then
    source scripts/arm64-toolchain.sh
    arm64_prepare
    swift=(arm64_in_build_root swift)
    run_in_build_place=(arm64_in_build_root)
    strip=aarch64-linux-gnu-strip
    # The sysroot's libraries and the symbols files of their Debian 12 packages
    # (scripts/arm64-toolchain.sh), in aarch64's multiarch directories.
    shlibdeps_options=("-S$arm64_sysroot")
    export DEB_HOST_ARCH=$arch
fi

version=$(gestured_version)
[[ -n "$version" ]] || fail "no gesturedVersion in Sources/GestureCore/Version.swift"
changelog_version=$(dpkg-parsechangelog -l packaging/deb/changelog -S Version)
[[ "$changelog_version" == "$version" ]] ||
    fail "packaging/deb/changelog starts with $changelog_version, but gesturedVersion is $version: add a changelog entry"
# Every timestamp in the package is the changelog's date, so the same binaries pack to the
# same bytes (dpkg-deb also reads SOURCE_DATE_EPOCH).
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l packaging/deb/changelog -S Timestamp)
export SOURCE_DATE_EPOCH

if [[ -z "$bin_path" ]]; then
    say "building a release (scripts/build-release.sh)"
    bin_path=$(scripts/build-release.sh --arch "$arch" gestured gesturectl gestured-web)
fi
binaries=(gestured gesturectl gestured-web)
units=(gestured.service gestured.socket gestured-web.service gestured-web.socket)
for binary in "${binaries[@]}"; do
    [[ -x "$bin_path/$binary" ]] || fail "no executable $bin_path/$binary"
    # The target has no Swift runtime: refuse a build that needs one (built without
    # --static-swift-stdlib, it needs libswiftCore.so and friends from the toolchain).
    dynamic=$(swift_runtime_needs "$bin_path/$binary")
    [[ -z "$dynamic" ]] || fail "$bin_path/$binary needs the Swift runtime from the toolchain ($(paste -sd " " <<<"$dynamic")): build it with --static-swift-stdlib"
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
package="$stage/gestured"
install -d -m 0755 "$package/DEBIAN" "$package/usr/bin" "$package/lib/systemd/system" \
    "$package/usr/lib/sysusers.d" "$package/etc/gestured" "$package/usr/share/doc/gestured" \
    "$package/usr/share/man/man1" "$package/usr/share/gestured/web" "$package/usr/lib/udev/rules.d" \
    "$package/usr/lib/systemd/user" \
    "$package/usr/share/doc/gestured/examples"

say "staging version $version for $arch from $bin_path"
for binary in "${binaries[@]}"; do
    # As dh_strip does: no symbol table or debug information (the Swift metadata sections
    # the runtime reads are allocated and stay).
    "$strip" --remove-section=.comment --remove-section=.note --strip-unneeded \
        -o "$package/usr/bin/$binary" "$bin_path/$binary"
    chmod 0755 "$package/usr/bin/$binary"
done
for unit in "${units[@]}"; do
    unit_for_prefix /usr "systemd/$unit" >"$package/lib/systemd/system/$unit"
done
install -m 0644 systemd/gestured.sysusers "$package/usr/lib/sysusers.d/gestured.conf"
install -m 0644 systemd/71-gestured-uinput.rules "$package/usr/lib/udev/rules.d/71-gestured-uinput.rules"
# gesturectl actions (docs/actions.md): its user unit and the commented example actions
# file. No rule gives any session user /dev/uinput: `keys` type through the Wayland
# session (wtype, a Recommends).
unit_for_prefix /usr systemd/gestured-actions.service >"$package/usr/lib/systemd/user/gestured-actions.service"
install -m 0644 config/actions.toml "$package/usr/share/doc/gestured/examples/actions.toml"
install -m 0644 config/gestured.toml config/gestured-web.toml "$package/etc/gestured/"
printf '%s\n' /etc/gestured/gestured-web.toml /etc/gestured/gestured.toml >"$package/DEBIAN/conffiles"
# The live view; web/gestured.js is a link to the JS client, installed as a file.
install -m 0644 web/index.html web/live.js web/live.css web/gestured.js "$package/usr/share/gestured/web/"
install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$package/DEBIAN/"

# copyright: packaging/deb/copyright with the text of LICENSE as its MIT license paragraph.
license_text=$(awk '/^Permission/ { body = 1 } body { print ($0 == "" ? " ." : " " $0) }' LICENSE)
awk -v text="$license_text" '$0 == "@LICENSE@" { print text; next } { print }' packaging/deb/copyright \
    >"$package/usr/share/doc/gestured/copyright"
gzip -9n <packaging/deb/changelog >"$package/usr/share/doc/gestured/changelog.gz"

# Manual pages from the commands' own help (swift-argument-parser's generate-manual, built
# from the checkout SwiftPM resolved; the same tool its `generate-manual` plugin runs).
# For arm64 it is built in the build root and runs the arm64 binaries under qemu-user, each
# through a script of the binary's name (the page's title) in a directory of the clone's
# .build (the build root sees the clone, not this script's temporary directory).
scratch=.build
manual_scratch=.build/generate-manual
if [[ $arch != "$host_arch" ]]; then
    scratch=.build/aarch64
    manual_scratch=.build/aarch64-generate-manual
fi
if [[ ! -d $scratch/checkouts/swift-argument-parser ]]; then
    "${swift[@]}" package resolve --scratch-path "$scratch" >&2
fi
manual_tool=$manual_scratch/debug/generate-manual
say "building swift-argument-parser's generate-manual (log: $manual_scratch.log)"
# Its own warnings (it is the root package of this build) are not ours: they go to the log.
"${swift[@]}" build --package-path "$scratch/checkouts/swift-argument-parser" --scratch-path "$manual_scratch" \
    --product generate-manual >"$manual_scratch.log" 2>&1 ||
    { cat "$manual_scratch.log" >&2; fail "building generate-manual failed"; }
manual_date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)
manual_work=$root/$manual_scratch/pages
rm -rf "$manual_work"
mkdir -p "$manual_work/bin"
for binary in "${binaries[@]}"; do
    command=$package/usr/bin/$binary
    if [[ $arch != "$host_arch" ]]; then
        cp "$package/usr/bin/$binary" "$manual_work/$binary"
        printf '#!/bin/sh\nexec qemu-aarch64-static -L %s %s "$@"\n' "$arm64_sysroot" "$manual_work/$binary" \
            >"$manual_work/bin/$binary"
        chmod 0755 "$manual_work/bin/$binary"
        command=$manual_work/bin/$binary
    fi
    "${run_in_build_place[@]}" "$manual_tool" "$command" --section 1 --date "$manual_date" \
        --authors "gestured developers" --output-directory "$manual_work" >&2
    gzip -9n <"$manual_work/$binary.1" >"$package/usr/share/man/man1/$binary.1.gz"
done
rm -rf "$manual_work"

# Depends: the shared libraries the binaries load (dpkg-shlibdeps reads the shlibs/symbols
# files of the installed packages that provide them: libevdev2, libsystemd0, libc6, …),
# and what the maintainer scripts and units run that no Essential package provides:
# systemd-sysusers (systemd, or the standalone one; adduser's addgroup where neither is
# installed) and /bin/kill for ExecReload= (procps).
mkdir -p "$stage/shlibs/debian"
printf 'Source: gestured\n\nPackage: gestured\nArchitecture: any\n' >"$stage/shlibs/debian/control"
shlibs=$(cd "$stage/shlibs" && dpkg-shlibdeps "${shlibdeps_options[@]}" -O "${binaries[@]/#/$package/usr/bin/}" |
    sed -n 's/^shlibs:Depends=//p')
[[ -n "$shlibs" ]] || fail "dpkg-shlibdeps found no library dependencies"
# Packed relative relocations (scripts/build-release.sh) need glibc 2.36's loader, which the
# binaries say through the version GLIBC_ABI_DT_RELR; bookworm's libc6 symbols file does not
# map it, so dpkg-shlibdeps alone would allow an older libc6 that cannot start them.
for binary in "${binaries[@]}"; do
    if readelf -V "$package/usr/bin/$binary" | grep -q 'Name: GLIBC_ABI_DT_RELR'; then
        shlibs=$(sed -E 's/libc6 \(>= 2\.(3[0-5]|[0-2][0-9])[^)]*\)/libc6 (>= 2.36)/' <<<"$shlibs")
    fi
done
depends="$shlibs, systemd | systemd-standalone-sysusers | systemd-sysusers | adduser, procps"
# Recommends: wtype, which `gesturectl actions` runs to type its `keys` in the Wayland
# session; Suggests (control.in): xdotool, for `keyboard = "x11"`.
recommends="wtype"

(cd "$package" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
    xargs -0 md5sum >DEBIAN/md5sums)
installed_size=$(du -s -k --apparent-size --exclude=DEBIAN "$package" | cut -f1)
maintainer="${DEBFULLNAME:-gestured developers} <${DEBEMAIL:-maintainers@gestured.example}>"
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" -e "s/@DEPENDS@/$depends/" -e "s/@RECOMMENDS@/$recommends/" \
    packaging/deb/control.in >"$package/DEBIAN/control"

find "$package" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$output"
deb="$(cd "$output" && pwd)/gestured_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$package" "$deb" >&2
say "built $deb ($(du -h "$deb" | cut -f1), installed $((installed_size / 1024)) MiB)"
echo "$deb"

# shellcheck shell=bash
# The arm64 cross toolchain, made from Debian packages alone and cached (sourced, not run;
# docs/packaging.md "The arm64 package"). Used by scripts/build-release.sh --arch arm64,
# scripts/package-deb.sh --arch arm64, scripts/test-arm64.sh and
# scripts/check-arm64-install.sh.
#
# The cache, $GESTURED_BUILD_CACHE (default /var/cache/gestured-build, outside the clone so
# every clone on the machine shares it; about 1.3 GB downloaded, 3.1 GB on disk), holds:
#   apt/SUITE-ARCH/   apt's lists of a Debian suite for one architecture, in a throwaway
#                     configuration (the host's apt is not touched)
#   debs/             the .debs fetched through it (apt checks them against the signed lists)
#   build-root/       Debian sid amd64 (debootstrap minbase) with its swiftlang: the cross
#                     compiler, run in a chroot (it needs a newer glibc than Debian 12's)
#   sysroot-arm64/    Debian 12 arm64 headers and libraries, unpacked from .debs, and the
#                     static Swift runtime (lib/swift_static, lib/clang) of the arm64 swiftlang
#   roots/SUITE-arm64 Debian arm64 roots for scripts/check-arm64-install.sh (330 MB each)
#   arm64-vm/KERNEL   the image and the evdev and uinput modules of Debian 12's arm64 kernel
#                     package, for vm/test-arm64-kernel.sh (33 MB)
#   lock, roots.lock  held exclusively while the toolchain (the roots) are made, shared
#                     while they are used
#
# Debian sid moves: the swiftlang version is pinned (arm64_swiftlang_version). A cache made
# with it is used as it is; making it anew fails, saying so, when sid serves another.

arm64_cache=${GESTURED_BUILD_CACHE:-/var/cache/gestured-build}
arm64_mirror=${GESTURED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The swiftlang the arm64 build was made and checked with (Debian's version is 6.2.3-N).
arm64_swiftlang_version=6.2.3
arm64_build_root=$arm64_cache/build-root
arm64_sysroot=$arm64_cache/sysroot-arm64
# shellcheck disable=SC2034  # for the scripts that source this file
arm64_triple=aarch64-unknown-linux-gnu
# The build root's clang (swiftlang's own: it cross-compiles C for aarch64 with lld).
# shellcheck disable=SC2034  # for the scripts that source this file
arm64_clang=/usr/libexec/swift/bin/clang
# What the sysroot is unpacked from (Debian 12, so that the binaries start on Debian 12 and
# later): the C library, the C++ runtime that the static Swift runtime needs, and the
# libraries gestured links (libevdev, libsystemd, with the libraries libsystemd0
# depends on, which lld reads to check libsystemd.so's own symbols). A package added here is
# unpacked into a sysroot already cached (arm64_make_sysroot).
arm64_sysroot_packages=(libc6 libc6-dev libgcc-s1 libgcc-12-dev libstdc++6 libstdc++-12-dev libatomic1
    libevdev2 libevdev-dev linux-libc-dev
    libsystemd0 libsystemd-dev libcap2 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libzstd1)

arm64_say() { echo "arm64-toolchain: $*" >&2; }
arm64_fail() { echo "arm64-toolchain: $*" >&2; exit 1; }

# arm64_lock MODE [NAME]: takes the cache's lock NAME (default lock; MODE: -x exclusive, -s
# shared) on descriptor 9, held until the shell exits or closes it; says so when it has to
# wait for another run.
arm64_lock() {
    local file="$arm64_cache/${2:-lock}"
    mkdir -p "$arm64_cache"
    exec 9>>"$file"
    if ! flock -n "$1" 9; then
        arm64_say "waiting for another run holding $file"
        flock "$1" 9
    fi
}

# arm64_apt SUITE ARCH APT-GET-ARGUMENTS...: apt-get on Debian SUITE's lists for ARCH, in a
# configuration of its own under the cache (lists fetched on first use and after a week).
# sid's Release is often past its Valid-Until on mirrors: that check is off for sid only.
arm64_apt() {
    local suite=$1 arch=$2 dir="$arm64_cache/apt/$1-$2"
    shift 2
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts" "$dir/preferences"
    [[ -f "$dir/status" ]] || : >"$dir/status"
    echo "deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $arm64_mirror $suite main" \
        >"$dir/sources.list"
    local options=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o "Dir::Etc::Parts=$dir/parts" -o "Dir::Etc::PreferencesParts=$dir/preferences"
        -o Dir::Etc::Preferences=/nonexistent -o "Dir::State=$dir" -o "Dir::State::Lists=$dir/lists"
        -o "Dir::State::status=$dir/status" -o "Dir::Cache=$dir/cache" -o "APT::Architecture=$arch"
        -o "APT::Architectures=$arch" -o Debug::NoLocking=1 -o APT::Get::List-Cleanup=false -o APT::Sandbox::User=root)
    [[ $suite != sid ]] || options+=(-o Acquire::Check-Valid-Until=false)
    if [[ -z $(find "$dir/lists" -maxdepth 1 -name '*_Packages*' -mtime -7 2>/dev/null) ]]; then
        arm64_say "fetching Debian $suite's $arch package lists"
        apt-get "${options[@]}" -qq update >&2 || arm64_fail "apt-get update for $suite $arch failed"
    fi
    apt-get "${options[@]}" "$@"
}

# arm64_candidate SUITE ARCH PACKAGE: the version of PACKAGE that SUITE serves for ARCH.
arm64_candidate() {
    arm64_apt "$1" "$2" -q=2 --print-uris download "$3" 2>/dev/null | awk '{ print $2 }' |
        sed -E 's/^[^_]+_([^_]+)_.*$/\1/; s/%3a/:/'
}

# arm64_check_swiftlang VERSION WHERE: fails unless VERSION is the pinned swiftlang.
arm64_check_swiftlang() {
    [[ $1 == "$arm64_swiftlang_version"-* ]] ||
        arm64_fail "$2 serves swiftlang ${1:-(none)}, but the arm64 build is made and checked with $arm64_swiftlang_version (Debian sid moved): check the build with the new version and change arm64_swiftlang_version in scripts/arm64-toolchain.sh"
}

# arm64_download SUITE ARCH DIR PACKAGE...: fetches the .debs into DIR (kept: a second run
# downloads nothing); apt checks each against the suite's signed lists.
arm64_download() {
    local suite=$1 arch=$2 dir=$3
    shift 3
    mkdir -p "$dir"
    local uris
    uris=$(arm64_apt "$suite" "$arch" -q=2 --print-uris download "$@") || arm64_fail "apt cannot download $* from $suite $arch"
    local missing=()
    while read -r _ file _; do
        [[ -f "$dir/$file" ]] || missing+=("${file%%_*}")
    done <<<"$uris"
    [[ ${#missing[@]} -eq 0 ]] && return 0
    arm64_say "downloading ${missing[*]} ($suite $arch)"
    (cd "$dir" && arm64_apt "$suite" "$arch" -qq download "${missing[@]}" >&2) || arm64_fail "downloading from $suite $arch failed"
}

# arm64_in_build_root COMMAND...: runs COMMAND in the build root, in the current directory,
# in a mount namespace of its own where /proc, /dev, the clone (the current directory) and
# the cache appear at their own paths, the host's SwiftPM repository cache at root's (the
# pinned dependencies are cloned from it) and qemu-aarch64-static in /usr/local/bin (the man
# pages are made by running the arm64 binaries). TMPDIR is the root's own /tmp (a test run's
# TMPDIR, scripts/suite-scope.sh, is not in the root).
arm64_in_build_root() {
    local swiftpm_cache=${HOME:-/root}/.cache/org.swift.swiftpm
    mkdir -p "$swiftpm_cache"
    # shellcheck disable=SC2016  # the script is the inner bash's, its variables its own
    unshare --mount --propagation private -- bash -euc '
        root=$1 clone=$2 cache=$3 swiftpm_cache=$4
        shift 4
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        for path in "$clone" "$cache"; do
            mkdir -p "$root$path"
            mount --rbind "$path" "$root$path"
        done
        mkdir -p "$root/root/.cache/org.swift.swiftpm"
        mount --rbind "$swiftpm_cache" "$root/root/.cache/org.swift.swiftpm"
        if [[ -x /usr/bin/qemu-aarch64-static ]]; then
            touch "$root/usr/local/bin/qemu-aarch64-static"
            mount --bind /usr/bin/qemu-aarch64-static "$root/usr/local/bin/qemu-aarch64-static"
        fi
        exec chroot "$root" env -C "$clone" HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
            LANG=C.UTF-8 TMPDIR=/tmp "$@"
    ' _ "$arm64_build_root" "$PWD" "$arm64_cache" "$swiftpm_cache" "$@"
}

# arm64_binfmt: lets the kernel run arm64 programs through qemu-user (a chroot into an arm64
# root, dpkg's maintainer scripts there): mounts binfmt_misc where it is not, and registers
# qemu-user-static's aarch64 entry where it is not registered.
arm64_binfmt() {
    local misc=/proc/sys/fs/binfmt_misc
    [[ -e $misc/register ]] || mount -t binfmt_misc binfmt_misc "$misc" ||
        arm64_fail "cannot mount binfmt_misc at $misc"
    [[ -e $misc/qemu-aarch64 ]] || cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$misc/register" ||
        arm64_fail "cannot register qemu-aarch64 with binfmt_misc"
    grep -qx enabled "$misc/qemu-aarch64" || arm64_fail "binfmt_misc's qemu-aarch64 entry is disabled"
}

# arm64_remove_partial DIR: removes DIR, what a killed run left half made (a killed
# debootstrap leaves its /proc and more mounted in it: unmounted first, deepest first, so that
# rm does not walk into them).
arm64_remove_partial() {
    findmnt -rn -o TARGET | grep -F "$1/" | sort -r | while read -r mounted; do
        umount -l "$mounted"
    done
    rm -rf "$1"
}

# arm64_make_build_root: Debian sid amd64 with the pinned swiftlang, once.
arm64_make_build_root() {
    [[ -f "$arm64_build_root/.gestured-ready" ]] && return 0
    local partial="$arm64_build_root.partial"
    local version
    version=$(arm64_candidate sid amd64 swiftlang)
    arm64_check_swiftlang "$version" "Debian sid (amd64)"
    if [[ ! -f "$partial/.debootstrap-done" ]]; then
        arm64_remove_partial "$partial"
        arm64_say "debootstrap of Debian sid amd64 into $partial (about 2 minutes)"
        debootstrap --variant=minbase --arch=amd64 sid "$partial" "$arm64_mirror" >&2 ||
            arm64_fail "debootstrap of sid failed (log: $partial/debootstrap/debootstrap.log)"
        touch "$partial/.debootstrap-done"
    fi
    echo 'Acquire::Check-Valid-Until "false";' >"$partial/etc/apt/apt.conf.d/50gestured-sid"
    # What the cross build never runs is not unpacked (dpkg's path-exclude): the debugger,
    # the editor services and the Embedded Swift libraries, 1.2 GB of swiftlang's 2.7 GB.
    local swift_lib=/usr/libexec/swift/lib swift_bin=/usr/libexec/swift/bin
    printf 'path-exclude=%s\n' "$swift_lib/swift/embedded/*" "$swift_lib/liblldb.so*" "$swift_bin/lldb*" \
        "$swift_lib/libsourcekitdInProc.so" "$swift_lib/libSwiftSourceKit*" "$swift_bin/clangd" \
        "$swift_bin/sourcekit-lsp" "$swift_bin/docc" "/usr/share/doc/*" "/usr/share/man/*" \
        >"$partial/etc/dpkg/dpkg.cfg.d/50gestured-unused"
    arm64_say "installing swiftlang $version in the build root (about 2 minutes)"
    local saved_root=$arm64_build_root
    arm64_build_root=$partial
    local log="$arm64_cache/build-root.log"
    { arm64_in_build_root apt-get -qq update &&
        arm64_in_build_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "swiftlang=$version" libc6-dev g++ pkg-config git &&
        arm64_in_build_root apt-get clean; } >"$log" 2>&1 ||
        { tail -n 30 "$log" >&2; arm64_fail "installing swiftlang in the build root failed (log: $log)"; }
    arm64_in_build_root swift --version 2>&1 | grep -q "Swift version $arm64_swiftlang_version" ||
        arm64_fail "the build root's swift is not $arm64_swiftlang_version"
    arm64_build_root=$saved_root
    echo "$version" >"$partial/.gestured-ready"
    rm -rf "$arm64_build_root"
    mv "$partial" "$arm64_build_root"
}

# arm64_sysroot_missing: prints the packages of arm64_sysroot_packages not yet unpacked in
# the sysroot (its .packages lists those that are).
arm64_sysroot_missing() {
    local package
    for package in "${arm64_sysroot_packages[@]}"; do
        grep -qxF "$package" "$arm64_sysroot/.packages" 2>/dev/null || echo "$package"
    done
}

# arm64_sysroot_unpack SYSROOT PACKAGE...: unpacks the Debian 12 arm64 PACKAGEs (downloaded
# into the cache) into SYSROOT as an installed merged-/usr system has them, then writes the
# symbols and shlibs files of all arm64_sysroot_packages where dpkg-shlibdeps -S looks for
# those of a library it found there (scripts/package-deb.sh --arch arm64).
arm64_sysroot_unpack() {
    local sysroot=$1 debs="$arm64_cache/debs/bookworm-arm64" package
    shift
    arm64_download bookworm arm64 "$debs" "$@"
    # Each package is unpacked apart and its lib/ moved to usr/lib (dpkg-deb -x makes a real
    # lib/, which would replace the sysroot's lib -> usr/lib).
    local staging="$sysroot.staging"
    for package in "$@"; do
        rm -rf "$staging"
        mkdir -p "$staging/usr/lib"
        # shellcheck disable=SC2012  # our own file names (no newlines); ls also drops a pattern that matched nothing
        dpkg-deb -x "$(ls "$debs/${package}_"*_{arm64,all}.deb 2>/dev/null | head -n 1)" "$staging"
        if [[ -d "$staging/lib" ]]; then
            cp -a "$staging/lib/." "$staging/usr/lib/"
            rm -rf "${staging:?}/lib"
        fi
        cp -a "$staging/." "$sysroot/"
    done
    rm -rf "$staging"
    [[ -e "$sysroot/lib" ]] || ln -s usr/lib "$sysroot/lib"
    # Absolute links (libm.so -> /lib/aarch64-linux-gnu/libm.so.6) would point at the build
    # machine's files: lld then silently takes libm.a. Made relative to the sysroot.
    local link target
    while IFS= read -r -d '' link; do
        target=$(readlink "$link")
        [[ $target == /* ]] && ln -sfnr "$sysroot$target" "$link"
    done < <(find "$sysroot" -type l -print0)
    mkdir -p "$sysroot/DEBIAN" "$sysroot.control"
    : >"$sysroot/DEBIAN/symbols"
    : >"$sysroot/DEBIAN/shlibs"
    for package in "${arm64_sysroot_packages[@]}"; do
        rm -rf "$sysroot.control"/*
        # shellcheck disable=SC2012  # our own file names (no newlines); ls also drops a pattern that matched nothing
        dpkg-deb -e "$(ls "$debs/${package}_"*_{arm64,all}.deb 2>/dev/null | head -n 1)" "$sysroot.control"
        [[ ! -f "$sysroot.control/symbols" ]] || cat "$sysroot.control/symbols" >>"$sysroot/DEBIAN/symbols"
        [[ ! -f "$sysroot.control/shlibs" ]] || cat "$sysroot.control/shlibs" >>"$sysroot/DEBIAN/shlibs"
    done
    rm -rf "$sysroot.control"
    printf '%s\n' "$@" >>"$sysroot/.packages"
}

# arm64_make_sysroot: the Debian 12 arm64 sysroot with the Swift runtime, once; afterwards
# only the packages added to arm64_sysroot_packages since are unpacked into it.
arm64_make_sysroot() {
    if [[ -f "$arm64_sysroot/.gestured-ready" ]]; then
        local missing
        mapfile -t missing < <(arm64_sysroot_missing)
        [[ ${#missing[@]} -eq 0 ]] && return 0
        arm64_say "adding ${missing[*]} to the arm64 sysroot"
        arm64_sysroot_unpack "$arm64_sysroot" "${missing[@]}"
        return 0
    fi
    local partial="$arm64_sysroot.partial" debs="$arm64_cache/debs"
    local version
    version=$(cat "$arm64_build_root/.gestured-ready")
    # The runtime must be the compiler's own version: the arm64 package of the same one.
    [[ $(arm64_candidate sid arm64 swiftlang) == "$version" ]] ||
        arm64_fail "Debian sid's arm64 swiftlang is not $version, the build root's"
    arm64_download sid arm64 "$debs/sid-arm64" "swiftlang=$version"
    rm -rf "$partial"
    mkdir -p "$partial/usr/lib"
    arm64_say "unpacking the arm64 sysroot into $partial"
    arm64_sysroot_unpack "$partial" "${arm64_sysroot_packages[@]}"
    # The static Swift runtime and clang's resource directory, where swift-driver looks for
    # them (usr/lib of the SDK).
    # Its 2.6 GB data.tar.xz is made of blocks: xz decompresses them on every core (about
    # half the time of dpkg-deb --fsys-tarfile's single thread on two cores).
    local resources=usr/libexec/swift/lib deb="$debs/sid-arm64/swiftlang_${version/:/%3a}_arm64.deb"
    ar p "$deb" data.tar.xz | xz -dc -T0 |
        tar -x -C "$partial" --wildcards "./$resources/swift_static/*" "./$resources/clang/*" ||
        arm64_fail "the arm64 swiftlang has no data.tar.xz with $resources/swift_static and $resources/clang"
    mv "$partial/$resources/swift_static" "$partial/$resources/clang" "$partial/usr/lib/"
    rm -rf "$partial/usr/libexec"
    echo "$version" >"$partial/.gestured-ready"
    rm -rf "$arm64_sysroot"
    mv "$partial" "$arm64_sysroot"
}

# arm64_prepare: makes what is missing of the cache (under the exclusive lock), then holds
# the lock shared until the shell exits. A cache already made is only taken shared, so a
# script holding it may run another that prepares too (package-deb.sh, build-release.sh).
arm64_prepare() {
    [[ $(id -u) -eq 0 ]] || arm64_fail "the arm64 build needs root (debootstrap, chroot, mounts)"
    ./scripts/install-deps.sh --with-arm64 >&2
    arm64_lock -s
    [[ -f "$arm64_build_root/.gestured-ready" && -f "$arm64_sysroot/.gestured-ready" && -z $(arm64_sysroot_missing) ]] &&
        return 0
    exec 9>&-
    arm64_lock -x
    arm64_make_build_root
    arm64_make_sysroot
    arm64_lock -s
}

#!/usr/bin/env bash
# Builds what ships, once, for everything that needs it (scripts/package-deb.sh, the test
# suite, the VM tier): a release build with the Swift runtime linked statically (the target
# has no Swift runtime; docs/packaging.md) and full RELRO (-z relro -z now, as
# Debian's hardening flags link). Prints the directory of the binaries on standard output.
#
# Linked by lld (the toolchain's own; the default, gold, has neither option below) for idle
# memory (docs/performance.md "Idle memory"): relative relocations packed (-z
# pack-relative-relocs, DT_RELR, glibc >= 2.36: the dynamic loader no longer reads 1 MB of
# Elf64_Rela at start), no dynamic symbol table of the executables' own functions
# (--no-export-dynamic: nothing loads symbols from an executable), and the functions the daemon
# runs placed together (packaging/gestured.order, made by scripts/link-order.sh; names it lacks
# or that no longer exist only cost memory), which needs a section per function to move
# (-function-sections for Swift, -ffunction-sections for C: without them a whole source
# file's code moves with the first of its functions the order names). libstdc++ and libgcc are linked statically too
# (the static Swift runtime is C++ and needs them): linked dynamically, libstdc++.so.6 alone
# was 0.95 MiB of each idle process, its relocations and its locale set-up, for the few
# functions the runtime calls. The toolchain's link arguments ask for `-lstdc++` by name,
# so a directory holding only the static archive is searched first. No RUNPATH
# (--disable-local-rpath; SwiftPM adds $ORIGIN by default): the binaries load only Debian's
# libraries, and a daemon run as root must not look for them first in the directory it was
# installed to (`run.sh --prefix` may name one its user can write).
#
#   scripts/build-release.sh [--arch arm64] [PRODUCT...]
#                                  (default: this machine's architecture;
#                                   gestured gesturectl gestured-web)
#
# --arch arm64 cross-compiles for aarch64 with Debian sid's swiftlang in a build root and a
# Debian 12 arm64 sysroot (scripts/arm64-toolchain.sh makes and caches both; needs root), in
# .build/aarch64, with the same link options and packaging/arm64/glibc-compat.c linked in
# (docs/packaging.md "The arm64 package"); a change to that file relinks every arm64 product
# it builds. GESTURED_GLIBC_COMPAT names another shim source (inside the clone: the build
# root sees only the clone; scripts/test-arm64.sh's shim check).
#
# Every release build of this package should go through here: `swift build -c release`
# with other flags relinks the same binaries in .build/release differently.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

arch=$(dpkg --print-architecture)
if [[ ${1:-} == --arch ]]; then
    [[ $# -ge 2 ]] || { echo "build-release.sh: --arch needs an architecture" >&2; exit 2; }
    [[ $2 == "$arch" || $2 == arm64 ]] || { echo "build-release.sh: cannot build for $2 (only $arch or arm64)" >&2; exit 2; }
    arch=$2
    shift 2
fi
products=("$@")
[[ ${#products[@]} -gt 0 ]] || products=(gestured gesturectl gestured-web)

if [[ $arch == "$(dpkg --print-architecture)" ]]; then
    swift=(swift)
    static_cxx=.build/static-libstdc++
    toolchain_clang=$(dirname "$(readlink -f "$(command -v swift)")")/clang
    archive=$("$toolchain_clang" -print-file-name=libstdc++.a)
    cross=()
    compat=""
else
    source scripts/arm64-toolchain.sh
    arm64_prepare
    swift=(arm64_in_build_root env "PKG_CONFIG_PATH=$arm64_sysroot/usr/lib/aarch64-linux-gnu/pkgconfig"
        "PKG_CONFIG_SYSROOT_DIR=$arm64_sysroot" swift)
    static_cxx=.build/aarch64-static-libstdc++
    # shellcheck disable=SC2012  # our own file names (no newlines); ls also drops a pattern that matched nothing
    archive=$(ls "$arm64_sysroot"/usr/lib/gcc/aarch64-linux-gnu/*/libstdc++.a 2>/dev/null | head -n 1)
    mkdir -p .build/aarch64
    # The glibc shim's object is made again whenever its source's text or the command that
    # compiles it changes (a digest of both, kept beside it: a file's time says nothing after
    # a checkout or a copy), and every product linked before the object is linked again below
    # (SwiftPM does not know it: it reaches the link as a bare linker argument).
    compat_source=${GESTURED_GLIBC_COMPAT:-packaging/arm64/glibc-compat.c}
    compat=.build/aarch64/glibc-compat.o
    compile_compat=("$arm64_clang" --target=aarch64-linux-gnu "--sysroot=$arm64_sysroot" -O2 -fPIC
        -ffunction-sections -c "$compat_source" -o "$compat")
    compat_digest=$({ printf '%s\n' "${compile_compat[@]}"; cat "$compat_source"; } | sha256sum | cut -d ' ' -f 1)
    if [[ ! -f $compat || $(cat "$compat.sha256" 2>/dev/null) != "$compat_digest" ]]; then
        rm -f "$compat" "$compat.sha256"
        arm64_in_build_root "${compile_compat[@]}" >&2
        echo "$compat_digest" >"$compat.sha256"
    fi
    # -sdk for the Swift frontend too (else Glibc's module map is looked up on the build
    # machine); the resource directory is the static runtime's (an explicit lib/swift makes
    # --static-swift-stdlib look for a file the driver does not have).
    cross=(--scratch-path .build/aarch64 --triple "$arm64_triple" --sdk "$arm64_sysroot"
        -Xswiftc -sdk -Xswiftc "$arm64_sysroot" -Xswiftc -resource-dir -Xswiftc "$arm64_sysroot/usr/lib/swift_static"
        -Xlinker "$PWD/$compat")
fi
[[ $archive == /* && -f $archive ]] || { echo "build-release.sh: no static libstdc++ (libstdc++-12-dev)" >&2; exit 1; }
mkdir -p "$static_cxx"
ln -sfn "$archive" "$static_cxx/libstdc++.a"
flags=(-c release --static-swift-stdlib --disable-local-rpath -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
    -Xswiftc "-L$PWD/$static_cxx" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
    -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
    -Xlinker "--symbol-ordering-file=$PWD/packaging/gestured.order" -Xlinker --no-warn-symbol-ordering "${cross[@]}")
bin_path=$("${swift[@]}" build "${flags[@]}" --show-bin-path)
for product in "${products[@]}"; do
    # SwiftPM does not know the order file nor the shim's object: a binary older than
    # either is linked again.
    for link_input in packaging/gestured.order ${compat:+"$compat"}; do
        if [[ $link_input -nt "$bin_path/$product" ]]; then rm -f "$bin_path/$product"; fi
    done
    "${swift[@]}" build "${flags[@]}" --product "$product" >&2
done
echo "$bin_path"

#!/usr/bin/env bash
# shellcheck disable=SC2016  # the single-quoted $1, $2 … are the arguments of the `bash -c` checks, given after `_`
# Checks the arm64 package on this amd64 machine (docs/packaging.md "The arm64 package"):
#
#   scripts/test-arm64.sh [--deb DEB] [--amd64-bin DIR] [--only CHECK[,CHECK...]]
#
#   --deb DEB        the arm64 .deb (default: made with scripts/package-deb.sh --arch arm64)
#   --amd64-bin DIR  where this machine's release gestured is, as printed by
#                    scripts/build-release.sh (default: built with it)
#   --only ...       some of: package (control fields, what the binaries are and need),
#                    compat (packaging/arm64/glibc-compat.c against its specification),
#                    shim (a changed shim reaches the binaries), corpus, depends, lintian,
#                    install (default: all)
#
# package: the file's name and Architecture; each binary is AArch64, needs no glibc newer
# than 2.36 (Debian 12) and no Swift runtime, has no RUNPATH, has every LOAD segment aligned
# for 16 KiB pages (scripts/check-page-alignment.sh; the Raspberry Pi 5's kernel), and
# prints the version under qemu-user; the alignment check rejects a program linked for 4 KiB
# pages. compat: packaging/arm64/glibc-compat-test.c, built for arm64 with the shim
# against the Debian 12 sysroot, passes under qemu-user. shim: scripts/build-release.sh
# --arch arm64 relinks gesturectl when the shim's text changes (a marker added to a copy at
# a fixed path, GESTURED_GLIBC_COMPAT, is in the binary after the build; the shim as it is
# gives back the same binary, byte for byte). corpus: the arm64 `gestured replay`
# under qemu-user (with the Debian 12 sysroot's libraries) prints the same bytes on standard
# output and standard error, and exits with the same status, as this machine's on every
# recording of the corpus. depends: apt resolves installing the .deb against Debian 12's and
# Debian 13's arm64 package lists (downloaded and cached; apt-get --simulate, from nothing
# installed). lintian: no error and no warning. install: scripts/check-arm64-install.sh
# installs the .deb with apt into Debian 12 and 13 arm64 roots and runs it there (the
# roots are made once, about 20 minutes each under emulation on a busy machine, then
# cached). Ends with "N passed, N failed"; exit 1 on a failure. Needs root (the cross
# toolchain's build root, scripts/arm64-toolchain.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
absolute() { [[ "$1" == /* ]] && echo "$1" || echo "$PWD/$1"; }
deb=""
amd64_bin=""
only=package,compat,shim,corpus,depends,lintian,install
while [[ $# -gt 0 ]]; do
    case "$1" in
        --deb) deb=$(absolute "$2"); shift ;;
        --amd64-bin) amd64_bin=$(absolute "$2"); shift ;;
        --only) only=$2; shift ;;
        -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
        *) echo "test-arm64.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
wants() { [[ ",$only," == *",$1,"* ]]; }
cd "$root"
source scripts/packaging.sh
source scripts/arm64-toolchain.sh
source vm/corpus.sh
started=$SECONDS

./scripts/install-deps.sh --with-arm64 --with-package --with-lintian
[[ -n "$deb" ]] || deb=$(scripts/package-deb.sh --arch arm64 | tail -n 1)
[[ -f "$deb" ]] || { echo "test-arm64: no package at $deb" >&2; exit 1; }
arm64_prepare
sysroot=$arm64_sysroot
on_arm64() { qemu-aarch64-static -L "$sysroot" "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree="$work/tree"
dpkg-deb --extract "$deb" "$tree"
version=$(gestured_version)
echo "test-arm64: $deb"

if wants package; then
    check "the file is named gestured_<version>_arm64.deb" [ "$(basename "$deb")" = "gestured_${version}_arm64.deb" ]
    check "Architecture: arm64" [ "$(dpkg-deb --field "$deb" Architecture)" = arm64 ]
    for binary in gestured gesturectl gestured-web; do
        file="$tree/usr/bin/$binary"
        check "$binary is an AArch64 executable (readelf -h)" bash -c 'readelf -h "$1" | grep -Eq "Machine: +AArch64"' _ "$file"
        # Debian 12's glibc is 2.36; the shim keeps the static Swift runtime's 2.38 calls out.
        check "$binary needs no glibc version newer than 2.36 (readelf -V)" bash -c '
            newest=$(readelf -V --wide "$1" | grep -o "GLIBC_2\.[0-9]*" | sort -uV | tail -n 1)
            echo "newest: $newest"; [ "$(printf "%s\n" "$newest" GLIBC_2.36 | sort -V | tail -n 1)" = GLIBC_2.36 ]' _ "$file"
        check "$binary needs no Swift library and has no RUNPATH (readelf -d)" bash -c \
            '! readelf -d "$1" | grep -E "RUNPATH|RPATH|NEEDED.*(swift|Foundation|dispatch|BlocksRuntime)"' _ "$file"
        check "$binary loads on 16 KiB pages (readelf -lW: every LOAD aligned at 16 KiB or more)" \
            scripts/check-page-alignment.sh "$file" 16384
        check "$binary --version prints $version (qemu-user)" [ "$(on_arm64 "$file" --version)" = "$version" ]
    done
    # The alignment check can fail: the same tiny program, linked for 4 KiB pages, must fail
    # it, and linked for 16 KiB pages pass (built with this machine's clang, the Swift
    # toolchain's: the check reads any ELF).
    printf 'int main(void) { return 0; }\n' >"$work/tiny.c"
    for page in 4096 16384; do
        clang "-Wl,-z,max-page-size=$page" "-Wl,-z,common-page-size=$page" "$work/tiny.c" -o "$work/tiny-$page"
    done
    check "the alignment check rejects a program linked for 4 KiB pages" \
        bash -c '! scripts/check-page-alignment.sh "$1" 16384' _ "$work/tiny-4096"
    check "the alignment check accepts the same program linked for 16 KiB pages" \
        scripts/check-page-alignment.sh "$work/tiny-16384" 16384
fi

if wants compat; then
    # Built in the clone's .build: the build root sees the clone, not this temporary directory.
    mkdir -p .build/aarch64
    compat_test=.build/aarch64/glibc-compat-test
    arm64_in_build_root "$arm64_clang" --target=aarch64-linux-gnu "--sysroot=$sysroot" -O2 -fuse-ld=lld \
        packaging/arm64/glibc-compat-test.c packaging/arm64/glibc-compat.c -o "$compat_test"
    check "glibc-compat-test needs no glibc version newer than 2.36 (it calls the shim's)" bash -c \
        '! readelf -V --wide "$1" | grep -E "GLIBC_2\.(3[7-9]|[4-9][0-9])"' _ "$compat_test"
    check "packaging/arm64/glibc-compat.c meets its specification (glibc-compat-test, qemu-user)" on_arm64 "$compat_test"
    on_arm64 "$compat_test" | sed 's/^/    /' || true
fi

if wants shim; then
    # The smallest product, built as the package's; then with a copy of the shim that
    # defines one more retained string, at a path that stays the same while its text changes
    # (only the text can tell the build that it changed); then with the shim as it is again.
    shim_copy=.build/aarch64/shim-check/glibc-compat.c
    marker="gestured-shim-check-$$-$RANDOM"
    mkdir -p "$(dirname "$shim_copy")"
    arm64_bin=$(scripts/build-release.sh --arch arm64 gesturectl)
    cp "$arm64_bin/gesturectl" "$work/gesturectl.as-packaged"
    cp packaging/arm64/glibc-compat.c "$shim_copy"
    GESTURED_GLIBC_COMPAT=$shim_copy scripts/build-release.sh --arch arm64 gesturectl >/dev/null
    check "gesturectl linked with the shim's copy has no marker yet" bash -c '! grep -qaF "$1" "$2"' _ "$marker" "$arm64_bin/gesturectl"
    printf '__attribute__((used, retain)) const char gestured_shim_marker[] = "%s";\n' "$marker" >>"$shim_copy"
    GESTURED_GLIBC_COMPAT=$shim_copy scripts/build-release.sh --arch arm64 gesturectl >/dev/null
    check "a changed shim reaches gesturectl (its marker is in the binary)" grep -qaF "$marker" "$arm64_bin/gesturectl"
    scripts/build-release.sh --arch arm64 gesturectl >/dev/null
    check "the shim as it is gives back the packaged gesturectl, byte for byte" \
        cmp "$work/gesturectl.as-packaged" "$arm64_bin/gesturectl"
    rm -rf "$(dirname "$shim_copy")"
fi

if wants corpus; then
    [[ -n "$amd64_bin" ]] || amd64_bin=$(scripts/build-release.sh gestured)
    # The recordings, as the corpus tests choose them (Recordings' RecordingFileKind).
    mapfile -t recordings < <(cd "$corpus" && find . -type f -printf '%P\n' | grep -viE '(^|/)(readme|license|copying)[^/]*$' |
        grep -iE '\.(events|event|evemu|dat|txt|yml|yaml)$' | LC_ALL=C sort)
    mkdir -p "$work/amd64" "$work/arm64"
    # replay_all OUTPUT COMMAND...: replays every recording with COMMAND, two at a time,
    # keeping standard output, standard error and the exit status of each under OUTPUT.
    replay_all() {
        local output=$1
        shift
        printf '%s\0' "${recordings[@]}" | xargs -0 -P 2 -I{} bash -c '
            output=$1 corpus=$2 file=$3; shift 3
            name=$(printf %s "$file" | tr / _)
            status=0
            "$@" replay "$corpus/$file" >"$output/$name.out" 2>"$output/$name.err" || status=$?
            echo "$status" >"$output/$name.status"' _ "$output" "$corpus" {} "$@"
    }
    corpus_started=$SECONDS
    replay_all "$work/amd64" "$amd64_bin/gestured"
    replay_all "$work/arm64" qemu-aarch64-static -L "$sysroot" "$tree/usr/bin/gestured"
    check "${#recordings[@]} corpus recordings replayed (the corpus has 187)" [ "${#recordings[@]}" -ge 187 ]
    check "the arm64 gestured replay's output, errors and exit status equal this machine's on every recording" \
        bash -c 'diff -r "$1" "$2" >"$3" && exit 0
            echo "$(diff -rq "$1" "$2" | wc -l) of the outputs differ; the first lines of the difference:"
            head -n 20 "$3"; exit 1' _ "$work/amd64" "$work/arm64" "$work/corpus.diff"
    check "the replays printed gesture lines (the comparison compares something)" \
        bash -c 'cat "$1"/*.out | grep -q "\"type\""' _ "$work/amd64"
    echo "    corpus: ${#recordings[@]} recordings, $((SECONDS - corpus_started)) s"
fi

if wants depends; then
    # resolves SUITE: apt, from nothing installed, finds everything the .deb needs in
    # SUITE's arm64 lists (what it would install of the package's own dependencies is shown).
    resolves() {
        local output
        output=$(arm64_apt "$1" arm64 install --simulate --no-install-recommends "$deb" 2>&1) || { echo "$output"; return 1; }
        grep -E "^Inst (gestured|libc6|libevdev2|libsystemd0|procps) " <<<"$output"
        grep -q "^Inst gestured " <<<"$output"
    }
    for suite in bookworm trixie; do
        check "apt resolves installing the .deb on Debian $suite arm64 (apt-get install --simulate)" resolves "$suite"
        resolves "$suite" | sed 's/^/    /' || true
    done
fi

if wants lintian; then
    if lintian --display-info --fail-on error,warning "$deb" >"$work/lintian.txt" 2>&1; then lintian_status=0; else lintian_status=$?; fi
    grep -E '^[EWI]: ' "$work/lintian.txt" | awk '{ print $1, $3 }' | sort | uniq -c | sed 's/^ */    lintian: /' || true
    check "lintian reports no error and no warning on the arm64 .deb" bash -c 'exit "$1"' _ "$lintian_status"
fi

if wants install; then
    install_started=$SECONDS
    if scripts/check-arm64-install.sh --deb "$deb" >"$work/install.txt" 2>&1; then install_status=0; else install_status=$?; fi
    grep -vE '^\[|^(Building|Build of product)' "$work/install.txt" | sed 's/^/    /' || true
    check "the .deb installs with apt and runs on Debian 12 and 13 arm64 (scripts/check-arm64-install.sh)" \
        bash -c 'exit "$1"' _ "$install_status"
    echo "    install: $((SECONDS - install_started)) s"
fi

echo "test-arm64: $((SECONDS - started)) s"
echo "test-arm64: $passed passed, $failed failed"
[[ $failed -eq 0 ]]

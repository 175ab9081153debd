#!/usr/bin/env bash
# Builds the libFuzzer harnesses (Fuzz/, docs/reliability.md) and runs each one for a
# bounded time: until it has executed --runs inputs or --seconds have passed, whichever
# comes first. Prints a table of executions and findings; exits 1 if any harness found a
# crash, a hang (an input taking over 10 s), an out-of-memory (over 2 GiB) or a broken
# promise (`violation`).
#
#   scripts/fuzz.sh [--runs N] [--seconds S] [--address] [HARNESS…]
#
#   --runs N      inputs per harness (default 1000000)
#   --seconds S   time limit per harness (default 1800)
#   --address     also AddressSanitizer (slower; finds memory errors in the C parts)
#   HARNESS       fuzz-config fuzz-reload fuzz-request fuzz-evemu fuzz-evtest
#                 fuzz-getevent fuzz-libinput-record fuzz-engine (default: all)
#
# Open findings (Fuzz/Findings/HARNESS/: minimized inputs of bugs found and not fixed yet)
# are replayed first, each said to still fail or to pass now; their violations (the
# `known` file) are then set aside (FUZZ_KNOWN) so that fuzzing looks for other problems.
#
# Seeds: config/*.toml and the TOML examples of docs/configuration.md (fuzz-config,
# fuzz-reload); the JSON lines of docs/protocol.md (fuzz-request); every recording of the
# shared corpus ($GESTURED_CORPUS, else ../shared/corpus) and demo/ (the readers), and the
# same recordings as raw event streams (fuzz-engine). What the fuzzer learns is kept in
# Fuzz/.build/fuzz/corpus/HARNESS and reused by the next run; findings are written to
# Fuzz/.build/fuzz/findings/ (replay one with `Fuzz/.build/release/HARNESS FILE`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs=1000000
seconds=1800
sanitizers=fuzzer
harnesses=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --address) sanitizers=fuzzer,address; shift ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 64 ;;
        *) harnesses+=("$1"); shift ;;
    esac
done
all=(fuzz-config fuzz-reload fuzz-request fuzz-evemu fuzz-evtest fuzz-getevent fuzz-libinput-record fuzz-engine)
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=("${all[@]}")
corpus="${GESTURED_CORPUS:-$root/../shared/corpus}"
work="$root/Fuzz/.build/fuzz"
mkdir -p "$work/seeds" "$work/corpus" "$work/findings" "$work/logs"

# The linker: ld.gold (the default) crashes on libFuzzer's objects; the toolchain's lld does not.
swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
[[ -x "$swift_bin/ld.lld" ]] || { echo "fuzz.sh: no ld.lld next to $swift_bin/swift" >&2; exit 1; }
printf '{"schemaVersion": "1.0", "linker": {"path": "%s/ld.lld"}}\n' "$swift_bin" >"$work/lld-toolset.json"

echo "building the harnesses (-sanitize=$sanitizers, release)…"
log="$work/logs/build.log"
(cd "$root/Fuzz" && swift build -c release -Xswiftc "-sanitize=$sanitizers" -Xswiftc -enable-testing \
    -Xcc "-fsanitize=fuzzer-no-link" --toolset "$work/lld-toolset.json" >"$log" 2>&1) || { cat "$log"; exit 1; }
bin="$root/Fuzz/.build/release"

# Seeds, rebuilt every run from what the repository and the corpus hold now.
rm -rf "$work/seeds"
mkdir -p "$work/seeds/config" "$work/seeds/request" "$work/seeds/recordings" "$work/seeds/engine"
cp "$root"/config/*.toml "$work/seeds/config/"
awk -v dir="$work/seeds/config" '/^```toml/ { n++; file = dir "/guide-" n ".toml"; inside = 1; next }
    /^```/ { inside = 0 } inside { print > file }' "$root/docs/configuration.md"
grep -h '^{"type"' "$root/docs/protocol.md" | awk -v dir="$work/seeds/request" '{ print > (dir "/line-" NR) }'
cp "$root"/demo/*.events "$work/seeds/recordings/"
if [[ -d "$corpus" ]]; then
    find "$corpus" -type f ! -name '*.md' -print0 | while IFS= read -r -d '' file; do
        cp "$file" "$work/seeds/recordings/$(echo "${file#"$corpus"/}" | tr '/ ' '__')"
    done
else
    echo "fuzz.sh: no corpus at $corpus: the readers start from demo/ alone" >&2
fi
find "$work/seeds/recordings" -type f -print0 | xargs -0 "$bin/fuzz-engine" --export-seeds "$work/seeds/engine" >/dev/null

seeds_for() {
    case "$1" in
        fuzz-config|fuzz-reload) echo "$work/seeds/config" ;;
        fuzz-request) echo "$work/seeds/request" ;;
        fuzz-engine) echo "$work/seeds/engine" ;;
        *) echo "$work/seeds/recordings" ;;
    esac
}
max_len_for() {
    case "$1" in
        fuzz-request) echo 8192 ;;
        fuzz-engine) echo 4096 ;;  # some 450 events: seconds of touch, at thousands of inputs a second
        *) echo 16384 ;;
    esac
}

# libFuzzer, not the Swift runtime's backtracer, must catch a trap: it saves the input.
export SWIFT_BACKTRACE=enable=no
findings_dir="$root/Fuzz/Findings"
known_for() {  # the violations set aside for a harness, joined with |
    if [[ -f "$findings_dir/$1/known" ]]; then paste -sd '|' "$findings_dir/$1/known" || true; fi
}
for harness in "${harnesses[@]}"; do
    for file in "$findings_dir/$harness"/*; do
        [[ -f "$file" && "$(basename "$file")" != known ]] || continue
        if "$bin/$harness" "$file" >/dev/null 2>&1; then
            echo "open finding $harness/$(basename "$file"): passes now (fixed? remove it from Fuzz/Findings)"
        else
            echo "open finding $harness/$(basename "$file"): still fails (set aside: $(known_for "$harness"))"
        fi
    done
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "swift:   $(swift --version 2>&1 | head -1)"
echo "limits:  $runs inputs or $seconds s per harness, inputs up to 16 KiB (requests 8 KiB, event streams 4 KiB), 10 s and 2 GiB per input"
rows=()
failed=0
for harness in "${harnesses[@]}"; do
    [[ -x "$bin/$harness" ]] || { echo "fuzz.sh: unknown harness $harness" >&2; exit 64; }
    mkdir -p "$work/corpus/$harness"
    before=$(find "$work/findings" -name "$harness-*" | wc -l)
    started=$(date +%s)
    status=0
    FUZZ_KNOWN="$(known_for "$harness")" "$bin/$harness" -runs="$runs" -max_total_time="$seconds" -max_len="$(max_len_for "$harness")" \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/findings/$harness-" \
        "$work/corpus/$harness" "$(seeds_for "$harness")" >"$work/logs/$harness.log" 2>&1 || status=$?
    elapsed=$(( $(date +%s) - started ))
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/logs/$harness.log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/logs/$harness.log" | tail -1)
    findings=$(( $(find "$work/findings" -name "$harness-*" | wc -l) - before ))
    kept=$(find "$work/corpus/$harness" -type f | wc -l)
    rate=$(( ${executions:-0} / (elapsed > 0 ? elapsed : 1) ))
    echo "$harness: ${executions:-0} inputs in ${elapsed} s (${rate}/s), corpus $kept, peak RSS ${rss:-?} MiB, findings $findings, exit $status"
    if [[ $status -ne 0 || $findings -gt 0 ]]; then
        failed=1
        grep -E 'violation|Fatal error|ERROR: libFuzzer|SUMMARY' "$work/logs/$harness.log" | head -5 || true
    fi
    rows+=("| \`$harness\` | ${executions:-0} | $elapsed s | $rate | $kept | ${rss:-?} MiB | $findings |")
done
echo
echo "| harness | inputs run | time | inputs/s | corpus kept | peak RSS | findings |"
echo "|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
exit $failed

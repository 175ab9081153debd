# shellcheck shell=bash
# Sourced by the VM tiers: sets `corpus` to the shared recordings' physical path
# ($GESTURED_CORPUS, else ../shared/corpus beside the checkout, else /work/shared/corpus),
# or exits 1 saying where to put them. Needs `root` (the checkout).
# shellcheck disable=SC2154  # root is the sourcing script's
corpus=${GESTURED_CORPUS:+$(cd "$GESTURED_CORPUS" && pwd -P)}
if [[ -z "$corpus" ]]; then
    for c in "$root/../shared/corpus" /work/shared/corpus; do
        [[ -d "$c" ]] && { corpus=$(cd "$c" && pwd -P); break; }
    done
fi
[[ -n "$corpus" ]] || { echo "vm: no corpus (set GESTURED_CORPUS or put it at ../shared/corpus)" >&2; exit 1; }

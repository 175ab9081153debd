#!/usr/bin/env bash
# Checks that an ELF file loads on kernels with pages up to PAGE bytes (default 16384, the
# Raspberry Pi 5's 16 KiB pages):
#
#   scripts/check-page-alignment.sh FILE [PAGE]
#
# Every LOAD segment (readelf -lW) must be aligned at PAGE or more (its Align column), and
# its file offset and virtual address must agree modulo PAGE, as the kernel's mmap of the
# segment needs. Prints each LOAD segment's alignment; exit 1 when one falls short (or
# FILE has no LOAD segment), naming it.
set -euo pipefail
file=${1:?usage: check-page-alignment.sh FILE [PAGE]}
page=${2:-16384}
headers=$(readelf -lW "$file")
segments=$(awk '$1 == "LOAD" { print $2, $3, $NF }' <<<"$headers")
[[ -n "$segments" ]] || { echo "$file: no LOAD segment (readelf -lW)"; exit 1; }
status=0
while read -r offset address align; do
    if (( align < page )); then
        echo "$file: LOAD at offset $offset is aligned at $align ($((align)) bytes), below $page"
        status=1
    elif (( (address - offset) % page != 0 )); then
        echo "$file: LOAD at offset $offset has address $address, not congruent to its offset modulo $page"
        status=1
    else
        echo "$file: LOAD at offset $offset aligned at $((align)) bytes"
    fi
done <<<"$segments"
exit "$status"

#!/usr/bin/env bash
# Runs shellcheck over every shell script of the tree: the tracked *.sh files and the
# tracked files without the suffix whose first line names a shell (.ci/run, the Debian
# maintainer scripts). Any finding fails; a check is disabled only where the script says
# why, on the line before. scripts/test.sh runs it before the build.
#
#   scripts/check-shell.sh          # check them
#   scripts/check-shell.sh --list   # print their paths
#   scripts/check-shell.sh --count  # how many scripts and lines of shell the tree holds
set -euo pipefail
cd "$(dirname "$0")/.."

shell_scripts() {
    local file first
    git ls-files -z | while IFS= read -r -d '' file; do
        [[ -f "$file" && ! -L "$file" ]] || continue
        # Raspberry Pi OS's own files, kept as Raspberry Pi ships them for the kiosk tier's
        # replica of its session (vm/raspios/README.md): not ours to change.
        [[ "$file" == vm/raspios/* ]] && continue
        if [[ "$file" == *.sh ]]; then
            echo "$file"
        elif IFS= read -r first <"$file" 2>/dev/null && [[ "$first" =~ ^#!.*[/\ ](ba|da)?sh([[:space:]]|$) ]]; then
            echo "$file"
        fi
    done
}

mapfile -t scripts < <(shell_scripts)
if [[ "${1:-}" == --list ]]; then
    printf '%s\n' "${scripts[@]}"
    exit 0
fi
if [[ "${1:-}" == --count ]]; then
    echo "${#scripts[@]} shell scripts, $(cat "${scripts[@]}" | wc -l) lines"
    exit 0
fi
# -x: follow `source` to the files it names, so a sourced file's variables count as set.
shellcheck -x "${scripts[@]}"

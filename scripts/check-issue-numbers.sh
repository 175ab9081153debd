#!/usr/bin/env bash
# Checks that no text in the repository cites the issue tracker by number: the word issue
# or finding followed by a number (also as a branch name joined by a dash), or a number
# after a hash sign in parentheses. The tracker is not part of the repository, so to a
# reader such a number is a dead reference: comments, test names, help strings and docs
# state the property or the reason instead. Prints each offending line as file:line: text
# and fails when there is one.
#
#   scripts/check-issue-numbers.sh              # every tracked file
#   scripts/check-issue-numbers.sh FILE…        # these files
#   scripts/check-issue-numbers.sh --self-test  # finds each form in a fixture, passes a clean one
#
# scripts/test.sh runs it beside the format lint, before anything is built.
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/.."

# The forms: see the fixture of --self-test below.
# A configuration index ("[[device]] #1") or a colour ("#111418") is not one of them.
pattern='\b(issues?|findings?)[ _-]?#?[0-9]+|\(#[0-9]+\)'

# Lists the matching lines of the files given (or of every tracked file) as file:line: text.
find_numbers() {
    if (($# > 0)); then
        grep -HniE "$pattern" -- "$@" || true
    else
        # Binary files (images, recordings) are not text a reader follows.
        git grep -IniE "$pattern" -- . || true
    fi
}

if [[ ${1:-} == --self-test ]]; then
    fixtures=$(mktemp -d)
    trap 'rm -rf "$fixtures"' EXIT
    # Built from parts so that this script does not itself hold a tracker number.
    n=21
    {
        printf '// The encoder (issue %s): one pass.\n' "$n"
        printf '/// Issues %s and 22 asked for it.\n' "$n"
        printf '@Test("issue-%s holds") func f() {}\n' "$n"
        printf 'A reader found it (finding %s).\n' "$n"
        printf 'See the tracker (#%s).\n' "$n"
    } >"$fixtures/Cited.swift"
    cat >"$fixtures/Clean.md" <<'TEXT'
ignored by the configuration ([[device]] #1 has enabled = false)
html { color: #111418; } an issue of timing, 21 issues later, tissue 4
TEXT
    found=$(find_numbers "$fixtures/Cited.swift" "$fixtures/Clean.md")
    lines=$(grep -c . <<<"$found" || true)
    if [[ $lines != 5 ]] || grep -q Clean.md <<<"$found"; then
        echo "check-issue-numbers self-test: expected the 5 lines of Cited.swift, found:" >&2
        echo "$found" >&2
        exit 1
    fi
    echo "check-issue-numbers self-test: passed"
    exit 0
fi

found=$(find_numbers "$@")
if [[ -n $found ]]; then
    echo "$found" >&2
    echo "check-issue-numbers: tracker issue numbers above; state the property or the reason instead" >&2
    exit 1
fi

#!/usr/bin/env python3
"""Checks that every relative link of the documentation resolves.

For each Markdown file given (by default README.md, CONTRIBUTING.md, docs/*.md and
vm/README.md), every inline link `[text](target)` and reference definition `[id]: target`
whose target is not a URL (http:, https:, mailto:) must name a file or directory that
exists, relative to the file; a `#anchor` must be a heading of the file it points into
(GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, a repeated heading
numbered -1, -2, …). Links inside code spans and fenced code blocks are not links.
Prints each broken link as file:line: target (why) and fails when there is one.

    scripts/check-doc-links.py              # the documentation
    scripts/check-doc-links.py FILE…        # these Markdown files
    scripts/check-doc-links.py --self-test  # finds each kind of broken link in fixtures

scripts/test.sh runs it beside the format lint, before anything is built.
"""

import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["README.md", "CONTRIBUTING.md", "docs/*.md", "vm/README.md"]

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def lines_outside_code(path, blank_code_spans=True):
    """(line number, text) of each line outside fenced blocks, code spans blanked if asked."""
    inside = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                text = line.rstrip("\n")
                yield number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text) if blank_code_spans else text


anchors_of = {}


def anchors(path):
    if path not in anchors_of:
        found, seen = set(), {}
        for _, line in lines_outside_code(path, blank_code_spans=False):
            match = HEADING.match(line)
            if match:
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
        with open(path, encoding="utf-8") as handle:  # explicit anchors: <a name="x"> / id="x"
            found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", handle.read()))
        anchors_of[path] = found
    return anchors_of[path]


def broken_links(path):
    """Each broken link of the Markdown file `path` as (line, target, why)."""
    for number, line in lines_outside_code(path):
        targets = [m.group(1) for m in INLINE.finditer(line)]
        reference = REFERENCE.match(line)
        if reference:
            targets.append(reference.group(1))
        for target in targets:
            if EXTERNAL.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            destination = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(destination):
                yield number, target, "no such file"
            elif anchor and destination.endswith(".md") and os.path.isfile(destination):
                if anchor not in anchors(destination):
                    yield number, target, f"no heading with the anchor #{anchor} in {os.path.relpath(destination, ROOT)}"


def check(paths):
    failures = 0
    for path in paths:
        for number, target, why in broken_links(path):
            print(f"{os.path.relpath(path, ROOT)}:{number}: {target} ({why})")
            failures += 1
    return failures


def default_files():
    import glob

    files = []
    for pattern in DEFAULT:
        files += sorted(glob.glob(os.path.join(ROOT, pattern)))
    return files


def self_test():
    with tempfile.TemporaryDirectory() as directory:
        os.mkdir(os.path.join(directory, "docs"))
        with open(os.path.join(directory, "docs", "guide.md"), "w") as handle:
            handle.write("# A guide\n\n## Limits and slow clients\n\n## `run --replay`: timing\n\n## Limits and slow clients\n")
        readme = os.path.join(directory, "README.md")
        with open(readme, "w") as handle:
            handle.write(
                "# Front\n\n## Quick start\n\n"
                "[fine](docs/guide.md#limits-and-slow-clients) [fine](docs/guide.md#run---replay-timing)\n"
                "[fine](docs/guide.md#limits-and-slow-clients-1) [fine](#quick-start) [fine](docs/)\n"
                "[fine](https://example.org/missing) `[not a link](missing.md)`\n"
                "```\n[not a link](missing.md)\n```\n"
                "[missing file](docs/missing.md)\n"
                "[missing anchor](docs/guide.md#no-such-heading)\n"
                "[missing local anchor](#nowhere)\n"
                "[ref]: docs/gone.md\n"
            )
        found = [(number, target) for number, target, _ in broken_links(readme)]
        expected = [(11, "docs/missing.md"), (12, "docs/guide.md#no-such-heading"), (13, "#nowhere"), (14, "docs/gone.md")]
        if found != expected:
            print(f"check-doc-links self-test: expected {expected}, found {found}", file=sys.stderr)
            return 1
    print("check-doc-links self-test: passed")
    return 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    paths = [os.path.abspath(path) for path in arguments] or default_files()
    failures = check(paths)
    if failures:
        print(f"check-doc-links: {failures} broken link(s) above", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

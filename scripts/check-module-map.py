#!/usr/bin/env python3
"""Checks docs/architecture.md's module map against Package.swift.

Package.swift is the one source of the module map; `swift package describe --type json`
says what it declares. docs/architecture.md ("Modules") shows it twice, and this holds
both to it:

- the layer diagram (the lines from `layers` to `beside` of its first code block): every
  target of the package but the tests is in exactly one layer, and each uses only targets
  of its own layer or the layers below (`A ─► B` inside a layer: A is above B); the target
  of the `beside` layer (GestureTestSupport) is used by no target but the tests and the
  executables it names;
- the table: one row per target but the tests (a C module shares its Swift wrapper's row,
  `CEvdev`, `EvdevInput`), whose last column names exactly the target's dependencies
  (packages by the names of PACKAGES); the `*Tests` row names every test target, and each
  parenthesis of its last column that lists targets (`X (all but `A` and `B`)`,
  `X (`A` only)`) says which test targets use X.

Prints each disagreement and fails when there is one.

    scripts/check-module-map.py                 # runs `swift package describe`
    scripts/check-module-map.py --json FILE     # that command's output, saved
    scripts/check-module-map.py --self-test     # finds each kind of drift in fixtures

scripts/test.sh runs it beside the format lint, before anything is built.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = "docs/architecture.md"

# A product a target depends on, by the name the table gives its package.
PACKAGES = {
    "ArgumentParser": "swift-argument-parser",
    "Logging": "swift-log",
    "SystemPackage": "swift-system",
    "PropertyBased": "swift-property-based",
    "TOMLKit": "TOMLKit",
    "Prometheus": "swift-prometheus",
    "NIOCore": "SwiftNIO",
    "NIOConcurrencyHelpers": "SwiftNIO",
    "NIOPosix": "SwiftNIO",
    "NIOHTTP1": "SwiftNIO",
    "NIOWebSocket": "SwiftNIO",
    "NIOEmbedded": "SwiftNIO",
}

TICKED = re.compile(r"`([^`]+)`")


class Package:
    """The targets of `swift package describe --type json`: name -> (type, dependencies)."""

    def __init__(self, description):
        self.targets = {}
        self.problems = []
        for target in description["targets"]:
            dependencies = list(target.get("target_dependencies") or [])
            for product in target.get("product_dependencies") or []:
                if product not in PACKAGES:
                    self.problems.append(f"{target['name']}: product {product} has no package name in PACKAGES")
                    continue
                if PACKAGES[product] not in dependencies:
                    dependencies.append(PACKAGES[product])
            self.targets[target["name"]] = (target["type"], dependencies)

    def names(self, *types):
        return sorted(name for name, (kind, _) in self.targets.items() if kind in types)

    def dependencies(self, name):
        return self.targets[name][1]


def modules_section(text):
    """The lines of the "## Modules" section."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip() == "## Modules")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def layers_of(section, known):
    """[(layer name, [[targets], …])] bottom-up; each inner list one step of an `─►` chain."""
    layers = []
    inside = False
    for line in section:
        words = line.split()
        if words[:1] == ["layers"]:
            inside = True
            line = line.replace("layers", "      ", 1)
        if not inside:
            continue
        if line.startswith("```"):
            break
        label, _, rest = line.strip().partition("  ")
        steps = []
        for chunk in rest.split("─►"):
            names = [word for word in re.findall(r"[A-Za-z][\w-]*", chunk) if word in known]
            # `gestured (joins Daemon, …)`: the names in parentheses are what it uses, not members.
            # `Support: for tests and tool`: what follows a colon describes the member.
            bare = re.sub(r"\([^)]*\)", "", chunk).split(":")[0]
            members = [word for word in re.findall(r"[A-Za-z][\w-]*", bare) if word in known]
            members += [word for word in re.findall(r"\(\+ ([A-Za-z]\w*)", chunk) if word in known]
            if names:
                steps.append(members)
        layers.append((label.strip(), steps))
    layers.reverse()
    return layers


def check(description, text):
    package = Package(description)
    problems = list(package.problems)
    shipped = package.names("library", "executable", "system-target")
    tests = package.names("test")
    section = modules_section(text)

    # The layer diagram.
    rank, layer_of, beside = {}, {}, set()
    position = 0
    for label, steps in layers_of(section, set(package.targets)):
        for step in reversed(steps):
            for name in step:
                if name in rank:
                    problems.append(f"{DOC}: the layers name {name} twice")
                rank[name] = position
                layer_of[name] = label
                if label == "beside":
                    beside.add(name)
            position += 1
    for name in shipped:
        if name not in rank:
            problems.append(f"{DOC}: {name} is in no layer of the diagram")
    for name in shipped:
        if name not in rank:
            continue
        for dependency in package.dependencies(name):
            if dependency not in rank:
                continue
            if dependency in beside:
                if package.targets[name][0] != "executable":
                    problems.append(f"{DOC}: {name} uses {dependency}, which only tests and tools may use")
            elif name not in beside and rank[dependency] > rank[name]:
                problems.append(
                    f"{DOC}: {name} ({layer_of[name]}) uses {dependency}, which the diagram puts above it ({layer_of[dependency]})"
                )

    # The table.
    rows = {}
    tests_row = None
    for line in section:
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        names = TICKED.findall(cells[0])
        if names == ["*Tests"]:
            tests_row = cells
            continue
        for name in names:
            if name in rows:
                problems.append(f"{DOC}: the table has two rows for {name}")
            rows[name] = cells
    for name in shipped:
        if name not in rows:
            problems.append(f"{DOC}: the table has no row for {name}")
    for name, cells in rows.items():
        if name not in package.targets:
            problems.append(f"{DOC}: the table's {name} is not a target of Package.swift")
            continue
        if package.targets[name][0] == "system-target" and len(TICKED.findall(cells[0])) > 1:
            continue  # a C module in its wrapper's row: the row's dependencies are the wrapper's
        listed = [word.strip() for word in cells[-1].split(",")]
        listed = [] if listed == ["nothing"] else listed
        actual = package.dependencies(name)
        if sorted(listed) != sorted(actual):
            missing = sorted(set(actual) - set(listed))
            extra = sorted(set(listed) - set(actual))
            problems.append(f"{DOC}: {name}'s dependencies: the table lacks {missing}, has {extra} besides")
    if tests_row is None:
        problems.append(f"{DOC}: the table has no `*Tests` row")
    else:
        named = {name for name in TICKED.findall(tests_row[1]) if name.endswith("Tests")}
        for name in sorted(set(tests) - named):
            problems.append(f"{DOC}: the `*Tests` row does not name {name}")
        for name in sorted(named - set(tests)):
            problems.append(f"{DOC}: the `*Tests` row names {name}, which is not a test target")
        for dependency, note in re.findall(r"([\w-]+) \(([^()]*`[^()]*)\)", tests_row[-1]):
            listed = set(TICKED.findall(note))
            users = {name for name in tests if dependency in package.dependencies(name)}
            said = set(tests) - listed if note.startswith("all but") else listed
            if said != users:
                problems.append(
                    f"{DOC}: the `*Tests` row says of {dependency} ({note}) what is not so: used by {sorted(users)}"
                )
    return problems


FIXTURE_JSON = {
    "targets": [
        {"name": "Wire", "type": "library"},
        {"name": "Core", "type": "library", "target_dependencies": ["Wire"]},
        {"name": "CLib", "type": "system-target"},
        {"name": "Lib", "type": "library", "target_dependencies": ["CLib", "Core"], "product_dependencies": ["Logging"]},
        {"name": "Support", "type": "library", "target_dependencies": ["Core"]},
        {"name": "tool", "type": "executable", "target_dependencies": ["Lib", "Support"]},
        {"name": "CoreTests", "type": "test", "target_dependencies": ["Core", "Support"]},
        {"name": "WireTests", "type": "test", "target_dependencies": ["Wire"]},
    ]
}

FIXTURE_DOC = """# Architecture

## Modules

```
layers  executables   tool (joins Lib, Support)
        services      Lib (+ CLib: a C library)
        pure Swift    Core ─► Wire
        beside        Support: for tests and tool
```

| target | role | depends on |
|---|---|---|
| `Wire` | the wire | nothing |
| `Core` | the core | Wire |
| `CLib`, `Lib` | the library | CLib, Core, swift-log |
| `Support` | test support | Core |
| `tool` | the tool | Lib, Support |
| `*Tests` | `CoreTests`, `WireTests` | Support (all but `WireTests`) |

## Next
"""


def self_test():
    failures = []

    def expect(name, description, doc, count):
        found = check(description, doc)
        if len(found) != count:
            failures.append(f"{name}: expected {count} problems, found {found}")

    expect("the fixture as it is", FIXTURE_JSON, FIXTURE_DOC, 0)
    expect("a dependency the table lacks", FIXTURE_JSON, FIXTURE_DOC.replace("| CLib, Core, swift-log |", "| CLib, Core |"), 1)
    expect("a dependency the target lacks", FIXTURE_JSON, FIXTURE_DOC.replace("| the core | Wire |", "| the core | Wire, Lib |"), 1)
    expect("a target without a row", FIXTURE_JSON, FIXTURE_DOC.replace("| `Support` | test support | Core |\n", ""), 1)
    expect("a row without a target", FIXTURE_JSON, FIXTURE_DOC.replace("| `Wire` |", "| `Wire` | x | nothing |\n| `Old` |"), 1)
    expect("a test target the row misses", FIXTURE_JSON, FIXTURE_DOC.replace("`CoreTests`, `WireTests`", "`CoreTests`"), 1)
    expect("a false 'all but'", FIXTURE_JSON, FIXTURE_DOC.replace("(all but `WireTests`)", "(all but `CoreTests`)"), 1)
    expect("a target in no layer", FIXTURE_JSON, FIXTURE_DOC.replace("        pure Swift    Core ─► Wire", "        pure Swift    Core"), 1)
    expect("a layer upside down", FIXTURE_JSON, FIXTURE_DOC.replace("Core ─► Wire", "Wire ─► Core"), 1)
    upward = json.loads(json.dumps(FIXTURE_JSON))
    upward["targets"][1]["target_dependencies"].append("Lib")
    expect("a dependency upwards (and off the table)", upward, FIXTURE_DOC, 2)
    shipped_support = json.loads(json.dumps(FIXTURE_JSON))
    shipped_support["targets"][3]["target_dependencies"].append("Support")
    expect("a library on the test support (and off the table)", shipped_support, FIXTURE_DOC, 2)
    unknown = json.loads(json.dumps(FIXTURE_JSON))
    unknown["targets"][1]["product_dependencies"] = ["Mystery"]
    expect("a product without a package name", unknown, FIXTURE_DOC, 1)
    for failure in failures:
        print(f"check-module-map self-test: {failure}", file=sys.stderr)
    if failures:
        return 1
    print("check-module-map self-test: passed")
    return 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    if len(arguments) == 2 and arguments[0] == "--json":
        with open(arguments[1], encoding="utf-8") as handle:
            description = json.load(handle)
    elif not arguments:
        output = subprocess.run(
            ["swift", "package", "describe", "--type", "json"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
        description = json.loads(output[output.index("{") :])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    with open(os.path.join(ROOT, DOC), encoding="utf-8") as handle:
        problems = check(description, handle.read())
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check-module-map: {len(problems)} disagreements with Package.swift", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

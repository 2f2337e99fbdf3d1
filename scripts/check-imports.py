#!/usr/bin/env python3
"""Fails when a Swift file imports a module of this package that its target does not declare in Package.swift.

Every dependency is declared where it is used: no target reaches a module through another's dependencies (or an
`@_exported import`, which check-layering.sh forbids). Modules outside the package (Glibc, FoundationEssentials,
Testing…) are not checked."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
manifest = (root / "Package.swift").read_text()

# Each target's declaration: its kind, its name, and the text up to the next target (its dependencies and settings).
declarations = list(re.finditer(r"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*\"([^\"]+)\"", manifest))
targets = {}
for index, match in enumerate(declarations):
    end = declarations[index + 1].start() if index + 1 < len(declarations) else len(manifest)
    text = manifest[match.end():end]
    dependencies = re.search(r"dependencies:\s*\[([^\]]*)\]", text)
    targets[match.group(2)] = (
        match.group(1), set(re.findall(r"\"([^\"]+)\"", dependencies.group(1))) if dependencies else set())

problems = []
for name, (kind, dependencies) in sorted(targets.items()):
    if kind == "systemLibrary":
        continue
    directory = root / ("Tests" if kind == "testTarget" else "Sources") / name
    for path in sorted(directory.rglob("*.swift")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = re.match(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:internal|package|public|private|fileprivate)\s+)?"
                             r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", line)
            if not match:
                continue
            module = match.group(1)
            if module in targets and module != name and module not in dependencies:
                problems.append(f"{path.relative_to(root)}:{number}: imports {module}, not a dependency of {name}")

for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    print("check-imports: declare each imported module in the target's dependencies in Package.swift", file=sys.stderr)
    sys.exit(1)

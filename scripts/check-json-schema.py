#!/usr/bin/env python3
"""Validates a JSON document against a JSON Schema (draft 2020-12): check-json-schema.py SCHEMA [FILE|-].

Prints each violation with the path to the offending value and exits 1 if there is any, 0 otherwise. Used by the
tests to check jetsamctl's MetricKit-shaped output against schemas/ (python3-jsonschema, installed by make test).
"""

import json
import sys

import jsonschema


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 64
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    source = sys.stdin if len(sys.argv) == 2 or sys.argv[2] == "-" else open(sys.argv[2])
    document = json.load(source)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    for error in errors:
        path = "/".join(str(part) for part in error.absolute_path) or "(root)"
        print(f"{path}: {error.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

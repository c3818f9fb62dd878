"""``python -m tests.canon build [--out DIR]``: build the canon, print the suite's path."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import all_cases, build
from .engine import build as build_cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.canon",
                                     description="Build the canon of textbook incidents.")
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("build", help="build every case (cached by the specs' hash) and print "
                         "the path of canon.json, the suite harness eval scores")
    cmd.add_argument("--out", type=Path, help="build into DIR instead of the cache")
    cmd.add_argument("--only", action="append", metavar="ID",
                     help="build only this case (repeatable; needs --out)")
    sub.add_parser("list", help="list the cases: id, class, expected outcome")
    args = parser.parse_args(argv)
    if args.command == "list":
        for case in all_cases():
            print(f"{case.id}\t{case.klass}\t{case.expect}")
        return 0
    if args.only and args.out is None:
        parser.error("--only needs --out (the cache holds the whole canon)")
    try:
        print(build(args.out) if not args.only else build_only(args.only, args.out))
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"canon: {exc}", file=sys.stderr)
        return 1
    return 0


def build_only(ids: list[str], out: Path) -> Path:
    """Build the named cases only, into ``out``."""
    known = {c.id: c for c in all_cases()}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ValueError(f"no canon case {', '.join(unknown)} (python -m tests.canon list)")
    return build_cases([known[i] for i in ids], out)


if __name__ == "__main__":
    sys.exit(main())

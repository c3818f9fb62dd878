"""``python -m tests.worlds {list,path NAME,build [NAME…]}``: the worlds, built on demand."""

from __future__ import annotations

import argparse
import sys

from . import WorldError, build, folder, names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.worlds",
                                     description="Build the incident worlds into the cache.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the worlds' names")
    one = sub.add_parser("path", help="build one world if missing and print its folder")
    one.add_argument("name")
    every = sub.add_parser("build", help="build every world (or those named) and print name and folder")
    every.add_argument("name", nargs="*")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print("\n".join(names()))
        elif args.command == "path":
            print(folder(args.name))
        else:
            for name, path in build(tuple(args.name) or None).items():
                print(f"{name}\t{path}")
    except (WorldError, OSError) as exc:
        print(f"worlds: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m harness`` runs the CLI."""

from harness.cli import main

main()

"""``python -m app`` runs the CLI (the same as the `harness` console script)."""

from app.cli import main

main()

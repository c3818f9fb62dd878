"""``python -m diagnosis_harness`` runs the CLI (the same as the `harness` console script)."""

from diagnosis_harness.cli.entry import main

main()

"""``harness eval``: a scorecard of the harness on a suite of a team's own past incidents.

``suite`` reads suites, ``scoring`` judges one run against its case and sums a scorecard,
``runner`` runs the cases as ordinary runs (the CLI's runner, the settings' run store), and
``reports`` writes the scorecard as a terminal table, JUnit XML, Markdown and HTML.
"""

"""The scorecard as people and CI systems read it: terminal, JUnit XML, Markdown, HTML."""

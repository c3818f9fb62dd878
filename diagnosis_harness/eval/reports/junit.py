"""JUnit XML: one testsuite for the suite, one testcase per case, for any CI system.

A WRONG published root cause is a ``<failure>``; a MISSED or UNEXPECTED case is a failure too
(not as expected); RIGHT and HONEST pass. Each testcase's ``time`` is the case's wall time and
its ``system-out`` names the run id, so a CI page links a red case to ``harness runs show``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from diagnosis_harness.eval.scoring import AS_EXPECTED, Scorecard, Verdict


def junit_xml(card: Scorecard) -> str:
    """The scorecard as a JUnit XML document."""
    failures = sum(1 for c in card.cases if c.verdict not in AS_EXPECTED)
    root = ET.Element("testsuites", name=f"harness eval {card.suite}", tests=str(len(card.cases)),
                      failures=str(failures))
    suite = ET.SubElement(root, "testsuite", name=card.suite, tests=str(len(card.cases)),
                          failures=str(failures), errors="0", skipped="0",
                          time=f"{card.summary.wall_total_s:.3f}")
    props = ET.SubElement(suite, "properties")
    for name, value in (("model", card.model), ("code_version", card.code_version),
                        ("precision", card.summary.precision), ("coverage", card.summary.coverage)):
        ET.SubElement(props, "property", name=name, value="" if value is None else str(value))
    for case in card.cases:
        item = ET.SubElement(suite, "testcase", classname=f"harness.eval.{card.suite}",
                             name=case.id, time=f"{case.wall_s:.3f}")
        if case.verdict not in AS_EXPECTED:
            kind = "wrong root cause published" if case.verdict is Verdict.WRONG else \
                f"{case.verdict.value.lower()}: not as expected"
            failure = ET.SubElement(item, "failure", type=case.verdict.value,
                                    message=f"{kind}: {case.why}")
            failure.text = _details(case.run.root_cause if case.run else None, case.outcome,
                                    case.expected)
        ET.SubElement(item, "system-out").text = (
            f"run {case.run_id or '-'} · {case.outcome} · expected {case.expected} · "
            f"{case.usage.tokens} tokens")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _details(root_cause: str | None, outcome: str, expected: str) -> str:
    lines = [f"outcome: {outcome}", f"expected: {expected}"]
    if root_cause:
        lines.append(f"published root cause: {root_cause}")
    return "\n".join(lines)

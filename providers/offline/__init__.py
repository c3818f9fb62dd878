"""The ``offline`` provider: a deterministic, rule-based investigator. No LLM is used.

It serves all four roles through the same graph, gates and guards as a real model, so every
harness rule applies to it unchanged. It reads its input as data — the role, the name and
values of the prompt it is called with, the bound tool specs and the observations' JSON — never
the wording of a prompt, and it speaks both agent protocols. It knows nothing about any
particular incident; its rules are generic SRE practice:

- router (:mod:`.router`): known service names, merchant ids, common time phrasings;
- agent (:mod:`.investigator`, :mod:`.conclusion`): logs of the window → the dominant error
  pattern → runbooks matching it → rows of time-stamped operational tables near the window.
  It concludes only when a runbook matches the symptom *and* a row that precedes the symptom
  shares its distinctive terms, and it states the conclusion in structured values only;
- judge (:mod:`.judge`): every term and number of a claim must appear in the evidence it cites;
- repair (:mod:`.repair`): drops citations (and then claims) that are not in the available list.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from diagnosis_harness.control.contracts import Role
from diagnosis_harness.control.settings import Settings
from diagnosis_harness.providers.offline.chat_model import OfflineChatModel
from diagnosis_harness.providers.offline.judge import judge
from diagnosis_harness.providers.offline.repair import repair
from diagnosis_harness.providers.offline.router import route_question
from diagnosis_harness.providers.offline.text import terms

__all__ = ["OfflineChatModel", "build_offline_model", "judge", "repair", "route_question", "terms"]


def build_offline_model(role: Role, settings: Settings) -> BaseChatModel:
    """The seam's entry point for ``HARNESS_MODEL=offline``."""
    return OfflineChatModel(role=role.value)

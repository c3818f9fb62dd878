"""Prompt text with named ``{placeholders}``; nothing but text lives in this package.

Each prompt is a ``.txt`` file next to this module. :func:`render` fills it and refuses a
missing or an unexpected value, so a node and its prompt cannot drift apart silently. Literal
braces in the text (JSON examples) are written doubled: ``{{`` and ``}}``.
"""

from __future__ import annotations

import string
from functools import cache
from importlib import resources

_FORMATTER = string.Formatter()


class PromptError(KeyError):
    """A prompt is unknown, or was rendered with missing or unexpected values."""

    def __str__(self) -> str:
        """Show the message itself, not KeyError's quoted repr."""
        return str(self.args[0]) if self.args else ""


def names() -> list[str]:
    """Every prompt available, by name (file name without ``.txt``)."""
    return sorted(
        entry.name.removesuffix(".txt")
        for entry in resources.files(__name__).iterdir()
        if entry.name.endswith(".txt")
    )


@cache
def _text(name: str) -> str:
    entry = resources.files(__name__).joinpath(f"{name}.txt")
    if not entry.is_file():
        raise PromptError(f"no prompt named {name!r}; available: {', '.join(names())}")
    return entry.read_text(encoding="utf-8")


def fields(name: str) -> set[str]:
    """The placeholder names of prompt ``name``."""
    found: set[str] = set()
    for _, field, spec, conversion in _FORMATTER.parse(_text(name)):
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            # Attribute access, indexing or format specs would let a prompt reach into the
            # values passed to it; placeholders are plain names only.
            raise PromptError(f"prompt {name!r} has a non-plain placeholder {{{field}}}")
        found.add(field)
    return found


def render(name: str, **values: object) -> str:
    """Fill prompt ``name`` with exactly its placeholders; a missing or extra key is an error."""
    expected = fields(name)
    missing = expected - values.keys()
    extra = values.keys() - expected
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {sorted(missing)}")
        if extra:
            parts.append(f"unexpected {sorted(extra)}")
        raise PromptError(f"prompt {name!r} takes exactly {sorted(expected)}: " + ", ".join(parts))
    return _text(name).format(**values)


def phrase(name: str, **values: object) -> str:
    """A one-part prompt (one sentence of a turn): :func:`render` without the final newline."""
    return render(name, **values).removesuffix("\n")

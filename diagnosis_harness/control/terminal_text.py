r"""Text from data, made safe to print on a terminal: the one escape every CLI output goes through.

Log lines, table cells, runbooks, alert labels and model drafts are data, and data may carry
control characters: ``ESC[H ESC[J`` clears the operator's screen and leaves only what follows,
``\\r`` overwrites a line, BEL rings, a C1 ``CSI`` (U+009B) is an escape sequence in one
character on many terminals. :func:`printable` shows every C0 control (but the line break and the
tab), DEL and every C1 control as a visible escape (``\\x1b``, ``\\r``, ``\\x9b``), and a lone
surrogate (which a JSON ``\\ud800`` can put in a string, and which no UTF-8 stream can write) as
``\\ud800``. :func:`printable_json` does the same for ``--json`` output: the JSON encoder already
escapes C0 controls; DEL, C1 and surrogates are written as ``\\u`` escapes, so the JSON value is
unchanged. :func:`inert_markup` also makes rich markup in data (``[bold]``, ``[link=…]``) print
as the text it is.

The harness's own colours are rich's, on stderr and on a terminal only; nothing from data can
add any.
"""

from __future__ import annotations

import json
import re
from typing import Any

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
"""C0 controls but ``\\t`` and ``\\n``, DEL, C1 controls, lone surrogates."""
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\ud800-\udfff]")
"""What ``json.dumps(..., ensure_ascii=False)`` leaves raw that a terminal would act on."""
_NAMED = {"\r": "\\r", "\x0b": "\\v", "\x0c": "\\f", "\x00": "\\0"}


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character shown as a visible escape (line breaks kept)."""
    return _UNSAFE.sub(_shown, text)


def printable_json(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """``value`` as JSON (UTF-8 text kept readable) with nothing a terminal would act on."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def inert_markup(text: str) -> str:
    """``text`` for a rich console: control characters escaped, rich markup printed as is."""
    from rich.markup import escape  # not at the top: the CLI's help must not import rich

    return escape(printable(text))


__all__ = ["inert_markup", "printable", "printable_json"]

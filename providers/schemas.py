"""The portable JSON schemas of each role's answer, and how each mode sends one (docs/design.md §8).

Schemas are portable: ``$ref`` inlined, every object closed; sent as strict ``json_schema`` every
property is required (optional ones nullable); sent to a grammar-decoding server, optional
properties may be left out and strings and arrays are bounded (see :func:`bounded`). Which mode
a server gets is :mod:`diagnosis_harness.providers.structured`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel

from diagnosis_harness.control.contracts import DiagnosisDraft, Gain, JudgeAnswer, Role, RouterAnswer

Mode = Literal["json_schema", "json_object_schema", "json_object", "none"]
"""How a schema is sent in ``response_format`` (``none``: no ``response_format`` at all)."""
_KEEP = ("enum", "minItems", "maxItems", "minimum", "maximum")
"""Keywords kept from a model's schema; the rest (titles, defaults, lengths) are dropped."""


def strict_schema(schema: dict[str, Any], defs: dict[str, Any] | None = None, *,
                  strict: bool = True) -> dict[str, Any]:
    """``schema`` in the portable subset: refs inlined, objects closed, titles and defaults gone.

    ``strict`` (what a strict ``json_schema`` needs): every property required, optional ones
    made nullable. Without it optional properties stay optional, so a grammar lets a small
    model leave them out (fewer tokens, fewer invented values). Idempotent.
    """
    defs = {**(defs or {}), **schema.get("$defs", {})}
    if "$ref" in schema:
        return strict_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, strict=strict)
    if "anyOf" in schema:
        return {"anyOf": [strict_schema(s, defs, strict=strict) for s in schema["anyOf"]]}
    kind = schema.get("type")
    keep = _KEEP if strict else (*_KEEP, "maxLength")  # strict servers may refuse maxLength
    out: dict[str, Any] = {k: schema[k] for k in keep if k in schema}
    if kind == "object":
        required = [r for r in schema.get("required", []) if r in schema.get("properties", {})]
        props = {}
        for name, sub in schema.get("properties", {}).items():
            prop = strict_schema(sub, defs, strict=strict)
            optional = name not in required and not _nullable(prop)
            props[name] = nullable(prop) if strict and optional else prop
        return {"type": "object", "properties": props,
                "required": list(props) if strict else required, "additionalProperties": False}
    if kind == "array":
        out["items"] = strict_schema(schema.get("items", {}), defs, strict=strict)
    if kind is not None:
        out["type"] = kind
    return out


def _nullable(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "null" or any(s.get("type") == "null"
                                               for s in schema.get("anyOf", []))


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null."""
    return {"anyOf": [schema, {"type": "null"}]}


def closed(**props: dict[str, Any]) -> dict[str, Any]:
    """A closed object with exactly ``props``, all required."""
    return {"type": "object", "properties": props, "required": list(props),
            "additionalProperties": False}


def one_of(*values: str) -> dict[str, Any]:
    """A string that is one of ``values`` (``enum``: portable where ``const`` is not)."""
    return {"type": "string", "enum": list(values)}


def _model(cls: type[BaseModel]) -> dict[str, Any]:
    return strict_schema(cls.model_json_schema())


ANSWER_MODELS: dict[Role, type[BaseModel]] = {
    Role.ROUTER: RouterAnswer, Role.JUDGE: JudgeAnswer, Role.REPAIR: DiagnosisDraft}
"""The contract each one-shot role answers in; its schema is what the server is asked for."""


def answer_schema(role: Role) -> dict[str, Any]:
    """The strict schema of ``role``'s answer (router, judge, repair)."""
    return _model(ANSWER_MODELS[role])


def draft_schema(evidence_ids: Sequence[str]) -> dict[str, Any]:
    """The final draft; claims may cite only ``evidence_ids`` (none: the conclusion is null).

    Keys in the order a grammar makes the model write them: each claim's cited ids before its
    statement, the claims before the root cause. Asked for the root cause first, the 1.5B local
    model wrote a story (a runbook's "revert the change" as the cause) and then one claim
    repeating it; evidence first, the cause is written after what the items show.
    """
    steps = {"type": "array", "items": {"type": "string"}}
    if not evidence_ids:
        return closed(conclusion={"type": "null"}, next_steps=steps)
    claim = closed(evidence_ids={"type": "array", "items": one_of(*evidence_ids), "minItems": 1},
                   statement={"type": "string"})
    conclusion = closed(claims={"type": "array", "items": claim, "minItems": 1},
                        root_cause={"type": "string"})
    return closed(conclusion=nullable(conclusion), next_steps=steps)


def progress_schema(last_call: str) -> dict[str, Any]:
    """The progress envelope naming ``last_call``, the one id the tool gate accepts.

    The note comes before the gain and is not empty: a grammar-decoding server writes the keys
    in this order, so the model says what the result showed before it judges it. Asked for the
    verdict first, the 1.5B local model wrote NO_GAIN with an empty note after every result,
    a pool-exhaustion log included, and collection saturated after three calls.
    """
    return closed(tool_call_id=one_of(last_call),
                  note={"type": "string", "minLength": 3, "maxLength": 120},  # "a few words"
                  gain=one_of(*(g.value for g in Gain)))


def envelope_schema(tool_specs: Sequence[dict[str, Any]], *, last_call: str | None,
                    evidence_ids: Sequence[str], final_only: bool = False,
                    rest: Sequence[str] = ()) -> dict[str, Any]:
    """The json protocol's envelope for this turn: a call of one bound tool, or the final draft.

    A tool's optional arguments stay optional here (a strict ``json_schema`` makes them
    nullable when it is sent, see :func:`response_format`).

    Each tool call carries that tool's arguments and, once a result was seen, the progress
    envelope naming ``last_call``; the first call carries none (the gate ignores it there).
    ``final_only`` (a stop was required, the context is nearly full) leaves only the draft;
    tools named in ``rest`` are left out for this turn (one a model has just repeated verbatim).
    """
    variants = [closed(type=one_of("final"), draft=draft_schema(evidence_ids))]
    if not final_only:
        for spec in tool_specs:
            fn = spec.get("function", spec)
            if fn["name"] in rest:
                continue
            params = dict(fn.get("parameters") or {"type": "object", "properties": {}})
            props = {k: v for k, v in params.get("properties", {}).items()
                     if k != "previous_observation"}
            args = strict_schema({**params, "properties": props}, strict=False)
            if last_call is not None:  # first: the last result judged before the next call
                args["properties"] = {"previous_observation": progress_schema(last_call),
                                      **args["properties"]}
                args["required"].insert(0, "previous_observation")
            variants.append(closed(type=one_of("tool_call"), tool=one_of(fn["name"]), args=args))
    return variants[0] if len(variants) == 1 else {"anyOf": variants[::-1]}


GRAMMAR_MAX_CHARS = 300
"""Under ``json_object_schema`` a string of an answer is at most this long (a tool's own
``maxLength`` when that is shorter): a grammar without bounds lets a small model run on until
its token limit, minutes on a CPU, inside one string."""
GRAMMAR_MAX_ITEMS = 5
"""Likewise for an array (claims, cited ids, next steps, reasons) without a ``maxItems``."""


SQL_GRAMMAR: dict[str, Any] = {"type": "string",
                               "pattern": rf"^[ !#-:<-\[\]-~]{{1,{GRAMMAR_MAX_CHARS}}};?$"}
r"""An ``sql`` argument under a grammar: printable ASCII, a ``;`` only as its last character
(nor ``"`` and ``\``, which JSON would escape), so one statement. A small model otherwise chains
a second SELECT after a ``;`` and the SQL guard rejects the whole call, again and again; with no
``;`` at all it wrote ``LIMIT 1000…`` until the bound, where it wanted to end with one. The
guard is unchanged.
"""


STATEMENT_GRAMMAR: dict[str, Any] = {
    "type": "string", "pattern": rf"^[ !#-;=-\[\]-~][ !#-\[\]-~]{{0,{GRAMMAR_MAX_CHARS - 1}}}$"}
r"""A root cause or claim statement under a grammar: printable ASCII (no ``"`` or ``\``, which
JSON would escape) that does not open with ``<``, so an example's ``<placeholder>`` cannot be
copied (the 1.5B model copied them; the contract refuses one that gets through anyway)."""
STATEMENT_KEYS = frozenset({"statement", "root_cause"})


def bounded(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every string and array bounded, for a grammar-decoding server.

    An answer within the bounds is still any answer of the contract's shape: the bounds only
    keep a model from running on (every contract check stays as it is).
    """
    if "anyOf" in schema:
        return {**schema, "anyOf": [bounded(s) for s in schema["anyOf"]]}
    out = dict(schema)
    if out.get("type") == "object":
        required = set(out.get("required", []))
        # A grammar cannot bound a number (a small model writes "limit": 500 for a 1..200
        # argument): an optional bounded number is left out, so its default applies.
        out["properties"] = {k: _grammar_of(k, v) for k, v in out.get("properties", {}).items()
                             if k in required or not _bounded_number(v)}
    elif out.get("type") == "array":
        out["items"] = bounded(out.get("items", {}))
        out["maxItems"] = min(out.get("maxItems", GRAMMAR_MAX_ITEMS), GRAMMAR_MAX_ITEMS)
    elif out.get("type") == "string" and "enum" not in out:
        out["maxLength"] = min(out.get("maxLength", GRAMMAR_MAX_CHARS), GRAMMAR_MAX_CHARS)
    return out


def _grammar_of(key: str, schema: dict[str, Any]) -> dict[str, Any]:
    if schema.get("type") == "string" and key == "sql":
        return SQL_GRAMMAR
    if schema.get("type") == "string" and key in STATEMENT_KEYS:
        return STATEMENT_GRAMMAR
    return bounded(schema)


def _bounded_number(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf", [schema])
    return any(o.get("type") in ("integer", "number") and ("minimum" in o or "maximum" in o)
               for o in options)


def response_format(mode: Mode, name: str, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ``response_format`` for ``mode`` (None: send none)."""
    if mode == "none":
        return None
    if mode == "json_object" or schema is None:
        return {"type": "json_object"}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": bounded(schema)}
    return {"type": "json_schema",
            "json_schema": {"name": name, "strict": True, "schema": strict_schema(schema)}}

"""What a case's run cost: its tokens from the run row times the model's price per million.

The built-in table is ``prices.json`` beside this module (list prices at the time of writing:
check your provider's); ``HARNESS_PRICE_TABLE`` names a JSON file of the same shape whose models
replace the built-in ones by name. ``offline`` and ``replay:`` models cost 0. A model the tables
do not price has an unknown cost (None), never a made-up 0: the scorecard says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

BUILT_IN = Path(__file__).with_name("prices.json")


class PriceError(ValueError):
    """A price table that cannot be read; the message names the file."""


class Price(BaseModel):
    """Price of one model per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)


class PriceTable(BaseModel):
    """Prices by model name (the NAME of ``openai:NAME``), in ``currency``."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    doc: str | None = Field(default=None, alias="_doc")
    currency: str = "USD"
    models: dict[str, Price] = Field(default_factory=dict)

    def cost(self, model_spec: str, input_tokens: int, output_tokens: int) -> float | None:
        """The cost of these tokens on ``model_spec``; 0 offline and replay, None unpriced."""
        provider, _, name = model_spec.partition(":")
        if provider in ("offline", "replay"):
            return 0.0
        price = self.models.get(name)
        if price is None:
            return None
        return round((input_tokens * price.input_per_million
                      + output_tokens * price.output_per_million) / 1_000_000, 6)


def load_prices(override: Path | None = None) -> PriceTable:
    """The built-in table, with ``override``'s models (``HARNESS_PRICE_TABLE``) laid over it."""
    table = _read(BUILT_IN)
    if override is None:
        return table
    extra = _read(Path(override))
    return PriceTable(currency=extra.currency, models={**table.models, **extra.models})


def _read(path: Path) -> PriceTable:
    try:
        return PriceTable.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise PriceError(f"price table {path}: no such file (HARNESS_PRICE_TABLE)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PriceError(f"price table {path}: cannot be read: {exc}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise PriceError(f"price table {path}: {where}: {err['msg']}") from None

"""A small help center for judging document ranking: policy articles asked about in ordinary
words, and product sheets asked about by their codes (`SKU-88412-B`).

Deterministic (a fixed seed). The sheets differ in length, as real ones do: with embeddings
that average a text's words (the local server's bag of words, and to a degree real models), a
long sheet holding the asked-for code is farther from the code than short sheets sharing only
`sku` and a letter, so ranking by meaning alone misses it; text search finds the code exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

ARTICLES = {
    "returns.md": "Returns: items can be sent back within thirty days of delivery for a full"
    " refund to the original card. Unused items in their box are refunded in five working days.",
    "shipping.md": "Shipping: standard delivery takes three to five working days on the"
    " mainland; islands take up to ten. Express delivery arrives the next working day.",
    "warranty.md": "Warranty: every appliance carries a two year guarantee against"
    " manufacturing faults. Keep the receipt; repairs under guarantee are free of charge.",
    "payment.md": "Payment: we accept cards, bank transfer and gift cards. Instalments are"
    " possible for orders over three hundred euros, in three monthly payments.",
    "hours.md": "Opening hours: the shop opens Monday to Saturday from nine in the morning to"
    " eight in the evening. On Sundays and public holidays it is closed.",
    "giftcards.md": "Gift cards: a gift card is valid for two years from purchase and can be"
    " used online or in the shop. Its balance is printed on every receipt.",
    "cancel.md": "Cancelling an order: an order can be cancelled free of charge until it"
    " leaves the warehouse. After that, return it when it arrives instead.",
    "privacy.md": "Privacy: we keep your address and phone number only to deliver your order"
    " and never sell them. Ask us to erase them at any time.",
}

ORDINARY_QUERIES = {
    "how many days do I have to send something back": "returns.md",
    "when will my parcel arrive": "shipping.md",
    "is my broken appliance covered by the guarantee": "warranty.md",
    "can I pay in monthly instalments": "payment.md",
    "are you open on sunday": "hours.md",
    "how long is a gift card valid": "giftcards.md",
    "can I cancel my order": "cancel.md",
    "do you sell my phone number": "privacy.md",
    "refund": "returns.md",
    "express delivery": "shipping.md",
}

_KINDS = ["kettle", "toaster", "blender", "mixer", "iron", "fan", "heater", "grill", "scale"]
_FILLER = [
    "steel body",
    "cool touch handle",
    "removable filter",
    "easy clean surface",
    "compact design",
    "energy saving mode",
    "safety cut off",
    "quiet motor",
    "spare parts available",
    "boxed with manual",
    "available in black white and red",
    "dishwasher safe parts",
    "two speed settings",
]


@dataclass(frozen=True, slots=True)
class Sheet:
    source: str
    code: str
    text: str


def product_sheets(count: int = 40, seed: int = 7) -> list[Sheet]:
    """`count` sheets, one code each (`SKU-<5 digits>-<letter>`), 20 to 140 words long."""
    rng = random.Random(seed)
    sheets = []
    for i in range(count):
        code = f"SKU-{rng.randrange(10_000, 99_999)}-{rng.choice('ABCD')}"
        kind = rng.choice(_KINDS)
        features = [rng.choice(_FILLER) for _ in range(rng.randrange(2, 26))]
        text = (
            f"Product sheet {code}: {kind}. Price {rng.randrange(19, 199)} euros."
            f" Features: {', '.join(features)}."
        )
        sheets.append(Sheet(f"sku-{i:02}.md", code, text))
    return sheets


def code_queries(sheets: list[Sheet], every: int = 4) -> dict[str, str]:
    """A query per `every`-th sheet: the bare code, and the code in a question."""
    asked: dict[str, str] = {}
    for sheet in sheets[::every]:
        asked[sheet.code] = sheet.source
        asked[f"is {sheet.code} in stock"] = sheet.source
    return asked


def reciprocal_rank(found: list[str], wanted: str) -> float:
    """1 / the position of `wanted` in `found` (from 1), or 0 when it is not there."""
    return 1.0 / (found.index(wanted) + 1) if wanted in found else 0.0

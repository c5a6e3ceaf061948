"""The extraction request's size with the provenance fields (`kind`, `confidence`, `evidence`,
`reason` per operation: the protocol's paragraph and the output schema) against without.

The request is the JSON body the provider client sends (`memory.extraction._provider`: model,
messages, response_format, reasoning_effort), encoded as `json.dumps(...).encode("ascii")`
as the client encodes it. "Without" is the same body with the operation paragraph and the
schema as they were before provenance (kept here as constants), so only the new fields
differ. Three people: no facts and a short call; 20 facts and a 20-utterance call; 50 facts of
~120 characters and a 60-utterance call. Structured output (json_schema) and plain JSON mode.

Usage: python -m bench.extraction_size_bench
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

from memory.contract import Fact, Utterance
from memory.extraction import build_prompt, response_format

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
_OLD_OPERATIONS = """Each operation is an object with exactly the keys "op", "handle" and "content":
- {"op": "add", "handle": null, "content": "<new fact>"}
- {"op": "update", "handle": "f3", "content": "<replacement text for fact f3>"}
- {"op": "delete", "handle": "f2", "content": null}
"""
_NEW_FIELDS = ("kind", "confidence", "evidence", "reason")


def _person(facts: int, utterances: int) -> tuple[list[Fact], list[Utterance]]:
    kept = [
        Fact(
            f"id-{i}",
            f"Fact {i}: prefers to be called in the morning about order {i:04d}."
            + " Lives near the old market." * (1 if facts > 20 else 0),
            T0,
            T0,
        )
        for i in range(facts)
    ]
    said = [
        Utterance("user" if i % 2 else "assistant", f"Utterance {i} about the delivery window.")
        for i in range(utterances)
    ]
    return kept, said


def _without(body: dict[str, Any]) -> dict[str, Any]:
    """The body as it was before provenance: the old paragraph, the old schema."""
    old = copy.deepcopy(body)
    protocol = old["messages"][0]["content"]
    start = protocol.index("Each operation is an object")
    end = protocol.index("Rules:")
    old["messages"][0]["content"] = protocol[:start] + _OLD_OPERATIONS + "\n" + protocol[end:]
    schema = old["response_format"].get("json_schema")
    if schema is not None:
        item = schema["schema"]["properties"]["operations"]["items"]
        item["required"] = [k for k in item["required"] if k not in _NEW_FIELDS]
        for key in _NEW_FIELDS:
            item["properties"].pop(key)
    return old


def _size(body: dict[str, Any]) -> int:
    return len(json.dumps(body).encode("ascii"))


def main() -> None:
    print("| person | output | bytes without | bytes with | with / without |")
    print("|---|---|---:|---:|---:|")
    for name, facts, utterances in (("new", 0, 4), ("typical", 20, 20), ("full", 50, 60)):
        kept, said = _person(facts, utterances)
        prompt = build_prompt(kept, said, started_at=T0, instructions=None, guidance=None)
        for structured in (True, False):
            body = {
                "model": "gpt-5-nano",
                "messages": list(prompt.messages),
                "response_format": response_format(structured),
                "reasoning_effort": "minimal",
            }
            before, after = _size(_without(body)), _size(body)
            mode = "json_schema" if structured else "json_object"
            print(
                f"| {name} ({facts} facts, {utterances} utterances) | {mode} | {before} |"
                f" {after} | {after / before:.2f}x |"
            )


if __name__ == "__main__":
    main()

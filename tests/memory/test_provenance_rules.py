"""What is kept of the model's word about each op: pure rules, table-tested (no database)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memory.contract import (
    MAX_EVIDENCE_CHARS,
    MAX_REASON_CHARS,
    UNKNOWN_SOURCE,
    Fact,
    Source,
    Utterance,
    Writer,
    found_evidence,
    normalised,
    plan,
    source_json,
    source_of,
)

T0 = datetime(2026, 12, 3, 7, 20, tzinfo=UTC)
HEARD = (
    Utterance("assistant", "Hello, how can I help?"),
    Utterance("user", "Please   ALWAYS email me,\nnever call."),
    Utterance("user", "I moved to Lima last month."),
)


def answer(*ops: dict[str, object]) -> str:
    return json.dumps({"operations": list(ops), "summary": "A call."})


def add(content: str, **notes: object) -> dict[str, object]:
    return {"op": "add", "handle": None, "content": content, **notes}


class TestEvidence:
    @pytest.mark.parametrize(
        ("quote", "kept", "turns"),
        [
            ("always email me", "always email me", (1,)),
            ("please always EMAIL me, never call", "please always EMAIL me, never call", (1,)),
            ("  “I moved to Lima…”  ", "“I moved to Lima…”", (2,)),
            ("hello", "hello", (0,)),
            ("always text me", None, ()),  # invented: not in the transcript
            ("email me never", None, ()),  # the words, in another order
            ("…", None, ()),  # nothing left once trimmed
            ("", None, ()),
            (42, None, ()),
            (None, None, ()),
        ],
    )
    def test_a_quote_is_kept_only_when_the_transcript_holds_it(
        self, quote: object, kept: str | None, turns: tuple[int, ...]
    ) -> None:
        """Compared after NFKC, case folding and whitespace runs; an invented one is dropped."""
        assert found_evidence(quote, HEARD) == (kept, turns)

    def test_a_quote_at_the_limit_is_kept_and_one_past_it_dropped(self) -> None:
        long = "a" * (MAX_EVIDENCE_CHARS + 1)
        said = (Utterance("user", long),)
        assert found_evidence(long[:MAX_EVIDENCE_CHARS], said)[0] == long[:MAX_EVIDENCE_CHARS]
        assert found_evidence(long, said) == (None, ())

    def test_normalising_folds_width_case_and_whitespace(self) -> None:
        assert normalised("Ｅｍａｉｌ\u00a0 Me\n") == "email me"


HANDLES = {"f1": Fact("id-1", "Lives in Cusco.", T0, T0)}


class TestPlanNotes:
    def test_an_invented_quote_is_dropped_and_a_real_one_kept(self) -> None:
        raw = answer(
            add("Prefers email.", evidence="always email me", kind="contact", confidence=1),
            add("Has a cat.", evidence="I have a cat", kind="other", confidence=0.4),
        )
        notes = plan(raw, {}, HEARD).add_notes
        assert (notes[0].evidence, notes[0].turns, notes[0].confidence) == (
            "always email me",
            (1,),
            1.0,
        )
        assert (notes[1].evidence, notes[1].turns, notes[1].kind) == (None, (), "other")

    @pytest.mark.parametrize(
        ("kind", "confidence", "kept"),
        [
            ("hobby", 0.5, (None, 0.5)),  # not a known kind
            (7, "high", (None, None)),
            (None, 1.5, (None, None)),  # past 1
            ("preference", -0.1, ("preference", None)),
            ("preference", True, ("preference", None)),
            ({"x": 1}, [1], (None, None)),
        ],
    )
    def test_a_bad_kind_or_confidence_never_fails_the_answer(
        self, kind: object, confidence: object, kept: tuple[object, object]
    ) -> None:
        """The op is applied; the bad value reads as absent."""
        planned = plan(answer(add("Prefers email.", kind=kind, confidence=confidence)), {}, HEARD)
        assert planned.adds == ("Prefers email.",)
        assert (planned.add_notes[0].kind, planned.add_notes[0].confidence) == kept

    def test_missing_notes_are_absent_and_valid_ones_kept(self) -> None:
        planned = plan(answer(add("Prefers email.")), {}, HEARD)
        assert planned.add_notes[0] == planned.note("add", 0)
        assert (planned.add_notes[0].kind, planned.add_notes[0].confidence) == (None, None)
        edge = plan(answer(add("Prefers email.", kind="contact", confidence=0)), {}, HEARD)
        assert (edge.add_notes[0].kind, edge.add_notes[0].confidence) == ("contact", 0.0)

    @pytest.mark.parametrize(
        ("reason", "kept"),
        [
            ("moved away", "moved away"),
            ("r" * MAX_REASON_CHARS, "r" * MAX_REASON_CHARS),
            ("r" * (MAX_REASON_CHARS + 1), None),
            ("   ", None),
            (3, None),
        ],
    )
    def test_a_delete_keeps_its_reason_within_the_limit(
        self, reason: object, kept: str | None
    ) -> None:
        op = {"op": "delete", "handle": "f1", "content": None, "reason": reason}
        planned = plan(answer(op), HANDLES, HEARD)
        assert planned.deletes == ("id-1",) and planned.delete_notes[0].reason == kept

    def test_an_add_carries_no_reason(self) -> None:
        planned = plan(answer(add("Prefers email.", reason="because")), {}, HEARD)
        assert planned.add_notes[0].reason is None

    def test_an_unknown_key_is_still_refused(self) -> None:
        """The notes are tolerated; the answer's shape is still strict."""
        with pytest.raises(Exception, match="extra_forbidden"):
            plan(answer(add("Prefers email.", mood="happy")), {}, HEARD)


class TestStoredSource:
    def test_a_source_round_trips_through_its_json(self) -> None:
        source = Source("voice", "job-1", None, (1, 2), Writer("a", "job-1", None), "m", "hi")
        assert source_of(json.dumps(source_json(source))) == source

    @pytest.mark.parametrize("stored", [None, "not json", "[1]", "{}", {"channel": 5}])
    def test_a_missing_or_broken_source_reads_as_unknown(self, stored: object) -> None:
        assert source_of(stored) == UNKNOWN_SOURCE
        assert UNKNOWN_SOURCE.channel == "unknown"

from memory.api import Memory
from testkit.model_server import ModelServer


async def test_add_then_recall(memory: Memory, model_server: ModelServer) -> None:
    model_server.answer(
        [{"op": "add", "handle": None, "content": "Prefers email."}], "Asked about email."
    )
    result = await memory.add("I prefer email", "support", "+34111")
    assert result.error is None, result.error
    assert result.data is not None
    assert [f.content for f in result.data.facts] == ["Prefers email."]
    recalled = await memory.recall("support", "+34111")
    assert recalled.data is not None
    assert [c.summary for c in recalled.data.calls] == ["Asked about email."]
    model_server.answer([{"op": "update", "handle": "f1", "content": "Prefers SMS."}], "Changed.")
    again = await memory.add("Actually SMS", "support", "+34111")
    assert again.error is None, again.error
    assert again.data is not None
    assert again.data.facts[0].id == result.data.facts[0].id
    deleted = await memory.delete_all("support", "+34111")
    assert deleted.data is not None and deleted.data.deleted == 3

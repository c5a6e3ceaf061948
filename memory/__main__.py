"""Operator CLI: `python -m memory migrate | recall | history | add | delete-all | search | ops`.

Results print as JSON on stdout (the operator asked for them); logs carry no memory text.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memory.api import Memory, open_memory
from memory.config import ConfigError, MemoryConfig
from memory.database import create_pool, database_url
from memory.envelope import Result
from memory.logs import configure_logging
from memory.migrate import migrate
from memory.ops_store import DEFAULT_LIMIT, MAX_CURSOR, MAX_LIMIT, ops_after
from memory.search_models import SEARCH_MODES
from memory.search_requests import DEFAULT_K, DEFAULT_MODE
from memory.store import MemoryStore


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m memory", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply pending schema migrations")
    recall = sub.add_parser("recall", help="print a person's facts and recent calls")
    recall.add_argument("agent_id")
    recall.add_argument("user_id")
    recall.add_argument("--calls", type=int, default=5)
    history = sub.add_parser("history", help="print every kept version of a person's facts")
    history.add_argument("agent_id")
    history.add_argument("user_id")
    ops = sub.add_parser("ops", help="print an agent's memory.ops events after a cursor")
    ops.add_argument("agent_id")
    ops.add_argument("--after", type=_bounded(0, MAX_CURSOR), default=0)
    ops.add_argument("--limit", type=_bounded(1, MAX_LIMIT), default=DEFAULT_LIMIT)
    add = sub.add_parser("add", help="extract and save memory from a transcript file")
    add.add_argument("agent_id")
    add.add_argument("user_id")
    add.add_argument("transcript", type=Path, help="a text file, or a JSON list of messages")
    add.add_argument("--instructions")
    erase = sub.add_parser("delete-all", help="erase one person's memory for one agent")
    erase.add_argument("agent_id")
    erase.add_argument("user_id")
    search = sub.add_parser("search", help="search facts of one person or of every person")
    search.add_argument("agent_id")
    search.add_argument("query")
    search.add_argument("--user", help="search this person only")
    search.add_argument("--k", type=int, default=DEFAULT_K)
    search.add_argument("--mode", default=DEFAULT_MODE, help=", ".join(SEARCH_MODES))
    return parser


def _bounded(low: int, high: int) -> Callable[[str], int]:
    def parse(value: str) -> int:
        if not value.isascii() or not value.isdigit() or not low <= int(value) <= high:
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}")
        return int(value)

    return parse


def _content(path: Path) -> object:
    text = path.read_text("utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    return text


def _print(result: Result[Any]) -> int:
    body = {
        "data": None if result.data is None else dataclasses.asdict(result.data),
        "error": None if result.error is None else dataclasses.asdict(result.error),
    }
    print(json.dumps(body, default=str, ensure_ascii=False, indent=2))
    return 0 if result.error is None else 1


async def _run(args: argparse.Namespace) -> int:
    pool = await create_pool(database_url())
    try:
        if args.command == "migrate":
            async with pool.acquire() as conn:
                applied = await migrate(conn)
            print(json.dumps({"applied": applied}))
            return 0
        if args.command == "ops":
            events = await ops_after(pool, args.agent_id, args.after, args.limit)
            cursor = events[-1]["id"] if events else args.after
            print(json.dumps({"events": events, "next": cursor}, ensure_ascii=False, indent=2))
            return 0
        memory = open_memory(MemoryStore(pool), MemoryConfig.from_env())
        try:
            return _print(await _memory_command(memory, args))
        finally:
            await memory.drain_indexing()  # vectors of what an add just saved
    finally:
        await pool.close()


async def _memory_command(memory: Memory, args: argparse.Namespace) -> Result[Any]:
    if args.command == "recall":
        return await memory.recall(args.agent_id, args.user_id, args.calls)
    if args.command == "history":
        return await memory.history(args.agent_id, args.user_id)
    if args.command == "add":
        content = _content(args.transcript)
        return await memory.add(content, args.agent_id, args.user_id, None, args.instructions)
    if args.command == "search":
        return await memory.search(args.agent_id, args.query, args.user, args.k, args.mode)
    return await memory.delete_all(args.agent_id, args.user_id)


def main(argv: Sequence[str] | None = None) -> int:
    configure_logging(install_handler=True)
    args = _parser().parse_args(argv)
    try:
        return asyncio.run(_run(args))
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

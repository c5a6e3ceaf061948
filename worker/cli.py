"""Operator commands (`caller-memory ...` or `python -m worker.cli ...`).

`dial` starts an outbound call the way `POST /api/voice/calls` does: it dispatches the agent
into a new room with the number and trunk in server-owned job metadata, and the job dials. It
reads the same LiveKit variables as the web process and prints the room name, never the number.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Mapping, Sequence

from memory.config import ConfigError
from memory.logs import configure_logging
from sip.dialing import InvalidDestination, check_destination, check_trunk_id
from worker.catalog import UnknownAgent, default_catalog
from worker.dispatcher import Dispatcher, LiveKitFailed
from worker.identities import outbound_metadata
from worker.voice_settings import TRUNK_VAR, load_voice_settings

EXIT_FAILED = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="caller-memory", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    dial = commands.add_parser("dial", help="start an outbound call with an agent")
    dial.add_argument("--agent", required=True, help="agent id from the catalog")
    dial.add_argument("--to", required=True, help="destination number, e.g. +34600111222")
    dial.add_argument("--trunk", help=f"outbound trunk id (default: ${TRUNK_VAR})")
    return parser


async def _dial(dispatcher: Dispatcher, agent: str, number: str, trunk: str) -> str:
    call = await dispatcher.start_outbound(agent, outbound_metadata(number, trunk), trunk)
    return call.room_name


def run_dial(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Validate everything locally, then dispatch; a refusal prints why and exits non-zero."""
    try:
        settings = load_voice_settings(env)
        if settings is None:
            raise ConfigError("LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET are not set")
        agent = default_catalog().get(args.agent)
        number = check_destination(args.to)
        trunk = check_trunk_id(args.trunk or settings.outbound_trunk_id or "")
    except (ConfigError, UnknownAgent, InvalidDestination) as exc:
        print(f"error: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        room = asyncio.run(_dial(Dispatcher(settings), agent.name, number, trunk))
    except LiveKitFailed as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    print(f"dispatched {agent.name} to dial in room {room}")
    return 0


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] = os.environ) -> int:
    configure_logging(install_handler=True)
    args = _parser().parse_args(argv)
    if args.command == "dial":
        return run_dial(args, env)
    return EXIT_USAGE  # pragma: no cover - argparse refuses unknown commands


if __name__ == "__main__":
    sys.exit(main())

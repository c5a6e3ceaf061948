"""`caller-memory`, the one command: `memory ...`, `docs ...`, `sessions ...`, `decisions ...`,
`prompt ...`, `dial`, `web` and `worker`.

Results print as JSON on stdout in the HTTP API's shape (camelCase keys, ISO timestamps). A
refusal prints one `error: ...` line on stderr: exit code 2 for bad input or configuration, 1
when something else failed (the database, the model provider, LiveKit). Never a traceback.

`dial` starts an outbound call the way `POST /api/voice/calls` does: it dispatches the agent
into a new room with the number and trunk in server-owned job metadata, and the job dials;
repeated `--identity NAME=VALUE` options are the route's `identities` (the same rules). It
prints the room, never the number. `worker` hands its arguments to the LiveKit agents CLI
(`caller-memory worker start`), `web` serves the HTTP API.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer
from typer.main import get_command_name

from callmemory import environment
from infra.logs import configure_logging
from memory.config import ConfigError
from worker.refusal import EXIT_FAILED, EXIT_USAGE, Refused
from worker.voice_settings import LIVEKIT_TOGETHER, TRUNK_VAR, VoiceSettings, voice_settings

if TYPE_CHECKING:  # livekit's: imported by `dial` alone
    from worker.dispatcher import Dispatcher

app = typer.Typer(
    name="caller-memory",
    help=__doc__.split("\n\n")[0] if __doc__ else None,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    no_args_is_help=True,
)
GROUPS: Final = {
    "memory": "worker.memory_commands:memory_app",
    "docs": "worker.docs_commands:docs_app",
    "sessions": "worker.session_commands:sessions_app",
    "decisions": "worker.decision_commands:decisions_app",
    "prompt": "worker.prompt_commands:prompt_app",
}
"""The command groups, each imported only when a command line reaches it."""
IDENTITY: Final = "--identity"
OUTLOOK_SECONDS: Final = 2.0
"""How long `dial` waits for the agent's settings before it calls anyway (memory off for
now, `settings_unavailable`, as the route says while the database does not answer)."""


def reached_groups(args: Sequence[str], commands: set[str]) -> list[str]:
    """The groups a command line reaches: the one it names, none for a top-level command
    (`commands`), every one otherwise (the help, or a name to refuse with the list)."""
    if args and args[0] in GROUPS:
        return [args[0]]
    if args and args[0] in commands:
        return []
    return list(GROUPS)


def with_groups(args: Sequence[str]) -> typer.Typer:
    """`app` with the groups `args` can reach: the one it names, else every one (the help).

    So `caller-memory memory recall ...` imports the memory commands alone: no `livekit`, no
    web wires (tests/cli/test_imports.py), and `dial`, `web` or `worker` none.
    """
    commands = {
        command.name or get_command_name(getattr(command.callback, "__name__", ""))
        for command in app.registered_commands
    }
    names = reached_groups(args, commands)
    added = {group.name for group in app.registered_groups}
    for name in names:
        if name not in added:
            module, attribute = GROUPS[name].split(":")
            app.add_typer(getattr(importlib.import_module(module), attribute), name=name)
    return app


def print_json(body: dict[str, Any]) -> None:
    print(json.dumps(body, ensure_ascii=False, indent=2))


def identity_options(pairs: Sequence[str]) -> dict[str, str]:
    """`--identity NAME=VALUE` options as the route's `identities` map, by the same rules
    (`chat.identities.check_identities`); a broken one is a usage refusal naming the option."""
    from chat.identities import InvalidIdentities, check_identities  # noqa: PLC0415

    identities: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals:
            raise Refused(EXIT_USAGE, f"{IDENTITY}: must be NAME=VALUE")
        if name in identities:  # never the name itself: it can be user content
            raise Refused(EXIT_USAGE, f"{IDENTITY}: each name must be given once")
        identities[name] = value
    try:
        return check_identities(identities)
    except InvalidIdentities as broken:
        raise Refused(EXIT_USAGE, InvalidIdentities(broken.rule, IDENTITY).message) from None


async def _dial(  # noqa: PLR0917
    dispatcher: Dispatcher,
    read: environment.Environment,
    agent: str,
    number: str,
    trunk: str,
    identities: dict[str, str],
) -> dict[str, Any]:
    """Start the call and say it as `POST /api/voice/calls` does, its memory outlook included
    (read before the dispatch, within `OUTLOOK_SECONDS`)."""
    from sip.job_metadata import outbound_metadata  # noqa: PLC0415  (with `dial` only)
    from worker.http.server.answers import OutboundCall  # noqa: PLC0415
    from worker.memory_outlook import call_outlook_at  # noqa: PLC0415

    metadata = outbound_metadata(number, trunk, identities)
    outlook = await call_outlook_at(_settings_url(read), agent, metadata, OUTLOOK_SECONDS)
    call = await dispatcher.start_outbound(agent, metadata, trunk)
    answer = OutboundCall(
        agent_id=agent,
        room_name=call.room_name,
        dispatch_id=call.dispatch_id,
        trunk_id=call.trunk_id,
        memory=outlook,
    )
    return answer.wire()


def _settings_url(read: environment.Environment) -> str | None:
    """Where the agent's settings are: `DATABASE_URL`, or an embedded server already up (a
    dial starts none: without it the worker that would serve the call is not running)."""
    from infra.embedded import default_data_dir, running_url  # noqa: PLC0415

    return read.database_url or running_url(default_data_dir(read.memory_pgdata))


def _dial_arguments(
    to: str, trunk: str | None, identity: list[str]
) -> tuple[environment.Environment, VoiceSettings, str, str, dict[str, str]]:
    """The environment, LiveKit's settings, the number, trunk and identities, checked."""
    from sip.destination import InvalidDestination, check_destination, check_trunk_id  # noqa: PLC0415

    read = environment.read(required=(LIVEKIT_TOGETHER,))  # the command's one read
    configure_logging(install_handler=True, fmt=read.log_format)
    settings = voice_settings(read)
    if settings is None:
        raise ConfigError("LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET are not set")
    try:
        number = check_destination(to)
        trunk_id = check_trunk_id(trunk or settings.outbound_trunk_id or "")
    except InvalidDestination as exc:
        raise Refused(EXIT_USAGE, exc.message) from None
    return read, settings, number, trunk_id, identity_options(identity)


@app.command()
def dial(
    agent: Annotated[str, typer.Option(help="agent id (one `AGENTS` declares)")],
    to: Annotated[str, typer.Option(help="destination number, e.g. +34600111222")],
    trunk: Annotated[
        str | None, typer.Option(help=f"outbound trunk (default ${TRUNK_VAR})")
    ] = None,
    identity: Annotated[
        list[str] | None,
        typer.Option(
            "--identity",
            metavar="NAME=VALUE",
            help="who is called, repeatable (the route's `identities`: 32 names, 100 and 500"
            " characters); the number stays `phoneNumber` unless one names it",
        ),
    ] = None,
) -> None:
    """Start an outbound call with an agent (validated here before LiveKit is asked)."""
    read, settings, number, trunk_id, identities = _dial_arguments(to, trunk, identity or [])
    # the agents `AGENTS` names (the team's code, with livekit) and livekit's api: imported
    # once the cheap checks passed, by this command alone
    from worker.catalog import UnknownAgent, load_catalog  # noqa: PLC0415
    from worker.dispatcher import Dispatcher, LiveKitFailed  # noqa: PLC0415

    try:
        spec = load_catalog(read.agents).get(agent)
    except UnknownAgent as exc:
        raise Refused(EXIT_USAGE, exc.message) from None
    try:
        call = _dial(Dispatcher(settings), read, spec.name, number, trunk_id, identities)
        body = asyncio.run(call)
    except LiveKitFailed as exc:
        raise Refused(EXIT_FAILED, exc.message) from None
    print_json(body)


@app.command()
def web() -> None:
    """Serve the HTTP API (and `/metrics` when WEB_METRICS_PORT is set)."""
    from worker.http import web as web_process  # noqa: PLC0415  (aiohttp app only when serving)

    raise typer.Exit(web_process.main())


PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}


@app.command(context_settings=PASS_THROUGH, add_help_option=False)
def worker(ctx: typer.Context) -> None:
    """Run the LiveKit worker: `start`, `dev`, `connect`, `console`, `download-files`, `--help`."""
    from worker import agent  # noqa: PLC0415  (livekit's CLI only when running the worker)

    sys.argv = ["caller-memory worker", *ctx.args]
    agent.main()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every refusal is one line on stderr and an exit code, never a trace."""
    environment.load_env_local()  # each command reads its settings once (and logs as they say)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = with_groups(args)(args, standalone_mode=False, prog_name="caller-memory")
    except ConfigError as exc:
        print(environment.report(exc), file=sys.stderr)
        return EXIT_USAGE
    except Refused as refusal:
        print(f"error: {refusal.message}", file=sys.stderr)
        return refusal.exit_code
    except typer.Exit as done:
        return int(done.exit_code)
    except typer.TyperException as usage:  # click's usage errors: unknown option, bad value
        message = usage.format_message()
        if "\n" in message:  # a group called without a command: its help
            print(message, file=sys.stderr)
        else:
            print(f"error: {message}", file=sys.stderr)
        return int(getattr(usage, "exit_code", EXIT_USAGE))
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())

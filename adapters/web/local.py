"""`durak-bot play --web`: the page in your browser, against AI players, on 127.0.0.1.

The same store, service and turn-timer loop as `durak-bot play` (the terminal game stays as it is), with the
web front end in place of the terminal: the game is opened with the presses a chat user would send (a lobby,
its AI seats, Start), then the page plays it. The printed URL carries a one-time key in its fragment
(`adapters.web.sessions`); only this machine can reach the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from aiohttp import web

from adapters.local.screen import find_button
from adapters.local.terminal import PlayOptions
from adapters.web.links import game_ref
from adapters.web.server import WebFrontEnd
from adapters.web.sessions import LocalSessions, Viewer
from bot.adapter import (
    LOCAL,
    Alert,
    ChatRef,
    Command,
    Effect,
    GameService,
    Message,
    Playing,
    Press,
    ShowTable,
    TimerDue,
    User,
    buttons,
    run_own_timers,
)

CHAT_ID = "web"  # the browser game's chat (the terminal's is "terminal"): both may be kept side by side
WEB_CHAT = ChatRef(LOCAL, CHAT_ID)
HOST = "127.0.0.1"


@dataclass(frozen=True)
class WebPlayOptions(PlayOptions):
    """The terminal game's options, and where the page is served."""

    port: int = 0  # 0: any free port
    browser: bool = True


class GameRefused(Exception):
    """The lobby could not be opened or started: the service's words say why."""


async def open_game(service: GameService, user: User, options: WebPlayOptions) -> str:
    """The ref of the browser chat's game: a running one is continued, otherwise a new one is dealt with
    ``options`` (an abandoned lobby is closed first). Raises `GameRefused`."""

    async def command(name: str, words: str = "") -> list[Effect]:
        return await service.handle(
            Command(LOCAL, CHAT_ID, user, name, words, chat_title="browser", is_admin=True, private=True)
        )

    await command("settings", f"timer=0 lang={options.lang}")
    seen = await service.queries.seen(WEB_CHAT, user.id)  # an unreadable record: a new game
    if isinstance(seen.header, Playing):
        return game_ref(CHAT_ID, seen.ref_id)
    if seen.header is not None:
        await command("cancel")
    table = shown_table(await command("newgame", options.words))
    for _seat in range(options.players - 1):
        add = find_button(table, buttons.AddAi(options.ai))
        if add is None:
            raise GameRefused("this lobby has no Add AI button")
        table = shown_table(await press(service, user, add.payload)) or table
    start = find_button(table, buttons.Start())
    if start is None:
        raise GameRefused("this lobby has no Start button")
    effects = await press(service, user, start.payload)
    refusal = next((e.text for e in effects if isinstance(e, Alert) and e.text and not e.applied), None)
    if refusal:
        raise GameRefused(refusal)
    started = next((e for e in effects if isinstance(e, ShowTable)), None)
    return game_ref(CHAT_ID, started.game_id if started is not None else "")


async def press(service: GameService, user: User, payload: str) -> list[Effect]:
    effects = await service.handle(Press(LOCAL, user, payload))
    refusal = next((e.text for e in effects if isinstance(e, Alert) and e.text and e.show_alert), None)
    if refusal:
        raise GameRefused(refusal)
    return effects


def shown_table(effects: list[Effect]) -> Message | None:
    """The newest table (lobby) message among the effects."""
    return next((e.message for e in reversed(effects) if isinstance(e, ShowTable)), None)


async def nothing_to_deliver(*_args: object) -> None:
    """The page draws everything from the stored game, sent to it after each save: the service's chat
    messages have nowhere else to go in a browser game."""


async def serve_web_game(
    service: GameService,
    live: Any,
    user: User,
    options: WebPlayOptions,
    out: TextIO,
    poll: float = 0.25,
    opened: Callable[[str], None] | None = None,
) -> int:
    """Open (or continue) the game, serve the page until cancelled (Ctrl-C), beside the turn-timer loop.
    ``live``: the Redis client the page's updates come over (pub/sub), from `cli.main`."""
    try:
        ref = await open_game(service, user, options)
    except GameRefused as refused:
        out.write(f"Could not start the game: {refused}\n")
        return 2
    sessions = LocalSessions(Viewer(LOCAL, user), ref)
    front = WebFrontEnd(service, live, nothing_to_deliver, local=sessions)
    runner = web.AppRunner(front.app(), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    stop = asyncio.Event()
    timers: asyncio.Task[None] | None = None
    try:
        site = web.TCPSite(runner, HOST, options.port)
        await site.start()
        port = bound_port(runner, options.port)
        timers = asyncio.create_task(
            run_own_timers(service, stop, deliver_nothing, poll=poll, platforms=[LOCAL])
        )
        url = f"http://{HOST}:{port}/?ref={ref}#key={sessions.new_key()}"
        out.write(f"The table is open at {url}\nCtrl-C ends the server; the game is kept.\n")
        out.flush()
        if opened is not None:
            opened(url)
        elif options.browser:
            webbrowser.open(url)
        await asyncio.Event().wait()
        return 0
    finally:
        stop.set()
        if timers is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(timers, timeout=5)
        await runner.cleanup()


async def deliver_nothing(due: TimerDue, effects: list[Effect]) -> None:
    await nothing_to_deliver(due, effects)


def bound_port(runner: web.AppRunner, asked: int) -> int:
    """The port the server listens on (the free one the system picked for port 0)."""
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return asked

"""`durak-bot run` killed (SIGKILL) right after a move, with that move's table and hand edits still unsent,
then started again on the same data: the players finish the game by tapping the messages they already
have, with a turn timer and without one (``timer=0``: no deadline would ever move the game on by itself).

The bot runs as a real process (tests/scale/run_worker.py: `main(["run"])` with the embedded Redis in
DATA_DIR) against the fake Bot API in this process; the fake holds the bot's sends while the move is made,
so they are still on their way when the process dies.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import payloads
from bot.session import ChatSession, Finished, Playing
from core import Game
from storage import ChatRef
from storage.connect import client_for_url
from storage.embedded import RedisServer, find_redis_server
from storage.store import RedisGameStore
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_methods import NOT_MODIFIED, QUERY_TOO_OLD
from tests.fakes.telegram_model import Clock, FakeUser
from tests.local.cli import REPO, clean_env
from tests.scale.run_worker import SPEED

pytestmark = pytest.mark.redis_server
LOBBY_CODES = {"J", "L", "S", "C", "R", "H"}
STILL = 20.0  # seconds without a current button before the game counts as frozen


class Bot:
    """One `durak-bot run` process on ``data_dir``, its output kept in files there."""

    def __init__(self, fake: FakeTelegram, data_dir: Path, name: str, **settings: str) -> None:
        """``settings``: more environment (REDIS_URL, STOP_TIMEOUT...)."""
        env = clean_env(data_dir, TELEGRAM_TOKEN=fake.token, TELEGRAM_API_URL=fake.base_url, LOG_LEVEL="INFO")
        env |= settings
        self.log = data_dir.parent / f"{name}.log"
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.scale.run_worker"],
                cwd=data_dir.parent,
                env=env | {"PYTHONPATH": str(REPO)},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    if find_redis_server() is None:
        pytest.skip("no redis-server binary")
    server = FakeTelegram(clock=Clock(speed=SPEED))
    await server.start()
    try:
        yield server
    finally:
        await server.close()


async def polling(fake: FakeTelegram, bot: Bot, after: int) -> None:
    """Until the bot process asks for updates (it has started), or fail with its output."""
    deadline = time.monotonic() + 60
    while fake.calls["getUpdates"] <= after:
        assert bot.process.poll() is None, f"the bot exited:\n{bot.output()}"
        assert time.monotonic() < deadline, f"the bot did not start polling:\n{bot.output()}"
        await asyncio.sleep(0.05)


async def game_of(store: RedisGameStore, chat_id: int) -> tuple[int, ChatSession | None]:
    record = await store.load(ChatRef("tg", str(chat_id)))
    return record.version, ChatSession.decode(record.state) if record.state else None


def current_buttons(
    fake: FakeTelegram, players: list[FakeUser], step: int, only: set[tuple[int, int]] | None = None
) -> list[tuple[FakeUser, int, str]]:
    """(player, message id, callback data) of every move button drawn for ``step`` in players' private
    chats (``only``: in these (chat, message) pairs)."""
    found = []
    for player in players:
        for message in fake.bot_messages(player.id):
            if only is not None and (player.id, message.message_id) not in only:
                continue
            for button in message.buttons():
                data = str(button.get("callback_data", ""))
                payload = payloads.parse(data)
                if payload is not None and payload.code not in LOBBY_CODES and payload.step == step:
                    found.append((player, message.message_id, data))
    return found


def left_buttons(fake: FakeTelegram, players: list[FakeUser], game: Game) -> list[tuple[FakeUser, int, str]]:
    """The acting player's newest hand, when it was left as it was after their own press (docs/telegram.md
    §3): its move buttons that are legal now, which a tap makes as tapped (bot/game/fast_taps.py)."""
    seat = game.to_act
    if seat is None or seat >= len(players):
        return []
    player = players[seat]
    hands = [m for m in fake.bot_messages(player.id) if any(b.get("callback_data") for b in m.buttons())]
    if not hands:
        return []
    newest = max(hands, key=lambda message: message.message_id)
    legal = {action.code for action in game.legal_actions(seat)}
    return [
        (player, newest.message_id, data)
        for button in newest.buttons()
        if len(parts := (data := str(button.get("callback_data", ""))).split("|")) == 4 and parts[3] in legal
    ]


async def tap_until(
    fake: FakeTelegram,
    store: RedisGameStore,
    group: int,
    players: list[FakeUser],
    enough: int,
    rng: random.Random,
    only: set[tuple[int, int]] | None = None,
) -> list[tuple[int, int]]:
    """People tap a current move button whenever one shows, ``enough`` times (each until it is saved) or until
    the game ends; the (chat, message) pairs they tapped. Fails when no current button shows for `STILL`
    seconds."""
    tapped: list[tuple[int, int]] = []
    still_since = time.monotonic()
    while len(tapped) < enough:
        version, session = await game_of(store, group)
        assert session is not None
        if isinstance(session.header, Finished):
            break
        assert isinstance(session.header, Playing) and session.game is not None
        choices = current_buttons(fake, players, session.game.step, only)
        if not choices:
            left = left_buttons(fake, players, session.game)
            choices = [c for c in left if only is None or (c[0].id, c[1]) in only]
        if not choices:
            assert time.monotonic() - still_since < STILL, (
                f"no current button for step {session.game.step}: the game is frozen "
                f"(anywhere: {current_buttons(fake, players, session.game.step)})"
            )
            await asyncio.sleep(0.05)
            continue
        player, message_id, data = rng.choice(choices)
        query = fake.user_presses(player, message_id, player, data)
        tapped.append((player.id, message_id))
        while (await game_of(store, group))[0] == version:
            assert time.monotonic() - still_since < STILL, "a current button was not applied"
            answer = fake.callback_answers.get(query)
            if answer is not None and "Too many" in answer.text:  # faster than people tap: later, on what
                await asyncio.sleep(0.5)  # the screens show then (the hand may have been drawn meanwhile)
                tapped.pop()
                break
            if answer is not None and "out of date" in answer.text:  # a left hand's button not made as
                tapped.pop()  # tapped (bot/game/fast_taps.py): the refusal drew the hand again; tap that
                break
            await asyncio.sleep(0.02)
        else:
            still_since = time.monotonic()
    return tapped


@pytest.mark.parametrize("timer", ["timer=0", "timer=60"])
async def test_a_bot_killed_with_edits_queued_restarts_and_the_players_finish_by_their_old_messages(
    fake: FakeTelegram, tmp_path: Path, timer: str
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    fake.user_starts(ann)
    fake.user_starts(bob)
    group = fake.add_group("Club", [ann, bob], owner=ann)
    players, rng = [ann, bob], random.Random(5)
    first = Bot(fake, data_dir, "first")
    second: Bot | None = None
    client = None
    try:
        await polling(fake, first, 0)
        client = client_for_url(RedisServer(data_dir).url)
        store = RedisGameStore(client)
        fake.user_sends(group, ann, f"/newgame {timer} deck=24")
        await fake.wait_until(lambda: any("New game" in m.text for m in fake.bot_messages(group)), 20)
        lobby = next(m for m in fake.bot_messages(group) if "New game" in m.text)
        fake.press_button(group, lobby.message_id, bob, "Join")
        await fake.wait_until(lambda: "Bob" in fake.message(group, lobby.message_id).text, 20)
        fake.press_button(group, lobby.message_id, ann, "Start")
        while not isinstance((await game_of(store, group.id))[1].header, Playing):  # type: ignore[union-attr]
            await asyncio.sleep(0.02)
        await tap_until(fake, store, group.id, players, 3, rng)  # the game runs; its screens keep up
        _, session = await game_of(store, group.id)
        assert session is not None and session.game is not None
        step = session.game.step
        await fake.wait_until(lambda: current_buttons(fake, players, step) != [], STILL, "the last screens")

        fake.hold("sendMessage", "editMessageText")
        await tap_until(fake, store, group.id, players, 1, rng)  # saved: its screens are held on their way
        _, session = await game_of(store, group.id)
        assert session is not None and session.game is not None
        await fake.wait_until(lambda: fake.held_calls > 0, 20, "the move's edits to be on their way")
        await client.aclose()
        client = None
        first.kill()
        assert current_buttons(fake, players, session.game.step) == [], "its screens were never sent"
        deadline = time.monotonic() + 15
        while RedisServer(data_dir).answers():  # the embedded Redis stops with the killed bot
            assert time.monotonic() < deadline, "the embedded Redis outlived the killed bot"
            await asyncio.sleep(0.05)
        already = {(p.id, m.message_id) for p in players for m in fake.bot_messages(p.id)}
        fake.release()

        second = Bot(fake, data_dir, "second")
        await polling(fake, second, fake.calls["getUpdates"])
        client = client_for_url(RedisServer(data_dir).url)
        store = RedisGameStore(client)
        tapped = await tap_until(fake, store, group.id, players, 500, rng, only=already)
        _, session = await game_of(store, group.id)
        assert session is not None and isinstance(session.header, Finished), "the game was finished"
        assert tapped and set(tapped) <= already, "by the messages the players already had"
        # Across a kill, Telegram may refuse two things, both harmless: an update the dead process handled
        # but never confirmed comes again, and its query was answered already; and a screen the dead process
        # did deliver, whose record it did not write yet, is shown again unchanged.
        harmless = (f"Bad Request: {QUERY_TOO_OLD}", f"Bad Request: {NOT_MODIFIED}")
        refused = [r for r in fake.errors if r.status == 400 and r.description not in harmless]
        assert refused == [], refused
    finally:
        if client is not None:
            await client.aclose()
        fake.release()
        first.stop()
        if second is not None:
            second.stop()

"""Redis losing data under a live bot, against a real redis-server: a host crash that cut its append-only file
back (what `appendfsync everysec` may lose in a power cut), and a restart with no data at all (a wipe, a new
empty instance). Play resumes within 5 s of Redis answering again, with no restart of the bot, and no screen
drawn from the lost data is taken for current (docs/reliability.md, "When Redis loses data").

Seen on main: after the cut, the newest hand's every tap was "That button is out of date" and nothing was
drawn again (8 of 9 games without a turn timer never resumed); after a wipe, /newgame's lobby was dropped as
older than the lost game's screens ("table version 1 dropped, 24 already sent")."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.effects import Alert, Effect, ShowHand, ShowTable
from bot.inputs import Command, Press
from bot.session import ChatSession, Playing
from storage import ChatRef
from storage.embedded import RedisServer
from tests.scale.test_redis_faults import CHAT, bot, play_until
from tests.scale.workers import RESUME_WITHIN, move_for_person, open_games, seconds_until_a_move

pytestmark = pytest.mark.redis_server


def aof_file(server: RedisServer) -> Path:
    """The file Redis appends to: ``appendonly.aof`` (Redis 6), or the newest incremental file of
    ``appendonlydir`` (Redis 7)."""
    single = server.data_dir / "appendonly.aof"
    if single.exists():
        return single
    parts = sorted(
        (server.data_dir / "appendonlydir").glob("*.incr.aof"), key=lambda path: path.stat().st_mtime
    )
    assert parts, f"no append-only file in {server.data_dir}"
    return parts[-1]


def newest_buttons(effects: list[Effect], user_id: str) -> list[str]:
    """The move buttons of the newest hand ``user_id`` was sent among ``effects``."""
    hands = [e for e in effects if isinstance(e, ShowHand) and e.user_id == user_id]
    for hand in reversed(hands):
        found = [b.payload for row in hand.message.buttons for b in row if b.payload.count("|") == 3]
        if found:
            return found
    return []


async def test_a_host_crash_that_cut_the_aof_back_leaves_no_screen_ahead_and_play_resumes(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    server = redis_server_factory("cut", fsync="always")  # each write whole in the file: a cut at a command
    async with bot(server) as (service, _, _):
        (person,) = await open_games(service, [CHAT])
        kept_at = await play_until(service, person, 6, their_turn=True)
        assert isinstance(kept_at.header, Playing) and kept_at.game is not None
        kept_size = aof_file(server).stat().st_size
        seen: list[Effect] = []
        while True:  # the moves the crash will lose, and the person's newest hand drawn from them
            done, _moved = await move_for_person(service, CHAT, person)
            record = await service.store.load(ChatRef("tg", CHAT))
            session = ChatSession.decode(record.state or "")
            assert not done and session.game is not None, "the game ended before the crash"
            if session.game.step >= kept_at.game.step + 3:
                seen += await service.handle(Press("tg", person, f"{CHAT}|{session.header.game_id}|0|H"))  # type: ignore[union-attr]
                if newest_buttons(seen, person.id):
                    break
        lost = newest_buttons(seen, person.id)
        server.kill()
        with aof_file(server).open("r+b") as aof:
            aof.truncate(kept_size)  # what the disk had when the host went down
        server.start()
        effects = await service.handle(Press("tg", person, lost[0]))
        stored = ChatSession.decode((await service.store.load(ChatRef("tg", CHAT))).state or "")
        took = await seconds_until_a_move(service, CHAT, person)
    assert stored.game is not None and stored.game.step == kept_at.game.step, "the store went back"
    assert any(isinstance(e, Alert) and "went back" in e.text for e in effects)
    assert any(isinstance(e, ShowTable) for e in effects) and any(isinstance(e, ShowHand) for e in effects)
    assert took < RESUME_WITHIN, f"resumed after {took:.1f} s"


async def test_a_redis_restarted_empty_takes_a_new_game_at_once_and_old_buttons_say_the_game_was_lost(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    server = redis_server_factory("wipe")
    async with bot(server) as (service, _, _):
        (person,) = await open_games(service, [CHAT])
        session = await play_until(service, person, 6, their_turn=True)
        assert isinstance(session.header, Playing) and session.game is not None
        old_version = (await service.store.load(ChatRef("tg", CHAT))).version
        old_button = f"{CHAT}|{session.header.game_id}|{session.game.step}|p"
        server.stop()
        for path in server.data_dir.iterdir():  # a new, empty instance in its place
            if path.suffix == ".aof" or path.name == "appendonlydir":
                path.unlink() if path.is_file() else [p.unlink() for p in path.iterdir()]
        server.start()
        begin = time.monotonic()
        refused = await service.handle(Press("tg", person, old_button))
        opened = await service.handle(Command("tg", CHAT, person, "newgame", "", chat_title="Fault"))
        took = time.monotonic() - begin
    assert any(isinstance(e, Alert) and "lost" in e.text for e in refused), refused
    lobby = next(e for e in opened if isinstance(e, ShowTable))
    assert lobby.version > old_version, "newer than every screen of the lost game: no adapter drops it"
    assert took < RESUME_WITHIN

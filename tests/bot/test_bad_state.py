"""A stored chat the bot cannot read never locks the chat: it is set aside, the chat is told, commands work.

Covers states that do not decode (garbage, broken JSON, a header pydantic refuses, a record written by a newer
release), chat defaults this release cannot parse, and the stored shape of today's release, which must keep
loading after any change to the formats.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

import pytest

from adapters.local.screen import Screen
from adapters.local.terminal import LOCAL_CHAT, TerminalGame
from bot.effects import Alert, Effect, Reply, ShowTable
from bot.i18n import translator
from bot.inputs import TimerDue
from bot.session import ChatSession, Playing
from storage import ChatRef
from storage import keys as k
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import CHAT, Harness, buttons

CHAT_REF = ChatRef("tg", CHAT)
SET_ASIDE = "The game in this chat could not be restored, so it was set aside. Start a new one with /newgame."
QUARANTINE_DAYS = 7

# A two-player game mid-way (step 15, Ann to defend), exactly as the release with session format 1 and game
# format 1 stored it. It must keep loading, and playing to the end, whatever the formats become.
GAME_FORMAT_1 = (Path(__file__).parent / "stored" / "game_format_1.txt").read_text().rstrip("\n")
GAME_FORMAT_1_VERSION = 18
HEADER_1, GAME_1 = GAME_FORMAT_1.split("\n")

UNREADABLE: dict[str, str | bytes] = {
    "garbage bytes": b"\x80\xff\x00\x13 not text at all",
    "broken JSON": '{"kind":"game","game_id":',
    "a header pydantic refuses": '{"kind":"lobby","lobby_id":"g1"}',
    "a game of a newer game format": HEADER_1 + "\n" + GAME_1.replace('{"format":1,', '{"format":2,', 1),
    "a session of a newer session format": '{"format":2,' + HEADER_1[1:] + "\n" + GAME_1,
    "a lobby whose rules this release refuses": (
        '{"kind":"lobby","lobby_id":"g1","creator":"1","words":"timer=900",'
        '"seats":[{"user_id":"1","name":"Ann"}],"created_at":1000000.0}'
    ),
}


async def store_raw(harness: Harness, state: str | bytes, version: int = GAME_FORMAT_1_VERSION) -> None:
    """Put a state in the chat's record as another release (or a broken disk) would have left it."""
    redis = harness.store.redis
    await redis.set(k.version_key(CHAT_REF), version)
    await redis.set(k.state_key(CHAT_REF), state, ex=3600)


def replies(effects: list[Effect]) -> list[str]:
    """What the chat is told (the creator's private "your lobby is open" aside)."""
    return [e.message.plain_text for e in effects if isinstance(e, Reply) and not e.private]


@pytest.mark.parametrize("state", UNREADABLE.values(), ids=list(UNREADABLE))
async def test_an_unreadable_state_is_set_aside_and_newgame_opens_a_lobby_at_once(
    harness: Harness, state: str | bytes
) -> None:
    await store_raw(harness, state)
    effects = await harness.command(ANN, "newgame")
    assert replies(effects) == [SET_ASIDE]
    tables = [e for e in effects if isinstance(e, ShowTable)]
    assert tables and "Join" in [b.label for b in buttons(tables[-1].message)]
    record = await harness.store.load(CHAT_REF)
    assert record.version > GAME_FORMAT_1_VERSION
    assert record.state is not None and ChatSession.decode(record.state).header.kind == "lobby"


@pytest.mark.parametrize("state", UNREADABLE.values(), ids=list(UNREADABLE))
async def test_the_unreadable_state_is_kept_aside_for_seven_days_byte_for_byte(
    harness: Harness, state: str | bytes
) -> None:
    await store_raw(harness, state)
    await harness.command(ANN, "rules")
    aside = k.quarantine_key(CHAT_REF, GAME_FORMAT_1_VERSION)
    kept = await harness.store.redis.execute_command("GET", aside, NEVER_DECODE=True)  # the bytes
    assert kept == (state if isinstance(state, bytes) else state.encode())
    ttl = await harness.store.redis.ttl(aside)
    assert QUARANTINE_DAYS * 86400 - 60 <= ttl <= QUARANTINE_DAYS * 86400


@pytest.mark.parametrize("name", ["newgame", "cancel", "leave", "rules", "join", "start", "hint"])
async def test_every_command_answers_at_once_on_an_unreadable_game(harness: Harness, name: str) -> None:
    await store_raw(harness, UNREADABLE["a game of a newer game format"])
    effects = await harness.command(ANN, name, is_admin=True)
    assert replies(effects)[0] == SET_ASIDE
    assert len(effects) >= 2, "the command itself is answered too"
    again = await harness.command(BOB, name)
    assert again and SET_ASIDE not in replies(again), "the chat is told once"


async def test_a_press_on_an_unreadable_game_tells_the_chat_and_answers_the_presser(harness: Harness) -> None:
    await store_raw(harness, UNREADABLE["a game of a newer game format"])
    effects = await harness.press(ANN, f"{CHAT}|g2|15|t")
    assert replies(effects) == [SET_ASIDE]
    assert [e.text for e in effects if isinstance(e, Alert)] == [
        "This button belongs to a game that is over."
    ]


async def test_a_deadline_on_an_unreadable_game_sets_it_aside_and_tells_the_chat(harness: Harness) -> None:
    await store_raw(harness, b"\xfe\xfe")
    effects = await harness.service.handle(TimerDue("tg", CHAT, GAME_FORMAT_1_VERSION))
    assert replies(effects) == [SET_ASIDE]
    assert (await harness.store.load(CHAT_REF)).state is None


async def test_setting_a_state_aside_is_logged_once_with_the_chat_and_the_reason(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    await store_raw(harness, UNREADABLE["a game of a newer game format"])
    with caplog.at_level(logging.WARNING, logger="durak"):
        await harness.command(ANN, "rules")
        await harness.command(ANN, "rules")
        await harness.command(BOB, "newgame")
    lines = [r.getMessage() for r in caplog.records if "set aside" in r.getMessage()]
    assert len(lines) == 1, lines
    assert "tg:-100" in lines[0] and "unknown game format 2" in lines[0]
    assert "Ann" not in lines[0], "the reason, not the record"


async def press_the_first_legal_move(harness: Harness) -> bool:
    """The seat to act presses its first legal move, as its hand's button would; False once the game is over."""
    record = await harness.store.load(CHAT_REF)
    session = ChatSession.decode(record.state or "")
    if not isinstance(session.header, Playing) or session.game is None:
        return False
    game, header = session.game, session.header
    person = (ANN, BOB)[game.to_act or 0]
    action = game.legal_actions(game.to_act or 0)[0]
    await harness.press(person, f"{CHAT}|{header.game_id}|{game.step}|{action.code}")
    assert (await harness.store.load(CHAT_REF)).version == record.version + 1, "every press is applied"
    return True


async def test_a_game_stored_in_format_1_loads_and_plays_to_the_end(harness: Harness) -> None:
    await store_raw(harness, GAME_FORMAT_1)
    moves = 0
    while await press_the_first_legal_move(harness):
        moves += 1
        assert moves < 500, "the game ends"
    assert moves > 0 and SET_ASIDE not in [m.plain_text for m in harness.screen.replies]
    assert "Game over" in harness.screen.notices[-1].plain_text
    assert await harness.store.archived_game("g2") is not None


async def test_a_game_stored_in_format_1_decodes_to_the_game_it_was(harness: Harness) -> None:
    session = ChatSession.decode(GAME_FORMAT_1)
    assert isinstance(session.header, Playing) and session.game is not None
    assert (session.game.step, session.game.to_act, session.game.settings.deck) == (15, 0, 24)
    assert [s.name for s in session.header.seats] == ["Ann", "Bob"]


async def test_chat_defaults_that_no_longer_parse_are_dropped_word_by_word(harness: Harness) -> None:
    await harness.store.redis.hset(k.meta_key(CHAT_REF), "words", "transfer timer=900 deck=24 bogus")
    effects = await harness.command(ANN, "newgame")
    (notice,) = [text for text in replies(effects) if "dropped" in text]
    assert "timer=900" in notice and "bogus" in notice and "transfer" not in notice
    assert (await harness.store.load(CHAT_REF)).settings == "transfer deck=24"
    await harness.command(ANN, "rules")
    rules = harness.screen.replies[-1].plain_text
    assert "ransfer" in rules and "24" in rules
    await harness.command(ANN, "cancel")
    again = await harness.command(ANN, "newgame")
    assert not [text for text in replies(again) if "dropped" in text], "dropped once, for good"


async def test_settings_replaces_chat_defaults_that_no_longer_parse(harness: Harness) -> None:
    await harness.store.redis.hset(k.meta_key(CHAT_REF), "words", "timer=900")
    effects = await harness.command(ANN, "settings", "timer=30", is_admin=True)
    assert replies(effects)[-1] == "Saved."
    assert (await harness.store.load(CHAT_REF)).settings == "timer=30"
    await harness.command(ANN, "newgame")
    assert "Join" in [b.label for b in buttons(harness.screen.table)]


async def test_the_terminal_coming_back_to_an_unreadable_game_sets_it_aside_instead_of_crashing(
    harness: Harness,
) -> None:
    redis = harness.store.redis
    await redis.set(k.version_key(LOCAL_CHAT), GAME_FORMAT_1_VERSION)
    await redis.set(k.state_key(LOCAL_CHAT), UNREADABLE["a game of a newer game format"])
    reader: Any = None  # never asked: there is no game to offer
    screen = Screen(io.StringIO(), ANN.id, translator("en"))
    terminal = TerminalGame(harness.service, screen, reader, ANN)
    assert await terminal.resume_or_clear() is False
    assert (await harness.store.load(LOCAL_CHAT)).state is None
    assert await redis.exists(k.quarantine_key(LOCAL_CHAT, GAME_FORMAT_1_VERSION))

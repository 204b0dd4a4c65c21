"""Screens never go backwards: each table and hand carries the chat version it shows (stamped by the service
after its save), and `ShownVersions` drops one older than a screen already on its way."""

from __future__ import annotations

import asyncio
import io

import pytest

from adapters.local import CHAT_ID
from adapters.local.screen import Screen
from bot.effects import Effect, ShowHand, ShownVersions, ShowTable
from bot.i18n import translator
from bot.inputs import Press
from bot.render.text import line, message
from storage import ChatRef
from storage.models import ChatRecord
from tests.bot.conftest import ANN, BOB, CAT
from tests.bot.harness import Harness, button, buttons
from tests.bot.test_play import start, whose_turn

PLAYERS = (ANN, BOB)


def screens(effects: list[Effect]) -> list[ShowTable | ShowHand]:
    return [e for e in effects if isinstance(e, ShowTable | ShowHand)]


async def move(harness: Harness) -> list[Effect]:
    """The player to act taps their first move button."""
    user = whose_turn(harness, PLAYERS)
    assert user is not None
    return await harness.press(user, buttons(harness.screen.hands[user.id])[0].payload)


def table(version: int, game_id: str = "g1", text: str = "") -> ShowTable:
    return ShowTable("-1", message([line(text or f"table {version}")]), game_id, version=version)


def hand(version: int, user_id: str = "7", game_id: str = "g1") -> ShowHand:
    return ShowHand("-1", user_id, message([line(f"hand {version}")]), game_id, version=version)


# ---- the service stamps them ------------------------------------------------------------------------


async def test_every_table_and_hand_carries_the_version_its_save_stored(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    assert [s.version for s in screens(harness.last)] == [await harness.version()]
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    started = screens(harness.last)
    assert len(started) == 3 and {s.version for s in started} == {await harness.version()}
    for _ in range(4):
        moved = screens(await move(harness))
        assert moved and {s.version for s in moved} == {await harness.version()}


async def test_a_join_decided_again_after_a_conflict_carries_the_version_that_was_saved(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await harness.command(ANN, "newgame")
    join = button(harness.screen.table, "Join").payload
    store, load, loaded = harness.service.store, harness.service.store.load, []

    async def load_together(chat: ChatRef) -> ChatRecord:
        """Both joins read the lobby before either saves: the second save conflicts."""
        record = await load(chat)
        loaded.append(record.version)
        async with asyncio.timeout(5):
            while len(loaded) < 2:
                await asyncio.sleep(0.001)
        return record

    monkeypatch.setattr(store, "load", load_together)
    both = await asyncio.gather(
        harness.service.handle(Press("tg", BOB, join)), harness.service.handle(Press("tg", CAT, join))
    )
    assert loaded == [1, 1], "both decided on version 1; one of them was decided again on version 2"
    assert sorted(s.version for effects in both for s in screens(effects)) == [2, 3]
    assert await harness.version() == 3


async def test_my_hand_saves_nothing_and_carries_the_version_it_shows(harness: Harness) -> None:
    await start(harness)
    await move(harness)
    version = await harness.version()
    (shown,) = screens(await harness.tap(BOB, "My hand"))
    assert isinstance(shown, ShowHand) and shown.version == version == await harness.version()


# ---- adapters drop the older ------------------------------------------------------------------------


def test_a_table_older_than_one_shown_is_dropped() -> None:
    shown = ShownVersions()
    assert shown.fresh(table(6)) and not shown.fresh(table(5))
    assert shown.fresh(table(7))


def test_a_hand_older_than_that_players_newest_is_dropped_and_other_hands_are_not() -> None:
    shown = ShownVersions()
    assert shown.fresh(hand(6, "7")) and not shown.fresh(hand(5, "7"))
    assert shown.fresh(hand(5, "8")) and shown.fresh(table(4)), "each hand and the table count apart"


def test_an_equal_version_is_shown_again() -> None:
    shown = ShownVersions()
    assert shown.fresh(hand(6)) and shown.fresh(hand(6)), "a 'My hand' press re-sends the current hand"


def test_a_screen_of_unknown_version_is_never_dropped() -> None:
    shown = ShownVersions()
    assert shown.fresh(table(9)) and shown.fresh(table(0))
    assert not shown.fresh(table(8)), "and it does not make the newest known version forgotten"


def test_a_lobby_table_that_arrives_after_its_games_first_table_is_dropped() -> None:
    shown = ShownVersions()
    assert shown.fresh(table(3, "lobby1")) and shown.fresh(table(4, "game1"))
    assert not shown.fresh(table(3, "lobby1"))


def test_a_closed_table_older_than_the_next_lobby_is_dropped() -> None:
    shown = ShownVersions()
    assert shown.fresh(table(8, "lobby2"))
    assert not shown.fresh(table(7, "", "The game was cancelled."))


def test_a_new_games_lower_versions_are_shown_after_the_store_counted_again() -> None:
    shown = ShownVersions()
    assert shown.fresh(table(40, "game1")) and shown.fresh(hand(40, "7", "game1"))
    assert shown.fresh(table(1, "lobby9")) and shown.fresh(table(2, "game9"))
    assert shown.fresh(hand(2, "7", "game9"))
    assert not shown.fresh(table(1, "lobby9")), "the new count is compared from then on"


def test_the_memory_of_shown_versions_is_bounded() -> None:
    shown = ShownVersions(size=3)
    for chat in range(10):
        assert shown.fresh(ShowTable(str(chat), message([line("t")]), "g", version=5))
    assert len(shown.newest) == 3 and ("9", "") in shown.newest and ("0", "") not in shown.newest


def test_the_terminal_keeps_the_newer_table_and_hand_when_the_older_come_last() -> None:
    """Your press and the AIs' timer moves are handled at the same time in `durak-bot play`."""
    screen = Screen(io.StringIO(), "1", translator("en"))

    def move(version: int) -> list[Effect]:
        shown = message([line(f"table {version}")])
        return [
            ShowTable(CHAT_ID, shown, "g1", version=version),
            ShowHand(CHAT_ID, "1", message([line(f"hand {version}")]), "g1", version=version),
        ]

    screen.take(move(6))
    screen.take(move(5))
    assert screen.table is not None and screen.table.plain_text == "table 6"
    assert screen.hand is not None and screen.hand.plain_text == "hand 6"

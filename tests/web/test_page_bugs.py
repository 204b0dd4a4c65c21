"""The page's server side of two bugs (issue 27, point 5): someone not seated who opened a lobby's link is
told the game started and offered to watch it, not that it is gone; and a stale press from the page gives
the chat nothing to show its presser (their page is their hand: the chat's hand stays paused)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.effects import ShowHand
from bot.i18n import translator
from bot.inputs import User
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import first_moves_to_the_end, press_move, stacked_game
from tests.web.pages import (
    ANN,
    BOB,
    EVE,
    auth,
    current_ref,
    front_end,
    next_state,
    open_page,
    press,
    served,
    state_of,
)

HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis))


async def lobby_of_ann_and_bob(harness: Harness) -> str:
    """Ann's lobby with Bob seated, not started yet; its ref (the lobby's "Open table" link)."""
    await harness.command(ANN, "newgame", "deck=24")
    await harness.tap(BOB, "Join")
    return await current_ref(harness)


def started_text(lang: str) -> str:
    return translator(lang)._("The game has started without you. You can watch it.")


async def test_someone_not_seated_with_the_lobbys_link_is_told_the_game_started_and_offered_to_watch(
    harness: Harness, fake_redis: Any
) -> None:
    lobby = await lobby_of_ann_and_bob(harness)
    await harness.tap(ANN, "Start")
    game = await current_ref(harness)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        offer = await state_of(client, EVE, lobby)
        watching = await state_of(client, EVE, offer["watch"])
    assert offer["phase"] == "started" and offer["watch"] == game
    assert offer["status"] == started_text("en")
    assert offer["you"] is None and offer["hand"] == [] and offer["table"] == [] and offer["actions"] == []
    assert watching["phase"] == "play" and watching["you"] is None and watching["hand"] == []


async def test_the_watch_offer_speaks_the_viewers_language(harness: Harness, fake_redis: Any) -> None:
    lobby = await lobby_of_ann_and_bob(harness)
    await harness.tap(ANN, "Start")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        offer = await state_of(client, User(EVE.id, EVE.name, "ru"), lobby)
    assert offer["lang"] == "ru" and offer["status"] == started_text("ru")


async def test_a_lobby_page_of_someone_not_seated_becomes_the_watch_offer_when_the_game_starts(
    harness: Harness, fake_redis: Any
) -> None:
    lobby = await lobby_of_ann_and_bob(harness)
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        page = await open_page(client, EVE, lobby)
        assert (await next_state(page))["phase"] == "lobby"
        await harness.tap(ANN, "Start")
        offer = await next_state(page)
        await page.close()
    assert offer["phase"] == "started" and offer["watch"] == await current_ref(harness)


async def test_the_players_of_a_game_started_from_the_lobbys_link_still_get_their_own_table(
    harness: Harness, fake_redis: Any
) -> None:
    lobby = await lobby_of_ann_and_bob(harness)
    await harness.tap(ANN, "Start")
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        bob = await state_of(client, BOB, lobby)
    assert bob["phase"] == "play" and bob["you"] == 1 and len(bob["hand"]) == 6


async def test_a_ref_to_an_older_game_is_still_not_here_for_someone_not_seated(
    harness: Harness, fake_redis: Any
) -> None:
    """Only the lobby the running game started from leads to it: an older game's ref says that game is
    gone, as before."""
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    older = await current_ref(harness)
    await first_moves_to_the_end(harness, (ANN, BOB))
    await lobby_of_ann_and_bob(harness)
    await harness.tap(ANN, "Start")
    assert await current_ref(harness) != older
    front, _ = front_end(harness, fake_redis)
    async with served(front) as client:
        answer = await client.get("/api/state", params={"ref": older}, headers={"Authorization": auth(EVE)})
    assert answer.status == 404


async def test_a_stale_press_from_the_page_gives_the_chat_no_hand_of_its_presser(
    harness: Harness, fake_redis: Any
) -> None:
    """The same person on a second device, or the turn timer, moved the game between drawing and tapping:
    the refusal shows on the page, and the presser's chat hand stays paused (nothing to send or edit)."""
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    front, delivered = front_end(harness, fake_redis)
    async with served(front) as client:
        state = await state_of(client, ANN, await current_ref(harness))
        move = next(action for action in state["actions"] if action.get("card") == "6S")
        assert (await press(client, ANN, move["payload"]))["ok"]
        delivered.calls.clear()
        stale = await press(client, ANN, move["payload"])  # the same tap again, from the other device
    assert not stale["ok"] and stale["reason"] == "That button is out of date: use the newest message."
    sent = [effect for _platform, _chat, effects in delivered.calls for effect in effects]
    assert not [effect for effect in sent if isinstance(effect, ShowHand) and effect.user_id == ANN.id]


async def test_a_stale_press_from_the_chat_still_shows_its_presser_the_current_hand(
    harness: Harness, fake_redis: Any
) -> None:
    """A button of the chat's own hand message is read in the chat: its refusal draws that hand again."""
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    await press_move(harness, ANN, "a:6S")
    await press_move(harness, ANN, "a:7S", drawn_at=0)
    hands = [effect for effect in harness.last if isinstance(effect, ShowHand)]
    assert [hand.user_id for hand in hands] == [ANN.id]

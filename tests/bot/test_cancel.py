"""`/cancel` during a game by an admin who is not playing (a player of a game between people surrenders
by cancelling it: tests/bot/test_rating_farming.py): the chat is told who stopped it, in one message, and no
hand keeps a live button."""

from __future__ import annotations

import pytest

from bot.decision import GAME_TTL
from bot.effects import Notice, ShowHand
from bot.inputs import User
from bot.session import ChatSession
from storage import ChatRef
from tests.bot.conftest import ANN, BOB, CAT, EVE
from tests.bot.harness import Harness, buttons
from tests.bot.stacked import press_move, stacked_game

HANDS = ["6S 7S 8S 9S TS JS", "6C 7C 8C 9C TC JC", "6D 7D 8D 9D TD JD"]
CANCELLED_BY = {
    "en": "Eve cancelled the game.",
    "ru": "Eve отменяет игру.",
    "it": "Eve ha annullato la partita.",
}
HAND_CLOSED = {
    "en": "The game was cancelled.",
    "ru": "Игра отменена.",
    "it": "La partita è stata annullata.",
}


def speaking(user: User, lang: str) -> User:
    return User(user.id, user.name, lang)


async def chat_speaks(harness: Harness, lang: str) -> None:
    """The running game's chat language becomes ``lang`` (as if its lobby had been opened in it)."""
    chat = ChatRef(harness.platform, harness.chat)
    record = await harness.store.load(chat)
    assert record.state is not None
    session = ChatSession.decode(record.state)
    header = session.header.model_copy(update={"lang": lang})
    state = ChatSession(header=header, game=session.game).encode()
    assert await harness.store.save(chat, record.version, state, ttl=GAME_TTL, running=True) is not None


@pytest.mark.parametrize("lang", list(CANCELLED_BY))
async def test_cancel_during_a_game_names_who_cancelled_in_one_notice(harness: Harness, lang: str) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await chat_speaks(harness, lang)
    effects = await harness.command(EVE, "cancel", is_admin=True)
    notices = [e for e in effects if isinstance(e, Notice)]
    assert [n.message.plain_text for n in notices] == [CANCELLED_BY[lang]]
    assert harness.screen.table is not None and not buttons(harness.screen.table)


@pytest.mark.parametrize("lang", list(HAND_CLOSED))
async def test_cancel_closes_every_hand_in_its_players_language(harness: Harness, lang: str) -> None:
    bob, cat = speaking(BOB, lang), speaking(CAT, "en")
    await stacked_game(harness, (ANN, bob, cat), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6S")
    assert buttons(harness.screen.hands[BOB.id]), "Bob defends: his hand has moves"
    effects = await harness.command(EVE, "cancel", is_admin=True)
    closed = {e.user_id: e.message for e in effects if isinstance(e, ShowHand)}
    assert set(closed) == {ANN.id, BOB.id, CAT.id}
    assert all(not buttons(hand) for hand in closed.values())
    assert closed[BOB.id].plain_text == HAND_CLOSED[lang]
    assert closed[CAT.id].plain_text == HAND_CLOSED["en"]


async def test_an_admin_who_is_not_playing_is_named_when_they_cancel(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS[:2], trump="AS")
    await harness.command(EVE, "cancel", is_admin=True)
    assert harness.screen.notices[-1].plain_text == "Eve cancelled the game."


async def test_a_move_pressed_on_a_hand_from_before_the_cancel_changes_nothing(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS[:2], trump="AS")
    await press_move(harness, ANN, "a:6S")
    old_move = buttons(harness.screen.hands[BOB.id])[0].payload
    await harness.command(EVE, "cancel", is_admin=True)
    version = await harness.version()
    await harness.press(BOB, old_move)
    assert await harness.version() == version and len(harness.screen.notices) == 1


async def test_only_the_creator_or_an_admin_may_cancel_a_game(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS[:2], trump="AS")
    version = await harness.version()
    await harness.command(BOB, "cancel")
    assert await harness.version() == version and not harness.screen.notices

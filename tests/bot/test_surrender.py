"""rules.md §7.7 through the service: `/leave` during a game asks first, a button that holds for 30 seconds
confirms, and the players still in are placed by the cards they hold and scored by those places."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.effects import Effect, Reply
from bot.inputs import User
from bot.payloads import parse
from storage import ChatRef
from tests.bot.conftest import ANN, BOB, CAT
from tests.bot.harness import Harness, buttons
from tests.bot.stacked import press_move, stacked_game

DAN = User("4", "Dan")
# one suit each, spades trumps (A♠ turned up): Ann opens against Bob
FOUR_SUITS = ["6S 7S 8S 9S TS JS", "6C 7C 8C 9C TC JC", "6D 7D 8D 9D TD JD", "6H 7H 8H 9H TH JH"]
CONFIRM_LABELS = {"en": "Yes, surrender", "ru": "Да, сдаюсь", "it": "Sì, mi arrendo"}


def speaking(user: User, lang: str) -> User:
    return User(user.id, user.name, lang)


def question(effects: list[Effect]) -> Reply:
    replies = [e for e in effects if isinstance(e, Reply)]
    assert len(replies) == 1, replies
    return replies[0]


def result_of(harness: Harness) -> str:
    return harness.screen.notices[-1].plain_text


async def points(harness: Harness) -> dict[str, int]:
    rows = await harness.store.stats(ChatRef(harness.platform, harness.chat))
    return {row.name: row.points for row in rows}


@pytest.mark.parametrize("lang", list(CONFIRM_LABELS))
async def test_leave_during_a_game_asks_the_leaver_privately_and_changes_nothing(
    harness: Harness, lang: str
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    version = await harness.version()
    asked = question(await harness.command(speaking(BOB, lang), "leave"))
    assert (asked.private, asked.user_id) == (True, BOB.id)
    assert [b.label for b in buttons(asked.message)] == [CONFIRM_LABELS[lang]]
    assert "30" in asked.message.plain_text
    assert await harness.version() == version
    assert not harness.screen.notices


async def test_the_confirmation_goes_to_the_group_when_the_leavers_private_chat_is_closed(
    harness: Harness,
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    await harness.service.private_chat(ChatRef(harness.platform, harness.chat), BOB.id, is_open=False)
    asked = question(await harness.command(BOB, "leave"))
    assert not asked.private and "Bob" in asked.message.plain_text


async def test_confirming_ends_the_game_with_the_leaver_as_the_durak(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    await harness.surrender(BOB)
    assert "Bob surrendered and is the durak" in result_of(harness)


async def test_three_players_one_surrenders_the_other_two_are_placed_fewest_cards_first(
    harness: Harness,
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    await press_move(harness, ANN, "a:6S")  # Ann holds 5 cards, Cat 6
    await harness.surrender(BOB)
    placed = [x for x in result_of(harness).splitlines()[1:] if x[:1].isdigit()]
    assert len(placed) == 3 and "Ann" in placed[0] and "Cat" in placed[1], placed
    assert "Bob, the durak" in placed[2], "the durak is placed last"
    assert await points(harness) == {"Ann": 3, "Bob": 0, "Cat": 2}


async def test_four_players_one_surrenders_fewest_cards_first_then_seat_order_from_the_attacker(
    harness: Harness,
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT, DAN), FOUR_SUITS, trump="AS")
    await press_move(harness, ANN, "a:6S")
    await press_move(harness, BOB, "t")
    await press_move(harness, CAT, "a:6D")  # thrown in: Ann and Cat hold 5 cards, Bob (taking) 6
    await harness.surrender(DAN)
    placed = [x for x in result_of(harness).splitlines()[1:] if x[:1].isdigit()]
    assert "placed by how many they held, fewest first" in result_of(harness)
    assert len(placed) == 4, placed
    assert "Ann" in placed[0] and "Cat" in placed[1] and "Bob" in placed[2], placed
    assert "Dan, the durak" in placed[3], placed
    assert await points(harness) == {"Ann": 3, "Bob": 1, "Cat": 2, "Dan": 0}


async def test_the_first_placed_counts_as_first_out(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    await press_move(harness, ANN, "a:6S")
    await harness.surrender(CAT)
    rows = await harness.store.stats(ChatRef(harness.platform, harness.chat))
    assert {row.name: (row.first_out, row.durak) for row in rows} == {
        "Ann": (1, 0),
        "Bob": (0, 0),
        "Cat": (0, 1),
    }


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "This confirmation has expired: send /leave again if you still want to surrender."),
        ("ru", "Подтверждение устарело: отправьте /leave ещё раз, если всё ещё хотите сдаться."),
        ("it", "Questa conferma è scaduta: invia di nuovo /leave se vuoi ancora arrenderti."),
    ],
)
async def test_a_confirmation_pressed_after_30_seconds_is_refused_and_the_game_goes_on(
    harness: Harness, lang: str, text: str
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    asked = question(await harness.command(BOB, "leave"))
    harness.clock += 31
    version = await harness.version()
    await harness.press(speaking(BOB, lang), buttons(asked.message)[0].payload)
    assert harness.screen.alerts[-1].text == text
    assert await harness.version() == version and not harness.screen.notices


async def test_a_confirmation_pressed_within_30_seconds_holds_even_after_other_moves(
    harness: Harness,
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    asked = question(await harness.command(CAT, "leave"))
    harness.clock += 29
    await press_move(harness, ANN, "a:6S")
    await harness.press(CAT, buttons(asked.message)[0].payload)
    assert "Cat surrendered" in result_of(harness)


async def test_a_confirmation_from_a_game_that_ended_is_refused(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    asked = question(await harness.command(CAT, "leave"))
    await harness.surrender(BOB)
    await harness.press(CAT, buttons(asked.message)[0].payload)
    assert "over" in harness.screen.alerts[-1].text
    assert "Bob surrendered" in result_of(harness) and len(harness.screen.notices) == 1


async def test_a_confirmation_from_an_earlier_game_is_refused_in_the_next_one(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB), FOUR_SUITS[:2], trump="AS")
    asked = question(await harness.command(BOB, "leave"))
    await harness.surrender(ANN)
    await harness.press(BOB, buttons(harness.screen.notices[-1])[0].payload)  # Rematch
    await harness.tap(BOB, "Start")
    version = await harness.version()
    await harness.press(BOB, buttons(asked.message)[0].payload)
    assert harness.screen.alerts[-1].text == "That game is over: there is nothing to surrender."
    assert await harness.version() == version


async def test_someone_else_pressing_the_confirmation_surrenders_nobody(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    asked = question(await harness.command(BOB, "leave"))
    version = await harness.version()
    await harness.press(CAT, buttons(asked.message)[0].payload)
    assert harness.screen.alerts[-1].text == "Only Bob can confirm this surrender."
    assert await harness.version() == version and not harness.screen.notices


async def test_a_confirmation_for_a_step_never_drawn_is_refused(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    asked = question(await harness.command(ANN, "leave"))
    forged = parse(buttons(asked.message)[0].payload)
    assert forged is not None
    from_the_future = replace(forged, step=forged.step + 5)
    await harness.press(ANN, from_the_future.encode())
    assert harness.screen.alerts[-1].text == "That button is not valid."
    assert not harness.screen.notices


async def test_a_second_leave_after_the_first_asks_again(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), FOUR_SUITS[:3], trump="AS")
    first = question(await harness.command(BOB, "leave"))
    harness.clock += 40
    second = question(await harness.command(BOB, "leave"))
    await harness.press(BOB, buttons(second.message)[0].payload)
    assert buttons(first.message)[0].payload != buttons(second.message)[0].payload
    assert "Bob surrendered" in result_of(harness)

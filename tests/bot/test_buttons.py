"""Buttons as types (bot/buttons.py): each code read once into what was pressed, each press answered once."""

from __future__ import annotations

import pytest

from bot import buttons
from bot.buttons import (
    AddAi,
    Cancel,
    ConfirmSurrender,
    Join,
    Leave,
    Move,
    OpenHand,
    PickTeam,
    Rematch,
    RemoveAi,
    RemoveSeat,
    Replay,
    Start,
)
from bot.effects import Alert
from bot.payloads import MAX_PAYLOAD_BYTES, Payload, parse
from core import Action
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import Harness
from tests.bot.stacked import game_now, press_move, stacked_game

EVERY_KIND = [
    Join(),
    Leave(),
    Start(),
    Cancel(),
    AddAi("easy"),
    AddAi("hard"),
    RemoveAi(),
    PickTeam(0),
    PickTeam(1),
    RemoveSeat(5),
    OpenHand(),
    Rematch(),
    Replay(),
    ConfirmSurrender(2, 36**3),
    Move(Action.parse("a:6S")),
    Move(Action.parse("c:5:TH")),
    Move(Action.parse("x:AD")),
    Move(Action.parse("t")),
    Move(Action.parse("p")),
    Move(Action.parse("e")),
]
HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]


@pytest.mark.parametrize("button", EVERY_KIND, ids=buttons.code)
def test_every_button_reads_back_as_itself_from_its_code(button: buttons.Button) -> None:
    assert buttons.parse(buttons.code(button)) == button
    longest = Payload("-" + "9" * 23, "z" * 12, 999999, button).encode()
    assert len(longest.encode()) <= MAX_PAYLOAD_BYTES and parse(longest) == Payload(
        "-" + "9" * 23, "z" * 12, 999999, button
    )


def test_add_ai_without_a_level_is_the_normal_one() -> None:
    assert buttons.parse("A") == AddAi("normal")


@pytest.mark.parametrize(
    "code",
    ["A:genius", "T:2", "K:x", "Y:3", "Yx:1", "Y1:", "Z", "a:6X", "c:9:6S", "a:6s", "j", "s", "JJ"],
)
def test_a_code_that_names_no_button_is_no_button(code: str) -> None:
    assert buttons.parse(code) is None
    assert parse(f"-100|g1|3|{code}") is None
    with pytest.raises(ValueError):
        buttons.named(code)


def test_a_surrender_is_never_a_move_button_only_a_confirmation() -> None:
    """rules.md §7.7: a surrender ends the game only when its question is confirmed, never by a button."""
    assert buttons.parse("s") is None and buttons.parse("Y0:0") == ConfirmSurrender(0, 0)


async def test_a_forged_surrender_press_surrenders_nobody(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    version = await harness.version()
    await press_move(harness, BOB, "s")
    assert harness.screen.alerts[-1].text == "That button is not valid."
    assert await harness.version() == version and not (await game_now(harness)).is_over


async def test_every_press_is_answered_exactly_once_whatever_it_did(harness: Harness) -> None:
    """A saved move, a refusal, a lobby change and a shown hand each give the presser one answer."""
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    presses = [(ANN, "a:6S"), (ANN, "a:6S"), (BOB, "H"), (BOB, "t")]
    for user, code in presses:
        effects = await press_move(harness, user, code)
        answers = [e for e in effects if isinstance(e, Alert) and e.user_id == user.id]
        assert len(answers) == 1, (code, answers)
    moved = await press_move(harness, ANN, "a:7S")
    assert isinstance(moved[0], Alert) and moved[0].text == "You played 7♠." and moved[0].applied

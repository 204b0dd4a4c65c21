"""What a person at the terminal sees and may type while an AI thinks: the table once, words about typing
(a terminal has no buttons), notes that go with the hand they answered, and a move typed ahead kept for
the player's turn.

Tess (seat 0) holds A♥ and five plain cards; the AI holds the lowest trump (6♥), so it attacks first and Tess
defends: A♥ covers whatever it plays.
"""

from __future__ import annotations

import pytest

from adapters.local import CHAT_ID, PLATFORM
from bot.session import ChatSession
from storage import ChatRef
from tests.core.helpers import stack
from tests.local.terminal_table import TerminalTable, stacked_deal

TESS, AI = 0, 1
DEAL = stack([["AH", "9D", "TD", "JC", "QC", "KC"], ["6H", "6S", "7S", "8S", "9S", "TS"]], trump="7H")
BUTTON_WORDS = {"en": "button", "ru": "кнопк", "it": "pulsant"}


@pytest.fixture(autouse=True)
def dealt(monkeypatch: pytest.MonkeyPatch) -> None:
    stacked_deal(monkeypatch, DEAL)


async def moves_of(table: TerminalTable, seat: int) -> list[str]:
    record = await table.store.load(ChatRef(PLATFORM, CHAT_ID))
    game = ChatSession.decode(record.state).game
    assert game is not None
    return [code for who, code in game.log if who == seat]


def lines_with(frame: str, word: str) -> list[str]:
    return [line for line in frame.splitlines() if word in line]


# ---- the screen ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(BUTTON_WORDS))
async def test_the_waiting_hand_speaks_of_typing_not_of_buttons(lang: str) -> None:
    async with TerminalTable(lang) as table:
        assert not await moves_of(table, TESS)  # the AI opens: Tess waits
        assert BUTTON_WORDS[lang] not in table.frame.lower()


async def test_trump_talon_and_table_are_drawn_once_while_waiting_and_at_the_turn() -> None:
    async with TerminalTable() as table:
        assert len(lines_with(table.frame, "Trump")) == 1
        await table.ai_moves()
        assert len(lines_with(table.frame, "Trump")) == 1
        assert len(lines_with(table.frame, "talon")) == 1
        assert len(lines_with(table.frame, "On the table")) == 1
        assert len(lines_with(table.frame, "Your cards")) == 1


async def test_a_note_under_the_waiting_hand_is_gone_when_the_turn_comes() -> None:
    async with TerminalTable() as table:
        await table.type("hello")
        note = table.frame.splitlines()[-1]
        assert note.startswith("Not your turn")
        await table.ai_moves()
        assert "1) " in table.frame  # Tess's moves are shown
        assert note not in table.frame


# ---- typing ahead ----------------------------------------------------------------------------------------


async def test_a_card_typed_while_the_ai_thinks_is_played_when_the_turn_comes() -> None:
    async with TerminalTable() as table:
        await table.type("ah")
        assert "A♥" in table.frame.splitlines()[-1]  # the screen says it is kept
        assert not await moves_of(table, AI)
        await table.ai_moves()
        assert (await moves_of(table, TESS))[-1].endswith(":AH")  # A♥ covered the attack
        assert "A♥" not in next(line for line in table.frame.splitlines() if line.startswith("Your cards"))


async def test_a_move_typed_ahead_that_is_not_legal_at_the_turn_says_why_and_waits() -> None:
    async with TerminalTable() as table:
        await table.type("p")
        await table.ai_moves()
        assert not await moves_of(table, TESS)  # a defender cannot pass: nothing was played
        assert "You cannot pass now." in table.frame
        assert "1) " in table.frame  # the moves are there to choose from


async def test_a_later_line_typed_ahead_replaces_the_earlier_one() -> None:
    async with TerminalTable() as table:
        await table.type("p")
        await table.type("ah")
        await table.ai_moves()
        assert (await moves_of(table, TESS))[-1].endswith(":AH")
        assert "You cannot pass now." not in table.frame


async def test_a_number_typed_while_waiting_is_not_kept_and_says_what_can_be() -> None:
    async with TerminalTable() as table:
        await table.type("1")
        assert "9h" in table.frame.splitlines()[-1]  # the note shows how to type a card instead
        await table.ai_moves()
        assert not await moves_of(table, TESS)

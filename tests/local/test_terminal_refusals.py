"""A card typed at the terminal that no move plays gets the engine's reason, in the player's language, as a
refused tap does in a chat (not "you do not hold it, or it cannot be played" for a card the player holds).

Tess (seat 0) holds no heart but A♥ and five plain cards; the AI holds the lowest trump (6♥) and five spades,
so it attacks first, and 9♦ beats nothing it can play.
"""

from __future__ import annotations

import pytest

from adapters.local import CHAT_ID, PLATFORM
from bot.session import ChatSession
from core.cards import CARDS
from storage import ChatRef
from tests.core.helpers import stack
from tests.local.terminal_table import TerminalTable, stacked_deal

DEAL = stack([["AH", "9D", "TD", "JC", "QC", "KC"], ["6H", "6S", "7S", "8S", "9S", "TS"]], trump="7H")
DOES_NOT_BEAT = {
    "en": "9♦ does not beat {attack}",
    "ru": "9♦ не бьёт {attack}",
    "it": "9♦ non batte {attack}",
}


@pytest.fixture(autouse=True)
def dealt(monkeypatch: pytest.MonkeyPatch) -> None:
    stacked_deal(monkeypatch, DEAL)


async def attack_card(table: TerminalTable) -> str:
    record = await table.store.load(ChatRef(PLATFORM, CHAT_ID))
    assert record.state is not None
    game = ChatSession.decode(record.state).game
    assert game is not None and game.to_act == 0
    return CARDS[game.attacks[0]].symbol


@pytest.mark.parametrize("lang", sorted(DOES_NOT_BEAT))
async def test_a_typed_card_that_cannot_cover_says_what_it_does_not_beat(lang: str) -> None:
    async with TerminalTable(lang) as table:
        await table.ai_moves()
        await table.type("9d")
        assert DOES_NOT_BEAT[lang].format(attack=await attack_card(table)) in table.frame


async def test_a_typed_card_not_held_says_so() -> None:
    async with TerminalTable() as table:
        await table.ai_moves()
        await table.type("7d")
        assert "You do not hold 7♦." in table.frame

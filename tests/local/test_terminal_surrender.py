"""`/leave` in the terminal asks, like a chat does (rules.md §7.7); the terminal has no buttons, so the next
line answers the question: y surrenders, anything else is read as usual and the game goes on."""

from __future__ import annotations

import pytest

from tests.local.terminal_table import TerminalTable

ANSWERS = {
    "en": ("Type y to answer: Yes, surrender", "surrendered"),
    "ru": ("Введите y, чтобы ответить: Да, сдаюсь", "сдаётся"),
    "it": ("Scrivi y per rispondere: Sì, mi arrendo", "abbandona"),
}


@pytest.mark.parametrize("lang", list(ANSWERS))
async def test_leave_asks_first_and_y_surrenders(lang: str) -> None:
    question, surrendered = ANSWERS[lang]
    async with TerminalTable(lang) as table:
        await table.type("/leave")
        assert question in table.frame
        assert surrendered not in table.out.getvalue()
        await table.type("y")
        assert surrendered in table.out.getvalue()


async def test_any_other_line_after_leave_leaves_the_game_running() -> None:
    async with TerminalTable("en") as table:
        await table.type("/leave")
        await table.type("?")
        await table.type("y")
        assert "surrendered" not in table.out.getvalue()

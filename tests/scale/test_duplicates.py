"""An update delivered twice (Telegram re-delivers after a timeout, possibly to another process) must
change the game once. Game moves carry the step they were drawn for, so a repeat is refused; lobby buttons
are idempotent except Add AI, whose press carries the number of seats it was drawn with."""

from __future__ import annotations

from tests.bot.conftest import ANN
from tests.bot.harness import Harness, button


async def test_a_repeated_move_press_is_refused_as_out_of_date(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "Start")
    hand = harness.screen.hands[ANN.id]  # the AI seat moves at once (ai_delay 0): it is Ann's turn
    payload = next(b.payload for row in hand.buttons for b in row if b.payload.split("|")[3] != "H")
    version = await harness.version()
    await harness.press(ANN, payload)
    await harness.press(ANN, payload)
    assert await harness.version() == version + 1


async def test_a_repeated_add_ai_press_adds_one_ai_seat(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    payload = button(harness.screen.table, "Add AI").payload
    await harness.press(ANN, payload)
    await harness.press(ANN, payload)  # the same update, delivered again
    seats = [line for line in (harness.screen.table.plain_text if harness.screen.table else "").splitlines()]
    assert sum("🤖" in line for line in seats) == 1

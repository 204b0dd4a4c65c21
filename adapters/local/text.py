"""The neutral `Message` as terminal text: bold kept as is, or drawn with ANSI when stdout is a terminal."""

from __future__ import annotations

from bot.adapter import Button, Message, Span

BOLD, RESET = "\x1b[1m", "\x1b[0m"
CLEAR_SCREEN = "\x1b[H\x1b[2J"


def span_text(span: Span, ansi: bool) -> str:
    return f"{BOLD}{span.text}{RESET}" if ansi and span.bold and span.text else span.text


def message_text(message: Message, ansi: bool = False) -> str:
    """The message's lines; its buttons are left to `numbered_buttons` (the terminal has no buttons)."""
    return "\n".join("".join(span_text(span, ansi) for span in line) for line in message.lines)


def payload_buttons(message: Message | None) -> list[Button]:
    """The message's buttons in reading order (row by row), those a press can answer only."""
    if message is None:
        return []
    return [button for row in message.buttons for button in row if button.payload]


def numbered_buttons(buttons: list[Button], ansi: bool = False) -> str:
    """``1) 9♠   2) 10♥   3) Take``: the numbers the player types."""
    if not buttons:
        return ""
    items = [f"{BOLD if ansi else ''}{n}){RESET if ansi else ''} {b.label}" for n, b in enumerate(buttons, 1)]
    rows = [items[i : i + 6] for i in range(0, len(items), 6)]
    return "\n".join("   ".join(row) for row in rows)

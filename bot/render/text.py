"""Small builders for the neutral message model, and how cards and names are written."""

from __future__ import annotations

from bot.effects import Button, Line, Message, Span
from core import Card

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def plain(text: str) -> Span:
    return Span(text)


def bold(text: str) -> Span:
    return Span(text, bold=True)


def mono(text: str) -> Span:
    """Text to copy exactly (a hash's input): monospace where the platform has it."""
    return Span(text, mono=True)


def line(*spans: Span | str) -> Line:
    return tuple([span if isinstance(span, Span) else Span(span) for span in spans])


def message(lines: list[Line], buttons: list[list[Button]] | None = None) -> Message:
    return Message(lines=tuple(lines), buttons=tuple(tuple(row) for row in buttons or [] if row))


def card(value: Card | str) -> str:
    """``10♥`` for people; accepts a Card or a code like ``TH``."""
    return (value if isinstance(value, Card) else Card.parse(value)).symbol


def cards(values: list[Card] | tuple[Card, ...]) -> str:
    return " ".join(card(c) for c in values) if values else "—"


def rows(buttons: list[Button], per_row: int) -> list[list[Button]]:
    return [buttons[i : i + per_row] for i in range(0, len(buttons), per_row)]

"""Buttons as types: a payload's code read once into what was pressed, and written back from it.

A payload (`bot.payloads`) says which chat, game and step a button was drawn from; its code says which button.
The code is read here, once, like `core.actions.Action.parse` reads a move: a code that is not one of ours is
None and the press is refused as invalid, so nothing downstream takes strings apart. Every button a message
draws is built from these types (`code`), every press is one of them (`parse`), and each press is handled by
the entry of a table keyed by its type (`bot.game.presses`, `bot.game.lobby`).

Codes are short ASCII under Telegram's 64-byte callback_data: upper-case letters for the bot's own buttons,
core's lower-case action codes for moves (``a:6S``, ``c:0:9S``, ``t``, ``p``, ``x:6H``, ``e``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.session import AI_LEVELS
from core import Action
from core.actions import Kind

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat in the lobby."""


@dataclass(frozen=True, slots=True)
class Leave:
    """Give up one's lobby seat."""


@dataclass(frozen=True, slots=True)
class Start:
    """Deal the lobby's seats in."""


@dataclass(frozen=True, slots=True)
class Cancel:
    """Close the lobby."""


@dataclass(frozen=True, slots=True)
class AddAi:
    """Seat an AI of ``level``; the payload's step is the number of seats the presser saw."""

    level: str = "normal"


@dataclass(frozen=True, slots=True)
class RemoveAi:
    """Drop the lobby's last AI seat; step as for `AddAi`."""


@dataclass(frozen=True, slots=True)
class PickTeam:
    """Sit on side ``team`` (0 or 1) of a team game, joining first if need be."""

    team: int


@dataclass(frozen=True, slots=True)
class RemoveSeat:
    """The creator removes seat ``seat``, whose person cannot receive a hand; step as for `AddAi`."""

    seat: int


@dataclass(frozen=True, slots=True)
class OpenHand:
    """Show the presser their hand (or, drawn as an app button, open the table's page)."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """A new lobby with a finished game's seats and rules."""


@dataclass(frozen=True, slots=True)
class Replay:
    """The result's Replay button: it opens the finished game's page and is never pressed."""


@dataclass(frozen=True, slots=True)
class ShowDeal:
    """The result's "The deal" button: the order the deal was sealed with, to whoever asks, in private."""


@dataclass(frozen=True, slots=True)
class ConfirmSurrender:
    """Seat ``seat`` confirms the surrender it asked for ``asked`` seconds into the game (rules.md §7.7)."""

    seat: int
    asked: int


@dataclass(frozen=True, slots=True)
class Move:
    """A move of the game: one of core's actions."""

    action: Action


Button = (
    Join
    | Leave
    | Start
    | Cancel
    | AddAi
    | RemoveAi
    | PickTeam
    | RemoveSeat
    | OpenHand
    | Rematch
    | Replay
    | ShowDeal
    | ConfirmSurrender
    | Move
)
LobbyButton = Join | Leave | Start | Cancel | AddAi | RemoveAi | PickTeam | RemoveSeat
LOBBY_BUTTONS = (Join, Leave, Start, Cancel, AddAi, RemoveAi, PickTeam, RemoveSeat)

_PLAIN: dict[str, Button] = {
    "J": Join(),
    "L": Leave(),
    "S": Start(),
    "C": Cancel(),
    "D": RemoveAi(),
    "H": OpenHand(),
    "R": Rematch(),
    "V": Replay(),
    "O": ShowDeal(),
}
_LETTER = {type(button): letter for letter, button in _PLAIN.items()}
_SURRENDER = re.compile(r"Y([0-9]{1,2}):([0-9a-z]{1,7})")
_NUMBERED = re.compile(r"([TK]):([0-9]{1,2})")


def parse(code: str) -> Button | None:
    """The button a code names, or None when it is none of ours (forged, truncated, from an old bot)."""
    if code in _PLAIN:
        return _PLAIN[code]
    head, colon, rest = code.partition(":")
    if head == "A":
        level = rest if colon else "normal"
        return AddAi(level) if level in AI_LEVELS else None
    if numbered := _NUMBERED.fullmatch(code):
        letter, number = numbered.group(1), int(numbered.group(2))
        if letter == "K":
            return RemoveSeat(number)
        return PickTeam(number) if number in (0, 1) else None
    if surrender := _SURRENDER.fullmatch(code):
        return ConfirmSurrender(int(surrender.group(1)), int(surrender.group(2), 36))
    if code[:1].islower():
        try:
            action = Action.parse(code)
        except ValueError:
            return None
        # one spelling per move, and never a surrender: that is only ever confirmed (`ConfirmSurrender`)
        return Move(action) if action.code == code and action.kind is not Kind.SURRENDER else None
    return None


def code(button: Button) -> str:
    """The code a button is drawn with: `parse(code(b)) == b` for every button."""
    match button:
        case AddAi(level):
            return f"A:{level}"
        case PickTeam(team):
            return f"T:{team}"
        case RemoveSeat(seat):
            return f"K:{seat}"
        case ConfirmSurrender(seat, asked):
            return f"Y{seat}:{base36(asked)}"
        case Move(action):
            return action.code
        case _:
            return _LETTER[type(button)]


def base36(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 36)
        digits = _DIGITS[digit] + digits
        if not number:
            return digits


def named(code: str) -> Button:
    """The button ``code`` names, for code that spells buttons by their codes (tests, benchmarks, a typed
    move); ValueError when it names none."""
    button = parse(code)
    if button is None:
        raise ValueError(f"not a button's code: {code!r}")
    return button

"""What happened, as the engine records it next to the actions: the outcomes nobody chose.

A player's action says what was chosen ("Bob takes"); an event says what followed from it ("Bob picked up
these four cards", "Ann drew two", "Ann went out second"). `core.rules` emits them while it settles a step,
into the same log as the actions, so a reader (the AI's knowledge, the bot's "last actions" lines) passes
over the record instead of replaying the rules. Cards are bitmasks of card ids, as in `core.state`.

Everything here is public except which cards a seat drew: `Drew.cards` is known to that seat only, and a
view (`core.view`) shows the other seats' draws as a count (``cards=None``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar


@dataclass(frozen=True)
class Result:
    """How a game ended. ``durak`` is a seat, or None for a draw."""

    durak: int | None
    draw: bool
    order_out: tuple[int, ...]  # the places: in the order out; after a surrender the rest by cards held
    reason: str  # "last_holder", "last_team", "everyone_out", "repetition" or "surrender"
    losers: tuple[int, ...] = ()  # the durak, or in a team game every seat of the losing team


def _same_event(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other) is True


def _different_event(self: tuple[Any, ...], other: object) -> bool:
    return not _same_event(self, other)


_T = TypeVar("_T", bound=tuple[Any, ...])


def _event(cls: type[_T]) -> type[_T]:
    """Events are tuples, cheap to make in a search's rollouts; yet two kinds with equal fields (a seat and
    a card) are different events."""
    setattr(cls, "__eq__", _same_event)  # noqa: B010 - in the class body they would read as fields
    setattr(cls, "__ne__", _different_event)  # noqa: B010
    setattr(cls, "__hash__", tuple.__hash__)  # noqa: B010
    return cls


@_event
class BoutStarted(NamedTuple):
    """A bout opened: ``attacker`` leads against ``defender``; it holds at most ``cap`` attack cards (and no
    more than the defender's hand at the start)."""

    attacker: int
    defender: int
    cap: int  # 6, or 5 in the first bout with first5


@_event
class BoutEnded(NamedTuple):
    """The bout is over: ``defender`` picked up the table's ``cards`` (``taken``), or they were beaten off."""

    defender: int
    taken: bool
    cards: int  # mask of every attack and cover card that was on the table


@_event
class Drew(NamedTuple):
    """``seat`` drew ``number`` cards from the talon in the refill (opener first, the defender last)."""

    seat: int
    number: int
    cards: int | None  # mask of the cards drawn; None in the view of any other seat


@_event
class TurnedUpCardDrawn(NamedTuple):
    """``seat`` drew the last card of the talon: the turned-up one everybody saw (so it is in that hand)."""

    seat: int
    card: int


@_event
class TrumpsChanged(NamedTuple):
    """Severny: ``seat`` drew the last face-down card, ``card``, shown to all; its suit is trumps now."""

    seat: int
    card: int


@_event
class TrumpExchanged(NamedTuple):
    """``seat`` took the turned-up trump ``taken`` and put the deck's lowest trump ``put`` under the talon."""

    seat: int
    taken: int
    put: int


@_event
class WentOut(NamedTuple):
    """``seat`` has no cards left with the talon empty: out of the game, ``place`` th (1 = first out)."""

    seat: int
    place: int


@_event
class GameOver(NamedTuple):
    """The game ended with ``result``; nothing follows."""

    result: Result


Event = (
    BoutStarted | BoutEnded | Drew | TurnedUpCardDrawn | TrumpsChanged | TrumpExchanged | WentOut | GameOver
)


def seen_by(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` may see it (None: a spectator): another seat's draw without its cards."""
    if type(event) is Drew and event.seat != seat and event.cards is not None:
        return Drew(event.seat, event.number, None)
    return event

"""Public events of one engine step ("Bob took 4 cards"), derived by comparing the states before and after.

Everything here is public in Durak: cards played, covered, transferred, the size of a pick-up, who went out.
"""

from __future__ import annotations

from bot.session import Event
from core import Action, Game, Kind

RECENT_EVENTS = 5


def events_of_step(before: Game, seat: int, action: Action, after: Game) -> list[Event]:
    events: list[Event] = []
    card = str(action.card) if action.card is not None else ""
    if action.kind is Kind.ATTACK:
        events.append(Event(kind="played", seat=seat, card=card))
    elif action.kind is Kind.COVER:
        events.append(Event(kind="covered", seat=seat, card=card, target=str(before.table[action.slot][0])))
    elif action.kind is Kind.TRANSFER:
        events.append(Event(kind="transferred", seat=seat, card=card, target=str(after.defender)))
    elif action.kind is Kind.EXCHANGE:
        events.append(Event(kind="exchanged", seat=seat, card=str(before.trump_card)))
    elif action.kind is Kind.SURRENDER:
        events.append(Event(kind="surrendered", seat=seat))
    bout_ended = before.attacks and (after.bout_number != before.bout_number or after.is_over)
    if bout_ended and action.kind is not Kind.SURRENDER:
        on_table = len(before.attacks) + sum(1 for c in before.covers if c >= 0)
        on_table += action.kind in (Kind.ATTACK, Kind.COVER)
        if before.phase.value == "taking" or (action.kind is Kind.TAKE):
            events.append(Event(kind="took", seat=before.defender, count=on_table))
        else:
            events.append(Event(kind="beaten_off", seat=before.defender, count=on_table))
    for place, out_seat in enumerate(after.out, start=1):
        if out_seat not in before.out:
            events.append(Event(kind="out", seat=out_seat, count=place))
    return events


def remember(previous: list[Event], new: list[Event]) -> list[Event]:
    """The last few events, newest last."""
    return [*previous, *new][-RECENT_EVENTS:]

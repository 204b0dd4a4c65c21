"""The table's "last actions" lines of one engine step ("Bob took 4 cards"): the action, then what the
engine recorded after it (`core.events`).

Everything here is public in Durak: cards played, covered, transferred, the size of a pick-up, who went out.
"""

from __future__ import annotations

from bot.session import TableEvent
from core import Action, Game, Kind
from core.cards import CARDS
from core.events import BoutEnded, TrumpExchanged, WentOut

RECENT_EVENTS = 5


def events_of_step(before: Game, seat: int, action: Action, after: Game) -> list[TableEvent]:
    """The lines for ``seat``'s ``action`` (``before`` -> ``after``): what it chose, then a bout's end, then
    anyone who went out."""
    chosen: list[TableEvent] = []
    card = str(action.card) if action.card is not None else ""
    if action.kind is Kind.ATTACK:  # the bout's first card is played, every later one thrown in
        chosen.append(TableEvent(kind="threw_in" if before.table else "played", seat=seat, card=card))
    elif action.kind is Kind.COVER:
        chosen.append(
            TableEvent(kind="covered", seat=seat, card=card, target=str(before.table[action.slot][0]))
        )
    elif action.kind is Kind.TRANSFER:
        chosen.append(TableEvent(kind="transferred", seat=seat, card=card, target=str(after.defender)))
    elif action.kind is Kind.SURRENDER:
        chosen.append(TableEvent(kind="surrendered", seat=seat))
    ended: list[TableEvent] = []
    out: list[TableEvent] = []
    for _, event in after.events(since=after.step):
        match event:
            case TrumpExchanged(exchanger, taken, _):
                chosen.append(TableEvent(kind="exchanged", seat=exchanger, card=str(CARDS[taken])))
            case BoutEnded(defender, taken, cards):
                kind = "took" if taken else "beaten_off"
                ended.append(TableEvent(kind=kind, seat=defender, count=cards.bit_count()))
            case WentOut(out_seat, place):
                out.append(TableEvent(kind="out", seat=out_seat, count=place))
    return [*chosen, *ended, *out]


def remember(previous: list[TableEvent], new: list[TableEvent]) -> list[TableEvent]:
    """The last few events, newest last."""
    return [*previous, *new][-RECENT_EVENTS:]

"""Seats: who sits where in a lobby or a game, and a seat changed or dealt in.

Kept apart because nearly every decision (moves, lobby, surrender, hints, the AI pool, the read side and the
web page) asks which seat a person holds, and none of them should import the game's moves to learn it.
"""

from __future__ import annotations

from bot import ratings
from bot.context import Context
from bot.effects import OPEN_PRIVATE, Effect, Retract
from bot.session import Finished, Lobby, Playing, Seat


def seat_of(header: Playing | Lobby | Finished, user_id: str) -> int | None:
    for seat_no, seat in enumerate(header.seats):
        if seat.user_id == user_id and not seat.is_ai:
            return seat_no
    return None


def with_seat(header: Playing, seat_no: int, **changes: object) -> Playing:
    seats = list(header.seats)
    seats[seat_no] = seats[seat_no].model_copy(update=changes)
    return header.model_copy(update={"seats": seats})


def seated(ctx: Context, seat: Seat) -> Seat:
    """A lobby seat dealt in: present now, and a person carries their rating into the game (read with the
    lobby; a new rating for someone without one this season)."""
    rating = None if seat.is_ai else ctx.record.ratings.get(seat.user_id, ratings.NEW)
    return seat.model_copy(update={"acted_at": ctx.now, "rating": rating})


def retract_open_private(ctx: Context, seats: list[Seat]) -> list[Effect]:
    """The requests to open the private chat said for ``seats`` that no longer apply (the seat left, was
    removed, or its lobby or game ended): those of seats still marked as unable to receive a hand."""
    return [
        Retract(ctx.chat_id, OPEN_PRIVATE, seat.user_id)
        for seat in seats
        if seat.private_closed_at is not None and not seat.is_ai
    ]

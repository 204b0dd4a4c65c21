"""Why a card typed at the terminal cannot be played: the engine's reason, in the player's language.

A chat player taps only the moves offered; at the terminal one can type any card, so the answer to a card no
move plays is the same reason a tap would get (`bot.render.refusal`), read from the stored game.
"""

from __future__ import annotations

from bot.i18n import translator
from bot.play import seat_of
from bot.render.refusal import refusal_text
from bot.repair import Unreadable, decoded
from bot.session import Playing
from core import Card
from core.reasons import why_card_unplayable
from storage.models import ChatRecord


def card_refusal(record: ChatRecord, user_id: str, card: Card) -> str | None:
    """Why ``user_id`` cannot play ``card`` in the stored game now; None without a game, a seat or a reason."""
    if not record.state:
        return None
    try:
        session = decoded(record.state)
    except Unreadable:
        return None
    header, game = session.header, session.game
    seat = seat_of(header, user_id) if isinstance(header, Playing) else None
    if game is None or seat is None or not isinstance(header, Playing):
        return None
    refusal = why_card_unplayable(game, seat, card.id)
    if refusal is None:
        return None
    names = [s.name for s in header.seats]
    return refusal_text(refusal, names, translator(header.seats[seat].lang))

"""Fast taps: a button pressed on a hand drawn a few moves ago, before the newer one reached the player.

People tap faster than a hand message is drawn again (about a second). A card move drawn earlier in the same
bout that the rules still allow the same player now (the same card on the same target) is what they meant,
so it is made. Everything else drawn before the current step stays refused as out of date: a move from an
earlier bout (the table it answered is gone), on another player's turn, or no longer legal; and Take and Pass,
which answer the table as it was drawn and carry no card: a second tap of Pass would pass again on a card
thrown in after the first. A double tap of a card is never made twice: the card has left the hand.
"""

from __future__ import annotations

from core import Action, Game
from core.events import BoutStarted
from core.reasons import why_illegal


def made_as_tapped(game: Game, drawn_at: int, seat: int, action: Action) -> bool:
    """Whether ``seat``'s press of ``action``, on a hand drawn at step ``drawn_at``, is made now."""
    if action.card_id < 0:  # take, pass, exchange: no card to tap twice
        return False
    if any(isinstance(event, BoutStarted) for _step, event in game.events(since=drawn_at + 1)):
        return False
    return why_illegal(game, seat, action) is None

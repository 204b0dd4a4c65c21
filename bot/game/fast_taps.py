"""Fast taps: a button pressed on a hand drawn a few moves ago, before the newer one reached the player.

People tap faster than a hand message is drawn again (about a second). A card move drawn earlier in the same
bout that the rules still allow the same player now (the same card on the same target) is what they meant,
so it is made. Take and Pass answer the table as it was drawn and carry no card, so one drawn earlier is
made only while every move since was the presser's own (a defender covering card after card, then taking):
the table then differs from the one drawn only by their own cards, which the hand message they tapped may not
show yet (its new drawing is on its way). Everything else drawn
before the current step stays refused as out of date: a move from an earlier bout (the table it answered is
gone), on another player's turn, or no longer legal; a Take or Pass drawn before anyone else's move (a second
tap of Pass would pass again on a card thrown in after the first). A double tap of a card is never made
twice: the card has left the hand.
"""

from __future__ import annotations

from core import Action, Game
from core.events import BoutStarted
from core.reasons import why_illegal


def made_as_tapped(game: Game, drawn_at: int, seat: int, action: Action) -> bool:
    """Whether ``seat``'s press of ``action``, on a hand drawn at step ``drawn_at``, is made now."""
    if any(isinstance(event, BoutStarted) for _step, event in game.events(since=drawn_at + 1)):
        return False
    if action.card_id < 0 and any(mover != seat for mover, _code in game.log[drawn_at:]):
        return False  # take, pass, exchange: they answered a table someone else has changed since
    return why_illegal(game, seat, action) is None

"""Fewer chat messages while people play in the app: which screens a chat still needs when pages are open.

A player with the Mini App open sees the table and their hand there, live, over our own connection; every
edit of their private hand message would be a Bot API write nobody reads, and one bot token may write only
about 30 messages a second in all. So, for a chat of a platform that has the app (`ServiceConfig.
app_platforms`), after each saved move (`thinned`):

- a seated person's hand is neither sent nor edited while they have the page open (the app is the hand);
- while every seated person has it open, the group's table, which only spectators still read there, is
  edited when a player goes out, not at each card or bout: it keeps the game's standing (who is still in,
  who went out in which place) and its "Open table" button, with which a spectator watches the game live;
- the end of a game, the final table and the result, goes out to the group as always, so the chat ends as
  the game did; the final hands of people on the app do not (the app shows them the result).

When a person's last page closes (`bot.timers.resume_on_close`), `resumed` gives them what the chat held
back: their current hand and, if it is behind, the table (the store's delivered marks, `bot.outbox`, tell
what was shown). The decision is here; adapters only deliver what the service returns, and the web adapter
tells who has a page open.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection

from bot.context import Context
from bot.decision import Decision, show
from bot.effects import Effect, ShowHand, ShowTable
from bot.game.screens import current_hand, current_table
from bot.game.seats import seat_of
from bot.outbox import fingerprint, hand_shown, table_behind
from bot.session import ChatSession, Finished, Playing
from storage import ChatRef

OnApp = Callable[[ChatRef], Awaitable[Collection[str]]]  # the user ids with a page of the chat open now


def thinned(
    effects: list[Effect],
    session: ChatSession | None,
    on_app: Collection[str],
    before: ChatSession | None = None,
) -> list[Effect]:
    """``effects`` of a saved change (``before``: the chat it changed) without the screens people on the app
    do not need (see above)."""
    header = session.header if session is not None else None
    if not on_app or not isinstance(header, Playing | Finished):
        return effects  # a lobby, or nobody on the app: every screen as usual
    people = {seat.user_id for seat in header.seats if not seat.is_ai}
    everyone_on_app = people <= set(on_app)
    game = session.game if session is not None else None
    old = before.game if before is not None and isinstance(before.header, Playing) else None
    # the game goes on (a finished one shows its end) and nobody went out: the table's standing is unchanged
    standing = isinstance(header, Playing) and game is not None and old is not None and old.out == game.out
    kept: list[Effect] = []
    for effect in effects:
        if isinstance(effect, ShowHand) and effect.user_id in on_app:
            continue
        if isinstance(effect, ShowTable) and everyone_on_app and standing and not effect.new_message:
            continue
        kept.append(effect)
    return kept


def holds_back(effects: list[Effect]) -> bool:
    """Worth asking who is on the app: the effects hold a screen that could be held back."""
    return any(isinstance(effect, ShowHand | ShowTable) for effect in effects)


def resumed(ctx: Context, session: ChatSession | None, user_id: str) -> Decision:
    """A player closed the app: their current hand if the one in their chat is not it, and the table if the
    group's is behind the stored game. Nothing for a lobby or a finished game (shown as always), and nothing
    for a spectator: their page held nothing back, and closing pages must not let anyone force table edits."""
    if session is None or not isinstance(session.header, Playing) or session.game is None:
        return show()
    header, game = session.header, session.game
    seat_no = seat_of(header, user_id)
    if seat_no is None:
        return show()
    effects: list[Effect] = []
    if table_behind(ctx.record):
        effects.append(current_table(ctx, header, game))
    hand = current_hand(ctx, header, game, seat_no)
    if hand_shown(ctx.record.messages, user_id) != fingerprint(hand.message):
        effects.append(hand)
    return show(*effects)

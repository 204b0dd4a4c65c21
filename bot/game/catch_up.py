"""Catching up after a crash: re-render a running game whose screens were never delivered.

A process killed with table and hand edits still in its send queue leaves the move saved and the screens
from before it: the player to act has no buttons, and nobody else's buttons are current. The adapters mark
what they delivered (`bot.outbox`); when a process starts serving a platform, its timer loop asks the
service to catch up every running game of that platform (`bot.timers.catch_up_platform`) before claiming a
deadline, and this module decides what that takes, from the stored state:

- the table, when the one delivered is older than the stored game;
- each person's hand whose delivered fingerprint differs from the hand the stored game draws (when the
  table is behind too, also a hand with no mark at all: it may have been lost with the table);
- nothing at all when everything delivered is current.

When something is shown again and the turn deadline passed meanwhile (the bot was down), the deadline moves
to now + the turn timer, saved with compare-and-set like any decision: nobody is timed out for a screen
they never had. Pure, like `bot.game.moves`.
"""

from __future__ import annotations

from bot.context import Context
from bot.decision import GAME_TTL, Decision, show
from bot.effects import Effect
from bot.game.clock import next_deadline
from bot.game.screens import current_hand, current_table
from bot.outbox import fingerprint, hand_shown, table_behind
from bot.session import ChatSession, Playing


def catch_up(ctx: Context, session: ChatSession | None) -> Decision:
    if session is None or not isinstance(session.header, Playing) or session.game is None:
        return show()  # a lobby or a finished game: its next change shows itself, nothing waits on it
    header, game = session.header, session.game
    behind = table_behind(ctx.record)
    hands = []
    for seat_no, seat in enumerate(header.seats):
        if seat.is_ai:
            continue
        hand = current_hand(ctx, header, game, seat_no)
        shown = hand_shown(ctx.record.messages, seat.user_id)
        if shown != fingerprint(hand.message) and (shown is not None or behind):
            hands.append(hand)
    if not behind and not hands:
        return show()
    deadline = header.turn_deadline
    if deadline is None or deadline > ctx.now:
        effects: list[Effect] = [current_table(ctx, header, game)] if behind else []
        return show(*effects, *hands)
    header, due = next_deadline(ctx, header.model_copy(update={"turn_deadline": None}), game)
    return Decision(
        effects=[current_table(ctx, header, game), *hands],
        save=True,
        session=ChatSession(header=header, game=game),
        ttl=GAME_TTL,
        deadline=due,
    )

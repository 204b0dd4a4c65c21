"""The screen of a game that is already running, for a terminal session that comes back to it.

A chat keeps its messages while the bot is away; a terminal does not, so on return we draw the table and the
hand once from the stored game (the read side's snapshot, `bot.queries`) with the same renderers the service
uses. Nothing is decided or changed here.
"""

from __future__ import annotations

from adapters.local import CHAT_ID
from bot.effects import Message
from bot.i18n import translator
from bot.queries import Snapshot
from bot.render.hand import render_hand
from bot.render.hand_layout import TERMINAL_HAND
from bot.render.table import render_table
from bot.session import Lobby, Playing


def running_game_screen(
    snapshot: Snapshot, user_id: str, now: float
) -> tuple[Message | None, Message | None, str]:
    """(table, hand, kind): kind is "game" for a running game, "lobby" for an open lobby, "unreadable" for a
    record this release cannot decode (the service sets it aside at the next command), else ""."""
    if snapshot.unreadable:
        return None, None, "unreadable"
    session = snapshot.session
    if session is None:
        return None, None, ""
    if isinstance(session.header, Lobby):
        return None, None, "lobby"
    header, game = session.header, session.game
    if not isinstance(header, Playing) or game is None:
        return None, None, ""
    table = render_table(header, game.view(None), CHAT_ID, now, translator(snapshot.lang))
    seat = snapshot.seat(user_id)
    hand = None
    if seat is not None:
        tr = translator(header.seats[seat].lang)
        hand = render_hand(header, game.view(seat), CHAT_ID, tr, now, TERMINAL_HAND)
    return table, hand, "game"

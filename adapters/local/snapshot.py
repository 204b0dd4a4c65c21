"""The screen of a game that is already running, for a terminal session that comes back to it.

A chat keeps its messages while the bot is away; a terminal does not, so on return we draw the table and the
hand once from what the read side says the person may see (`bot.queries.Seen`: the table everyone sees and
their own seat's view), with the same renderers the service uses. Nothing is decided or changed here.
"""

from __future__ import annotations

from adapters.local import CHAT_ID
from bot.adapter import TERMINAL_HAND, Lobby, Message, Playing, Seen, render_hand, render_table, translator


def running_game_screen(seen: Seen, now: float) -> tuple[Message | None, Message | None, str]:
    """(table, hand, kind): kind is "game" for a running game, "lobby" for an open lobby, "unreadable" for a
    record this release cannot decode (the service sets it aside at the next command), else ""."""
    if seen.unreadable:
        return None, None, "unreadable"
    header = seen.header
    if isinstance(header, Lobby):
        return None, None, "lobby"
    if not isinstance(header, Playing) or seen.public is None:
        return None, None, ""
    table = render_table(header, seen.public, CHAT_ID, translator(seen.lang))
    hand = None
    if seen.seat is not None and seen.own is not None:
        tr = translator(header.seats[seen.seat].lang)
        hand = render_hand(header, seen.own, CHAT_ID, tr, now, TERMINAL_HAND)
    return table, hand, "game"

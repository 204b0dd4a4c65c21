"""Where a player's hand is seen, which changes what it needs to say.

In a chat the hand is a private message of its own, far from the table, with a button per move. On the
terminal (`durak-bot play`) it is drawn right under the table and its moves are numbered lines to type: it
repeats nothing the table shows, and it never speaks of buttons.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.platforms import DISCORD, LOCAL


@dataclass(frozen=True, slots=True)
class HandLayout:
    table_beside: bool = False  # the table is on the same screen: no title, trump, talon or table lines
    buttons: bool = True  # moves are buttons to tap (else typed, and a move may be typed before the turn)
    # a press is answered apart from the hand message (Telegram's toast): the answer says what was played,
    # as the hand is drawn anew; Discord answers a press by editing the hand itself, the terminal draws the
    # hand under the table
    answer_apart: bool = False


CHAT_HAND = HandLayout(answer_apart=True)
DISCORD_HAND = HandLayout()
TERMINAL_HAND = HandLayout(table_beside=True, buttons=False)


def hand_layout(platform: str) -> HandLayout:
    """The layout of hands on ``platform`` (a `bot.platforms` id)."""
    return {LOCAL: TERMINAL_HAND, DISCORD: DISCORD_HAND}.get(platform, CHAT_HAND)

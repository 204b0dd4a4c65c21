"""How far a channel's table is buried: the newest messages seen in each channel, counted from the gateway.

Telegram's message ids count up in a chat, so the distance from the table is a subtraction; Discord's are
timestamps (snowflakes), which say what came after the table but not how many. So the client counts the
MESSAGE_CREATE events of its guilds' channels (the ``guild_messages`` intent, not privileged; no message
content needed, no REST call per message): each channel keeps the ids of its newest
``repost_after + 1`` messages, enough to tell whether more than ``repost_after`` came after the table.
In memory, for the most recently active channels only: after a restart a table counts as buried again once
that many messages follow.
"""

from __future__ import annotations

from collections import deque

from bot.adapter import LRU

REPOST_AFTER = 10  # default of the setting DISCORD_REPOST_AFTER (adapters/discord/app.py)
CACHE_CHANNELS = 20_000  # channels whose newest message ids are kept


class Chatter:
    def __init__(self, after: int = REPOST_AFTER, channels: int = CACHE_CHANNELS) -> None:
        """``after``: a table with more messages than this after it is posted again at the bottom (0: never)."""
        self.after = after
        self.recent: LRU[str, deque[int]] = LRU(channels)

    def saw(self, channel: str, message_id: int) -> None:
        """A message posted in ``channel``, by anyone (the bot's own included: they bury the table too)."""
        if self.after <= 0:
            return
        recent = self.recent.touch(channel)
        if recent is None or recent.maxlen != self.after + 1:
            recent = self.recent[channel] = deque(recent or (), maxlen=self.after + 1)
        recent.append(message_id)

    def buried(self, channel: str, table_id: int) -> bool:
        """More than ``after`` messages came after the table: players would scroll up for it."""
        if self.after <= 0:
            return False
        recent = self.recent.get(channel) or ()
        return sum(1 for message_id in recent if message_id > table_id) > self.after

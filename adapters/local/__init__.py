"""Terminal play: the same service, store and renderer as the chat platforms, shown as plain text.

The adapter only translates: typed lines become the presses and commands a chat user would send, and the
service's messages become text. Every rule and every decision stays in `bot/`.
"""

from bot.adapter import LOCAL as PLATFORM

__all__ = ["CHAT_ID", "PLATFORM"]

CHAT_ID = "terminal"

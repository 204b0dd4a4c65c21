"""Button payloads: short ASCII that says which chat, which game, which step it was drawn from, and what.

Format ``<chat id>|<game or lobby id>|<step>|<code>``, at most 64 bytes (Telegram's callback_data limit;
Discord allows 100); the code is a button's (`bot.buttons`). A payload is never trusted: `parse` only checks
its shape and reads its button once; the service then checks the game id, the step, the presser's seat and
the legality of the action against the stored state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot import buttons
from bot.buttons import Button

MAX_PAYLOAD_BYTES = 64

_CHAT = r"-?[0-9A-Za-z_]{1,24}"
_PATTERN = re.compile(rf"^({_CHAT})\|([0-9a-z]{{1,12}})\|([0-9]{{1,6}})\|([A-Za-z0-9:?]{{1,12}})$")


@dataclass(frozen=True)
class Payload:
    chat_id: str
    game_id: str
    step: int
    button: Button

    @property
    def code(self) -> str:
        """The button's code as drawn (what a test or a benchmark looks a button up by)."""
        return buttons.code(self.button)

    def encode(self) -> str:
        text = f"{self.chat_id}|{self.game_id}|{self.step}|{self.code}"
        if len(text.encode()) > MAX_PAYLOAD_BYTES:
            raise ValueError(f"payload over {MAX_PAYLOAD_BYTES} bytes: {text}")
        return text


def parse(text: str) -> Payload | None:
    """The payload's parts, or None when it is not one of ours (forged, truncated, from an old bot)."""
    match = _PATTERN.fullmatch(text)  # not `match`: its `$` would also accept a trailing newline
    if match is None:
        return None
    chat_id, game_id, step, code = match.groups()
    button = buttons.parse(code)
    return Payload(chat_id, game_id, int(step), button) if button is not None else None

"""Button payloads: short ASCII that says which chat, which game, which step it was drawn from, and what.

Format ``<chat id>|<game or lobby id>|<step>[.<history>]|<code>``, at most 64 bytes (Telegram's callback_data
limit; Discord allows 100); the code is a button's (`bot.buttons`). A game's buttons carry the game's
history at their step (`core.state.Game.history`: a digest of the actions that led there), so a button drawn
from a course of the game the store no longer has (Redis lost its last writes) is never taken for a move of
the course it has now. A payload is never trusted: `parse` only checks its shape and reads its button once;
the service then checks the game id, the step and its history, the presser's seat and the legality of the
action against the stored state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot import buttons
from bot.buttons import Button

MAX_PAYLOAD_BYTES = 64

_CHAT = r"-?[0-9A-Za-z_]{1,24}"
_PATTERN = re.compile(
    rf"^({_CHAT})\|([0-9a-z]{{1,12}})\|([0-9]{{1,6}})(?:\.([0-9a-f]{{6}}))?\|([A-Za-z0-9:?]{{1,12}})$"
)


@dataclass(frozen=True)
class Payload:
    chat_id: str
    game_id: str
    step: int
    button: Button
    history: str = ""  # the game's history at ``step`` (`Game.history`); "" where no game course matters

    @property
    def code(self) -> str:
        """The button's code as drawn (what a test or a benchmark looks a button up by)."""
        return buttons.code(self.button)

    def encode(self) -> str:
        step = f"{self.step}.{self.history}" if self.history else str(self.step)
        text = f"{self.chat_id}|{self.game_id}|{step}|{self.code}"
        if len(text.encode()) > MAX_PAYLOAD_BYTES:
            raise ValueError(f"payload over {MAX_PAYLOAD_BYTES} bytes: {text}")
        return text


def parse(text: str) -> Payload | None:
    """The payload's parts, or None when it is not one of ours (forged, truncated, from an old bot)."""
    match = _PATTERN.fullmatch(text)  # not `match`: its `$` would also accept a trailing newline
    if match is None:
        return None
    chat_id, game_id, step, history, code = match.groups()
    button = buttons.parse(code)
    return Payload(chat_id, game_id, int(step), button, history or "") if button is not None else None

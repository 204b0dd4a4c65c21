"""Button payloads: short ASCII that says which chat, which game, which step it was drawn from, and what.

Format ``<chat id>|<game or lobby id>|<step>|<code>``, at most 64 bytes (Telegram's callback_data limit;
Discord allows 100). A payload is never trusted: `parse` only checks its shape; the service then checks the
game id, the step, the presser's seat and the legality of the action against the stored state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_PAYLOAD_BYTES = 64

# lobby and table codes (game actions use core's action codes: a:6S, c:0:9S, t, p, x:6H, e)
JOIN, LEAVE, START, CANCEL, REMATCH, HAND = "J", "L", "S", "C", "R", "H"
ADD_AI = "A"  # "A:easy", "A:normal", "A:hard"
REMOVE_AI = "D"  # drop the lobby's last AI seat; like Add AI, its step is the number of seats it saw
TEAM = "T"  # "T:0", "T:1": pick a side in a team game
SURRENDER = "Y"  # "Y2:k3": seat 2 confirms the surrender it asked for k3 (base 36) seconds into the game
REMOVE_SEAT = "K"  # "K:2": the creator removes seat 2, whose person cannot receive a hand; step as Remove AI
REPLAY = "V"  # the result's Replay button: opens the finished game in the web app, never pressed
LOBBY_CODES = frozenset({JOIN, LEAVE, START, CANCEL, ADD_AI, REMOVE_AI, TEAM})  # before the part after ":"

_CHAT = r"-?[0-9A-Za-z_]{1,24}"
_PATTERN = re.compile(rf"^({_CHAT})\|([0-9a-z]{{1,12}})\|([0-9]{{1,6}})\|([A-Za-z0-9:?]{{1,12}})$")


@dataclass(frozen=True)
class Payload:
    chat_id: str
    game_id: str
    step: int
    code: str

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
    return Payload(chat_id, game_id, int(step), code)

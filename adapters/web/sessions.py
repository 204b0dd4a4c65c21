"""The local browser game's sign-in: a one-time key in the printed URL, then a session token.

`durak-bot play --web` prints ``http://127.0.0.1:<port>/?ref=...#key=<key>``. The key is in the fragment,
so the browser never sends it in a request line (nor does any log hold it); the page trades it once for a
session token (`POST /api/session`) and keeps that in ``sessionStorage``. A key seen once is spent: another
program on this machine that reads the URL later (a history file, a screen) cannot take the seat. Tokens
live in this process only, as the local game does.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

from bot.adapter import User


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who a page speaks for: a person of one platform (their chats are that platform's). A sign-in that was
    made for one chat (a Discord Activity's, for its instance's channel) names it: no other chat is there for
    it. ``instance_id`` is that Activity's, whose people are checked while the session is used."""

    platform: str
    user: User
    chat_id: str | None = None  # None: any chat of the platform, as far as the platform lets its person see
    instance_id: str | None = None

    def may_open(self, chat_id: str) -> bool:
        return self.chat_id is None or self.chat_id == chat_id


class LocalSessions:
    """The one-time keys handed out and the session tokens they were traded for, for one local person."""

    def __init__(self, viewer: Viewer, ref: str = "") -> None:
        self.viewer = viewer
        self.ref = ref  # the local game's ref, told to the page with its token
        self._keys: set[str] = set()
        self._tokens: set[str] = set()

    def new_key(self) -> str:
        """A key for one printed URL; it signs one page in, once."""
        key = secrets.token_urlsafe(24)
        self._keys.add(key)
        return key

    def redeem(self, key: str) -> str | None:
        """A new session token for an unspent key (the key is spent now), else None."""
        for known in list(self._keys):
            if hmac.compare_digest(known.encode(), key.encode()):
                self._keys.discard(known)
                token = secrets.token_urlsafe(32)
                self._tokens.add(token)
                return token
        return None

    def viewer_of(self, token: str) -> Viewer | None:
        """The viewer a session token signs in, or None for a token this process never gave out."""
        if any(hmac.compare_digest(known.encode(), token.encode()) for known in self._tokens):
            return self.viewer
        return None

"""The game reference ("ref"): one opaque string that names a chat's game for the page.

``<chat id>_<game id>``: it fits Telegram's ``startapp`` parameter (A-Za-z0-9_-, at most 64 characters) and
a URL query. Chat ids may hold "_" themselves, game ids never do, so it splits at the last "_". A finished
game's replay has its own ref, ``<chat id>_<game id>-replay``, which no game ref can be mistaken for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_REF = re.compile(r"^(-?[0-9A-Za-z_]{1,24})_([0-9a-z]{1,12})$")
MAX_REF = 64
REPLAY_MARK = "-replay"  # a replay ref: the game ref and this (it still fits `startapp`)


@dataclass(frozen=True, slots=True)
class GameRef:
    chat_id: str
    game_id: str

    def encode(self) -> str:
        return f"{self.chat_id}_{self.game_id}"


def game_ref(chat_id: str, game_id: str) -> str:
    """The ref of a chat's lobby or game; ValueError for ids no ref can hold."""
    ref = GameRef(chat_id, game_id).encode()
    if parse_ref(ref) != GameRef(chat_id, game_id):
        raise ValueError(f"no ref for chat {chat_id!r} and game {game_id!r}")
    return ref


def parse_ref(text: str) -> GameRef | None:
    """The chat and game a ref names, or None when it is not one (never trusted further than its shape)."""
    if len(text) > MAX_REF:
        return None
    match = _REF.fullmatch(text)
    return GameRef(match.group(1), match.group(2)) if match else None


def replay_ref(chat_id: str, game_id: str) -> str:
    """The ref of a finished game's replay: the game's ref and `REPLAY_MARK` (no game ref ends so: game ids
    hold no "-"); ValueError for ids no ref can hold."""
    return game_ref(chat_id, game_id) + REPLAY_MARK


def parse_replay_ref(text: str) -> GameRef | None:
    """The chat and game a replay ref names, or None when it is not one."""
    if not text.endswith(REPLAY_MARK):
        return None
    return parse_ref(text.removesuffix(REPLAY_MARK))

"""Players' names as the table shows them: without the invisible characters that rearrange a line.

A right-to-left override (U+202E) in a name turns the rest of the table line around; zero-width characters
make two names look alike. Names are cleaned once, where they enter (`bot.inputs.User`), and again where
names stored before this cleaning are shown (the leaderboard). Emoji stay, and so does a zero-width joiner
between two pictographic symbols (category So), which is how family, flag and profession emoji are built
(👨‍👩‍👧, 🏳️‍🌈, 👩🏽‍💻); a joiner anywhere else is dropped.
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e"  # embeddings and overrides
    "\u2066\u2067\u2068\u2069"  # isolates
    "\u200e\u200f\u061c"  # left-to-right, right-to-left and Arabic letter marks
)
ZERO_WIDTH = frozenset("\u200b\u200c\u2060\ufeff")  # space, non-joiner, word joiner, byte order mark
JOINER = "\u200d"
EMOJI_TAILS = frozenset("\ufe0f\ufe0e") | {chr(c) for c in range(0x1F3FB, 0x1F400)}  # presentation, skin


def shown_name(raw: str) -> str:
    """``raw`` without bidi controls, zero-width characters, stray joiners and control characters (a line
    break or tab becomes a space); "" when nothing visible is left."""
    kept: list[str] = []
    for index, char in enumerate(raw):
        if char in BIDI_CONTROLS or char in ZERO_WIDTH:
            continue
        if char == JOINER:
            if joins_pictographs(raw, index):
                kept.append(char)
            continue
        kept.append(" " if unicodedata.category(char) == "Cc" else char)
    return " ".join("".join(kept).split())


def joins_pictographs(text: str, index: int) -> bool:
    """Whether the joiner at ``index`` sits between two pictographic symbols (the first may carry a
    variation selector or a skin tone)."""
    before = index - 1
    while before >= 0 and text[before] in EMOJI_TAILS:
        before -= 1
    after = index + 1
    return (
        before >= 0
        and after < len(text)
        and unicodedata.category(text[before]) == "So"
        and unicodedata.category(text[after]) == "So"
    )

"""Deep links ``https://t.me/<bot>?start=<payload>``: a button payload carried through the private chat.

Telegram passes a start parameter of at most 64 characters of ``A-Za-z0-9_-``. Button payloads use
``-|:?.`` besides letters and digits, so they are escaped reversibly: ``|`` becomes ``_`` and ``-`` starts an
escape (``--`` ``-`` , ``-u`` ``_``, ``-c`` ``:``, ``-q`` ``?``, ``-d`` ``.``). A Telegram payload such as
``-1001234567890|k3j9x0ab|0|J`` stays readable and short (29 characters), well under the limit.
"""

from __future__ import annotations

import re

MAX_START_PARAMETER = 64
START_PARAMETER_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")

_ESCAPES = {"-": "--", "_": "-u", ":": "-c", "?": "-q", ".": "-d", "|": "_"}
_UNESCAPES = {"-": "-", "u": "_", "c": ":", "q": "?", "d": "."}


class DeepLinkError(ValueError):
    """A payload that cannot ride in a start parameter (too long or an unexpected character)."""


def encode_start(payload: str) -> str:
    out = []
    for char in payload:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char.isascii() and char.isalnum():
            out.append(char)
        else:
            raise DeepLinkError(f"character {char!r} cannot be carried in a deep link")
    encoded = "".join(out)
    if not encoded or len(encoded) > MAX_START_PARAMETER:
        raise DeepLinkError(f"deep link payload of {len(encoded)} characters (at most {MAX_START_PARAMETER})")
    return encoded


def decode_start(parameter: str) -> str | None:
    """The payload a start parameter carries, or None when it is not one of ours."""
    if not START_PARAMETER_RE.fullmatch(parameter):
        return None
    out = []
    chars = iter(parameter)
    for char in chars:
        if char == "_":
            out.append("|")
        elif char == "-":
            escaped = _UNESCAPES.get(next(chars, ""))
            if escaped is None:
                return None
            out.append(escaped)
        else:
            out.append(char)
    return "".join(out)


def deep_link(bot_username: str, payload: str) -> str:
    return f"https://t.me/{bot_username}?start={encode_start(payload)}"

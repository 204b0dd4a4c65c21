"""Numbers typed by people: ASCII digits only, and never so long that reading them is work.

``str.isdigit`` accepts "²" and "٣" (which ``int`` then refuses or reads), and ``int`` of 5,000 digits raises;
every parser of typed numbers goes through `whole_number` instead.
"""

from __future__ import annotations


def whole_number(text: str, max_digits: int) -> int | None:
    """``text`` read as a whole number of at most ``max_digits`` ASCII digits, or None when it is not one
    (a sign, a space, an underscore, a unicode digit, or too many digits)."""
    if not 0 < len(text) <= max_digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)

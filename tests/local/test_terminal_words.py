"""Yes to a terminal question in each language we speak, and never a word that is also a move."""

from __future__ import annotations

import pytest

from adapters.local.reading import KIND_WORDS
from adapters.local.terminal import YES_WORDS


@pytest.mark.parametrize("yes", ["y", "да", "sì", "sí", "так", "ja", "tak", "ano"])
def test_yes_is_understood_in_each_language(yes: str) -> None:
    assert yes in YES_WORDS


def test_no_yes_word_is_also_a_move() -> None:
    assert not set(YES_WORDS) & set(KIND_WORDS), "a move typed after a question must stay a move"

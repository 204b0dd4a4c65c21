"""The page's own labels: every one it draws is in the catalogs, and none is left untranslated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters.web.strings import page_strings
from bot.i18n import TRANSLATED, translator

STATIC = Path(__file__).resolve().parents[2] / "adapters" / "web" / "static"
LABEL_CALL = re.compile(r'(?:\bui\.|(?<![\w.]))t\("([^"]+)"\)')  # t("Take") and ui.t("Take") in the page
ROLES = ("attacker", "defender", "thrower")  # the state's seat roles, which the page words with ui.t(role)


def labels_the_page_draws() -> set[str]:
    return {label for path in STATIC.glob("*.js") for label in LABEL_CALL.findall(path.read_text("utf-8"))}


def test_the_page_draws_labels_at_all() -> None:
    assert {"Take", "Pass", "Your turn", "Reconnecting…"} <= labels_the_page_draws()


def test_every_label_the_page_draws_is_one_the_server_translates() -> None:
    served = set(page_strings(translator("en")))
    assert labels_the_page_draws() - served == set()
    assert set(ROLES) <= served


# labels written the same as in English because that is the language's own word
SAME_AS_ENGLISH = {"de": {"Team A", "Team B"}}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_label_has_its_translation(lang: str) -> None:
    translated = page_strings(translator(lang))
    same = {english for english, text in translated.items() if english == text}
    assert same <= {"Durak"} | SAME_AS_ENGLISH.get(lang, set())  # the game's name is the same in Italian


def test_an_unknown_language_gets_the_english_labels() -> None:
    labels = page_strings(translator("xx"))
    assert all(english == text for english, text in labels.items())

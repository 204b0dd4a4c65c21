"""Translations through gettext catalogs: English source strings, a catalog for each other language of
`LANGUAGES` (docs/i18n.md says how one is added).

Catalogs live in ``bot/locale/<lang>/LC_MESSAGES/durak.po`` and are compiled to ``.mo`` with Babel
(``scripts/i18n.sh``); plural forms come from each catalog's Plural-Forms header, Babel's own for the
language, so Russian gets 1 карта, 2 карты, 5 карт and Polish 1 karta, 2 karty, 5 kart. Renderers receive a
`Translator` and never read a global language.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "durak"
# The languages we speak, each with its name in itself (Discord's language choice, docs): the one list the
# catalogs, the platforms' command menus, the page and the command line read.
LANGUAGE_NAMES = {
    "en": "English",
    "ru": "Русский",
    "it": "Italiano",
    "uk": "Українська",
    "de": "Deutsch",
    "es": "Español",
    "pl": "Polski",
    "cs": "Čeština",
}
LANGUAGES = tuple(LANGUAGE_NAMES)
DEFAULT_LANGUAGE = "en"
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE)  # the languages with a catalog


def normalise_language(code: str | None) -> str:
    """Map a platform's language code (``ru-RU``, ``uk``, ``de-AT``, ``es-419``) to one we speak: a regional
    one to its base language, an unknown one (``pt-BR``) to English."""
    base = (code or "").replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else DEFAULT_LANGUAGE


class Translator:
    """Gettext for one language: ``tr._("Take")``, ``tr.n_("{n} card", "{n} cards", n)``; msgids declared
    elsewhere (command tables) are looked up with `declared` and `declared_in`."""

    def __init__(self, lang: str) -> None:
        self.lang = normalise_language(lang)
        self._catalog = gettext.translation(DOMAIN, LOCALE_DIR, languages=[self.lang], fallback=True)

    def _(self, message: str) -> str:
        return self._catalog.gettext(message)

    def n_(self, singular: str, plural: str, n: int) -> str:
        return self._catalog.ngettext(singular, plural, n)

    def declared(self, message: str) -> str:
        """A msgid written as a literal elsewhere and marked there (the help lines of `bot.commands.table`),
        reaching here in a variable: babel extracts it where it is declared, not here."""
        return self._catalog.gettext(message)

    def declared_in(self, context: str, message: str) -> str:
        """As `declared`, for a msgid marked with a context (``p_("Discord command", "new")``)."""
        return self._catalog.pgettext(context, message)


def translator(lang: str | None) -> Translator:
    """The translator of a platform's language code. Cached per language we speak, not per code a client
    sent, so arbitrary codes cannot grow the cache."""
    return _translator(normalise_language(lang))


@cache
def _translator(lang: str) -> Translator:
    return Translator(lang)

"""Languages: a complete catalog for every language we speak, plural forms by Babel's (CLDR) rules, texts
within the platforms' limits, and who sees which language.

The catalogs are checked against the code (a string added without running ``scripts/i18n.sh`` fails here),
against each other (every msgid translated, same placeholders) and against the compiled ``.mo`` files that
are committed next to them. The service tests prove the split of issue 4: a player's private hand speaks the
player's language, the chat's public table speaks the chat's language.
"""

from __future__ import annotations

import ast
import gettext
import re
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract, extract_from_dir
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from bot.effects import Button
from bot.i18n import LOCALE_DIR, TRANSLATED, normalise_language, translator
from bot.inputs import User
from bot.render.summary import render_stats
from storage.models import PlayerStats
from tests.bot.conftest import ANN
from tests.bot.harness import Harness

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("bot", "adapters")  # as in babel.cfg
KEYWORDS: dict[str, Any] = {"_": None, "n_": (1, 2), "p_": ((1, "c"), 2)}  # scripts/i18n.sh's -k
PLURAL_NUMBERS = [*range(31), 101, 111]  # every ending that picks a form in the languages we speak
PLACEHOLDER = re.compile(r"{(\w*)}")

# Calls Babel's tokenizer cannot see (a call inside an f-string): known, reported, to be hoisted out.
KNOWN_UNEXTRACTABLE: set[str] = set()  # strings Babel cannot see (none now)


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file)


def template() -> Catalog:
    return read_catalog(LOCALE_DIR / "durak.pot")


def catalog(lang: str) -> Catalog:
    return read_catalog(LOCALE_DIR / lang / "LC_MESSAGES" / "durak.po")


def msgids(cat: Catalog) -> set[str | tuple[str, ...]]:
    return {message.id for message in cat if message.id}


def extracted_from_code() -> set[str | tuple[str, ...]]:
    found: set[str | tuple[str, ...]] = set()
    for folder in SOURCE_DIRS:
        for _, _, message, _, _ in extract_from_dir(
            ROOT / folder, method_map=[("**.py", "python")], keywords=KEYWORDS
        ):
            found.add(message if isinstance(message, str) else tuple(message))
    return found


def translator_calls(folder: Path) -> list[tuple[Path, int, str | None]]:
    """Every ``_(...)``, ``x._(...)``, ``x.n_(...)`` and ``p_(context, ...)`` call: its file, line and
    literal msgid (the first argument, the second after a context)."""
    calls = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if name not in KEYWORDS or not node.args:
                continue
            first = node.args[1] if name == "p_" and len(node.args) > 1 else node.args[0]  # after the context
            literal = (
                first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
            )
            calls.append((path, node.lineno, literal))
    return calls


# ---- the catalogs ------------------------------------------------------------------------------------


def test_template_lists_every_string_the_code_translates() -> None:
    missing = extracted_from_code() - msgids(template())
    assert not missing, f"run scripts/i18n.sh and translate: not in durak.pot: {sorted(map(str, missing))}"


def test_babel_extracts_each_call_style_the_code_uses() -> None:
    source = b"""
def render(tr):
    _ = tr._
    a = tr._("method call")
    b = _("bound alias")
    c = tr.n_("{n} card", "{n} cards", 3)
    d = translator("ru")._("on a call result")
"""
    found = [m for _, m, _, _ in extract("python", BytesIO(source), keywords=KEYWORDS)]
    assert found == ["method call", "bound alias", ("{n} card", "{n} cards"), "on a call result"]


def test_every_translator_call_has_a_literal_string_that_babel_extracts() -> None:
    singular = {m if isinstance(m, str) else m[0] for m in msgids(template())}
    for folder in SOURCE_DIRS:
        for path, lineno, literal in translator_calls(ROOT / folder):
            where = f"{path.relative_to(ROOT)}:{lineno}"
            assert literal is not None, f"{where}: translate a literal string, not a computed one"
            if literal in KNOWN_UNEXTRACTABLE:
                continue
            assert literal in singular, f"{where}: {literal!r} is not extracted (a call inside an f-string?)"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_msgid_has_a_reviewed_translation(lang: str) -> None:
    cat = catalog(lang)
    assert msgids(cat) == msgids(template()), "run scripts/i18n.sh update"
    for message in cat:
        if not message.id:
            continue
        assert not message.fuzzy, f"{lang}: fuzzy translation of {message.id!r}"
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(s.strip() for s in strings), f"{lang}: no translation of {message.id!r}"
        if isinstance(message.id, tuple):
            forms = get_plural(lang).num_plurals
            assert len(strings) == forms, f"{lang}: {message.id!r} needs {forms} forms"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_exactly_the_placeholders_of_the_english(lang: str) -> None:
    for message in catalog(lang):
        if not message.id:
            continue
        english = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        expected = set(PLACEHOLDER.findall(english[-1]))
        for text in strings:
            assert set(PLACEHOLDER.findall(text)) == expected, f"{lang}: {text!r} for {english[0]!r}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_catalogs_plural_forms_are_babels(lang: str) -> None:
    """The Plural-Forms header picks the forms Babel's (CLDR's) rule does: Ukrainian, Russian, Polish and
    Czech have three, and a catalog made with another header would pick the wrong one. Compared by what the
    two expressions give for every ending (and for exact millions, where Italian and Spanish have a form of
    their own), not as text: Babel releases write the same rule differently."""
    ours, babels = catalog(lang), get_plural(lang)
    assert ours.num_plurals == babels.num_plurals
    ours_rule, babels_rule = gettext.c2py(ours.plural_expr), gettext.c2py(babels.plural_expr)
    for n in [*range(1001), 1_000_000, 2_000_000, 1_000_001]:
        assert ours_rule(n) == babels_rule(n), f"{lang}: n={n}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_plural_message_renders_the_form_babels_rule_picks(lang: str) -> None:
    """Each plural message, through the compiled catalog the bot reads, for 0..30, 101 and 111: the form at
    the index Babel's rule gives, and that form says the number."""
    rule = gettext.c2py(get_plural(lang).plural_expr)
    tr = translator(lang)
    plural_messages = [m for m in catalog(lang) if m.id and isinstance(m.id, tuple)]
    assert plural_messages
    for message in plural_messages:
        singular, plural = message.id[0], message.id[1]
        for n in PLURAL_NUMBERS:
            rendered = tr.n_(singular, plural, n)
            assert rendered == message.string[rule(n)], f"{lang} n={n}: {rendered!r} for {singular!r}"
            if "{n}" in singular:
                assert "{n}" in rendered, f"{lang} n={n}: the number is not said in {rendered!r}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_mo_matches_its_po(lang: str) -> None:
    mo = LOCALE_DIR / lang / "LC_MESSAGES" / "durak.mo"
    with mo.open("rb") as file:
        compiled = gettext.GNUTranslations(file)
    for message in catalog(lang):
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            forms = [compiled.ngettext(message.id[0], message.id[1], n) for n in (1, 2, 5)]
            assert set(forms) <= set(message.string), (
                f"{lang}: {mo.name} is stale: run scripts/i18n.sh compile"
            )
        else:
            found = (
                compiled.pgettext(message.context, message.id)
                if message.context
                else compiled.gettext(message.id)
            )
            assert found == message.string, f"{lang}: {mo.name} is stale: run scripts/i18n.sh compile"


# ---- plural forms through the translator -------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "n", "expected"),
    [
        ("ru", 1, "1 карта"),
        ("ru", 2, "2 карты"),
        ("ru", 4, "4 карты"),
        ("ru", 5, "5 карт"),
        ("ru", 11, "11 карт"),
        ("ru", 12, "12 карт"),
        ("ru", 21, "21 карта"),
        ("ru", 22, "22 карты"),
        ("ru", 0, "0 карт"),
        ("it", 1, "1 carta"),
        ("it", 2, "2 carte"),
        ("it", 0, "0 carte"),
        ("en", 1, "1 card"),
        ("en", 21, "21 cards"),
    ],
)
def test_card_counts_take_the_languages_plural_form(lang: str, n: int, expected: str) -> None:
    assert translator(lang).n_("{n} card", "{n} cards", n).format(n=n) == expected


@pytest.mark.parametrize(
    ("n", "taken"),
    [(1, "Bob берёт 1 карту"), (3, "Bob берёт 3 карты"), (5, "Bob берёт 5 карт"), (21, "Bob берёт 21 карту")],
)
def test_russian_pick_up_is_in_the_accusative_with_its_plural(n: int, taken: str) -> None:
    text = translator("ru").n_("{who} took {n} card", "{who} took {n} cards", n).format(who="Bob", n=n)
    assert text == taken


def test_leaderboard_counts_games_and_points_in_the_right_plural() -> None:
    rows = [
        PlayerStats("1", "Ann", games=1, durak=0, first_out=1, points=1),
        PlayerStats("2", "Bob", games=2, durak=2, first_out=2, points=3),
        PlayerStats("3", "Cat", games=5, durak=5, first_out=0, points=5),
        PlayerStats("4", "Dan", games=21, durak=1, first_out=21, points=21),
    ]

    def row_of(name: str, lang: str) -> str:  # the standings put the most points first: Dan, Cat, Bob, Ann
        return next(
            r for r in render_stats(rows, translator(lang)).plain_text.splitlines() if f" {name} — " in r
        )

    ann, bob, cat, dan = (row_of(name, "ru") for name in ("Ann", "Bob", "Cat", "Dan"))
    assert "1 игра" in ann and "1 раз на 1-м месте" in ann and "1 очко" in ann
    assert "2 игры" in bob and "2 раза на 1-м месте" in bob and "3 очка" in bob
    assert "5 игр" in cat and "5 очков" in cat
    assert "21 игра" in dan and "21 очко" in dan
    assert "1 game ·" in row_of("Ann", "en") and "1 pt ·" in row_of("Ann", "en")
    assert "2 games" in row_of("Bob", "en") and "3 pts" in row_of("Bob", "en")
    assert "1 partita" in row_of("Ann", "it") and "1 punto" in row_of("Ann", "it")
    assert "2 partite" in row_of("Bob", "it") and "3 punti" in row_of("Bob", "it")


# ---- who sees which language --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform_code", "lang"),
    [
        ("ru", "ru"),
        ("ru-RU", "ru"),
        ("it_IT", "it"),
        ("IT", "it"),
        ("en-GB", "en"),
        ("uk", "uk"),
        ("uk-UA", "uk"),
        ("de-AT", "de"),
        ("es-419", "es"),  # Discord's Latin American Spanish
        ("es-ES", "es"),
        ("pl", "pl"),
        ("cs", "cs"),
        ("pt-BR", "en"),
        ("pt-br", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_platform_language_codes_map_to_ours_or_english(platform_code: str | None, lang: str) -> None:
    assert normalise_language(platform_code) == lang
    assert translator(platform_code).lang == lang


def button_with_code(harness: Harness, code: str) -> Button:
    """A table button found by what it does, whatever language its label is in."""
    table = harness.screen.table
    assert table is not None
    return next(b for row in table.buttons for b in row if b.payload.endswith(f"|{code}"))


async def start_two_player_game(harness: Harness, creator: User, joiner: User) -> None:
    await harness.command(creator, "newgame")
    await harness.press(joiner, button_with_code(harness, "J").payload)
    await harness.press(creator, button_with_code(harness, "S").payload)
    assert harness.screen.hands.keys() == {creator.id, joiner.id}


async def test_a_russian_players_hand_is_russian_while_the_english_chats_table_is_english(
    harness: Harness,
) -> None:
    bob = User("2", "Bob", "ru-RU")
    await start_two_player_game(harness, ANN, bob)
    table = harness.screen.table
    assert table is not None and "Trump" in table.plain_text and "Козырь" not in table.plain_text
    assert [b.label for row in table.buttons for b in row] == ["My hand"]
    bob_hand, ann_hand = harness.screen.hands["2"].plain_text, harness.screen.hands["1"].plain_text
    assert "Ваши карты:" in bob_hand and "Дурак · Club" in bob_hand
    assert "Your cards:" in ann_hand and "Ваши" not in ann_hand
    # an answer to a press speaks the presser's language too
    await harness.tap(bob, "My hand")
    await harness.command(bob, "join")
    assert harness.screen.replies[-1].plain_text == "Открытого набора нет. Начните новый командой /newgame."


async def test_the_chats_language_set_by_an_admin_rules_the_table_not_the_hands(harness: Harness) -> None:
    await harness.command(ANN, "settings", "lang=ru", is_admin=True)
    assert harness.screen.replies[-1].plain_text == "Сохранено."
    bob = User("2", "Bob", "it")
    await harness.command(ANN, "newgame", "transfer")
    lobby = harness.screen.table
    assert lobby is not None and lobby.plain_text.startswith("Новая игра в дурака")
    assert "Переводной · колода из 36 карт" in lobby.plain_text and "1 игрок / 6" in lobby.plain_text
    await harness.tap(bob, "Присоединиться")
    assert "2 игрока / 6" in harness.screen.table.plain_text  # type: ignore[union-attr]
    await harness.tap(ANN, "Начать")
    table = harness.screen.table
    assert table is not None and "Козырь" in table.plain_text and "6 карт" in table.plain_text
    assert [b.label for row in table.buttons for b in row] == ["Мои карты"]
    assert "Your cards:" in harness.screen.hands["1"].plain_text  # Ann's platform says English
    assert "Le tue carte:" in harness.screen.hands["2"].plain_text


async def test_the_chat_language_defaults_to_the_creators(harness: Harness) -> None:
    await harness.command(User("5", "Вера", "ru"), "newgame")
    assert harness.screen.table is not None
    assert harness.screen.table.plain_text.startswith("Новая игра в дурака")


async def test_an_unknown_platform_language_falls_back_to_english(harness: Harness) -> None:
    amelie, bob = User("7", "Amélie", "fr-FR"), User("2", "Bob", "ru")
    await start_two_player_game(harness, amelie, bob)
    assert "Trump" in harness.screen.table.plain_text  # type: ignore[union-attr]
    assert "Your cards:" in harness.screen.hands["7"].plain_text
    assert "Ваши карты:" in harness.screen.hands["2"].plain_text


@pytest.mark.parametrize(
    ("words", "russian"),
    [
        ("bogus", "Не удалось начать: неизвестное слово «bogus»; допустимые: classic, "),
        ("transfer classic", "Не удалось начать: «classic» противоречит «transfer»: выберите одно из них"),
        ("deck=99", "Не удалось начать: «deck=99»: для deck допустимо 24 | 36 | 52"),
        ("timer=abc", "Не удалось начать: «timer=abc»: таймер задаётся целым числом секунд, 0 или 15..600"),
        ("timer=5", "Не удалось начать: таймер должен быть 0 (выключен) или 15..600 секунд, а не 5"),
        (
            "teams transfer",
            "Не удалось начать: в командной игре «transfer» не играют: выберите teams или transfer",
        ),
    ],
)
async def test_a_refused_rule_word_is_explained_in_the_chats_language(
    harness: Harness, words: str, russian: str
) -> None:
    await harness.command(User("5", "Вера", "ru"), "newgame", words)
    assert harness.screen.replies[-1].plain_text.startswith(russian)
    await harness.command(ANN, "settings", f"lang=ru {words}", is_admin=True)
    assert harness.screen.replies[-1].plain_text.startswith(russian.removeprefix("Не удалось начать: "))

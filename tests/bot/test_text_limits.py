"""Every translation fits where the platforms put it (docs/i18n.md, "The checks"): button labels within
Discord's 80 characters, a press's answer within Telegram's 200 (answerCallbackQuery), Discord's command
names and descriptions within its rules (names: lower case, no spaces, at most 32; descriptions at most
100). A German or Czech text is often a third longer than the English one it translates, so each catalog is
checked, not the English alone."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from adapters.discord.commands import localisations
from adapters.discord.texts import COMMAND_NAMES
from bot.commands.table import Place, offered_in
from bot.effects import Alert, Effect, Notice, Reply, ShowHand, ShowTable
from bot.i18n import LANGUAGES, translator
from bot.inputs import User
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import first_moves_to_the_end

ROOT = Path(__file__).resolve().parents[2]
BUTTON_LABEL = 80  # Discord's limit for a button's label (Telegram's keyboards show less of a long one)
ALERT = 200  # Telegram's limit for answerCallbackQuery's text
DISCORD_NAME = re.compile(r"^[-_\w]{1,32}$")  # Discord's command and option names (\w: any script's letters)
DISCORD_DESCRIPTION = 100


def translated_literals(call: str) -> set[str]:
    """The msgids translated right inside ``call(...)`` calls of bot/ and adapters/: ``Button(_("Take"))``,
    ``Alert(user.id, tr._("..."))``."""
    found: set[str] = set()
    for folder in ("bot", "adapters"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", getattr(node.func, "attr", "")) == call
                ):
                    continue
                for argument in node.args:
                    inner = argument.func if isinstance(argument, ast.Call) else None
                    name = getattr(inner, "id", getattr(inner, "attr", "")) if inner is not None else ""
                    if name == "_" and isinstance(argument, ast.Call) and argument.args:
                        literal = argument.args[0]
                        if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
                            found.add(literal.value)
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_button_label_fits_a_button(lang: str) -> None:
    labels = translated_literals("Button")
    assert "Rematch" in labels, "the button labels are found"
    tr = translator(lang)
    long = {label: tr._(label) for label in labels if len(tr._(label).format_map(Blank())) > BUTTON_LABEL}
    assert not long, f"{lang}: labels over {BUTTON_LABEL} characters: {long}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_answer_to_a_press_fits_telegrams_alert(lang: str) -> None:
    answers = translated_literals("Alert")
    assert answers, "the answers to presses are found"
    tr = translator(lang)
    long = {text: tr._(text) for text in answers if len(tr._(text).format_map(Example())) > ALERT}
    assert not long, f"{lang}: answers over {ALERT} characters: {long}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_discords_command_names_and_descriptions_keep_its_rules(lang: str) -> None:
    texts = localisations()
    names = [*COMMAND_NAMES, *(spec.discord.name for spec in offered_in(Place.DISCORD) if spec.discord)]
    for english, translations in texts.items():
        text = translations[lang]
        if english in names:
            assert DISCORD_NAME.fullmatch(text) and text == text.lower(), f"{lang}: command name {text!r}"
        else:
            assert 1 <= len(text) <= DISCORD_DESCRIPTION, f"{lang}: description of {len(text)}: {text!r}"


class Blank(dict[str, str]):
    """Placeholders left out: a label's own length."""

    def __missing__(self, key: str) -> str:
        return ""


class Example(dict[str, str]):
    """Placeholders as long as they usually get: a name, a card, a number."""

    def __missing__(self, key: str) -> str:
        return "Alexandra" if key in ("name", "who") else "10♥"


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_whole_game_in_the_language_fits_every_button_and_answer(
    fake_redis: object, lang: str
) -> None:
    """What the static scan cannot see (labels chosen in a variable): a game of three in the chat's language,
    lobby to result, every button and every answer it showed."""
    people = [User(str(n), name, lang) for n, name in ((1, "Alexandra"), (2, "Bob"), (3, "Cat"))]
    harness = Harness(RedisGameStore(fake_redis))  # type: ignore[arg-type]
    seen: list[Effect] = []
    run = harness._run

    async def recorded(pending: object) -> list[Effect]:
        effects = await run(pending)
        seen.extend(effects)
        return effects

    harness._run = recorded  # type: ignore[method-assign]
    await harness.command(people[0], "newgame", "timer=30")
    for user in people[1:]:
        await harness.press(user, code_on_table(harness, "J"))
    await harness.press(people[0], code_on_table(harness, "S"))
    await first_moves_to_the_end(harness, people)
    messages = [e.message for e in seen if isinstance(e, ShowTable | ShowHand | Notice | Reply)]
    labels = {button.label for m in messages for row in m.buttons for button in row}
    answers = {e.text for e in seen if isinstance(e, Alert)}
    assert labels and answers
    assert not [label for label in labels if len(label) > BUTTON_LABEL], lang
    assert not [text for text in answers if len(text) > ALERT], lang


def code_on_table(harness: Harness, code: str) -> str:
    assert harness.screen.table is not None
    return next(
        b.payload for row in harness.screen.table.buttons for b in row if b.payload.endswith(f"|{code}")
    )

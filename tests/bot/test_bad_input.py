"""Bad input gets a clear answer, never an exception: every command's words, every word parser.

The property tests feed arbitrary text (unicode digits, numbers of thousands of digits, ``=`` signs, control
characters) and accept only a result or a refusal in the reader's language.
"""

from __future__ import annotations

import asyncio
import re

import fakeredis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.local.reading import Help, Later, Pick, Problem, Quit, SlashCommand, interpret
from bot.buttons import named
from bot.commands.table import COMMANDS as TABLE
from bot.effects import Alert, Button, Effect, Reply
from bot.i18n import translator
from bot.inputs import User
from bot.payloads import Payload, parse
from bot.render.rules import settings_problem
from core import Settings, SettingsError
from core.settings import accepted_words
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import CHAT, Harness

CYRILLIC = re.compile("[а-яА-ЯёЁ]")
RU = translator("ru")
HOSTILE_WORDS = st.one_of(
    st.text(max_size=60),
    st.text(alphabet="0123456789²³¹٣०௫=timerdck ", max_size=30),
    st.builds(lambda key, digits: f"{key}={digits}", st.sampled_from(["timer", "deck", "mode"]), st.text()),
    st.integers(min_value=20, max_value=6000).map(lambda digits: "timer=" + "7" * digits),
)
COMMANDS = [name for spec in TABLE for name in spec.names]  # every command of the table, aliases too


def answers(effects: list[Effect]) -> list[str]:
    """The texts the chat or the user is told (replies and alerts with a text)."""
    texts = [e.message.plain_text for e in effects if isinstance(e, Reply)]
    return texts + [e.text for e in effects if isinstance(e, Alert) and e.text]


async def test_a_superscript_digit_timer_is_refused_in_words(harness: Harness) -> None:
    await harness.command(ANN, "newgame", "timer=²")
    assert "“timer=²”: the timer takes whole seconds" in harness.screen.replies[-1].plain_text
    assert harness.screen.table is None


async def test_a_timer_of_five_thousand_digits_is_refused_in_words(harness: Harness) -> None:
    await harness.command(ANN, "newgame", "timer=" + "9" * 5000)
    reply = harness.screen.replies[-1].plain_text
    assert "the timer takes whole seconds" in reply and len(reply) < 300


async def test_settings_with_a_superscript_digit_timer_is_refused_and_nothing_is_saved(
    harness: Harness,
) -> None:
    await harness.command(ANN, "settings", "timer=²", is_admin=True)
    assert "the timer takes whole seconds" in harness.screen.replies[-1].plain_text
    await harness.command(ANN, "settings")
    assert "Default rules of this chat: classic" in harness.screen.replies[-1].plain_text


def test_unicode_digits_are_not_whole_seconds() -> None:
    for word in ("timer=²", "timer=٣٠", "timer=३०", "timer=３０", "timer=3_0", "timer= 30"):
        with pytest.raises(SettingsError) as refused:
            Settings.from_words([word])
        assert refused.value.reason == "timer_word", word


def test_a_refusal_quotes_at_most_a_short_part_of_a_long_word() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_words("x" * 5000)
    assert len(refused.value.details["word"]) <= 32 and refused.value.details["word"].endswith("…")


def test_a_superscript_or_huge_move_number_in_the_terminal_gets_the_usage_line() -> None:
    moves = [Button("9♥", Payload("terminal", "g1", 4, named("a:9H")).encode())]
    for typed in ("²", "٣", "9" * 5000):
        meaning = interpret(typed, moves, translator("en"))
        assert isinstance(meaning, Problem), typed


def test_a_payload_with_a_trailing_line_break_is_not_ours() -> None:
    assert parse("-100|g1|0|J") is not None
    assert parse("-100|g1|0|J\n") is None


# ---- properties ------------------------------------------------------------------------------------


async def one_command(prelude: str, name: str, words: str) -> list[Effect]:
    """A fresh chat in Russian, brought to ``prelude`` (no game, an open lobby, a running game), then Bob
    sends ``/name words``."""
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    try:
        harness = Harness(RedisGameStore(client))
        ann, bob = User(ANN.id, ANN.name, "ru"), User(BOB.id, BOB.name, "ru")
        if prelude in ("lobby", "playing"):
            await harness.command(ann, "newgame")
        if prelude == "playing":
            await harness.command(bob, "join")
            await harness.command(ann, "start")
        return await harness.command(bob, name, words, is_admin=True)
    finally:
        await client.aclose()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    prelude=st.sampled_from(["none", "lobby", "playing"]),
    name=st.one_of(st.sampled_from(COMMANDS), st.text(max_size=12)),
    words=HOSTILE_WORDS,
)
def test_any_words_to_any_command_get_an_answer_in_the_readers_language(
    prelude: str, name: str, words: str
) -> None:
    pytest.importorskip("lupa")
    effects = asyncio.run(one_command(prelude, name, words))
    assert effects, f"/{name} {words!r} got no answer"
    for text in answers(effects):
        assert CYRILLIC.search(text), f"/{name} {words!r} answered untranslated: {text!r}"


async def one_press(prelude: str, payload: str) -> list[Effect]:
    """As `one_command`, but Bob presses a button with ``payload``."""
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    try:
        harness = Harness(RedisGameStore(client))
        ann, bob = User(ANN.id, ANN.name, "ru"), User(BOB.id, BOB.name, "ru")
        await harness.command(ann, "newgame")  # lobby g1
        if prelude == "playing":
            await harness.command(bob, "join")
            await harness.command(ann, "start")  # game g2
        return await harness.press(bob, payload)
    finally:
        await client.aclose()


CODES = st.text(alphabet="ADJLSCRHTtpacxe0123456789:?SHDCKQA", min_size=1, max_size=12)
PAYLOADS = st.one_of(
    st.text(max_size=70),
    st.builds(
        lambda game, step, code: f"{CHAT}|{game}|{step}|{code}",
        st.sampled_from(["g1", "g2", "zz"]),
        st.integers(min_value=0, max_value=999_999),
        CODES,
    ),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prelude=st.sampled_from(["lobby", "playing"]), payload=PAYLOADS)
def test_any_button_payload_gets_an_answer_in_the_pressers_language(prelude: str, payload: str) -> None:
    pytest.importorskip("lupa")
    effects = asyncio.run(one_press(prelude, payload))
    assert effects, f"{payload!r} got no answer"
    for text in answers(effects):
        assert CYRILLIC.search(text), f"{payload!r} answered untranslated: {text!r}"


@settings(max_examples=300, deadline=None)
@given(HOSTILE_WORDS)
def test_rule_words_build_settings_or_a_refusal_the_reader_can_read(words: str) -> None:
    try:
        chosen = Settings.from_words(words)
    except SettingsError as error:
        assert error.reason, f"{words!r}: a refusal without a reason cannot be translated"
        assert CYRILLIC.search(settings_problem(error, RU))
    else:
        assert Settings.from_words(chosen.to_words()) == chosen
    assert "timer=N" in accepted_words()


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=40), st.text(alphabet="0123456789²٣/ tpqh?♥♠SHDC", max_size=8)))
def test_any_typed_line_means_a_button_a_command_or_a_reason(typed: str) -> None:
    moves = [
        Button("9♥", Payload("terminal", "g1", 4, named("a:9H")).encode()),
        Button("Take", Payload("terminal", "g1", 4, named("t")).encode()),
    ]
    for buttons in (moves, []):
        meaning = interpret(typed, buttons, RU)
        assert isinstance(meaning, Pick | Problem | SlashCommand | Help | Quit | Later)
        if isinstance(meaning, Pick):
            assert meaning.payload in {b.payload for b in buttons}
        if isinstance(meaning, Later):  # a move kept for the turn: only while no move may be made now
            assert not buttons and meaning.text == typed.strip()

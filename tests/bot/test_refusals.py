"""A refused tap or command says why, in the presser's language: the engine's reason (`core.reasons`), that
the game has already started, that hints are for practice games against the AI."""

from __future__ import annotations

import pytest

from bot.i18n import LANGUAGES, translator
from bot.inputs import User
from bot.render.refusal import refusal_text
from core.reasons import Refusal, Why
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB, CAT, EVE
from tests.bot.harness import Harness, button
from tests.bot.stacked import game_now, press_move, stacked_game

HANDS = ["6H 6C 7S 9D TD KC", "QD 7H 8C 9C 7D 8D", "7C JS QS KS TC 8S"]  # trumps: spades (A♠ turned up)


def speaking(user: User, lang: str) -> User:
    return User(user.id, user.name, lang)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Q♦ does not beat 6♥: play a higher ♥ or a trump."),
        ("ru", "Q♦ не бьёт 6♥: нужна старшая ♥ или козырь."),
        ("it", "Q♦ non batte 6♥: serve una ♥ più alta o una briscola."),
    ],
)
async def test_a_cover_that_does_not_beat_says_which_cards_would(
    harness: Harness, lang: str, text: str
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, speaking(BOB, lang), "c:0:QD")
    assert harness.screen.alerts[-1].text == text
    assert (await game_now(harness)).step == 1, "nothing was played"


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "It is not your turn: Bob is defending."),
        ("ru", "Сейчас не ваш ход: Bob отбивается."),
        ("it", "Non è il tuo turno: Bob si sta difendendo."),
    ],
)
async def test_a_move_out_of_turn_names_who_acts_and_what_they_do(
    harness: Harness, lang: str, text: str
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, speaking(CAT, lang), "a:7C")
    assert harness.screen.alerts[-1].text == text


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "9♦ cannot be thrown in: only cards of a rank already on the table can."),
        ("ru", "9♦ нельзя подкинуть: подкидывают только карты достоинств, которые уже на столе."),
        ("it", "9♦ non si può aggiungere: si aggiungono solo carte di un valore già in tavola."),
    ],
)
async def test_a_throw_in_of_a_rank_not_on_the_table_is_refused_with_the_rule(
    harness: Harness, lang: str, text: str
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    await press_move(harness, ANN, "a:6H")
    await press_move(harness, BOB, "c:0:7H")
    await press_move(harness, speaking(ANN, lang), "a:9D")
    assert harness.screen.alerts[-1].text == text


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "The game has already started."),
        ("ru", "Игра уже началась."),
        ("it", "La partita è già iniziata."),
    ],
)
async def test_a_lobby_button_pressed_after_the_start_says_the_game_has_started(
    harness: Harness, lang: str, text: str
) -> None:
    await harness.command(ANN, "newgame")
    join = button(harness.screen.table, "Join").payload
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    await harness.press(speaking(EVE, lang), join)
    assert harness.screen.alerts[-1].text == text


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Hints are for practice games against the AI: start one in a private chat with me."),
        ("ru", "Подсказки — только для тренировочных игр против ИИ: начните такую в личном чате со мной."),
        (
            "it",
            "I suggerimenti sono per le partite di allenamento contro l'IA: iniziane una in chat privata con me.",
        ),
    ],
)
async def test_hint_in_a_group_says_hints_are_for_practice_games_against_the_ai(
    harness: Harness, lang: str, text: str
) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    await harness.command(speaking(ANN, lang), "hint")
    assert harness.screen.replies[-1].plain_text == text


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Hints are for practice games against the AI: start one here with /newgame."),
        ("ru", "Подсказки — только для тренировочных игр против ИИ: начните такую здесь командой /newgame."),
        (
            "it",
            "I suggerimenti sono per le partite di allenamento contro l'IA: iniziane una qui con /newgame.",
        ),
    ],
)
async def test_hint_in_a_private_chat_without_a_practice_game_says_what_hints_are_for(
    fake_redis: object, lang: str, text: str
) -> None:
    """A player of a group game asks where their hand is, the private chat, which holds no game."""
    private = Harness(RedisGameStore(fake_redis), chat=ANN.id)  # type: ignore[arg-type]
    await private.command(speaking(ANN, lang), "hint", private=True)
    assert private.screen.replies[-1].plain_text == text


def every_refusal() -> list[Refusal]:
    """One refusal of each kind, with cards and seats where the kind names them."""
    data = {
        Why.NOT_YOUR_TURN: {"seat": 1, "doing": "defend"},
        Why.NOT_HELD: {"card": 0},
        Why.NO_SUCH_PLACE: {"number": 2},
        Why.ALREADY_COVERED: {"target": 17},
        Why.DOES_NOT_BEAT: {"card": 12, "target": 17, "trump": "S"},
        Why.TRANSFER_WRONG_RANK: {"card": 12, "target": 17},
        Why.TRANSFER_OVER_CAP: {"number": 6},
        Why.TARGET_HOLDS_TOO_FEW: {"seat": 2, "number": 4},
        Why.DEFENDER_TAKES_NO_MORE: {"number": 3},
        Why.BOUT_IS_FULL: {"number": 5},
        Why.RANK_NOT_ON_TABLE: {"card": 12},
        Why.NOT_LOWEST_HOLDER: {"target": 16},
    }
    return [Refusal(why, **data.get(why, {})) for why in Why]  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_reason_the_engine_gives_has_words_in_each_language(lang: str) -> None:
    tr = translator(lang)
    texts = [refusal_text(refusal, ("Ann", "Bob", "Cat"), tr) for refusal in every_refusal()]
    assert all(text[:1].isupper() or text[:1].isdigit() for text in texts)
    assert all(text.endswith(".") for text in texts)
    assert len(set(texts)) == len(texts), "each reason reads differently"
    if lang != "en":
        english = translator("en")
        assert all(
            text != refusal_text(refusal, ("Ann", "Bob", "Cat"), english)
            for text, refusal in zip(texts, every_refusal(), strict=True)
        )

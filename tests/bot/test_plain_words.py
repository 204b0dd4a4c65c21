"""Words people read, in English, Russian and Italian: the table's header names the rules as the lobby does,
the cards on the table say which are beaten, an unknown rule word gets the closest known one, the last actions
read as finished things with places as ordinals, and the standings put the most points first."""

from __future__ import annotations

import pytest

from bot.game.last_actions import events_of_step
from bot.i18n import translator
from bot.inputs import User
from bot.render.summary import render_stats
from bot.render.table import describe_event, render_table
from bot.session import Playing, Seat, TableEvent
from core import Action, Game, Settings, SettingsError
from storage.models import PlayerStats
from tests.bot.harness import Harness
from tests.core.helpers import game_with, play

NAMES = ("Alice", "Boris")


def table_text(game: Game, lang: str, events: list[TableEvent] | None = None) -> list[str]:
    seats = [Seat(user_id=str(seat), name=name) for seat, name in enumerate(NAMES)]
    header = Playing(game_id="g1", creator="0", seats=seats, started_at=0.0, events=events or [])
    return render_table(header, game.view(None), "-1", translator(lang)).plain_text.splitlines()


def two_players(words: str = "") -> Game:
    """Alice (seat 0) opens with 7♣ against Boris, who holds 9♣; hearts are trumps."""
    return game_with(["7C 7D 8S", "9C 9D 8H"], trump="6H", settings=words, opener=0)


# ---- point 5: the table header, the pairs on the table, an unknown word -------------------------------


@pytest.mark.parametrize(
    ("lang", "words", "header"),
    [
        ("en", "", "Durak · Classic (podkidnoy)"),
        ("ru", "", "Дурак · Подкидной"),
        ("it", "", "Durak · Classico (podkidnoy)"),
        ("en", "transfer neighbours first5", "Durak · Transfer (perevodnoy) · neighbours throw in · first bout: 5 cards"),
        ("ru", "transfer neighbours first5", "Дурак · Переводной · подкидывают соседи · первый заход: 5 карт"),
        ("it", "transfer neighbours first5",
         "Durak · Con trasferimento (perevodnoy) · aggiungono i vicini · primo attacco: 5 carte"),
        ("en", "transfer deck=24 exchange timer=0",
         "Durak · Transfer (perevodnoy) · 24 card deck · trump exchange · no turn timer"),
        ("ru", "transfer deck=24 exchange timer=0",
         "Дурак · Переводной · колода из 24 карт · обмен козыря · без таймера"),
        ("it", "transfer deck=24 exchange timer=0",
         "Durak · Con trasferimento (perevodnoy) · mazzo da 24 carte · scambio della briscola · senza timer"),
    ],
)  # fmt: skip
def test_the_table_header_names_the_rules_as_the_lobby_does(lang: str, words: str, header: str) -> None:
    game = game_with(["9C TD JS", "QC KD AS"], trump="AH", settings=words)
    assert table_text(game, lang)[0] == header


@pytest.mark.parametrize(
    ("lang", "open_pair", "beaten_pair"),
    [
        ("en", "On the table: 7♣ not covered · 1 of 6 cards", "On the table: 7♣ beaten by 9♣ · 1 of 6 cards"),
        ("ru", "На столе: 7♣ не побита · 1 из 6 карт", "На столе: 7♣ побита 9♣ · 1 из 6 карт"),
        ("it", "In tavola: 7♣ non coperta · 1 di 6 carte", "In tavola: 7♣ coperta con 9♣ · 1 di 6 carte"),
    ],
)
def test_the_cards_on_the_table_say_which_are_beaten_and_how_many_may_come(
    lang: str, open_pair: str, beaten_pair: str
) -> None:
    attacked = play(two_players(), "0 a:7C")
    assert open_pair in table_text(attacked, lang)
    assert beaten_pair in table_text(play(attacked, "1 c:0:9C"), lang)


def test_several_pairs_on_the_table_are_listed_in_order() -> None:
    game = play(two_players(), "0 a:7C", "1 c:0:9C", "0 a:7D")
    assert "On the table: 7♣ beaten by 9♣, 7♦ not covered · 2 of 6 cards" in table_text(game, "en")


def test_an_unknown_rule_word_names_the_closest_known_word() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_words("transfr")
    assert refused.value.details["suggestion"] == "transfer"
    assert str(refused.value).startswith("unknown word “transfr”; did you mean “transfer”? accepted: classic")


@pytest.mark.parametrize(
    ("typed", "closest"),
    [("neighbors5", "neighbors"), ("dek=24", "deck=24"), ("opener", "opener=durak_left|durak_right|lowest"),
     ("TIMR=45", "timer=45")],
)  # fmt: skip
def test_the_closest_word_keeps_the_value_typed_after_the_key(typed: str, closest: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_words(typed)
    assert refused.value.details["suggestion"] == closest


def test_a_word_like_no_known_word_gets_only_the_list() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_words("bogus")
    assert "suggestion" not in refused.value.details and "did you mean" not in str(refused.value)


@pytest.mark.parametrize(
    ("lang", "reply"),
    [
        ("en", "Cannot start: unknown word “transfr”: did you mean “transfer”? Accepted: classic, "),
        (
            "ru",
            "Не удалось начать: неизвестное слово «transfr»: может быть, «transfer»? Допустимые: classic, ",
        ),
        ("it", "Impossibile iniziare: parola sconosciuta «transfr»: forse «transfer»? Ammesse: classic, "),
    ],
)
async def test_newgame_with_a_misspelt_word_suggests_the_closest_one_first(
    harness: Harness, lang: str, reply: str
) -> None:
    await harness.command(User("5", "Vera", lang), "newgame", "transfr")
    assert harness.screen.replies[-1].plain_text.startswith(reply)


# ---- point 6: the last actions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "four", "two", "one"),
    [
        ("en", "Boris held off the attack: 4 cards discarded", "Boris held off the attack: 2 cards discarded",
         "Boris held off the attack: 1 card discarded"),
        ("ru", "Boris: отбой, 4 карты в бито", "Boris: отбой, 2 карты в бито", "Boris: отбой, 1 карта в бито"),
        ("it", "Boris ha respinto l'attacco: 4 carte scartate", "Boris ha respinto l'attacco: 2 carte scartate",
         "Boris ha respinto l'attacco: 1 carta scartata"),
    ],
)  # fmt: skip
def test_a_defence_that_held_reads_as_finished(lang: str, four: str, two: str, one: str) -> None:
    def held(count: int) -> str:
        return describe_event(
            TableEvent(kind="beaten_off", seat=1, count=count), list(NAMES), translator(lang)
        )

    assert (held(4), held(2), held(1)) == (four, two, one)


def test_the_russian_end_of_a_defence_does_not_read_like_the_defence_still_going() -> None:
    game = play(two_players(), "0 a:7C", "1 c:0:9C")
    after = play(game, "0 p")
    events = events_of_step(game, 0, Action.parse("p"), after)
    lines = table_text(after, "ru", events)
    assert "· Boris: отбой, 2 карты в бито" in lines
    assert not any("отбивается" in line for line in lines if line.startswith("·"))


@pytest.mark.parametrize(
    ("lang", "first", "second", "third"),
    [
        ("en", "Alice is out, 1st", "Alice is out, 2nd", "Alice is out, 3rd"),
        ("ru", "Alice выходит из игры: 1-е место", "Alice выходит из игры: 2-е место",
         "Alice выходит из игры: 3-е место"),
        ("it", "Alice è fuori: 1° posto", "Alice è fuori: 2° posto", "Alice è fuori: 3° posto"),
    ],
)  # fmt: skip
def test_a_player_who_goes_out_is_given_their_place_as_an_ordinal(
    lang: str, first: str, second: str, third: str
) -> None:
    def out(place: int) -> str:
        return describe_event(TableEvent(kind="out", seat=0, count=place), list(NAMES), translator(lang))

    assert (out(1), out(2), out(3)) == (first, second, third)


@pytest.mark.parametrize(
    ("lang", "opened", "thrown"),
    [
        ("en", "Alice played 7♣", "Alice threw in 7♦"),
        ("ru", "Alice ходит 7♣", "Alice подкидывает 7♦"),
        ("it", "Alice gioca 7♣", "Alice aggiunge 7♦"),
    ],
)
def test_a_card_thrown_in_reads_differently_from_the_card_that_opens_the_bout(
    lang: str, opened: str, thrown: str
) -> None:
    start = two_players()
    attacked = play(start, "0 a:7C")
    covered = play(attacked, "1 c:0:9C")
    thrown_in = play(covered, "0 a:7D")
    events = [
        *events_of_step(start, 0, Action.parse("a:7C"), attacked),
        *events_of_step(covered, 0, Action.parse("a:7D"), thrown_in),
    ]
    tr = translator(lang)
    assert [describe_event(event, list(NAMES), tr) for event in events] == [opened, thrown]


# ---- point 10: the standings --------------------------------------------------------------------------

ROWS = [  # as the store may hand them over: Boris lost the most and scored nothing
    PlayerStats("2", "Boris", games=5, durak=2, first_out=0, points=1),
    PlayerStats("1", "Alice", games=5, durak=0, first_out=3, points=11),
    PlayerStats("3", "Clara", games=5, durak=1, first_out=1, points=6),
    PlayerStats("4", "Dmitri", games=5, durak=2, first_out=1, points=6),
]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", ["Standings (most points first)",
                "1. Alice — 11 pts · durak: 0 times · 5 games · 3 first out",
                "2. Clara — 6 pts · durak: 1 time · 5 games · 1 first out",
                "3. Dmitri — 6 pts · durak: 2 times · 5 games · 1 first out",
                "4. Boris — 1 pt · durak: 2 times · 5 games · 0 first out",
                "Most often the durak: Boris, Dmitri (2 times)"]),
        ("ru", ["Турнирная таблица (выше — у кого больше очков)",
                "1. Alice — 11 очков · дурак: 0 раз · 5 игр · 3 раза на 1-м месте",
                "2. Clara — 6 очков · дурак: 1 раз · 5 игр · 1 раз на 1-м месте",
                "3. Dmitri — 6 очков · дурак: 2 раза · 5 игр · 1 раз на 1-м месте",
                "4. Boris — 1 очко · дурак: 2 раза · 5 игр · 0 раз на 1-м месте",
                "Чаще всех в дураках: Boris, Dmitri (2 раза)"]),
        ("it", ["Classifica (prima chi ha più punti)",
                "1. Alice — 11 punti · durak: 0 volte · 5 partite · 3 volte al 1° posto",
                "2. Clara — 6 punti · durak: 1 volta · 5 partite · 1 volta al 1° posto",
                "3. Dmitri — 6 punti · durak: 2 volte · 5 partite · 1 volta al 1° posto",
                "4. Boris — 1 punto · durak: 2 volte · 5 partite · 0 volte al 1° posto",
                "Durak più spesso: Boris, Dmitri (2 volte)"]),
    ],
)  # fmt: skip
def test_the_standings_put_the_most_points_first_and_name_the_most_frequent_durak_apart(
    lang: str, expected: list[str]
) -> None:
    most_often = [row for row in ROWS if row.durak == 2]
    assert render_stats(ROWS, translator(lang), most_often).plain_text.splitlines() == expected


@pytest.mark.parametrize(
    ("n", "russian"), [(0, "дурак: 0 раз"), (2, "дурак: 2 раза"), (5, "дурак: 5 раз"), (21, "дурак: 21 раз")]
)
def test_the_russian_durak_count_takes_its_plural_form(n: int, russian: str) -> None:
    row = PlayerStats("1", "Alice", games=30, durak=n, points=1)
    assert russian in render_stats([row], translator("ru")).plain_text


def test_standings_where_nobody_lost_yet_have_no_durak_line() -> None:
    text = render_stats([PlayerStats("1", "Alice", games=1, draws=1)], translator("en")).plain_text
    assert "Most often" not in text


@pytest.mark.parametrize(
    ("word", "mode"),
    [
        ("подкидной", "classic"),
        ("підкидний", "classic"),
        ("переводной", "transfer"),
        ("перевідний", "transfer"),
    ],
)
def test_the_variants_own_names_in_russian_and_ukrainian_are_rule_words(word: str, mode: str) -> None:
    """A Ukrainian group types `/newgame перевідний`, the name it knows the transfer game by."""
    assert Settings.from_words(word).mode == mode
    assert Settings.from_words(word.upper()).mode == mode

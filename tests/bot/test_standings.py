"""Ratings as the chat sees them: the result message, /stats by rating with provisional players apart,
seasons (/settings season=new, /stats season=1), and /me, each person's own record shown to them only."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from bot.effects import Reply
from bot.i18n import translator
from bot.platforms import DISCORD
from bot.render.personal import render_me
from bot.render.summary import render_stats
from storage import ChatRef
from storage.models import PersonalRecord, PlayerStats, Rival
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import CHAT, Harness, button
from tests.bot.test_play import start

OPENSKILL = PlackettLuce()


def shown(mu: float, sigma: float) -> float:
    return OPENSKILL.rating(mu=mu, sigma=sigma).ordinal()


def after_games(*winners_first: list[str]) -> dict[str, tuple[float, float]]:
    """openskill's own ratings after two-player games, each given as [winner, durak], everyone new."""
    ratings = {user: OPENSKILL.rating() for game in winners_first for user in game}
    for winner, loser in winners_first:
        new = OPENSKILL.rate([[ratings[winner]], [ratings[loser]]], ranks=[1.0, 2.0])
        ratings[winner], ratings[loser] = new[0][0], new[1][0]
    return {user: (rating.mu, rating.sigma) for user, rating in ratings.items()}


async def bob_surrenders(harness: Harness) -> None:
    await start(harness)
    await harness.surrender(BOB)


async def test_the_result_message_shows_each_persons_rating_and_its_change(harness: Harness) -> None:
    await bob_surrenders(harness)
    new = shown(OPENSKILL.mu, OPENSKILL.sigma)
    ann, bob = (shown(*after_games(["1", "2"])[user]) for user in ("1", "2"))
    places = harness.screen.notices[-1].plain_text.splitlines()[1:3]
    expected = [f"1. Ann (+3) · rating {ann - new:+.1f}", f"2. Bob, the durak · rating {bob - new:+.1f}"]
    assert places == [text.replace("-", "−") for text in expected]


async def test_the_next_game_starts_from_the_ratings_the_last_one_left(harness: Harness) -> None:
    await bob_surrenders(harness)
    rematch = button(harness.screen.notices[-1], "Rematch")  # on the result message
    await harness.press(BOB, rematch.payload)  # the lobby the second game starts from loads with the ratings
    await harness.tap(BOB, "Start")
    await harness.surrender(ANN)
    rows = {row.user_id: row.rating for row in await harness.store.stats(ChatRef("tg", CHAT))}
    assert rows == after_games(["1", "2"], ["2", "1"])


async def test_stats_ranks_by_rating_and_lists_players_with_few_games_apart(harness: Harness) -> None:
    rows = [
        PlayerStats("1", "Ann", games=9, durak=2, points=14, rating=(30.0, 3.0), rated=9),
        PlayerStats("2", "Bob", games=12, durak=5, points=20, rating=(28.0, 2.0), rated=12),
        PlayerStats("3", "Cat", games=4, durak=0, points=9, rating=(33.0, 6.0), rated=4),
        PlayerStats("4", "Dan", games=3, durak=3, points=0, rating=(20.0, 6.0), rated=3),
    ]
    most_often = [rows[1]]
    assert render_stats(rows, translator("en"), most_often).plain_text.splitlines() == [
        "Standings by rating",
        "1. Bob — 22.0 · 12 games · durak: 5 times · 20 pts",
        "2. Ann — 21.0 · 9 games · durak: 2 times · 14 pts",
        "Provisional (fewer than 5 games):",
        "· Cat — 15.0 · 4 games · durak: 0 times · 9 pts",
        "· Dan — 2.0 · 3 games · durak: 3 times · 0 pts",
        "Most often the durak: Bob (5 times)",
    ]


async def test_an_admins_season_new_restarts_the_standings_and_keeps_season_one_readable(
    harness: Harness,
) -> None:
    await bob_surrenders(harness)
    await harness.command(ANN, "settings", "season=new", is_admin=True)
    assert "Season 2 has begun" in harness.screen.replies[-1].plain_text
    await harness.command(BOB, "stats")
    assert harness.screen.replies[-1].plain_text == "No games played in season 2 yet."
    await harness.command(BOB, "stats", "season=1")
    assert "· Ann — " in harness.screen.replies[-1].plain_text
    await harness.command(BOB, "newgame")
    await harness.tap(ANN, "Join")
    await harness.tap(BOB, "Start")
    await harness.surrender(ANN)
    new = shown(*after_games(["2", "1"])["2"]) - shown(OPENSKILL.mu, OPENSKILL.sigma)
    assert f"rating {new:+.1f}" in harness.screen.notices[-1].plain_text, "season 2 rates Bob from new again"
    await harness.command(BOB, "stats")
    assert harness.screen.replies[-1].plain_text.startswith("Standings by rating, season 2")


async def test_only_an_admin_starts_a_new_season(harness: Harness) -> None:
    await harness.command(BOB, "settings", "season=new")
    assert harness.screen.replies[-1].plain_text == "Only an admin of this chat can change its settings."
    assert (await harness.store.load(ChatRef("tg", CHAT))).season == 1


async def test_season_is_a_chat_setting_never_a_rule_of_the_game(harness: Harness) -> None:
    await harness.command(ANN, "settings", "transfer season=new", is_admin=True)
    record = await harness.store.load(ChatRef("tg", CHAT))
    assert (record.settings, record.season) == ("transfer", 2)
    await harness.command(ANN, "newgame", "season=new")
    assert "unknown word “season=new”" in harness.screen.replies[-1].plain_text


async def test_on_discord_the_season_replies_name_stats_as_its_slash_subcommand(fake_redis: object) -> None:
    on_discord = Harness(RedisGameStore(fake_redis), platform=DISCORD)  # type: ignore[arg-type]
    await on_discord.command(ANN, "settings", "season=new", is_admin=True)
    assert on_discord.screen.replies[-1].plain_text.endswith("Earlier seasons: /durak stats season:1")
    await on_discord.command(ANN, "stats", "season=3")
    expected = "Seasons of this chat: 1 to 2, e.g. /durak stats season:1"
    assert on_discord.screen.replies[-1].plain_text == expected


@pytest.mark.parametrize("words", ["season=3", "season=0", "season=x", "points"])
async def test_stats_for_a_season_the_chat_never_had_names_the_seasons_it_has(
    harness: Harness, words: str
) -> None:
    await harness.command(ANN, "settings", "season=new", is_admin=True)
    await harness.command(ANN, "stats", words)
    assert harness.screen.replies[-1].plain_text == "Seasons of this chat: 1 to 2, e.g. /stats season=1"


async def test_me_is_answered_to_the_asker_only(harness: Harness) -> None:
    await bob_surrenders(harness)
    effects = await harness.command(BOB, "me")
    assert [(e.private, e.user_id) for e in effects if isinstance(e, Reply)] == [(True, BOB.id)]
    text = harness.screen.replies[-1].plain_text
    assert text.splitlines()[:2] == ["Your record in Club", "1 game · the durak in 100% · first out in 0%"]
    assert "Streak: the durak 1 game in a row" in text


RECORD = PersonalRecord(
    stats=PlayerStats("1", "Ann", games=8, durak=2, first_out=3, points=15, rating=(29.0, 2.5),
                      rated=8, streak=3),
    trend=[18.0, 19.5, 18.7, 21.5],
    rivals=[Rival("2", "Bob", won=4, lost=1), Rival("3", "Cat", won=1, lost=3), Rival("4", "Dan", 1, 1)],
)  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", ["Your record in Club, season 2",
                "8 games · the durak in 25% · first out in 38%",
                "Rating: 21.5",
                "Last 4 games: ▁▄▂█ (+3.5)",
                "Streak: 3 games without being the durak",
                "Best opponent: Bob (the durak 4 times, you 1)",
                "Toughest opponent: Cat (you the durak 3 times, they 1)"]),
        ("ru", ["Ваша статистика в «Club», сезон 2",
                "8 игр · дурак в 25% · первым вышел в 38%",
                "Рейтинг: 21.5",
                "Последние 4 игры: ▁▄▂█ (+3.5)",
                "Серия: 3 игры подряд не в дураках",
                "Лучший соперник: Bob (дурак 4 раза, вы 1)",
                "Самый трудный соперник: Cat (вы дурак 3 раза, соперник 1)"]),
        ("it", ["Le tue statistiche in «Club», stagione 2",
                "8 partite · durak nel 25% · primo a uscire nel 38%",
                "Rating: 21.5",
                "Ultime 4 partite: ▁▄▂█ (+3.5)",
                "Serie: 3 partite senza essere il durak",
                "Miglior avversario: Bob (durak 4 volte, tu 1)",
                "Avversario più duro: Cat (tu durak 3 volte, l'avversario 1)"]),
    ],
)  # fmt: skip
def test_me_shows_games_rates_rating_trend_streak_and_rivals_in_every_language(
    lang: str, expected: list[str]
) -> None:
    assert render_me(RECORD, "Club", 2, translator(lang)).plain_text.splitlines() == expected


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "Rating: 9.0 (provisional)"), ("ru", "Рейтинг: 9.0 (предварительный)"),
     ("it", "Rating: 9.0 (provvisorio)")],
)  # fmt: skip
def test_me_calls_a_rating_of_few_games_provisional(lang: str, expected: str) -> None:
    few = PersonalRecord(PlayerStats("1", "Ann", games=2, durak=1, rating=(24.0, 5.0), rated=2, streak=-1),
                         trend=[7.0, 9.0], rivals=[])  # fmt: skip
    assert expected in render_me(few, "", 1, translator(lang)).plain_text.splitlines()


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", ["Your record in this chat", "You have not played here yet."]),
     ("ru", ["Ваша статистика в этом чате", "Вы ещё не играли здесь."]),
     ("it", ["Le tue statistiche in questa chat", "Non hai ancora giocato qui."])],
)  # fmt: skip
def test_me_before_any_game_says_so(lang: str, expected: list[str]) -> None:
    nothing = PersonalRecord(PlayerStats("1", "Ann"), trend=[], rivals=[])
    assert render_me(nothing, "", 1, translator(lang)).plain_text.splitlines() == expected

"""Context in the right place: a waiting hand says who acts and what they do, every hand at the end says
the player's own result, and a finished table offers no "My hand"."""

from __future__ import annotations

import pytest

from bot.effects import ShowHand
from bot.i18n import translator
from bot.inputs import User
from bot.render.hand_status import own_result
from bot.session import ChatSession, Playing
from core import Game
from core.events import Result
from storage import ChatRef
from tests.bot.conftest import ANN, BOB, CAT
from tests.bot.harness import Harness, buttons
from tests.bot.test_play import play_to_the_end, start


async def playing(harness: Harness) -> tuple[Playing, Game]:
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    assert record.state is not None
    session = ChatSession.decode(record.state)
    assert isinstance(session.header, Playing) and session.game is not None
    return session.header, session.game


def hand_text(harness: Harness, user: User) -> str:
    return harness.screen.hands[user.id].plain_text


async def test_a_waiting_hand_shows_only_its_cards(harness: Harness) -> None:
    players = (ANN, BOB, CAT)
    await start(harness, "", players)
    _header, game = await playing(harness)
    attacker, defender = players[game.attacker], players[game.defender]
    for waiting in (p for p in players if p != attacker):
        text = hand_text(harness, waiting)
        assert "Your cards: " in text and "Not your turn: the buttons appear here when it is." in text
        assert attacker.name not in text and defender.name not in text, "who plays is on the group's table"
        assert "On the table" not in text and "seconds left" not in text


async def test_a_waiting_hand_is_not_edited_for_each_card_of_the_bout(harness: Harness) -> None:
    players = (ANN, BOB, CAT)
    await start(harness, "", players)
    _header, game = await playing(harness)
    attacker, defender = players[game.attacker], players[game.defender]
    (bystander,) = (p for p in players if p not in (attacker, defender))
    effects = await harness.press(attacker, buttons(harness.screen.hands[attacker.id])[0].payload)
    assert bystander.id not in {e.user_id for e in effects if isinstance(e, ShowHand)}


async def test_every_hand_at_the_end_says_the_players_own_result(harness: Harness) -> None:
    players = (ANN, BOB, CAT)
    await start(harness, "", players)
    await play_to_the_end(harness, players)
    result = harness.screen.notices[-1].plain_text
    durak = next(p for p in players if f"Game over: {p.name} is the durak!" in result)
    assert "You are the durak." in hand_text(harness, durak)
    places = sorted(hand_text(harness, p).split("You finished ")[1][:3] for p in players if p != durak)
    assert places == ["1st", "2nd"]


@pytest.mark.parametrize(
    ("lang", "durak_line", "first_line"),
    [("ru", "Вы — дурак.", "Вы заняли 1-е место."), ("it", "Sei il durak.", "Hai chiuso al 1° posto.")],
)
def test_the_own_result_speaks_the_players_language(lang: str, durak_line: str, first_line: str) -> None:
    result = Result(durak=2, draw=False, order_out=(1, 0), reason="last_holder", losers=(2,))
    tr = translator(lang)
    assert own_result(result, 2, tr) == durak_line
    assert own_result(result, 1, tr) == first_line


def test_a_draw_is_a_draw_on_every_hand() -> None:
    result = Result(durak=None, draw=True, order_out=(0, 1), reason="everyone_out")
    tr = translator("en")
    assert own_result(result, 0, tr) == own_result(result, 1, tr) == "A draw: nobody is the durak."
    assert own_result(result, 0, translator("ru")) == "Ничья: дурака нет."


def test_a_team_game_says_whether_your_team_won() -> None:
    result = Result(durak=1, draw=False, order_out=(0, 2), reason="last_team", losers=(1, 3))
    tr = translator("en")
    assert own_result(result, 3, tr) == "Your team lost: you are the durak."
    assert own_result(result, 2, tr) == "Your team won."
    assert own_result(result, 0, translator("it")) == "La tua squadra ha vinto."


async def test_a_finished_table_keeps_no_my_hand_button(harness: Harness) -> None:
    players = (ANN, BOB)
    await start(harness, "", players)
    assert [b.label for b in buttons(harness.screen.table)] == ["My hand"]
    await play_to_the_end(harness, players)
    assert "My hand" not in [b.label for b in buttons(harness.screen.table)]

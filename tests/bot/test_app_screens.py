"""Which chat screens the service still returns while people play in the web app (`bot.game.app_screens`):
only for a platform that has the app, and every screen when who is on the app cannot be told."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from bot.effects import Effect, ShowHand, ShowTable
from bot.inputs import User
from storage import ChatRef
from tests.bot.conftest import ANN, BOB, EVE
from tests.bot.harness import CHAT, Harness, buttons
from tests.bot.test_play import start, whose_turn


class Pages:
    def __init__(self, users: Collection[str] = (), fails: bool = False) -> None:
        self.users, self.fails, self.asked = set(users), fails, 0

    async def __call__(self, chat: ChatRef) -> Collection[str]:
        self.asked += 1
        if self.fails:
            raise ConnectionError("Redis is not answering")
        return self.users


async def first_move(harness: Harness, players: tuple[User, ...]) -> list[Effect]:
    """The person to act taps their first move button (not a trump swap)."""
    user = whose_turn(harness, players)
    assert user is not None
    choices = [b for b in buttons(harness.screen.hands[user.id]) if not b.payload.endswith("|e")]
    return await harness.press(user, choices[0].payload)


def with_app(harness: Harness, pages: Pages, platforms: frozenset[str] = frozenset({"tg"})) -> None:
    harness.service.config = replace(harness.service.config, app_platforms=platforms)
    harness.service.on_app = pages


def answerer(harness: Harness) -> User:
    """Of Ann and Bob, the one who answers the first move."""
    return BOB if whose_turn(harness, (ANN, BOB)) == ANN else ANN


async def test_the_hands_of_people_on_the_app_are_not_returned(harness: Harness) -> None:
    await start(harness, "", (ANN, BOB))
    on_app = answerer(harness)
    with_app(harness, Pages({on_app.id}))
    effects = await first_move(harness, (ANN, BOB))
    assert on_app.id not in {e.user_id for e in effects if isinstance(e, ShowHand)}
    assert any(isinstance(e, ShowTable) for e in effects), "the mover reads the table in the chat"


async def test_the_hand_of_a_person_in_the_chat_is_returned(harness: Harness) -> None:
    await start(harness, "", (ANN, BOB))
    in_chat = answerer(harness)
    with_app(harness, Pages({ANN.id, BOB.id} - {in_chat.id}))
    effects = await first_move(harness, (ANN, BOB))
    assert {e.user_id for e in effects if isinstance(e, ShowHand)} == {in_chat.id}


async def test_a_platform_without_the_app_never_asks_who_is_on_it(harness: Harness) -> None:
    await start(harness, "", (ANN, BOB))
    pages = Pages({ANN.id, BOB.id})
    with_app(harness, pages, platforms=frozenset({"dc"}))
    effects = await first_move(harness, (ANN, BOB))
    assert pages.asked == 0
    assert {e.user_id for e in effects if isinstance(e, ShowHand)} == {ANN.id, BOB.id}, (
        "the mover's, the answerer's"
    )


async def test_every_screen_goes_out_when_open_pages_cannot_be_read(harness: Harness) -> None:
    await start(harness, "", (ANN, BOB))
    pages = Pages(fails=True)
    with_app(harness, pages)
    effects = await first_move(harness, (ANN, BOB))
    assert pages.asked == 1
    assert {e.user_id for e in effects if isinstance(e, ShowHand)} == {ANN.id, BOB.id}, (
        "the mover's, the answerer's"
    )
    assert any(isinstance(e, ShowTable) for e in effects)


async def test_a_spectator_closing_the_app_gets_the_chat_nothing_it_held_back(harness: Harness) -> None:
    await start(harness, "", (ANN, BOB))
    with_app(harness, Pages({ANN.id, BOB.id}))
    effects = await first_move(harness, (ANN, BOB))  # everyone on the app: the mid-bout table edit waits
    assert not any(isinstance(e, ShowTable) for e in effects)
    chat = ChatRef("tg", CHAT)
    harness.service.on_app = Pages({ANN.id, BOB.id})  # Eve, who watches, closes her page
    assert await harness.service.app_closed(chat, EVE.id) == []
    harness.service.on_app = Pages({BOB.id})  # Ann closes hers: her hand and the table come back
    resumed = await harness.service.app_closed(chat, ANN.id)
    assert {type(e) for e in resumed} == {ShowHand, ShowTable}

"""The service's per-chat memo of the last saved record (and the hands drawn for it) changes nothing visible.

Two services play the same game with the same ids and seed, one with the memo and one without; every input
must give exactly the same effects. A move on a game this process saved last is decided without loading it
(one round trip); whenever another process moved the game, or its state expired, the stored record decides.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import fakeredis
import pytest

from bench.service import move_payloads, table_payload
from bot.context import ServiceConfig
from bot.effects import Alert, Effect, ShowHand, ShowTable
from bot.inputs import Command, Press, User
from bot.service import GameService, RecentStates
from bot.session import ChatSession, Playing
from storage import keys as k
from storage.store import RedisGameStore

pytest.importorskip("lupa")

CHAT = "-42"
USERS = [User(str(n), f"P{n}") for n in range(1, 5)]


SALT = "5a17" * 8  # the same seal from every service compared: only what they remember may differ


def service(memo: bool) -> GameService:
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    ids = iter(f"g{n}" for n in range(1, 100))
    made = GameService(
        RedisGameStore(client, counting_versions=True), ServiceConfig(ai_delay=1.0), clock=lambda: 1000.0, new_id=lambda: next(ids),
        seed_source=lambda: 7, salt_source=lambda: SALT,
    )  # fmt: skip
    if not memo:
        made.recent = RecentStates(size=0)
    return made


class Players:
    """The four people of one chat: they open a transfer game, join, start, then each press the move their
    hand shows (the n-th input presses its n-th button, cycling), watching only the effects they get."""

    def __init__(self, rules: str = "transfer") -> None:
        self.table: object = None
        self.hands: dict[str, object] = {}
        self.steps = 0
        self.pending: list[Command | Press] = [
            Command("tg", CHAT, USERS[0], "newgame", rules, chat_title="C")
        ]

    def next_input(self) -> Command | Press | None:
        return self.pending.pop() if self.pending and self.steps < 400 else None

    def see(self, effects: list[Effect]) -> None:
        self.steps += 1
        for effect in effects:
            if isinstance(effect, ShowTable):
                self.table = effect.message
            elif isinstance(effect, ShowHand):
                self.hands[effect.user_id] = effect.message
        self.pending = next_inputs(self.steps, self.table, self.hands, effects)

    async def play(
        self, handle: Callable[[Command | Press], Awaitable[list[Effect]]], inputs: int = 400
    ) -> None:
        """Send ``inputs`` inputs (or until the game is over) through ``handle``."""
        while self.steps < inputs and (event := self.next_input()) is not None:
            self.see(await handle(event))


async def test_memo_gives_the_same_effects_as_decoding_every_time() -> None:
    with_memo, without = service(True), service(False)
    players = Players()

    async def both(event: Command | Press) -> list[Effect]:
        a, b = await with_memo.handle(event), await without.handle(event)
        assert a == b, f"input {players.steps} differs: {event}"
        return a

    await players.play(both)
    assert players.steps > 20 and not players.pending, "the game ran to its end"
    assert len(with_memo.recent.items) == 1 and not without.recent.items


def next_inputs(steps: int, table: object, hands: dict[str, object], last: list[Effect]) -> list[Press]:
    if steps <= 3:  # the three others join, then the creator starts
        return [Press("tg", USERS[steps], table_payload(table, "J"))]  # type: ignore[arg-type]
    if steps == 4:
        return [Press("tg", USERS[0], table_payload(table, "S"))]  # type: ignore[arg-type]
    for user in USERS:
        moves = move_payloads(hands.get(user.id))  # type: ignore[arg-type]
        if moves:
            return [Press("tg", user, moves[steps % len(moves)])]
    return []


async def test_a_state_saved_elsewhere_is_decoded_not_taken_from_the_memo() -> None:
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    one, two = (
        GameService(RedisGameStore(client, counting_versions=True), ServiceConfig(ai_delay=1.0))
        for _ in range(2)
    )
    await one.handle(Command("tg", CHAT, USERS[0], "newgame", "", chat_title="C"))
    lobby_text = one.recent.items[next(iter(one.recent.items))][0].state
    assert lobby_text is not None
    assert await two.handle(Command("tg", CHAT, USERS[1], "rules")) and not two.recent.items  # no save
    record = await one.store.load(next(iter(one.recent.items)))
    assert record.state == lobby_text
    effects = await two.handle(Press("tg", USERS[1], join_payload(lobby_text)))
    assert any(isinstance(e, ShowTable) for e in effects)
    # process one's memo now holds an old text: its next input must see Bob seated
    chat = next(iter(one.recent.items))
    session = one.recent.session(chat, (await one.store.load(chat)).state)
    assert session is not None and [s.user_id for s in session.header.seats] == ["1", "2"]


def join_payload(state: str) -> str:
    import json

    lobby_id = json.loads(state.partition("\n")[0])["lobby_id"]
    return f"{CHAT}|{lobby_id}|0|J"


async def test_a_move_on_a_game_this_process_saved_last_costs_one_round_trip() -> None:
    with_memo = service(True)
    store = with_memo.store
    assert isinstance(store, RedisGameStore)
    players = Players(rules="")
    await players.play(with_memo.handle, inputs=5)  # the lobby: loaded, as lobbies always are
    moves, round_trips = 0, 0

    async def counted(event: Command | Press) -> list[Effect]:
        nonlocal moves, round_trips
        before = store.round_trips
        effects = await with_memo.handle(event)
        moves, round_trips = moves + 1, round_trips + store.round_trips - before
        return effects

    await players.play(counted)
    assert moves > 20 and round_trips == moves


async def test_moves_spread_over_two_processes_give_what_one_process_gives() -> None:
    """Each process's copy of the game goes stale whenever the other one moves it: its decisions must then
    be made again on the stored state (a stale button refused on the old copy is accepted on the new one)."""
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    ids = iter(f"g{n}" for n in range(1, 100))  # one sequence of ids, as the single service has

    def made() -> GameService:
        return GameService(
            RedisGameStore(client, counting_versions=True), ServiceConfig(ai_delay=1.0), clock=lambda: 1000.0,
            new_id=lambda: next(ids), seed_source=lambda: 7, salt_source=lambda: SALT,
        )  # fmt: skip

    one, two = made(), made()
    alone = service(False)
    players = Players()

    async def spread(event: Command | Press) -> list[Effect]:
        shared = await (one if players.steps % 3 else two).handle(event)
        assert shared == await alone.handle(event), f"input {players.steps} differs: {event}"
        refusals = [e.text for e in shared if isinstance(e, Alert) and e.show_alert]
        assert not refusals, f"input {players.steps} was refused: {refusals}"
        return shared

    await players.play(spread)
    assert players.steps > 20 and not players.pending, "the game ran to its end"


async def test_a_game_whose_state_expired_is_not_brought_back_by_a_process_that_remembers_it() -> None:
    with_memo = service(True)
    store = with_memo.store
    assert isinstance(store, RedisGameStore)
    players = Players(rules="")
    await players.play(with_memo.handle, inputs=7)
    chat = next(iter(with_memo.recent.items))
    await store.redis.delete(k.state_key(chat))  # what a day without moves does
    effects = await with_memo.handle(players.pending.pop())
    assert [e.text for e in effects if isinstance(e, Alert)] == [
        "This button belongs to a game that is over."
    ]
    assert (await store.load(chat)).state is None


async def test_a_press_applied_elsewhere_and_redelivered_to_a_process_with_the_old_copy_is_not_applied_again() -> (
    None
):
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    one, two = (
        GameService(RedisGameStore(client, counting_versions=True), ServiceConfig(ai_delay=1.0))
        for _ in range(2)
    )
    players = Players(rules="")
    await players.play(one.handle, inputs=6)  # lobby and the first move, all in process one
    chat = next(iter(one.recent.items))
    record = await one.store.load(chat)
    session = ChatSession.decode(record.state or "")
    game = session.game
    assert game is not None and game.to_act is not None and isinstance(session.header, Playing)
    version, seat = record.version, session.header.seats[game.to_act]
    # the player to act presses a move of the current step (their hand may be one left after their own press)
    code = game.legal_actions(game.to_act)[0].code
    payload = f"{chat.chat_id}|{session.header.game_id}|{game.step}|{code}"
    press = Press(chat.platform, User(seat.user_id, seat.name), payload)
    assert any(isinstance(e, ShowTable) for e in await two.handle(press))  # applied by the other process
    again = await one.handle(press)  # one's copy still shows the move as legal: only the save can tell
    assert [e.text for e in again if isinstance(e, Alert)] == [
        "That button is out of date: use the newest message."
    ]  # and the screens are shown again as stored (bot/game/moves.py stale_press), not moved on
    assert {e.version for e in again if isinstance(e, ShowTable | ShowHand)} <= {version + 1}
    assert (await one.store.load(chat)).version == version + 1

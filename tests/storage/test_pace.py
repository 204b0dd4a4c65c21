"""The shared flood limits' screen turn (storage/pace.py): a send of a table or hand learns the screen's
message id in the same call, and a screen another process is posting anew holds its other sends back.

The tests take `store`: tests/storage/test_cluster.py runs them again on a Redis Cluster, where the screen is
taken in its chat's slot first."""

from __future__ import annotations

from storage.keys import ChatRef
from storage.pace import PaceVerdict, ScreenTurn, SharedLimits
from storage.store import RedisGameStore

HOME = ChatRef("tg", "-1001")
TOKEN = (30.0, 30.0, 30, 1.0)  # burst, rate a second, window limit, window seconds: nothing waits for it
CHAT = (20.0, 1.0, 20, 60.0)


def hand_turn(version: int, owner: str, posting: bool = False, hold: float = 5.0) -> ScreenTurn:
    return ScreenTurn(
        HOME, "shown:hand:7", "sending:hand:7", version, "hand:7", "posting:hand:7", owner, posting, hold
    )


async def turn(store: RedisGameStore, screen: ScreenTurn, now: float, member: str = "m") -> PaceVerdict:
    return await SharedLimits(store).pace(
        "tg", 7, f"{screen.owner}:{member}{now}", now=now, token=TOKEN, chat_limit=CHAT, screen=screen
    )


async def test_a_screens_send_reads_its_message_id_in_the_same_call(store: RedisGameStore) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    await turn(store, hand_turn(2, "a"), now=99.0)  # the server learns the scripts (a first call is two)
    before = store.round_trips
    verdict = await turn(store, hand_turn(3, "a"), now=100.0)
    assert (verdict.verdict, verdict.message) == ("send", "g1:42")
    assert store.round_trips - before == (2 if store.cluster else 1)


async def test_a_screen_older_than_one_being_sent_is_dropped_with_the_newer_version(
    store: RedisGameStore,
) -> None:
    assert (await turn(store, hand_turn(5, "a"), now=100.0)).verdict == "send"
    dropped = await turn(store, hand_turn(4, "b"), now=100.5)
    assert (dropped.verdict, dropped.value) == ("drop", 5.0)


async def test_a_screen_posted_anew_holds_other_processes_sends_until_its_new_id_is_stored(
    store: RedisGameStore,
) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    assert (await turn(store, hand_turn(3, "a", posting=True), now=100.0)).verdict == "send"
    held = await turn(store, hand_turn(4, "b"), now=100.1)
    assert held.verdict == "wait" and 0 < held.value <= 0.2
    assert (await turn(store, hand_turn(5, "a"), now=100.2)).verdict == "send", "not the poster itself"
    await store.set_messages(HOME, {"hand:7": "g1:43", "posting:hand:7": None})  # the new message's id
    after = await turn(store, hand_turn(6, "b"), now=100.3)
    assert (after.verdict, after.message) == ("send", "g1:43")


async def test_a_posting_that_never_stored_its_id_holds_nobody_after_its_hold(store: RedisGameStore) -> None:
    assert (await turn(store, hand_turn(3, "a", posting=True, hold=1.0), now=100.0)).verdict == "send"
    assert (await turn(store, hand_turn(4, "b"), now=100.5)).verdict == "wait"
    assert (await turn(store, hand_turn(4, "b"), now=101.5)).verdict == "send"

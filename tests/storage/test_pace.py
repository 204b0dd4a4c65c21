"""The shared flood limits' screen turn (storage/pace.py): a send of a table or hand learns the screen's
message id in the same call, and while one send of a screen is on its way the others wait; a spaced screen
(a running game's table) waits its spacing after its last send landed, whichever process made it.

The tests take `store`: tests/storage/test_cluster.py runs them again on a Redis Cluster, where the screen is
taken in its chat's slot first."""

from __future__ import annotations

from storage import ChatRef
from storage.pace import PaceVerdict, ScreenTurn, SharedLimits
from storage.store import RedisGameStore

HOME = ChatRef("tg", "-1001")
TOKEN = (30.0, 30.0, 30, 1.0)  # burst, rate a second, window limit, window seconds: nothing waits for it
CHAT = (20.0, 1.0, 20, 60.0)


def hand_turn(version: int, hold: float = 5.0) -> ScreenTurn:
    return ScreenTurn(HOME, "shown:hand:7", "sending:hand:7", version, "hand:7", "flight:hand:7", hold)


def table_turn(version: int, every: float = 8.0) -> ScreenTurn:
    return ScreenTurn(
        HOME, "shown:table", "sending:table", version, "table", "flight:table", 5.0, "spaced:table", every
    )


async def turn(store: RedisGameStore, screen: ScreenTurn, now: float, member: str) -> PaceVerdict:
    return await SharedLimits(store).pace(
        "tg", 7, member, now=now, token=TOKEN, chat_limit=CHAT, screen=screen
    )


async def test_a_screens_send_reads_its_message_id_in_the_same_call(store: RedisGameStore) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    await turn(store, hand_turn(2), now=99.0, member="a:1")  # the server learns the scripts (first: two)
    await SharedLimits(store).landed(hand_turn(2), "a:1")
    before = store.round_trips
    verdict = await turn(store, hand_turn(3), now=100.0, member="a:2")
    assert (verdict.verdict, verdict.message) == ("send", "g1:42")
    assert store.round_trips - before == (2 if store.cluster else 1)


async def test_a_screen_older_than_one_being_sent_is_dropped_with_the_newer_version(
    store: RedisGameStore,
) -> None:
    assert (await turn(store, hand_turn(5), now=100.0, member="a:1")).verdict == "send"
    dropped = await turn(store, hand_turn(4), now=100.5, member="b:1")
    assert (dropped.verdict, dropped.value) == ("drop", 5.0)


async def test_a_screens_send_holds_other_sends_of_it_back_until_its_answer_came(
    store: RedisGameStore,
) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    assert (await turn(store, hand_turn(3), now=100.0, member="a:1")).verdict == "send"  # an announced hand
    held = await turn(store, hand_turn(4), now=100.1, member="b:1")
    assert held.verdict == "wait" and 0 < held.value <= 0.2
    await store.set_messages(HOME, {"hand:7": "g1:43"})  # the new message's id, stored before its answer ends
    await SharedLimits(store).landed(hand_turn(3), "a:1")
    after = await turn(store, hand_turn(4), now=100.3, member="b:2")
    assert (after.verdict, after.message) == ("send", "g1:43")


async def test_an_answer_lets_only_its_own_send_go(store: RedisGameStore) -> None:
    assert (await turn(store, hand_turn(3, hold=1.0), now=100.0, member="a:1")).verdict == "send"
    assert (await turn(store, hand_turn(4), now=101.5, member="b:1")).verdict == "send", "a:1 expired"
    await SharedLimits(store).landed(hand_turn(3), "a:1")  # a's late answer: b's send is still on its way
    assert (await turn(store, hand_turn(5), now=101.6, member="a:2")).verdict == "wait"


async def test_a_send_that_never_landed_holds_nobody_after_its_hold(store: RedisGameStore) -> None:
    assert (await turn(store, hand_turn(3, hold=1.0), now=100.0, member="a:1")).verdict == "send"
    assert (await turn(store, hand_turn(4), now=100.5, member="b:1")).verdict == "wait"
    assert (await turn(store, hand_turn(4), now=101.5, member="b:2")).verdict == "send"


async def test_a_spaced_table_waits_its_spacing_after_another_processs_send_landed(
    store: RedisGameStore,
) -> None:
    assert (await turn(store, table_turn(3), now=100.0, member="a:1")).verdict == "send"
    await SharedLimits(store).landed(table_turn(3), "a:1", now=100.2)
    held = await turn(store, table_turn(4), now=101.0, member="b:1")
    assert held.verdict == "wait" and abs(held.value - 7.2) < 1e-6, "8 s from the answer, for process b too"
    assert (await turn(store, table_turn(4), now=108.2, member="b:2")).verdict == "send"


async def test_a_table_not_spaced_goes_inside_the_spacing(store: RedisGameStore) -> None:
    assert (await turn(store, table_turn(3), now=100.0, member="a:1")).verdict == "send"
    await SharedLimits(store).landed(table_turn(3), "a:1", now=100.2)
    assert (await turn(store, table_turn(4, every=0.0), now=101.0, member="b:1")).verdict == "send", "the end"


async def test_a_table_the_budget_kept_back_does_not_start_a_spacing(store: RedisGameStore) -> None:
    await SharedLimits(store).landed(table_turn(3), "a:1", now=100.0, sent=False)
    assert (await turn(store, table_turn(3), now=100.1, member="a:2")).verdict == "send"


async def test_a_full_window_of_the_token_makes_the_next_send_wait_until_its_oldest_send_leaves_it(
    store: RedisGameStore,
) -> None:
    """The per-window count reads its oldest send's time (ZRANGE ... WITHSCORES inside the script): the
    fallback store's Lua answered that as pairs before fakeredis 2.38, and the script failed instead of
    waiting (the lowest-versions run lost messages)."""
    token = (30.0, 30.0, 2, 60.0)  # two sends a minute, however full the bucket
    limits = SharedLimits(store)
    for now, member in ((100.0, "a:1"), (101.0, "a:2")):
        sent = await limits.pace("tg", 7, member, now=now, token=token, chat_limit=None)
        assert sent.verdict == "send"
    third = await limits.pace("tg", 7, "a:3", now=102.0, token=token, chat_limit=None)
    assert third.verdict == "wait" and abs(third.value - 58.0) < 0.01, "until the first send is a minute old"

"""What a screen's message shows, kept beside its id (storage/pace.py, `content:<screen>`): an edit that would
show the same is "same" in the pacing call, whichever process sent it; and a screen posted anew is stored only
while its send holds the screen, with its old message's removal owed until done.

The tests take `store`: tests/storage/test_cluster.py may run them again on a Redis Cluster, where the screen
is taken in its chat's slot first."""

from __future__ import annotations

from storage import ChatRef
from storage.pace import PaceVerdict, ScreenTurn, SharedLimits
from storage.store import RedisGameStore

HOME = ChatRef("tg", "-1001")
TOKEN = (30.0, 30.0, 30, 1.0)
CHAT = (20.0, 1.0, 20, 60.0)


def hand_turn(version: int, drawn: str = "", hold: float = 5.0) -> ScreenTurn:
    return ScreenTurn(
        HOME, "shown:hand:7", "sending:hand:7", version, "hand:7", "flight:hand:7", hold, "", 0.0,
        "content:hand:7", drawn, "owed:hand:7",
    )  # fmt: skip


async def turn(store: RedisGameStore, screen: ScreenTurn, now: float, member: str) -> PaceVerdict:
    return await SharedLimits(store).pace(
        "tg", 7, member, now=now, token=TOKEN, chat_limit=CHAT, screen=screen
    )


async def test_an_edit_showing_what_the_message_shows_is_same_whoever_sent_it(store: RedisGameStore) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    sent = await turn(store, hand_turn(3, drawn="abc"), now=100.0, member="a:1")
    assert (sent.verdict, sent.message) == ("send", "g1:42")
    await SharedLimits(store).landed(hand_turn(3), "a:1", shows="g1:42|abc|1")
    again = await turn(store, hand_turn(4, drawn="abc"), now=100.5, member="b:1")  # another process, same
    assert again.verdict == "same"
    changed = await turn(store, hand_turn(5, drawn="def"), now=100.6, member="b:2")
    assert (changed.verdict, changed.content) == ("send", "g1:42|abc|1"), "what the message shows, with it"


async def test_what_a_message_showed_counts_only_for_that_message(store: RedisGameStore) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    await turn(store, hand_turn(3, drawn="abc"), now=100.0, member="a:1")
    await SharedLimits(store).landed(hand_turn(3), "a:1", shows="g1:42|abc|1")
    await store.set_messages(HOME, {"hand:7": "g1:43"})  # posted anew since
    assert (await turn(store, hand_turn(4, drawn="abc"), now=100.5, member="b:1")).verdict == "send"


async def test_a_send_whose_fate_is_unknown_forgets_what_the_message_shows(store: RedisGameStore) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    await turn(store, hand_turn(3, drawn="abc"), now=100.0, member="a:1")
    await SharedLimits(store).landed(hand_turn(3), "a:1", shows="g1:42|abc|1")
    await turn(store, hand_turn(4, drawn="def"), now=100.5, member="a:2")
    await SharedLimits(store).landed(hand_turn(4), "a:2", shows="")  # a network error: landed or not
    assert (await turn(store, hand_turn(5, drawn="abc"), now=100.6, member="b:1")).verdict == "send"


async def test_a_screen_posted_anew_is_stored_only_while_its_send_holds_it(store: RedisGameStore) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    limits = SharedLimits(store)
    assert (await turn(store, hand_turn(3, hold=1.0), now=100.0, member="a:1")).verdict == "send"
    assert (await turn(store, hand_turn(4), now=101.5, member="b:1")).verdict == "send", "a:1 held past it"
    assert await limits.posted(hand_turn(4), "b:1", "g1:44", "-7:42:d")
    assert not await limits.posted(hand_turn(3), "a:1", "g1:43", "-7:42:d"), "b's hand stands"
    record = await store.load(HOME)
    assert (record.messages["hand:7"], record.messages["owed:hand:7"]) == ("g1:44", "-7:42:d")


async def test_a_removal_owed_stays_listed_until_a_send_says_it_was_made(store: RedisGameStore) -> None:
    await store.set_messages(HOME, {"hand:7": "g1:42"})
    limits = SharedLimits(store)
    await turn(store, hand_turn(3), now=100.0, member="a:1")
    assert await limits.posted(hand_turn(3), "a:1", "g1:43", "-7:42:d")
    await limits.landed(hand_turn(3), "a:1", shows="g1:43|abc|1")  # its delete failed: nothing done
    owed = await turn(store, hand_turn(4, drawn="def"), now=100.5, member="b:1")
    assert owed.owed == "-7:42:d", "the next send of the screen learns it"
    await limits.landed(hand_turn(4), "b:1", shows="g1:43|def|1", owed_done=["-7:42:d"])
    assert "owed:hand:7" not in (await store.load(HOME)).messages

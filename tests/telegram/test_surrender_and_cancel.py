"""Through the Bot API fake: `/leave` typed in the group asks in the leaver's private chat; `/cancel` by a
player of a game between people asks the same (it counts as a surrender, docs/reliability.md §12), and by an
admin who is not playing names the canceller in the group and leaves no hand with a live button."""

from __future__ import annotations

from tests.telegram.test_behaviour import two_player_game
from tests.telegram.world import World


def callback_buttons(message) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
    return [b for b in message.buttons() if "callback_data" in b]


async def test_leave_in_the_group_asks_in_the_private_chat_and_the_group_hears_only_the_result(
    world: World,
) -> None:
    group, _ann, bob = await two_player_game(world)
    posts = len(world.fake.bot_messages(group.id))
    await world.say(group, bob, "/leave")
    question = world.newest(bob, "Surrender?")
    assert [b["text"] for b in callback_buttons(question)] == ["Yes, surrender"]
    assert len(world.fake.bot_messages(group.id)) == posts, "nothing posted in the group yet"
    await world.tap(bob, question, bob, "Yes, surrender")
    assert "Bob surrendered" in world.newest(group, "Game over").text
    world.fake.assert_no_bad_requests()


async def test_cancel_by_a_player_asks_in_their_private_chat_whether_to_surrender(world: World) -> None:
    group, ann, _bob = await two_player_game(world)
    await world.say(group, ann, "/cancel")
    asked = world.newest(ann, "cancelling counts as your surrender")
    assert [b["text"] for b in callback_buttons(asked)] == ["Yes, surrender"]
    assert not [m for m in world.fake.bot_messages(group.id) if "cancelled" in m.text]


async def test_cancel_by_an_admin_not_playing_names_who_cancelled_and_closes_every_hand(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    cid = world.person("Cid")
    group.members[cid.id] = "administrator"
    assert world.hand(ann) is not None or world.hand(bob) is not None
    await world.say(group, cid, "/cancel")
    assert world.newest(group, "cancelled the game").text == "Cid cancelled the game."
    for player in (ann, bob):
        assert world.hand(player) is None, "no private message keeps a move button"
        assert world.newest(player).text == "The game was cancelled."
    world.fake.assert_no_bad_requests()

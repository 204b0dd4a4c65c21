"""`/me` on Telegram: typed in a group, the record arrives in the asker's private chat, never in the group."""

from __future__ import annotations

from tests.telegram.world import World


async def test_me_typed_in_the_group_is_answered_in_the_askers_private_chat(world: World) -> None:
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Durak club", [ann, bob], owner=ann)
    await world.settle()
    await world.say(group, bob, "/newgame")
    await world.tap(group, world.newest(group, "New game"), ann, "Join")
    await world.tap(group, world.newest(group, "New game"), bob, "Start")
    await world.surrender(group, ann)
    assert " · rating " in world.newest(group, "Game over").text
    await world.say(group, ann, "/me")
    record = world.newest(ann, "Your record in Durak club")
    assert "1 game · the durak in 100% · first out in 0%" in record.text
    assert not [m for m in world.fake.bot_messages(group.id) if "Your record" in m.text]
    assert not [m for m in world.fake.bot_messages(bob.id) if "Your record" in m.text]


async def test_me_from_someone_who_never_opened_the_private_chat_is_told_how_in_the_group(
    world: World,
) -> None:
    ann, cat = world.person("Ann"), world.person("Cat", started=False)
    group = world.fake.add_group("Durak club", [ann, cat], owner=ann)
    await world.settle()
    await world.say(group, cat, "/me")
    ask = world.newest(group, "private chat")
    assert "Cat" in ask.text and "only in a private chat" in ask.text
    assert ask.buttons()[0]["url"].startswith("https://t.me/durak_test_bot")
    assert cat.id not in world.fake.chats  # the record went nowhere: Telegram refused the private chat

"""Context in the right place on Telegram: a table buried under the group's chatter is posted again at the
bottom (the old one deleted), and "My hand" leaves one hand in the private chat, the newest at the bottom.

A bot in a group with privacy mode sees only commands, but a chat's message ids count up: the newest id the
bot knows (from an update or its own send) less the table's id is how many messages came after the table."""

from __future__ import annotations

from tests.fakes.telegram_model import FakeChat, FakeUser, StoredMessage, Version
from tests.telegram.test_games import open_lobby
from tests.telegram.test_turn_announce import hands_of
from tests.telegram.world import World


def tables(world: World, group: FakeChat, deleted: bool = False) -> list[StoredMessage]:
    found = world.fake.messages(group.id, include_deleted=deleted)
    return [m for m in found if m.from_bot and "My hand" in str(m.reply_markup)]


def chatter_unseen(world: World, group: FakeChat, person: FakeUser, count: int) -> None:
    """Messages the bot never receives (privacy mode): they only take message ids in the group."""
    for n in range(count):
        text = f"chatter {n}"
        version = Version(world.fake.clock.now(), text, None, text, (), None)
        group.add_message(person.id, False, world.fake.clock.wall(), None, version)


async def started_game(world: World) -> tuple[FakeChat, list[FakeUser], StoredMessage]:
    group, people = await open_lobby(world, "", ["Ann", "Bob"])
    await world.tap(group, world.newest(group, "New game"), people[0], "Start")
    (table,) = tables(world, group)
    return group, people, table


async def test_a_table_buried_under_more_than_ten_messages_is_posted_again_at_the_bottom(
    world: World,
) -> None:
    group, people, table = await started_game(world)
    for n in range(11):
        await world.say(group, people[n % 2], f"so, who is winning? ({n})")
    await world.press_first_move(people)
    (moved,) = tables(world, group)
    assert moved.message_id > table.message_id
    assert moved.message_id == max(m.message_id for m in world.fake.messages(group.id))
    assert [m.message_id for m in tables(world, group, deleted=True) if m.deleted] == [table.message_id]


async def test_a_table_with_ten_messages_after_it_is_edited_in_place(world: World) -> None:
    group, people, table = await started_game(world)
    for n in range(10):
        await world.say(group, people[n % 2], f"nice move ({n})")
    await world.press_first_move(people)
    assert [m.message_id for m in tables(world, group)] == [table.message_id]
    assert table.edits >= 1


async def test_messages_the_bot_never_saw_count_once_a_newer_id_is_known(world: World) -> None:
    group, people, table = await started_game(world)
    chatter_unseen(world, group, people[1], 11)
    await world.press_first_move(people)
    assert [m.message_id for m in tables(world, group)] == [table.message_id], "nothing known yet"
    await world.say(group, people[1], f"/rules@{world.fake.bot_username}")  # a command: privacy lets it in
    await world.press_first_move(people)
    (moved,) = tables(world, group)
    assert moved.message_id > table.message_id
    assert moved.message_id == max(m.message_id for m in world.fake.messages(group.id))


async def test_my_hand_leaves_one_hand_in_the_private_chat_at_the_bottom(world: World) -> None:
    group, people, table = await started_game(world)
    person = people[1]
    (before,) = hands_of(world, person)
    await world.tap(group, table, person, "My hand")
    (after,) = hands_of(world, person)
    newest = max(m.message_id for m in world.fake.messages(person.id))
    assert after.message_id == newest, "below the /start the link sent"
    assert before.deleted


async def test_a_repost_setting_of_zero_keeps_the_table_where_it_is(world: World) -> None:
    world.bot.delivery.repost_after = 0  # TELEGRAM_REPOST_AFTER=0
    group, people, table = await started_game(world)
    for n in range(12):
        await world.say(group, people[n % 2], f"chatter ({n})")
    await world.press_first_move(people)
    assert [m.message_id for m in tables(world, group)] == [table.message_id]

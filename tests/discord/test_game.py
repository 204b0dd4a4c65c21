"""A whole game on Discord: three people open, join and start a transfer game, play it from their ephemeral
hands to the result, and ask for the leaderboard; no public message ever shows a card still secret."""

from __future__ import annotations

import re
from typing import Any

from bot.session import Finished, Playing
from core import Action, Card, Game, Kind
from core.cards import CARDS
from tests.discord.table import CARD_CODE, Table, buttons_of, labels_of, text_of
from tests.fakes.discord_store import FakeUser

CARD_SYMBOL = re.compile(r"(10|[2-9JQKA])[♠♥♦♣]")
MAX_MOVES = 400


class SecrecyWatch:
    """Reads every public message version once and checks it shows no card that only a hand holds."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.read: set[tuple[str, int]] = set()
        self.public_cards: set[str] = set()  # cards everyone has seen: played ones and the turned-up trump
        self.checked = 0

    async def check(self) -> None:
        session = await self.table.session()
        secret: set[str] = set()
        if session is not None and session.game is not None:
            game = session.game
            trump = game.view(None).trump_card
            if trump is not None:
                self.public_cards.add(Card.parse(str(trump)).symbol)
            for _seat, code in game.log:
                self.public_cards |= {Card.parse(c).symbol for c in CARD_CODE.findall(code)}
            for seat in range(len(game.players)):
                secret |= {c.symbol for c in game.view(seat).hand}
            secret -= self.public_cards
        for message in self.table.fake.messages.values():
            if message.channel_id != self.table.channel or message.ephemeral_user:
                continue
            for number, version in enumerate(message.history):
                if (message.id, number) in self.read:
                    continue
                self.read.add((message.id, number))
                shown = {m.group(0) for m in CARD_SYMBOL.finditer(visible(version))}
                assert not shown & secret, f"public message shows secret cards {shown & secret}"
                self.checked += 1


def visible(message: dict[str, Any]) -> str:
    return text_of(message) + "\n" + "\n".join(labels_of(message))


PREFERENCE = (Kind.TRANSFER, Kind.COVER, Kind.PASS, Kind.ATTACK, Kind.TAKE)


def choose(game: Game, seat: int) -> Action:
    """A plain player: transfer or cover when possible, else pass, else the lowest card, else take."""
    legal = game.legal_actions(seat)
    for kind in PREFERENCE:
        options = [a for a in legal if a.kind is kind]
        if options:
            return min(options, key=lambda a: lowness(game, a))
    raise AssertionError(f"no action for seat {seat}: {legal}")


def lowness(game: Game, action: Action) -> tuple[bool, int]:
    if action.card_id < 0:
        return (False, 0)
    card = CARDS[action.card_id]
    return (card.suit_index == game.trump_index, card.rank_index)


async def open_three_player_game(table: Table, words: str = "transfer") -> list[FakeUser]:
    ann, bob, cat = (table.fake.add_user(name) for name in ("Ann", "Bob", "Cat"))
    await table.slash(ann, "new", words=words)
    lobby = await table.table_message()
    await table.press_label(bob, lobby, "Join")
    await table.slash(cat, "join")
    await table.press_label(ann, await table.table_message(), "Start")
    return [ann, bob, cat]


async def play_one_move(table: Table, players: list[FakeUser], my_hand_presses: list[str]) -> bool:
    """The seat to act plays what the normal AI would, through its hand buttons. False once it is over."""
    session = await table.session()
    assert session is not None
    if isinstance(session.header, Finished):
        return False
    assert isinstance(session.header, Playing) and session.game is not None
    game, header = session.game, session.header
    seat = game.to_act
    assert seat is not None
    user = next(p for p in players if p.id == header.seats[seat].user_id)
    action = choose(game, seat)
    wanted = f"|{game.step}.{game.history()}|{action.code}"
    hand = table.hand_of(user)
    if hand is None or not any(b["custom_id"].endswith(wanted) for b in buttons_of(hand)):
        my_hand_presses.append(user.name)
        await table.press_label(user, await table.table_message(), "My hand")
        hand = table.hand_of(user)
        assert hand is not None
    button = next(b for b in buttons_of(hand) if b["custom_id"].endswith(wanted))
    interaction = await table.press(user, hand, button["custom_id"])
    assert interaction.callback is not None and interaction.callback["type"] == 7  # edited in place
    return True


async def test_three_players_play_a_transfer_game_from_their_ephemeral_hands_to_the_result_and_stats(
    table: Table,
) -> None:
    fake = table.fake
    players = await open_three_player_game(table)
    watch = SecrecyWatch(table)
    my_hand_presses: list[str] = []
    moves = 0
    while await play_one_move(table, players, my_hand_presses):
        moves += 1
        await watch.check()
        assert moves < MAX_MOVES
    assert moves > 10
    assert any("transferred with" in text for text in fake.channel_texts(table.channel))
    # Ann got her hand by pressing Start; Bob and Cat opened theirs once. After that every move reached
    # each hand through its interaction token, without another tap on "My hand".
    assert sorted(my_hand_presses) == ["Bob", "Cat"]
    result = fake.public_messages(table.channel)[-1]
    assert "Game over" in text_of(result) and labels_of(result) == ["Rematch", "The deal"]
    await table.press_label(players[2], result, "The deal")
    deal = [m for m in fake.ephemeral_for(players[2]) if "durak-deal-v1|" in text_of(m)]
    assert len(deal) == 1, "the revealed order, to whoever asked and nobody else"
    assert not any("durak-deal-v1|" in text for text in fake.channel_texts(table.channel))
    stats = await table.slash(players[0], "stats")
    assert stats["type"] == 4 and not stats["data"].get("flags")  # the leaderboard is public
    board = text_of(stats["data"])
    assert all(p.name in board for p in players) and "Standings" in board
    assert watch.checked > moves
    assert max(len(c) for c in fake.custom_ids()) <= 100
    assert [e for e in fake.errors if e[3] == 50035] == [] and fake.unhandled == []
    latencies = [i.ack_latency for i in fake.interactions.values()]
    assert all(latency is not None and latency < 3 for latency in latencies)
    old_table = await table.table_message()
    await table.press_label(players[1], result, "Rematch")
    lobby = await table.table_message()
    assert lobby["id"] not in (old_table["id"], result["id"]) and "Join" in labels_of(lobby)
    assert all(p.name in text_of(lobby) for p in players)
    assert fake.messages[old_table["id"]].data["components"] == []  # its "My hand" would lead nowhere


async def test_the_table_is_one_message_edited_in_place_from_lobby_to_last_move(table: Table) -> None:
    players = await open_three_player_game(table)
    lobby_id = (await table.table_message())["id"]
    for _ in range(6):
        assert await play_one_move(table, players, [])
    table_now = await table.table_message()
    assert table_now["id"] == lobby_id and labels_of(table_now) == ["My hand"]
    assert "▶" in text_of(table_now)
    assert len(table.fake.public_messages(table.channel)) == 1

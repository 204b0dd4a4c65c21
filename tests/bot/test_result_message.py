"""The game-over message is short and reads in the chat's language: places, points and rating changes first;
the sealed deal as one line that says it can be checked and how; the revealed order only to whoever asks
for it, never as engine codes in the group (docs/fairness.md). Seen on main: the whole 36-card deal as
"8C TH 6D 9C ..." (Latin letters and T for 10 even in a Russian group), a salt/SHA-256 sentence, and
"Ratings: Anna −3.3" after a first game, apart from the places."""

from __future__ import annotations

import re

from bot.effects import Message, Notice, Reply
from bot.inputs import User
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import Harness, button
from tests.bot.stacked import first_moves_to_the_end

ENGINE_CODES = re.compile(r"\b(?:[2-9TJQKA][SHDC] ){3,}")  # "8C TH 6D ..."


async def tap_code(harness: Harness, user: User, code: str) -> None:
    """Press the table's button whose code is ``code``, whatever language its label is in."""
    assert harness.screen.table is not None
    payload = next(
        b.payload for row in harness.screen.table.buttons for b in row if b.payload.endswith(f"|{code}")
    )
    await harness.press(user, payload)


async def played_out(harness: Harness, words: str = "", players: tuple[User, ...] = (ANN, BOB)) -> Message:
    await harness.command(players[0], "newgame", words)
    for user in players[1:]:
        await tap_code(harness, user, "J")
    await tap_code(harness, players[0], "S")
    await first_moves_to_the_end(harness, players)
    results = [e.message for e in harness.last if isinstance(e, Notice) and e.final]
    assert results, "the game ended with its result"
    return results[0]


async def test_the_result_leads_with_everyone_s_place_points_and_rating_change(harness: Harness) -> None:
    result = await played_out(harness)
    lines = result.plain_text.splitlines()
    assert lines[0].startswith("Game over:")
    places = [text for text in lines if re.match(r"^[12]\. ", text)]
    assert len(places) == 2 and places == lines[1:3], "everyone's place right after the headline"
    assert not any(text.startswith("Ratings:") for text in lines), "a rating is said with its place"


async def test_a_rating_is_said_as_how_much_it_moved_not_as_a_number_nobody_knows(harness: Harness) -> None:
    """After a first game the ordinal (mu - 3 sigma) is near 0 or below: "Anna −3.3" reads as a penalty. The
    result says how much each rating moved; /stats and /me say where it stands."""
    result = await played_out(harness)
    winner, durak = result.plain_text.splitlines()[1:3]
    assert re.search(r"rating \+\d", winner) and re.search(r"rating −\d", durak), (winner, durak)
    assert "durak" in durak


async def test_the_sealed_deal_is_one_line_saying_how_to_check_it(harness: Harness) -> None:
    result = await played_out(harness)
    text = result.plain_text
    assert not ENGINE_CODES.search(text), "no engine codes in the group"
    assert "SHA-256" not in text and "salt" not in text.lower()
    sealed = [line for line in text.splitlines() if "sealed" in line]
    assert len(sealed) == 1 and "durak-bot verify" in sealed[0]
    assert len(text.splitlines()) <= 5, "a few lines"


async def test_a_russian_groups_result_has_no_latin_card_codes(harness: Harness) -> None:
    ru_ann, ru_bob = User(ANN.id, ANN.name, "ru"), User(BOB.id, BOB.name, "ru")
    await harness.command(ru_ann, "settings", "lang=ru", is_admin=True)
    result = await played_out(harness, players=(ru_ann, ru_bob))
    assert not ENGINE_CODES.search(result.plain_text)
    assert "Игра окончена" in result.plain_text


async def test_the_deal_button_sends_the_revealed_order_only_to_whoever_asks(harness: Harness) -> None:
    result = await played_out(harness)
    effects = await harness.press(BOB, button(result, "The deal").payload)
    replies = [e for e in effects if isinstance(e, Reply)]
    assert len(replies) == 1 and replies[0].private and replies[0].user_id == BOB.id
    shown = replies[0].message.plain_text
    assert re.search(r"(?:(?:10|[2-9JQKA])[♠♥♦♣] ){10,}", shown), "the order, in cards as people write them"
    assert "durak-deal-v1" in shown and "durak-bot verify" in shown, "and how to check it by hand"

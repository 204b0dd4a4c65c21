"""A chat game's deal is sealed when it starts and opened with the result (docs/fairness.md): the table
shows the seal from the first deal, nothing shown before the end reveals the salt or the order, and the
result opens a seal that the archived game verifies against."""

from __future__ import annotations

import hashlib
import json

import pytest

from adapters.web.state import viewer_state
from bot.context import ServiceConfig
from bot.effects import Reply
from bot.game.archive import revealed_deal
from bot.queries import Snapshot, seen_in
from bot.service import GameService
from bot.session import ChatSession, Finished, Playing
from core import deal as core_deal
from core.commitment import dealt_order, deck_text, short
from storage import ChatRef
from tests.bot.conftest import ANN, BOB, EVE
from tests.bot.harness import Harness, button
from tests.bot.stacked import first_moves_to_the_end, game_now
from tests.bot.tampered_deals import DealRecord, deal_records, never_played_swaps


async def started(harness: Harness) -> Playing:
    await harness.command(ANN, "newgame", "deck=24")
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    header = ChatSession.decode(record.state or "").header
    assert isinstance(header, Playing) and header.deal_commitment and header.deal_salt
    return header


async def test_the_table_shows_the_seal_from_the_first_deal(harness: Harness) -> None:
    header = await started(harness)
    assert harness.screen.table is not None
    assert f"Deal sealed: {short(header.deal_commitment)}" in harness.screen.table.plain_text


async def test_nothing_shown_before_the_end_reveals_the_salt_or_the_order(harness: Harness) -> None:
    header = await started(harness)
    game = await game_now(harness)
    order = deck_text(dealt_order(game))
    snapshot = Snapshot(1, ChatSession(header=header, game=game))
    shown = [m.plain_text for m in (harness.screen.table, *harness.screen.hands.values()) if m is not None]
    for user in (ANN, BOB, EVE):  # the two players' pages and a spectator's
        shown.append(
            json.dumps(viewer_state(harness.chat, seen_in(snapshot, harness.chat, user.id), "en", 0.0))
        )
    for text in shown:
        assert header.deal_salt not in text and order not in text
        assert order[: len(order) // 3] not in text  # not even the first dozen cards in their order


async def test_the_result_opens_the_seal_and_the_archived_game_verifies(harness: Harness) -> None:
    header = await started(harness)
    await first_moves_to_the_end(harness, (ANN, BOB))
    result = harness.screen.notices[-1]
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    finished = ChatSession.decode(record.state or "").header
    assert isinstance(finished, Finished)
    archived = await harness.store.archived_game(finished.game_id)
    assert archived is not None
    deal = revealed_deal(archived)
    assert deal is not None and deal.commitment == header.deal_commitment and deal.salt == header.deal_salt
    assert deal.order not in result.plain_text and deal.salt not in result.plain_text, "never in the group"
    asked = [e for e in await harness.press(BOB, button(result, "The deal").payload) if isinstance(e, Reply)]
    shown = asked[0].message.plain_text
    assert asked[0].private and f"durak-deal-v1|{deal.salt}|{deal.order}" in shown, "to whoever asks"
    opened = hashlib.sha256(f"durak-deal-v1|{deal.salt}|{deal.order}".encode()).hexdigest()
    assert opened == header.deal_commitment  # anyone can check it with any SHA-256 tool
    assert deal.verdict().ok


async def test_the_seed_and_the_salt_come_from_the_systems_randomness(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat game's deck and salt come from `secrets` (the operating system), nothing a player chose."""
    drawn: list[tuple[str, int]] = []

    def randbits(bits: int) -> int:
        drawn.append(("randbits", bits))
        return 12345

    real_token_hex = core_deal.secrets.token_hex

    def token_hex(size: int) -> str:
        if size != 16:  # not a salt: a request's id
            return real_token_hex(size)
        drawn.append(("token_hex", size))
        return "ab" * size

    monkeypatch.setattr(core_deal.secrets, "randbits", randbits)
    monkeypatch.setattr(core_deal.secrets, "token_hex", token_hex)
    harness.service = GameService(harness.store, ServiceConfig(ai_delay=0), clock=lambda: harness.clock)
    header = await started(harness)
    assert drawn == [("randbits", 63), ("token_hex", 16)]  # the seed, then the salt's 128 bits
    assert header.deal_salt == "ab" * 16


@pytest.mark.parametrize("tampered", deal_records(), ids=lambda record: record.name)
def test_each_record_is_refused_by_the_check_it_breaks_and_only_that(tampered: DealRecord) -> None:
    """The records the replay page's check is tested on too (tests/web/test_browser_seal.py)."""
    deal = revealed_deal(tampered.record)
    assert deal is not None
    verdict = deal.verdict()
    assert verdict.ok is (tampered.refused_by is None), verdict
    assert verdict.check == (tampered.refused_by or ""), verdict
    if tampered.step is not None:
        assert verdict.step == tampered.step, verdict
    assert verdict.ok or verdict.reason and "\n" not in verdict.reason


def test_a_deal_changed_in_cards_drawn_and_never_played_is_refused() -> None:
    """The moves of such a game are possible with either deck, and its result is the same: only the draws
    tell the two decks apart (the issue's record, which `durak-bot verify` used to pass)."""
    swaps = never_played_swaps(100)
    assert len(swaps) >= 20  # about one two-player game in four has such a pair (28 of these)
    for tampered in swaps:
        deal = revealed_deal(tampered.record)
        assert deal is not None
        verdict = deal.verdict()
        assert not verdict.ok, tampered.step
        assert (verdict.check, verdict.step) == ("draws", tampered.step)


async def test_a_salt_is_128_random_bits_and_not_made_from_the_seed(harness: Harness) -> None:
    """Even with the seed fixed (`durak-bot play --seed N`), each game's salt is 32 new random hex digits:
    a salt made from the seed could be found by trying seeds, and the seal opened before the end."""
    seed = 5
    salts = []
    for chat in ("-201", "-202"):
        table = Harness(harness.store, chat=chat)
        table.service = GameService(
            table.store, ServiceConfig(ai_delay=0), clock=lambda: harness.clock, seed_source=lambda: seed
        )
        salts.append((await started(table)).deal_salt)
    for salt in salts:
        assert len(salt) == 32 and all(c in "0123456789abcdef" for c in salt)
        assert salt != f"{seed:016x}" * 2
    assert salts[0] != salts[1]  # the same seed, so the same deck; another salt

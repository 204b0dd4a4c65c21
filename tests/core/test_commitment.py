"""A sealed deal (core/commitment.py, docs/fairness.md): the seal binds the order, and a game that did not
keep to the sealed order fails verification."""

from __future__ import annotations

import random

from core import Game, Settings, new_game
from core.commitment import PlayedGame, commitment, dealt_order, deck_text, new_salt, read_order, verify
from core.state import clone_game
from tests.core.invariants import random_settings

SALT = "0123456789abcdef0123456789abcdef"


def played_to_the_end(game: Game, rng: random.Random, alter_at: int | None = None) -> tuple[Game, Game]:
    """(the game as dealt, as it ended) with random legal moves; ``alter_at``: at that step the talon is
    reordered behind the players' backs, as a cheating dealer would."""
    dealt = game
    while not game.is_over:
        if game.step == alter_at and len(game.talon) > 2:
            altered = clone_game(game)
            altered.talon = (*reversed(game.talon[:-1]), game.talon[-1])  # the turned-up card stays put
            game = altered
        seat = game.to_act
        assert seat is not None
        game = game.apply(seat, rng.choice(game.legal_actions(seat)))
    return dealt, game


def record_of(dealt: Game, ended: Game) -> PlayedGame:
    assert ended.result is not None
    return PlayedGame(
        settings=dealt.settings,
        players=dealt.players,
        dealer=dealt.dealer,
        last_durak=dealt.last_durak,
        log=tuple(ended.log),
        durak=ended.result.durak,
        draw=ended.result.draw,
        order_out=tuple(ended.result.order_out),
        deck=tuple(dealt_order(dealt)),
    )


def test_an_honest_game_verifies_whatever_its_rules() -> None:
    rng = random.Random(7)
    for _ in range(60):
        settings, players = random_settings(rng)
        if rng.random() < 0.3:
            settings = settings.model_copy(update={"severny": True})
        dealt, ended = played_to_the_end(
            new_game(settings, [f"P{n}" for n in range(players)], seed=rng.getrandbits(63)), rng
        )
        order = dealt_order(dealt)
        assert verify(record_of(dealt, ended), deck_text(order), SALT, commitment(order, SALT)).ok


def test_a_trump_exchange_and_a_severny_turn_up_are_covered_by_the_seal() -> None:
    rng = random.Random(11)
    exchanged = severny_seen = 0
    for _ in range(80):
        settings = Settings(mode="transfer", exchange="lowest", severny=True)
        dealt, ended = played_to_the_end(new_game(settings, ["A", "B", "C"], seed=rng.getrandbits(63)), rng)
        exchanged += any(code == "e" for _seat, code in ended.log)
        severny_seen += ended.severny_card >= 0
        order = dealt_order(dealt)
        assert verify(record_of(dealt, ended), deck_text(order), SALT, commitment(order, SALT)).ok
    assert exchanged and severny_seen  # both happened in these games, and verified


def test_a_deck_altered_after_the_seal_fails_verification() -> None:
    rng = random.Random(3)
    failed = 0
    for _ in range(40):
        game = new_game(Settings(deck=36), ["A", "B", "C", "D"], seed=rng.getrandbits(63))
        dealt, ended = played_to_the_end(game, rng, alter_at=4)
        order = dealt_order(dealt)  # what was sealed: the deck as dealt, before the change
        verdict = verify(record_of(dealt, ended), deck_text(order), SALT, commitment(order, SALT))
        failed += not verdict.ok
        assert not verdict.ok, verdict
    assert failed == 40


def test_another_salt_or_another_order_does_not_give_the_seal() -> None:
    rng = random.Random(5)
    dealt, ended = played_to_the_end(new_game(Settings(), ["A", "B"], seed=1), rng)
    order = dealt_order(dealt)
    seal = commitment(order, SALT)
    played = record_of(dealt, ended)
    other_salt = "f" + SALT[1:]
    swapped = [order[1], order[0], *order[2:]]
    for verdict in (
        verify(played, deck_text(order), other_salt, seal),
        verify(played, deck_text(swapped), SALT, seal),
        verify(played, deck_text(order), "not hex", seal),
    ):
        assert (verdict.ok, verdict.check) == (False, "hash")


def test_the_seal_says_nothing_of_the_order_without_its_salt() -> None:
    """The same deck under two salts gives unrelated seals, and neither is the hash of the order alone."""
    order = dealt_order(new_game(Settings(), ["A", "B"], seed=9))
    first, second = commitment(order, SALT), commitment(order, "f" * 32)
    assert first != second and len(first) == len(second) == 64
    assert sum(a == b for a, b in zip(first, second, strict=True)) < 16  # about 4 of 64 by chance


def test_a_revealed_order_reads_back_and_refuses_a_card_twice() -> None:
    order = dealt_order(new_game(Settings(), ["A", "B"], seed=2))
    assert read_order(" ".join(str(card) for card in order)) == order
    for bad in ("6S 6S", "6S XX"):
        try:
            read_order(bad)
        except ValueError:
            continue
        raise AssertionError(f"read {bad!r}")


def test_a_new_salt_is_128_bits_of_the_systems_randomness() -> None:
    """`secrets.token_hex(16)`: 32 hexadecimal digits, each salt unrelated to any other (and to any seed)."""
    salts = {new_salt() for _ in range(50)}
    assert len(salts) == 50
    assert all(len(salt) == 32 and int(salt, 16) >= 0 and salt == salt.lower() for salt in salts)
    assert len({salt[:16] for salt in salts} | {salt[16:] for salt in salts}) == 100  # no half repeats
    assert any(int(salt, 16) >> 126 for salt in salts)  # the top two bits are used too, not 2 x 63

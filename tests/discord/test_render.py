"""Neutral messages as embeds and buttons within Discord's limits; custom_ids that survive a restart."""

from __future__ import annotations

import pytest

from adapters.discord.render import SelectSpec, layout, to_embed
from adapters.discord.views import DirectMessageToggle, ServiceButton, buttons_view
from bot.buttons import named
from bot.effects import Button, Message, Span
from bot.payloads import Payload
from bot.render.text import bold, line, message

CHANNEL = "1234567890123456789"  # a Discord snowflake: 19 digits


def buttons(n: int, per_row: int) -> tuple[tuple[Button, ...], ...]:
    made = [Button(f"b{i}", Payload(CHANNEL, "g1", i, named("a:6S")).encode()) for i in range(n)]
    return tuple(tuple(made[i : i + per_row]) for i in range(0, n, per_row))


def test_the_first_line_is_the_title_and_every_span_is_escaped() -> None:
    embed = to_embed(message([line(bold("Durak in *club*")), line("Ann_", bold("**x**")), line("`code`")]))
    assert embed.title == r"Durak in \*club\*"
    assert embed.description == "Ann\\_**\\*\\*x\\*\\***\n\\`code\\`"


def test_a_mono_span_cannot_break_out_of_its_code_span() -> None:
    embed = to_embed(Message(lines=((Span("t"),), (Span("a`b", mono=True),))))
    assert embed.description == "`aˋb`"


def test_long_rows_are_split_into_fives_and_too_many_rows_are_packed_keeping_the_last_row() -> None:
    rows = layout(Message(lines=(), buttons=buttons(7, 7)))
    assert [len(r) for r in rows if isinstance(r, list)] == [5, 2]
    take = (Button("Take", Payload(CHANNEL, "g1", 1, named("t")).encode()),)
    rows = layout(Message(lines=(), buttons=(*buttons(18, 4), take)))
    assert [[b.label for b in r] for r in rows if isinstance(r, list)][-1] == ["Take"]
    assert [len(r) for r in rows if isinstance(r, list)] == [5, 5, 5, 3, 1]


def test_more_cards_than_buttons_allow_become_select_menus_with_every_move() -> None:
    take = (Button("Take", Payload(CHANNEL, "g1", 1, named("t")).encode()),)
    many = Message(lines=(), buttons=(*buttons(28, 4), take))
    rows = layout(many, placeholder="Play a card…")
    first, second, last = rows
    assert isinstance(first, SelectSpec) and isinstance(second, SelectSpec) and isinstance(last, list)
    assert len(first.options) == 25 and len(second.options) == 3 and [b.label for b in last] == ["Take"]
    assert first.placeholder == "Play a card… (1/2)"
    every = [payload for select in (first, second) for _, payload in select.options]
    assert every == [b.payload for row in many.buttons[:-1] for b in row]
    view = buttons_view(rows)
    assert view is not None and [type(i).__name__ for i in view.children] == [
        "CardSelect",
        "CardSelect",
        "ServiceButton",
    ]
    assert all(len(getattr(i, "custom_id", "")) <= 100 for i in view.children)


def test_the_adapters_extra_button_is_dropped_first_when_there_is_no_room() -> None:
    full = Message(lines=(), buttons=buttons(25, 5))
    extra = (layout(Message(lines=(), buttons=buttons(1, 1)))[0][0],)
    rows = layout(full, extra)
    assert len(rows) == 5 and isinstance(rows[-1], list) and rows[-1][0].label == "b20"
    assert layout(Message(lines=(), buttons=buttons(3, 3)), extra)[-1] == list(extra)


def test_custom_ids_carry_the_payload_and_never_exceed_100_characters() -> None:
    longest = Payload("-" + "9" * 23, "z" * 12, 999999, named("c:5:TS")).encode()
    view = buttons_view(layout(Message(lines=(), buttons=((Button("x", longest),),))))
    assert view is not None
    (item,) = view.children
    assert isinstance(item, ServiceButton) and item.payload == longest
    assert len(item.custom_id) <= 100
    toggle = DirectMessageToggle(True, longest)
    assert toggle.custom_id == f"dm:{longest}" and len(toggle.custom_id) <= 100
    with pytest.raises(AssertionError):
        ServiceButton("x" * 99)


def test_a_message_without_buttons_has_no_view() -> None:
    assert buttons_view(layout(message([line("closed")]))) is None

"""The page's own labels, from the same catalogs as every other text of the bot.

Texts about the game (the title, the status line, events, results, lobby buttons) come translated in the
state itself; the page draws only these few labels of its own. `GET /api/strings?lang=` answers
`page_strings(translator(lang))`: English label -> translation; the page falls back to the English key.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.adapter import Translator


def _labels(_: Callable[[str], str]) -> list[str]:
    """Every label of the page, each as a literal call so that Babel extracts it into the catalogs."""
    return [
        # the seats
        _("attacker"),
        _("defender"),
        # TRANSLATORS: a seat's role on the web page's table: a player who may throw in cards
        _("thrower"),
        _("out"),
        # TRANSLATORS: a seat that passed (will not throw in more cards this bout), on the web page's table
        _("passed"),
        _("Your turn"),
        _("You are watching this game"),
        # the table
        _("Durak"),
        _("Players"),
        # TRANSLATORS: the face-down pile the players draw from, a tooltip on the web page
        _("Talon"),
        _("Trump"),
        # TRANSLATORS: the pile of beaten cards, a tooltip on the web page
        _("Discarded"),
        _("The table is empty"),
        # the names a screen reader says for the cards, the trump, the talon and the seats
        # TRANSLATORS: a card's name for screen readers; {rank} is 6..10 or a face card below ("queen of spades")
        _("{rank} of spades"),
        _("{rank} of hearts"),
        _("{rank} of diamonds"),
        _("{rank} of clubs"),
        # TRANSLATORS: a card's rank in its name for screen readers, as in "jack of spades"
        _("jack"),
        _("queen"),
        _("king"),
        _("ace"),
        # TRANSLATORS: the trump suit's name for screen readers, in "Trump: {suit}" once the trump card is drawn
        _("spades"),
        _("hearts"),
        _("diamonds"),
        _("clubs"),
        # TRANSLATORS: the card turned up under the talon, for screen readers: "Trump: ace of diamonds"
        _("Trump: {card}"),
        _("Trump: {suit}"),
        # TRANSLATORS: for screen readers, the number on the talon (the face-down pile players draw from)
        _("Cards in the talon: {n}"),
        # TRANSLATORS: for screen readers, the number on the pile of beaten cards
        _("Cards discarded: {n}"),
        # TRANSLATORS: for screen readers, the number of cards a player holds, beside their name
        _("Cards in hand: {n}"),
        _("Team A"),
        _("Team B"),
        # TRANSLATORS: after tapping a hand card that could cover several attack cards
        _("Tap the card to beat"),
        # TRANSLATORS: the spoken label of an attack card that can be tapped to cover it, e.g. "Beat 9♠"
        _("Beat {card}"),
        _("Game over"),
        # the buttons
        _("Take"),
        _("Pass"),
        _("Transfer {card}"),
        # TRANSLATORS: the button before choosing which card to transfer with (several could)
        _("Transfer"),
        _("Swap for {card}"),
        _("Cancel"),
        # TRANSLATORS: on the result, a link to watch the finished game step by step
        _("Replay"),
        # TRANSLATORS: a button for someone not playing, once the game they opened the lobby of started
        _("Watch the game"),
        # the connection
        _("Connecting…"),
        _("Reconnecting…"),
        _("Disconnected"),
        _("No connection: try again"),
        _("There is no game here now."),
        _("This link has been used already: open the game again from the bot."),
        _(
            "Open this page from the bot: the Open table button in Telegram, "
            "or the link durak-bot play --web prints."
        ),
    ]


def page_strings(tr: Translator) -> dict[str, str]:
    """The page's labels in the translator's language."""
    english = _labels(lambda text: text)
    return dict(zip(english, _labels(tr._), strict=True))

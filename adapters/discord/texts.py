"""Words only the Discord adapter says (hand freshness, DMs, command names), in English, Russian and Italian.

The game's own texts come from the service, translated by `bot.i18n`; these few are about Discord itself
(ephemeral messages, direct messages, slash commands), so they live beside the adapter.
"""

from __future__ import annotations

from bot.i18n import normalise_language, translator

TEXTS: dict[str, dict[str, str]] = {
    "live_until": {
        "en": "Updates here until {time} ({relative}); after that, press “{my_hand}” on the table.",
        "ru": "Обновляется здесь до {time} ({relative}); потом нажмите «{my_hand}» под столом.",
        "it": "Si aggiorna qui fino alle {time} ({relative}); poi premi «{my_hand}» sul tavolo.",
    },
    "dm_me": {"en": "Send to my DMs", "ru": "Присылать в ЛС", "it": "Mandala in DM"},
    "no_dm": {"en": "Show in the channel", "ru": "Показывать в канале", "it": "Mostra nel canale"},
    "dm_on": {
        "en": "Your hand now comes by direct message in this game.",
        "ru": "Теперь ваши карты приходят в личные сообщения.",
        "it": "Ora la tua mano arriva in messaggio diretto.",
    },
    "dm_off": {
        "en": "Your hand is shown in the channel again: press “{my_hand}”.",
        "ru": "Ваши карты снова в канале: нажмите «{my_hand}».",
        "it": "La tua mano torna nel canale: premi «{my_hand}».",
    },
    "dm_refused": {
        "en": "{mention}, Discord did not let me send you a direct message (privacy settings); "
        "your hand stays under “{my_hand}” here.",
        "ru": "{mention}, Discord не дал отправить вам личное сообщение (настройки приватности); "
        "ваши карты по-прежнему под кнопкой «{my_hand}».",
        "it": "{mention}, Discord non mi ha lasciato mandarti un messaggio diretto (impostazioni privacy); "
        "la tua mano resta sotto «{my_hand}».",
    },
    "pick_card": {"en": "Play a card…", "ru": "Сыграть карту…", "it": "Gioca una carta…"},
    "done": {"en": "Done.", "ru": "Готово.", "it": "Fatto."},
    "cannot_post": {
        "en": "I cannot post in this channel: give me View Channel, Send Messages and Embed Links here.",
        "ru": "Я не могу писать в этот канал: дайте мне права «Просмотр канала», «Отправка сообщений» "
        "и «Встраивать ссылки».",
        "it": "Non posso scrivere in questo canale: dammi Visualizzare il canale, Inviare messaggi e "
        "Incorporare link.",
    },
}


def say(key: str, lang: str | None, **values: str) -> str:
    """The adapter's text ``key`` in ``lang`` (English for anything else); ``{my_hand}`` is filled in."""
    lang = normalise_language(lang)
    text = TEXTS[key].get(lang) or TEXTS[key]["en"]
    return text.format(my_hand=translator(lang)._("My hand"), **values)


# The /durak group's and its options' names and descriptions: English is the source, Discord shows these
# to Russian and Italian clients. Names must be lowercase, 1-32 word characters. Each subcommand's own
# name and description are declared with its command in `bot.commands`.
COMMAND_TEXTS: dict[str, dict[str, str]] = {
    "durak": {"ru": "дурак", "it": "durak"},
    "Play Durak, the card game": {"ru": "Играть в дурака", "it": "Gioca a Durak (il gioco di carte)"},
    "words": {"ru": "слова", "it": "parole"},
    "Rules words, e.g. transfer deck=24": {
        "ru": "Слова правил, например transfer deck=24",
        "it": "Parole delle regole, es. transfer deck=24",
    },
    "language": {"ru": "язык", "it": "lingua"},
    "Language of the game messages": {"ru": "Язык сообщений игры", "it": "Lingua dei messaggi del gioco"},
    "season": {"ru": "сезон", "it": "stagione"},
    "An earlier season, e.g. 1": {"ru": "Прошлый сезон, например 1", "it": "Una stagione passata, es. 1"},
}

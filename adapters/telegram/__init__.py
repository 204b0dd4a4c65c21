"""Telegram adapter: python-telegram-bot v22 updates in, the game service's effects out as Bot API calls.

No game logic lives here: `handlers` turns updates into service inputs, `render` turns the neutral messages
into Telegram HTML and keyboards, `delivery` sends them within Telegram's flood limits, `app` wires it up.
"""

"""Tests of the web front end (issue 19): the page's server, its Telegram sign-in, the page in a browser."""

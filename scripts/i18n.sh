#!/usr/bin/env bash
# Gettext catalogs of the bot with Babel: extract the English msgids from bot/**.py and adapters/**.py into the template,
# merge it into the catalog of each language of bot.i18n.LANGUAGES, and compile them to the .mo files that are committed
# next to the .po files (so an editable install needs no build step). See docs/i18n.md.
#
#   scripts/i18n.sh            extract + update + compile (the usual run after changing strings)
#   scripts/i18n.sh extract    only rewrite bot/locale/durak.pot
#   scripts/i18n.sh update     only merge the template into the .po files (new msgids come in empty)
#   scripts/i18n.sh compile    only compile the .po files to .mo
#   scripts/i18n.sh check      fail if the template or a catalog is out of date, or a translation is missing
set -euo pipefail
cd "$(dirname "$0")/.."

LOCALE_DIR=bot/locale
DOMAIN=durak
POT="$LOCALE_DIR/$DOMAIN.pot"
# the languages with a catalog: declared once, in bot/i18n.py (a new one starts with `pybabel init`, below)
read -r -a LANGS <<< "$(python -c 'from bot.i18n import TRANSLATED; print(" ".join(TRANSLATED))')"

extract() {
    mkdir -p "$LOCALE_DIR"
    # Our translator methods: tr._("text") / _ = tr._; _("text"), and tr.n_("singular", "plural", n);
    # p_("context", "text") marks a msgid with a context (Discord's command names).
    pybabel extract -F babel.cfg --no-default-keywords -k _ -k n_:1,2 -k p_:1c,2 \
        --add-comments=TRANSLATORS: --add-location=file --sort-by-file --width=110 \
        --project=durak-bot --version=0.1.0 --copyright-holder="Durak bot authors" \
        -o "$POT" .
}

update() {
    for lang in "${LANGS[@]}"; do
        if [[ -f "$LOCALE_DIR/$lang/LC_MESSAGES/$DOMAIN.po" ]]; then
            pybabel update -i "$POT" -d "$LOCALE_DIR" -D "$DOMAIN" -l "$lang" \
                --no-fuzzy-matching --ignore-obsolete --ignore-pot-creation-date --width=110
        else
            pybabel init -i "$POT" -d "$LOCALE_DIR" -D "$DOMAIN" -l "$lang" --width=110
        fi
    done
}

compile() {
    # no --use-fuzzy: a fuzzy entry is not a translation, it stays English until someone checks it
    pybabel compile -d "$LOCALE_DIR" -D "$DOMAIN" --statistics
}

check() {
    # the template against the code, every catalog complete and in sync with its .mo, plural forms right
    python -m pytest -q -p no:cacheprovider tests/bot/test_i18n.py tests/bot/test_text_limits.py
}

case "${1:-all}" in
    extract) extract ;;
    update) update ;;
    compile) compile ;;
    check) check ;;
    all) extract && update && compile ;;
    *) echo "usage: $0 [extract|update|compile|check|all]" >&2; exit 2 ;;
esac

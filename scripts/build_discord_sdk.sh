#!/usr/bin/env bash
# Rebuilds adapters/web/static/discord-sdk.js (and its licence beside it) from Discord's Embedded App SDK on
# npm: the versions pinned in adapters/web/sdk/package-lock.json, bundled by esbuild into one IIFE that sets
# window.DiscordEmbeddedAppSdk. Run it by hand after changing the SDK's version, and commit both files; the bot
# and the tests only read the built file (nothing runs npm when the bot runs).
set -euo pipefail
cd "$(dirname "$0")/../adapters/web/sdk"
npm ci --no-audit --no-fund
static=../static
npx --no-install esbuild entry.js --bundle --format=iife --global-name=DiscordEmbeddedAppSdk \
  --minify --target=es2020 --legal-comments=none --outfile="$static/discord-sdk.js"
version=$(node -p 'require("@discord/embedded-app-sdk/package.json").version')
{
  echo "static/discord-sdk.js bundles @discord/embedded-app-sdk $version (https://github.com/discord/embedded-app-sdk)"
  echo "and its dependencies; their licences follow."
  for package in node_modules/@discord/embedded-app-sdk node_modules/eventemitter3 node_modules/uuid \
    node_modules/zod node_modules/big-integer node_modules/decimal.js-light node_modules/lodash.transform; do
    licence=$(ls "$package" | grep -iE '^licen[cs]e' | head -1)
    echo
    echo "==== $(node -p "require('./$package/package.json').name + ' ' + require('./$package/package.json').version")"
    cat "$package/$licence"
  done
} >"$static/discord-sdk.LICENSE.txt"
echo "built $static/discord-sdk.js ($(wc -c <"$static/discord-sdk.js") bytes)"

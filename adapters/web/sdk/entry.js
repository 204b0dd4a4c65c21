// The one file the Activity page loads: Discord's Embedded App SDK as a global (window.DiscordEmbeddedAppSdk),
// bundled with its dependencies by scripts/build_discord_sdk.sh into ../static/discord-sdk.js.
export { DiscordSDK } from "@discord/embedded-app-sdk";

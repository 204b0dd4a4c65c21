// The screens drawn from one viewer's state: the lobby, the table, the result; and for someone not seated
// who opened the lobby's link, the game having started without them, with a link to watch it.
// Every move the page offers comes from state.actions: a card or button without a legal move is inert.

import { cardBack, cardFace, cardText, SUIT_SYMBOLS } from "./cards.js";
import { h, svg } from "./dom.js";

const EVENTS_SHOWN = 4;
const CARD_KINDS = ["attack", "cover", "transfer"];

/** The moves a tap on this hand card could mean. */
export function cardActions(state, code) {
  return state.actions.filter((a) => a.card === code && CARD_KINDS.includes(a.kind));
}

export function screen(state, ui, on) {
  if (state.phase === "lobby") return lobbyScreen(state, ui, on);
  if (state.phase === "over") return resultScreen(state, ui, on);
  if (state.phase === "started") return startedScreen(state, ui);
  return tableScreen(state, ui, on);
}

/** A message instead of a game (no credential, no game, refused), and under it ``more`` if given. */
export function messageScreen(text, more = null) {
  return h(
    "div",
    { class: "screen message" },
    h("div", { class: "brand" }, suitsLogo()),
    h("p", { class: "message-text" }, text),
    more,
  );
}

/** The lobby's link held by someone not seated, once its game started: say so, and offer to watch. */
function startedScreen(state, ui) {
  const watch = h("a", { class: "btn primary watch-link", href: pageLink(state.watch) }, ui.t("Watch the game"));
  return messageScreen(state.status, watch);
}

// Another ref on this page, in the same tab: the local game's and a Discord Activity's sessions live in
// sessionStorage, Telegram's launch data in the fragment, which the link keeps (its start parameter gives way
// to ?ref=), and Discord's launch parameters in the query, which it keeps too.
const DISCORD_PARAMS = ["frame_id", "instance_id", "platform", "channel_id", "guild_id", "location_id"];

function pageLink(ref) {
  const asked = new URLSearchParams(location.search);
  const kept = DISCORD_PARAMS.filter((key) => asked.has(key)).map((key) => `&${key}=${encodeURIComponent(asked.get(key))}`);
  return `?ref=${encodeURIComponent(ref)}${kept.join("")}${location.hash}`;
}

function suitsLogo() {
  return h(
    "div",
    { class: "suits-logo", "aria-hidden": "true" },
    ["S", "H", "D", "C"].map((s) => h("span", { class: s === "H" || s === "D" ? "red" : "black" }, SUIT_SYMBOLS[s])),
  );
}

function topBar(state, ui) {
  const t = ui.t;
  const connection = {
    live: null,
    connecting: t("Connecting…"),
    reconnecting: t("Reconnecting…"),
    denied: t("Disconnected"),
  }[ui.connection];
  return h(
    "header",
    { class: "topbar" },
    h("div", { class: "title" }, state.title || "Durak"),
    state.seal ? h("div", { class: "seal", title: state.seal_title || "" }, state.seal) : null,
    connection ? h("div", { class: "connection" }, connection) : null,
  );
}

/** The payload's last part names the button: "S" Start, "J" Join, "A:easy" Add AI, "R" Rematch... */
function buttonCode(payload) {
  return payload.slice(payload.lastIndexOf("|") + 1).split(":")[0];
}

const PRIMARY_CODES = ["S", "R"]; // Start, Rematch
const SEATED_ONLY = ["L", "A", "D"]; // Leave, Add AI, Remove AI: pressed by someone seated

function tableButton(button, ui, on, primary) {
  return h(
    "button",
    {
      type: "button",
      class: `btn ${primary ? "primary" : ""}`,
      "data-payload": button.payload,
      "data-code": buttonCode(button.payload),
      disabled: ui.busy,
      onclick: () => on.press(button.payload),
    },
    button.label,
  );
}

/** The chat's lobby or end buttons, in rows: the main one (Start, Rematch; Join for a newcomer) first,
 * then the AI seats' buttons, then the rest; those that are not for this viewer are left out. */
function buttonRows(state, ui, on) {
  const seated = state.you !== null && state.you !== undefined;
  const shown = state.buttons.filter((b) => {
    const code = buttonCode(b.payload);
    if (code === "J") return !seated;
    return seated || !SEATED_ONLY.includes(code);
  });
  if (!shown.length) return null;
  const isMain = (b) => PRIMARY_CODES.includes(buttonCode(b.payload)) || (!seated && buttonCode(b.payload) === "J");
  const isAi = (b) => ["A", "D"].includes(buttonCode(b.payload));
  const row = (buttons, className, primary) =>
    buttons.length ? h("div", { class: `button-row ${className}` }, buttons.map((b) => tableButton(b, ui, on, primary))) : null;
  return h(
    "div",
    { class: "buttons" },
    row(shown.filter(isMain), "main", true),
    row(shown.filter((b) => !isMain(b) && isAi(b)), "ai", false),
    row(shown.filter((b) => !isMain(b) && !isAi(b)), "other", false),
  );
}

// ---- the lobby -----------------------------------------------------------------------------------------

function lobbyScreen(state, ui, on) {
  const t = ui.t;
  const players = state.lobby?.players ?? state.seats.map((s) => s.name);
  return h(
    "div",
    { class: "screen lobby" },
    topBar(state, ui),
    h(
      "section",
      { class: "lobby-card" },
      h("div", { class: "brand" }, suitsLogo()),
      h("h1", {}, t("Durak")),
      (state.lobby?.rules ?? []).length
        ? h("ul", { class: "settings" }, state.lobby.rules.map((line) => h("li", {}, line)))
        : null,
      h(
        "h2",
        {},
        t("Players"),
        h("span", { class: "count" }, state.lobby?.capacity ? `${players.length}/${state.lobby.capacity}` : String(players.length)),
      ),
      h(
        "ul",
        { class: "players" },
        players.map((name, i) => h("li", {}, avatar(name, i), h("span", { class: "name" }, displayName(name)))),
      ),
      state.status ? h("p", { class: "status-line" }, state.status) : null,
      buttonRows(state, ui, on),
    ),
  );
}

const ROBOT = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="currentColor">
  <rect x="11" y="1.5" width="2" height="4" rx="1"/><circle cx="12" cy="2" r="1.8"/>
  <rect x="4" y="6" width="16" height="13" rx="4"/><rect x="1.5" y="10" width="2" height="5" rx="1"/>
  <rect x="20.5" y="10" width="2" height="5" rx="1"/>
  <circle cx="9" cy="12" r="2" fill="#fff"/><circle cx="15" cy="12" r="2" fill="#fff"/>
  <rect x="9" y="15.5" width="6" height="1.6" rx=".8" fill="#fff"/></svg>`;

/** AI seats are named "🤖 AI 1 (normal)": the robot moves into the avatar. */
function isRobot(name, ai) {
  return Boolean(ai) || name.startsWith("🤖");
}

export function displayName(name) {
  return name.replace(/^🤖\s*/u, "");
}

function avatar(name, index, ai = false) {
  if (isRobot(name, ai)) return h("span", { class: "avatar robot", "aria-hidden": "true" }, svg(ROBOT));
  const letter = [...name.trim()][0]?.toUpperCase() || "?";
  return h("span", { class: `avatar hue${index % 6}`, "aria-hidden": "true" }, letter);
}

// ---- the table ---------------------------------------------------------------------------------------

function tableScreen(state, ui, on) {
  return h(
    "div",
    {
      class: `screen play ${state.you !== null && state.seats[state.you]?.acting ? "my-turn" : ""}`,
    },
    topBar(state, ui),
    opponents(state, ui),
    felt(state, ui, on),
    statusBar(state, ui),
    actionBar(state, ui, on),
    handArea(state, ui, on),
  );
}

function opponents(state, ui) {
  const n = state.seats.length;
  const order = [];
  const first = state.you === null ? 0 : state.you + 1;
  for (let k = 0; k < n; k++) {
    const seat = (first + k) % n;
    if (seat !== state.you) order.push(seat);
  }
  return h(
    "section",
    { class: `seats seats-${order.length}` },
    order.map((i) => seatChip(state, ui, i)),
  );
}

function roleLabel(seat, ui) {
  if (seat.out) return ui.t("out");
  if (seat.passed) return ui.t("passed");
  return seat.role ? ui.t(seat.role) : "";
}

function seatChip(state, ui, index) {
  const seat = state.seats[index];
  const classes = ["seat", seat.acting && "acting", seat.out && "out", seat.role && `role-${seat.role}`];
  if (seat.team !== null && seat.team !== undefined) classes.push(`team${seat.team}`);
  return h(
    "div",
    { class: classes.filter(Boolean).join(" "), "data-seat": index },
    avatar(seat.name, index, seat.ai),
    h(
      "div",
      { class: "seat-text" },
      h("div", { class: "seat-name" }, displayName(seat.name)),
      h(
        "div",
        { class: "seat-meta" },
        h("span", { class: "mini-back", "aria-hidden": "true" }),
        h("span", { class: "seat-cards" }, String(seat.cards)),
        roleLabel(seat, ui) ? h("span", { class: "role" }, roleLabel(seat, ui)) : null,
      ),
    ),
    seat.acting ? countdown(state, "ring") : null,
  );
}

function felt(state, ui, on) {
  const t = ui.t;
  const selected = ui.selected;
  const targets = new Set(
    selected
      ? cardActions(state, selected)
          .filter((a) => a.kind === "cover")
          .map((a) => a.target)
      : [],
  );
  return h(
    "section",
    { class: "felt" },
    deck(state, { talon: t("Talon"), trump: t("Trump"), discard: t("Discarded") }),
    h(
      "div",
      { class: "table-cards", style: tableColumns(state.table.length) },
      state.table.length === 0 ? h("p", { class: "empty-table" }, t("The table is empty")) : null,
      state.table.map(([attack, cover], i) => {
        const isTarget = targets.has(i);
        return h(
          isTarget ? "button" : "div",
          {
            class: `pair ${cover ? "covered" : "open"} ${isTarget ? "target" : ""}`,
            "data-index": i,
            type: isTarget ? "button" : false,
            "aria-label": isTarget ? t("Beat {card}").replace("{card}", cardText(attack)) : false,
            onclick: isTarget ? () => on.cover(i) : null,
          },
          cardFace(attack, { className: "attack" }),
          cover ? cardFace(cover, { className: "cover" }) : null,
        );
      }),
    ),
    eventList(state.events),
  );
}

/**
 * The talon with the trump card under it, the trump suit and the discard pile of a state or a replay's
 * position (``talon``, ``trump``, ``trump_card``, ``discard``); ``titles`` are their translated names.
 */
export function deck(pile, titles) {
  const trumpRed = pile.trump === "H" || pile.trump === "D";
  return h(
    "div",
    { class: "deck" },
    pile.talon > 0 || pile.trump_card
      ? h(
          "div",
          { class: "talon", title: titles.talon },
          pile.trump_card ? cardFace(pile.trump_card, { className: "trump-card" }) : null,
          pile.talon > 0 ? cardBack("talon-top") : null,
          h("span", { class: "badge talon-count" }, String(pile.talon)),
        )
      : null,
    h(
      "div",
      { class: "trump-suit", title: titles.trump },
      h("span", { class: trumpRed ? "red" : "black" }, SUIT_SYMBOLS[pile.trump] || ""),
    ),
    pile.discard > 0
      ? h(
          "div",
          { class: "discard", title: titles.discard },
          cardBack("discard-pile"),
          h("span", { class: "badge discard-count" }, String(pile.discard)),
        )
      : null,
  );
}

/** Pairs in rows that look balanced: 4 as 2+2 on a phone, up to 6 in one row on a wide screen. */
function tableColumns(n) {
  const phone = n <= 1 ? 1 : n === 2 || n === 4 ? 2 : 3;
  return { "--cols": String(phone), "--cols-wide": String(Math.max(1, Math.min(n, 6))) };
}

function statusBar(state, ui) {
  const text = ui.selected ? ui.t("Tap the card to beat") : state.status;
  return h(
    "div",
    { class: "status" },
    h("span", { class: "status-text" }, text || ""),
    state.deadline ? countdown(state, "bar") : null,
  );
}

/** The acting seat's clock; app.js updates every [data-deadline] element a few times a second. */
function countdown(state, kind) {
  if (!state.deadline) return null;
  return h("span", {
    class: `countdown ${kind}`,
    "data-deadline": state.deadline,
    "data-seconds": state.turn_seconds || 60,
  });
}

function eventList(events) {
  const shown = events.slice(-EVENTS_SHOWN).reverse();
  return h(
    "ol",
    { class: "events" },
    shown.map((text, i) => h("li", { class: i === 0 ? "latest" : "" }, text)),
  );
}

function actionBar(state, ui, on) {
  const t = ui.t;
  const buttons = [];
  const labelOf = (action, fallback) => action.label || fallback;
  const add = (kind, label, onclick, primary = false) =>
    buttons.push(
      h(
        "button",
        { type: "button", class: `btn ${primary ? "primary" : ""}`, "data-kind": kind, disabled: ui.busy, onclick },
        label,
      ),
    );
  const selectedTransfer = ui.selected && cardActions(state, ui.selected).find((a) => a.kind === "transfer");
  const transfers = state.actions.filter((a) => a.kind === "transfer");
  if (selectedTransfer) {
    const label = labelOf(selectedTransfer, t("Transfer {card}").replace("{card}", cardText(selectedTransfer.card)));
    add("transfer", label, () => on.send(selectedTransfer), true);
  } else if (transfers.length === 1) {
    const label = labelOf(transfers[0], t("Transfer {card}").replace("{card}", cardText(transfers[0].card)));
    add("transfer", label, () => on.send(transfers[0]));
  } else if (transfers.length > 1) {
    add("transfer", t("Transfer"), () => on.pickTransfer(), ui.mode === "transfer");
  }
  for (const action of state.actions) {
    if (action.kind === "take") add("take", labelOf(action, t("Take")), () => on.send(action));
    if (action.kind === "pass") add("pass", labelOf(action, t("Pass")), () => on.send(action));
    if (action.kind === "swap") {
      const trump = state.trump_card ? cardText(state.trump_card) : "";
      add("swap", labelOf(action, t("Swap for {card}").replace("{card}", trump)), () => on.send(action));
    }
  }
  if (ui.selected || ui.mode) add("cancel", t("Cancel"), () => on.clearSelection());
  return h("div", { class: "actions" }, buttons);
}

/** How many cards of the hand fit one row with each card's corner readable (else the hand takes two). */
function cardsPerRow() {
  const cardWidth = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--hand-w")) || 70;
  const width = Math.min(document.documentElement.clientWidth, 860) - 40;
  return Math.max(4, Math.floor((width - cardWidth) / CORNER_PX) + 1);
}

const CORNER_PX = 27; // the strip of a fanned card left visible: its rank and suit

function handArea(state, ui, on) {
  const t = ui.t;
  if (state.you === null) {
    return h("section", { class: "hand spectator" }, h("p", { class: "hint" }, t("You are watching this game")));
  }
  const me = state.seats[state.you];
  const rows = Math.ceil(state.hand.length / cardsPerRow()) || 1;
  const perRow = Math.ceil(state.hand.length / rows);
  const fans = [];
  for (let r = 0; r < rows; r++) fans.push(state.hand.slice(r * perRow, (r + 1) * perRow));
  return h(
    "section",
    { class: `hand ${me.acting ? "acting" : ""}` },
    h(
      "div",
      { class: "hand-head" },
      h("span", { class: "me" }, displayName(me.name)),
      roleLabel(me, ui) ? h("span", { class: "role" }, roleLabel(me, ui)) : null,
      me.acting ? h("span", { class: "your-turn" }, t("Your turn")) : null,
    ),
    fans.map((cards) => fan(cards, state, ui, on)),
  );
}

/** One row of the hand, fanned; a card with a legal move is a button. */
function fan(cards, state, ui, on) {
  const n = cards.length;
  const transferOnly = ui.mode === "transfer";
  return h(
    "div",
    { class: "fan", style: { "--n": String(Math.max(n, 1)) } },
    cards.map((code, i) => {
      const moves = cardActions(state, code).filter((a) => !transferOnly || a.kind === "transfer");
      const playable = moves.length > 0 && !ui.busy;
      const className = ["in-hand", playable ? "playable" : "idle", ui.selected === code && "selected"]
        .filter(Boolean)
        .join(" ");
      const style = { "--off": String(i - (n - 1) / 2) };
      if (!playable) return cardFace(code, { className, style });
      return cardFace(code, { className, style, "data-playable": "", onclick: () => on.tapCard(code) });
    }),
  );
}

// ---- the result --------------------------------------------------------------------------------------

function resultScreen(state, ui, on) {
  const t = ui.t;
  const lines = state.result?.lines ?? [];
  return h(
    "div",
    { class: "screen result" },
    topBar(state, ui),
    h(
      "section",
      { class: "result-card" },
      h("div", { class: "brand" }, suitsLogo()),
      h("h1", { class: "headline" }, lines[0] || t("Game over")),
      h(
        "ol",
        { class: "result-lines" },
        lines.slice(1).map((line) => h("li", {}, line)),
      ),
      state.result?.you ? h("p", { class: "result-you" }, state.result.you) : null,
      h(
        "ul",
        { class: "final-seats" },
        state.seats.map((seat, i) =>
          h(
            "li",
            { class: seat.cards > 0 ? "holding" : "" },
            avatar(seat.name, i, seat.ai),
            h("span", { class: "name" }, displayName(seat.name)),
            seat.cards > 0
              ? h("span", { class: "held" }, h("span", { class: "mini-back" }), h("span", { class: "seat-cards" }, String(seat.cards)))
              : null,
          ),
        ),
      ),
      buttonRows(state, ui, on),
      state.replay ? replayLink(state.replay, t) : null,
    ),
    state.events.length ? eventList(state.events) : null,
  );
}

// The finished game step by step (replay.html), in the same tab (`pageLink`).
function replayLink(ref, t) {
  const link = h("a", { class: "btn replay-link", href: pageLink(ref) }, t("Replay"));
  return h("div", { class: "button-row other" }, link);
}

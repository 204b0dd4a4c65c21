// The screens drawn from one viewer's state: the lobby, the table, the result; and for someone not seated
// who opened the lobby's link, the game having started without them, with a link to watch it.
// Every move the page offers comes from state.actions: a card or button without a legal move is inert.

import { cardBack, cardFace, cardName, cardText, suitName, SUIT_SYMBOLS } from "./cards.js";
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

/** The top bar; its title is the page's h1 where the screen has no heading of its own (the table). */
function topBar(state, ui, heading = false) {
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
    h(heading ? "h1" : "div", { class: "title" }, state.title || "Durak"),
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

// A robot's head, its eyes and mouth cut out (the background shows through them, whatever the scheme).
const ROBOT = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" class="robot" aria-hidden="true">
  <rect x="11" y="1.5" width="2" height="4" rx="1"/><circle cx="12" cy="2" r="1.8"/>
  <path fill-rule="evenodd" d="M8 6h8a4 4 0 0 1 4 4v5a4 4 0 0 1-4 4H8a4 4 0 0 1-4-4v-5a4 4 0 0 1 4-4z
    M7 12a2 2 0 1 0 4 0a2 2 0 1 0-4 0z M13 12a2 2 0 1 0 4 0a2 2 0 1 0-4 0z M9 15.5h6v1.6H9z"/>
  <rect x="1.5" y="10" width="2" height="5" rx="1"/><rect x="20.5" y="10" width="2" height="5" rx="1"/></svg>`;
const ROBOT_EMOJI = /🤖\uFE0F?\s*/gu;

/** AI seats are named "🤖 AI 1 (normal)": the robot moves into the avatar. */
function isRobot(name, ai) {
  return Boolean(ai) || name.startsWith("🤖");
}

export function displayName(name) {
  return name.replace(/^🤖\s*/u, "");
}

/** A text without the robot emoji, for names and labels read out ("AI 1 (normal)" says it already). */
export function plainText(text) {
  return text.replace(ROBOT_EMOJI, "");
}

/** A text of the server's ("Game over: 🤖 AI 1 (easy) is the durak!") with each robot emoji drawn as the
 * robot picture: without an emoji font it would be an empty box. */
export function withRobots(text) {
  const parts = text.split(ROBOT_EMOJI);
  return parts.flatMap((part, i) => (i === 0 ? [part] : [svg(ROBOT), part]));
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
    topBar(state, ui, true),
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
    "ul",
    { class: `seats seats-${order.length}`, "aria-label": ui.t("Players") },
    order.map((i) => seatChip(state, ui, i)),
  );
}

function roleLabel(seat, ui) {
  if (seat.out) return ui.t("out");
  if (seat.passed) return ui.t("passed");
  return seat.role ? ui.t(seat.role) : "";
}

/** "Cards in hand: 6" beside the number drawn: what a screen reader says for it. */
function spokenCount(label, n) {
  return h("span", { class: "sr-only" }, label.replace("{n}", String(n)));
}

const TEAMS = [(t) => t("Team A"), (t) => t("Team B")];

function seatChip(state, ui, index) {
  const seat = state.seats[index];
  const classes = ["seat", seat.acting && "acting", seat.out && "out", seat.role && `role-${seat.role}`];
  const team = TEAMS[seat.team]?.(ui.t); // drawn as the seat's colour; said in words
  if (team) classes.push(`team${seat.team}`);
  return h(
    "li",
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
        h("span", { class: "seat-cards", "aria-hidden": "true" }, String(seat.cards)),
        spokenCount(ui.t("Cards in hand: {n}"), seat.cards),
        roleLabel(seat, ui) ? h("span", { class: "role" }, roleLabel(seat, ui)) : null,
        team ? h("span", { class: "sr-only" }, team) : null,
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
    deck(state, t),
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
            "aria-label": isTarget ? t("Beat {card}").replace("{card}", cardName(attack, t)) : false,
            onclick: isTarget ? () => on.cover(i) : null,
          },
          cardFace(attack, cardName(attack, t), { className: "attack" }),
          cover ? cardFace(cover, cardName(cover, t), { className: "cover" }) : null,
        );
      }),
    ),
    eventList(state.events),
  );
}

/**
 * The talon with the trump card under it, the trump suit and the discard pile of a state or a replay's
 * position (``talon``, ``trump``, ``trump_card``, ``discard``), with ``t`` the page's labels: each is a
 * picture named in words ("Trump: ace of diamonds", "Cards in the talon: 21").
 */
export function deck(pile, t) {
  const trumpRed = pile.trump === "H" || pile.trump === "D";
  const badge = (className, label, n) =>
    h(
      "span",
      { class: `badge ${className}`, role: "img", "aria-label": label.replace("{n}", String(n)) },
      h("span", { "aria-hidden": "true" }, String(n)),
    );
  const trumpCard = pile.trump_card
    ? cardFace(pile.trump_card, t("Trump: {card}").replace("{card}", cardName(pile.trump_card, t)), {
        className: "trump-card",
      })
    : null;
  const trumpSuit = pile.trump_card // the card says it; the suit alone once the card is drawn
    ? { "aria-hidden": "true" }
    : { role: "img", "aria-label": t("Trump: {suit}").replace("{suit}", suitName(pile.trump, t)) };
  return h(
    "div",
    { class: "deck" },
    pile.talon > 0 || pile.trump_card
      ? h(
          "div",
          { class: "talon", title: t("Talon") },
          trumpCard,
          pile.talon > 0 ? cardBack("talon-top") : null,
          badge("talon-count", t("Cards in the talon: {n}"), pile.talon),
        )
      : null,
    h(
      "div",
      { class: "trump-suit", title: t("Trump"), ...trumpSuit },
      h("span", { class: trumpRed ? "red" : "black" }, SUIT_SYMBOLS[pile.trump] || ""),
    ),
    pile.discard > 0
      ? h(
          "div",
          { class: "discard", title: t("Discarded") },
          cardBack("discard-pile"),
          badge("discard-count", t("Cards discarded: {n}"), pile.discard),
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
    { class: `hand ${me.acting ? "acting" : ""}`, tabindex: "-1" }, // the focus's place when it holds no card
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

/** One row of the hand, fanned. Every card is a button, so the keyboard's focus can stay on the hand while
 * nothing can be played (another's turn, a press on its way); one without a legal move is aria-disabled. */
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
      return cardFace(code, cardName(code, ui.t), {
        className,
        button: true,
        style: { "--off": String(i - (n - 1) / 2) },
        "data-playable": playable ? "" : false,
        "aria-disabled": playable ? false : "true",
        onclick: playable ? () => on.tapCard(code) : null,
      });
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
      h("h1", { class: "headline", tabindex: "-1" }, withRobots(lines[0] || t("Game over"))),
      h(
        "ol",
        { class: "result-lines" },
        lines.slice(1).map((line) => h("li", {}, withRobots(line))),
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

// Cards drawn with CSS: a card code is the engine's rank (23456789TJQKA) and suit (SHDC), e.g. "TD".
// A card is a picture: its rank and suit are drawn by style.css from data attributes (so the corners and
// the pip are not read out as "10 ♦ ♦ 10 ♦"), and it is named in words for screen readers ("10 of diamonds").

import { h } from "./dom.js";

export const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };

// The words come from the page's labels (adapters/web/strings.py), in the viewer's language.
const RANK_WORDS = { J: (t) => t("jack"), Q: (t) => t("queen"), K: (t) => t("king"), A: (t) => t("ace") };
const CARD_WORDS = {
  S: (t) => t("{rank} of spades"),
  H: (t) => t("{rank} of hearts"),
  D: (t) => t("{rank} of diamonds"),
  C: (t) => t("{rank} of clubs"),
};
const SUIT_WORDS = { S: (t) => t("spades"), H: (t) => t("hearts"), D: (t) => t("diamonds"), C: (t) => t("clubs") };

export function rankLabel(code) {
  return code[0] === "T" ? "10" : code[0];
}

/** "10♦": the card as people write it (button labels, the tests). */
export function cardText(code) {
  return rankLabel(code) + SUIT_SYMBOLS[code[1]];
}

/** "10 of diamonds", "ace of spades": the card in words, with ``t`` the page's labels. */
export function cardName(code, t) {
  const rank = RANK_WORDS[code[0]]?.(t) ?? rankLabel(code);
  return CARD_WORDS[code[1]](t).replace("{rank}", rank);
}

/** "diamonds": a suit in words. */
export function suitName(suit, t) {
  return SUIT_WORDS[suit]?.(t) ?? "";
}

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}

/**
 * One face-up card named ``name``: a picture (role img), or a button when ``extra.button`` (its onclick may
 * be null: a card of the hand that has no move now stays focusable, aria-disabled). ``extra`` adds classes
 * and attributes.
 */
export function cardFace(code, name, extra = {}) {
  const { className = "", button = false, ...attrs } = extra;
  const rank = rankLabel(code);
  const suit = SUIT_SYMBOLS[code[1]];
  return h(
    button ? "button" : "div",
    {
      class: `card face ${isRed(code) ? "red" : "black"} ${className}`.trim(),
      "data-card": code,
      "aria-label": name,
      ...(button ? { type: "button" } : { role: "img" }),
      ...attrs,
    },
    h("span", { class: "corner top", "data-rank": rank, "data-suit": suit, "aria-hidden": "true" }),
    h("span", { class: "pip", "data-suit": suit, "aria-hidden": "true" }),
    h("span", { class: "corner bottom", "data-rank": rank, "data-suit": suit, "aria-hidden": "true" }),
  );
}

/** The back of a card (the talon, an opponent's hand). */
export function cardBack(className = "") {
  return h("div", { class: `card back ${className}`.trim(), "aria-hidden": "true" });
}

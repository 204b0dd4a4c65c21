// The deal's seal, checked in the browser (docs/fairness.md). When a game starts, the table shows the
// SHA-256 of "durak-deal-v1|<salt>|<order>"; the replay reveals the salt and the order. This page makes, with
// nothing but Web Crypto and the replay's own positions, the checks `durak-bot verify` makes
// (core/commitment.py, CHECKS), under the same names and in the same order; the server sends the names with
// the replay, and a name this page has no check for fails. tests/web/test_browser_seal.py holds the two to
// the same verdict, check and step on the same records.
//
//   hash    the salt (32 hexadecimal digits) and the order give the seal
//   deal    the order is the deck; each seat's hand at the deal is the cards the order deals it (one each,
//           from the seat left of the dealer), and the card turned up is the order's next one
//   draws   at every step each seat that drew got the talon's next cards, in the order they drew (the talon
//           is the order after the deal with the turned-up card at the bottom), and a Severny turn-up is the
//           talon's last face-down card
//   moves   the server's engine replayed every recorded move (a move it could not make ends the steps)
//   result  the game the moves reached ends with the result the record announced

export const SEAL_PREFIX = "durak-deal-v1";
const HAND_SIZE = 6;

export async function sealOf(salt, order) {
  const bytes = new TextEncoder().encode(`${SEAL_PREFIX}|${salt}|${order}`);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function sameSet(a, b) {
  return a.size === b.size && [...a].every((card) => b.has(card));
}

/** The deal as the order makes it: each seat's cards, the card turned up, and the talon in drawing order. */
function dealtFrom(order, players, dealer) {
  const dealt = Math.min(players * HAND_SIZE, order.length);
  const hands = Array.from({ length: players }, () => []);
  order.slice(0, dealt).forEach((card, i) => hands[(dealer + 1 + i) % players].push(card));
  if (dealt === order.length) return { hands, turnedUp: order[dealt - 1], talon: [] }; // stays in the dealer's hand
  return { hands, turnedUp: order[dealt], talon: [...order.slice(dealt + 1), order[dealt]] };
}

// Each check takes the replay (its revealed deal, its steps, its `check` facts) and answers null when it
// holds, or the step it fails at (null step for hash and result: {step: null}).
async function hashCheck({ deal }) {
  if (!/^[0-9a-f]{32}$/.test(deal.salt)) return { step: null };
  return (await sealOf(deal.salt, deal.order)) === deal.commitment.toLowerCase() ? null : { step: null };
}

function dealCheck({ deal, steps, check }) {
  const order = deal.order.split(" ");
  if (!sameSet(new Set(order), new Set(check.deck)) || order.length !== check.deck.length) return { step: 0 };
  const sealed = dealtFrom(order, steps[0].hands.length, check.dealer);
  const handsKept = steps[0].hands.every((hand, seat) => sameSet(new Set(hand), new Set(sealed.hands[seat])));
  return handsKept && sealed.turnedUp === check.turned_up ? null : { step: 0 };
}

function drawsCheck({ deal, steps, check }) {
  const order = deal.order.split(" ");
  const { turnedUp, talon } = dealtFrom(order, steps[0].hands.length, check.dealer);
  const lastFaceDown = talon.length >= 2 ? talon[talon.length - 2] : null;
  const seen = new Set([turnedUp, ...steps[0].hands.flat()]); // the turned-up card is in view from the start
  let taken = 0;
  for (const [index, position] of steps.entries()) {
    if (index === 0) continue;
    const nowTaken = talon.length - position.talon;
    const bySeat = new Map();
    let next = taken;
    for (const [seat, n] of position.drawn) {
      const run = talon.slice(next, next + n).filter((card) => card !== turnedUp);
      bySeat.set(seat, [...(bySeat.get(seat) || []), ...run]);
      next += n;
    }
    const freshIn = (cards) => new Set(cards.filter((card) => !seen.has(card)));
    if (next !== nowTaken) return { step: index };
    if (!position.hands.every((hand, seat) => sameSet(freshIn(hand), new Set(bySeat.get(seat) || [])))) {
      return { step: index };
    }
    if (freshIn(position.table.flat().filter(Boolean)).size) return { step: index }; // a card from nowhere
    if (position.severny && position.severny !== lastFaceDown) return { step: index };
    [...position.hands.flat(), ...position.table.flat().filter(Boolean)].forEach((card) => seen.add(card));
    taken = nowTaken;
  }
  return null;
}

function movesCheck({ steps, check }) {
  return steps.length - 1 === check.moves ? null : { step: steps.length };
}

function resultCheck({ check }) {
  const { announced, reached } = check;
  const same =
    announced && reached
    && announced.durak === reached.durak
    && announced.draw === reached.draw
    && announced.order_out.join(",") === reached.order_out.join(",");
  return same ? null : { step: null };
}

const CHECKERS = { hash: hashCheck, deal: dealCheck, draws: drawsCheck, moves: movesCheck, result: resultCheck };
export const CHECK_NAMES = Object.keys(CHECKERS);

// {ok, check, step} for a replay: ok, or the first of the server's check names that fails ("none": the game
// was dealt before deals were sealed), and the step it fails at (0: the deal; null for hash and result).
export async function checkDeal(replay) {
  if (!replay.deal) return { ok: false, check: "none", step: null };
  for (const name of replay.check.names) {
    const checker = CHECKERS[name];
    const failure = checker ? await checker(replay) : { step: null };
    if (failure) return { ok: false, check: name, step: failure.step };
  }
  return { ok: true, check: "", step: null };
}

// Cards drawn with CSS: a box holding its rank as text, its suit an SVG background image of the
// stylesheet (web/static/web/style.css `.suit-S` …), so no font is needed for the suits. One element
// a card, no inline <svg>: every card an event draws is styled, laid out and painted, and an inline
// SVG is three more elements and a paint-property node of its own (docs/web-client.md "Tests and
// budgets"). No import of ui.js: the admin's replay (matchmaking/static/matchmaking/admin_replay.js)
// draws cards on a page without the client's strings, and then a card is named in English.
const SUIT_NAMES = { S: "♠", H: "♥", C: "♣", D: "♦" };
const RANK_LABEL = { T: "10" };
const JOKERS = { BJ: "大王", SJ: "小王", "BJ*": "大王", "SJ*": "小王" };

export const isJoker = (code) => code in JOKERS;

export function cardLabel(code) {
  if (isJoker(code)) return code.endsWith("*") ? `${JOKERS[code]}*` : JOKERS[code];
  return `${RANK_LABEL[code[0]] || code[0]}${SUIT_NAMES[code[1]]}`;
}

// What a screen reader says for a card: its rank and suit in words ("2 of hearts", "红桃 2"), a
// joker's name, the guard's star, the called card's 特.
let strings = null;
function names() {
  if (strings === null) {
    const node = document.getElementById("bh-strings");
    strings = node ? JSON.parse(node.textContent) : {};
  }
  return strings;
}

export function cardName(code, called = null) {
  const T = names();
  let name;
  if (isJoker(code)) name = `${JOKERS[code]}${code.endsWith("*") ? ` ★ ${T.marked_card || "the guard's card"}` : ""}`;
  else {
    name = (T.card_format || "{rank} of {suit}")
      .replace("{rank}", RANK_LABEL[code[0]] || code[0])
      .replace("{suit}", T[`suit_${code[1]}`] || SUIT_NAMES[code[1]]);
  }
  return called && code === called ? `${name}, ${T.called_card || "the called card"}` : name;
}

// One card: a <button> when `onClick` is given (your hand), else a plain element.
export function card(code, { onClick, small = false, called = null } = {}) {
  const element = document.createElement(onClick ? "button" : "span");
  element.className = "card";
  if (small) element.classList.add("small");
  element.dataset.code = code;
  element.title = cardLabel(code);
  element.setAttribute("aria-label", cardName(code, called));
  // A plain card is an image of a card to assistive technology (a <span> may not carry a name).
  if (!onClick) element.setAttribute("role", "img");
  if (onClick) {
    element.type = "button";
    element.setAttribute("aria-pressed", "false");
    element.addEventListener("click", onClick);
  }
  if (isJoker(code)) {
    element.classList.add("joker", code.startsWith("B") ? "big" : "little");
    element.append(JOKERS[code]);
    if (code.endsWith("*")) {
      element.classList.add("marked");
      const mark = document.createElement("span");
      mark.className = "mark";
      mark.textContent = "★";
      element.append(mark);
    }
  } else {
    const suit = code[1];
    element.classList.add(suit === "H" || suit === "D" ? "red" : "black", `suit-${suit}`);
    element.append(RANK_LABEL[code[0]] || code[0]);
  }
  if (called && code === called) {
    // The called guard card (特王 in campus): worth more than its face while the deal lasts.
    element.classList.add("called");
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.textContent = "特";
    element.append(mark);
  }
  return element;
}

export function cardRow(codes, options = {}) {
  const row = document.createElement("span");
  row.className = "card-row";
  for (const code of codes) row.append(card(code, { small: true, ...options }));
  return row;
}

// What makes two cards interchangeable in a play (docs/engine.md "Listing"): a suited card's rank,
// unless it is the called card; a joker (marked or not) is itself.
export function playKey(codes, called) {
  return codes
    .map((code) => (isJoker(code) || code === called ? code : code[0]))
    .sort()
    .join(",");
}

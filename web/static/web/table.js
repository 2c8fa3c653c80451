// The table (docs/client-guide.md §3, §4, §8). The view from GET games/{id} once; then the deal's log,
// followed as Server-Sent Events, is applied to it event by event (a play, a pass, a seat out, 托管,
// a revealed guard…), and the feed's `your_turn` entry brings this seat's legal actions. The view is
// read again only when the log says something this client does not model (emperor selection,
// windows, tribute: a few times a deal), on a gap in the log, or when the server refuses an action.
import { ApiError, auth, follow, get, post } from "./api.js";
import { card, cardLabel, cardRow, playKey } from "./cards.js";
import { T, actionName, el, fail, phaseName, presetName, roleName, say } from "./ui.js";

const ENDS = { deal_over: "over", void: "void", aborted: "aborted" };
// Events that only concern one seat's knowledge and change nothing drawn.
const QUIET = new Set(["timeout", "answer", "answered"]);

// Whose turn it is after a play or a pass in a trick (games/engine/tricks.py `_advance`): the next
// seat still holding cards; a trick that comes back to its owner is his to lead again; when the owner
// is out and every other holder passed, the next holder after him leads (接风).
export function playTurn(view, actor) {
  const table = view.table;
  if (!table) return;
  const holding = (seat) => view.places[seat] === null || view.places[seat] === undefined;
  const after = (seat) => {
    for (let step = 1; step <= 5; step += 1) if (holding((seat + step) % 5)) return (seat + step) % 5;
    return seat;
  };
  let leader = null;
  if (holding(table.seat)) {
    const following = after(actor);
    if (following === table.seat) leader = table.seat;
    else view.turn = following;
  } else if ([0, 1, 2, 3, 4].filter(holding).every((seat) => view.passed.includes(seat))) {
    leader = after(table.seat);
  } else {
    view.turn = after(actor);
  }
  if (leader !== null) {
    view.table = null;
    view.passed = [];
    view.turn = leader;
  }
  view.to_act = [view.turn];
}

// Apply one event of the log to `view` (the seat's or the public view, changed in place). Answers
// false when the event is one this client does not model: the caller reads the view instead.
export function applyEvent(view, type, data) {
  const me = Number.isInteger(view.seat) ? view.seat : null;
  if (type in ENDS) {
    view.status = ENDS[type];
    view.to_act = [];
    view.legal_actions = [];
    return true;
  }
  if (QUIET.has(type)) {
    if (data.seat === me) view.legal_actions = [];
    return true;
  }
  if (type === "trustee") {
    view.trustee[data.seat] = data.on;
    if (data.on && data.seat === me) view.legal_actions = [];
    return true;
  }
  if (type === "out") {
    view.places[data.seat] = data.place;
    return true;
  }
  if (type === "guard_revealed" || type === "solo_revealed") {
    // The teams are public from here (docs/rules.md §1 "Visibility").
    const role = type === "guard_revealed" ? "guard" : "soloist";
    view.roles = view.roles.map((known, seat) => (seat === data.seat ? role : seat === view.emperor ? known : "commoner"));
    if (type === "solo_revealed") view.solo = "hidden";
    return true;
  }
  if (type === "play_started") {
    Object.assign(view, { phase: "play", window: null, table: null, passed: [], turn: data.leader, to_act: [data.leader] });
    return true;
  }
  if (view.phase !== "play") return false;
  if (type === "play") {
    const count = view.counts[data.seat];
    if (typeof count !== "number") return false; // a hidden count (">10", laowang): only the view knows it
    if (data.seat === me) {
      const hand = [...view.hand];
      for (const code of data.cards) {
        const index = hand.indexOf(code);
        if (index < 0) return false;
        hand.splice(index, 1);
      }
      view.hand = hand;
    }
    view.counts[data.seat] = count - data.cards.length;
    view.table = { seat: data.seat, cards: data.cards, bomb: !!data.bomb };
    view.passed = [];
    playTurn(view, data.seat);
    return true;
  }
  if (type === "pass") {
    if (!view.table) return false;
    view.passed = [...view.passed, data.seat];
    playTurn(view, data.seat);
    return true;
  }
  return false;
}

export function tablePage(root, gameId, go) {
  const stop = new AbortController();
  const s = { view: null, table: null, seq: 0, selected: new Set(), marks: [], next: null, closed: false };
  // What the hand and the buttons were last drawn from: most events change neither (another seat
  // played), so they are drawn again only when these change (docs/web-client.md "Tests and budgets").
  // The view replaces its hand and legal actions when they change, never edits them: a draw whose
  // arrays are the last draw's compares nothing more.
  const handFrom = { hand: null, legal: null, called: null };
  let handDrawn = null;
  let actionsDrawn = null;
  let wasAsked = false;
  const queue = [];
  let pumping = false;

  const header = el("div", { class: "table-head", id: "table-head" });
  const banner = el("div", { class: "banner", id: "banner", hidden: true });
  const grid = el("div", { class: "table-grid", id: "seats" });
  const hand = el("div", { class: "hand", id: "hand", role: "group", "aria-label": T.your_hand });
  const actions = el("div", { class: "actions", id: "actions", role: "group", "aria-label": T.actions });
  const end = el("section", { class: "panel final", id: "final", hidden: true });
  root.append(header, banner, grid, actions, hand, end);

  if (!auth.token) {
    go("/");
    return () => stop.abort();
  }

  const mySeat = () => (s.view && Number.isInteger(s.view.seat) ? s.view.seat : null);
  const seconds = (phase) => {
    const settings = s.table && s.table.settings;
    if (!settings) return null;
    return phase === "play" ? settings.play_seconds : settings.prompt_seconds;
  };

  // Marks beside the seats: the plays and passes of the trick on the table, as the view has it.
  function marksFromView() {
    s.marks = [];
    if (s.view.table) s.marks[s.view.table.seat] = s.view.table.cards;
    for (const seat of s.view.passed || []) s.marks[seat] = "pass";
  }

  function adopt(view, seq) {
    // A spectator's public view has no seat, hand or legal actions.
    s.view = { hand: [], legal_actions: [], ...view };
    s.seq = Math.max(s.seq, seq);
    marksFromView();
  }

  // Read the view, and the log's position that goes with it: the two reads agree when the log's
  // version is the view's (a play always raises the version; what may come between the two reads
  // without one, 托管 on or off, is applied the same way twice).
  async function resync() {
    let view = await get(`games/${gameId}`);
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const page = await get(`games/${gameId}/events?after=${s.seq}`);
      if (page.version === view.version) {
        adopt(view, page.last_seq);
        return;
      }
      view = await get(`games/${gameId}`);
    }
    // The deal moves faster than two reads: take the view and read it again at the next event.
    adopt(view, s.seq);
    s.stale = true;
  }

  function onGameEvent(type, data, seq) {
    queue.push({ type, data, seq });
    pump();
    return type in ENDS;
  }

  async function pump() {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length && !stop.signal.aborted) {
        const { type, data, seq } = queue.shift();
        if (seq <= s.seq) continue; // the view read already holds it
        // The play phase writes no private event, so a jump in seq there is a missed event.
        const gap = s.view.phase === "play" && seq !== s.seq + 1;
        const before = s.view.table;
        if (s.stale || gap || !applyEvent(s.view, type, data)) {
          s.stale = false;
          await resync();
          continue;
        }
        s.seq = seq;
        if (type === "play") s.marks[data.seat] = data.cards;
        else if (type === "pass") s.marks[data.seat] = "pass";
        if (type === "play_started" || (before && !s.view.table)) s.marks = []; // a new trick
        if (type === "play" || type === "pass" || type === "play_started") {
          const limit = seconds("play");
          if (limit) s.view.deadline = new Date(Date.now() + limit * 1000).toISOString();
        }
      }
      if (s.view) draw();
    } catch (error) {
      fail(error);
    } finally {
      pumping = false;
    }
    if (queue.length && !stop.signal.aborted) pump();
  }

  async function reread() {
    queue.length = 0;
    await resync();
    draw();
  }

  // The header is built again only when what it shows changed.
  const drawn = new Map();
  function patch(parent, slot, what, build) {
    const key = JSON.stringify(what);
    const old = drawn.get(slot);
    if (old && old.key === key) return;
    // A part with nothing to show keeps its place in the parent as an empty comment.
    const node = build() || document.createComment(slot);
    if (old) old.node.replaceWith(node); else parent.append(node);
    drawn.set(slot, { key, node });
  }

  // A seat's box and its lines are built once: an event changes a seat's count, its last play and
  // whose countdown runs, and the page rewrites those few nodes only, compared as strings (the
  // browser's work per event: bench/web_client.py's CPU per received event). The countdown's line
  // is always there, empty when it is not the seat's turn, so a turn that moves changes no box's size.
  const seats = [];
  function drawSeat(seat) {
    const v = s.view;
    const me = mySeat();
    let p = seats[seat];
    if (!p) {
      p = {
        box: el("div", { "data-seat": seat }),
        name: el("div", { class: "seat-name" }),
        count: document.createTextNode(""),
        facts: el("div", { class: "seat-facts" }),
        last: el("div", { class: "seat-last" }),
        clock: el("div", { class: "deadline" }),
        shown: {},
      };
      p.facts.append(el("span", { class: "count" }, p.count));
      p.box.append(p.name, p.facts, p.last, p.clock);
      seats[seat] = p;
      grid.append(p.box);
    }
    const shown = p.shown;
    const position = (seat - (me === null ? 0 : me) + 5) % 5;
    const asked = (v.to_act || []).includes(seat) || !!(v.window && v.window.asked.includes(seat));
    const className = `seat pos-${position}${asked ? " turn" : ""}${seat === me ? " mine" : ""}`;
    if (p.box.className !== className) p.box.className = className;
    const info = s.table && s.table.seats[seat].user;
    const bot = !!(info && info.is_bot);
    const name = v.players[seat] || "—";
    if (shown.name !== name || shown.bot !== bot) {
      Object.assign(shown, { name, bot });
      p.name.title = name;
      p.name.replaceChildren(el("span", { class: "name-text" }, name), ...(bot ? [el("span", { class: "badge" }, T.bot)] : []));
    }
    const count = `${v.counts[seat]} ${T.cards}`;
    if (p.count.data !== count) p.count.data = count;
    const badges = `${v.roles[seat] || ""} ${!!v.trustee[seat]} ${v.places[seat] || ""}`;
    if (shown.badges !== badges) {
      shown.badges = badges;
      while (p.facts.childNodes.length > 1) p.facts.lastChild.remove();
      const role = v.roles[seat];
      p.facts.append(...[
        role ? el("span", { class: `badge role role-${role}` }, roleName(role)) : null,
        v.trustee[seat] ? el("span", { class: "badge trustee" }, T.trustee) : null,
        v.places[seat] ? el("span", { class: "badge" }, placeName(v.places[seat])) : null,
      ].filter(Boolean));
    }
    const mark = s.marks[seat];
    const markKey = Array.isArray(mark) ? mark.join(" ") : mark || "";
    if (shown.mark !== markKey) {
      shown.mark = markKey;
      p.last.replaceChildren(
        ...(mark === "pass" ? [el("span", { class: "passed" }, actionName("pass"))] : mark ? [cardRow(mark)] : []));
    }
    const deadline = (asked && v.deadline) || null;
    if (shown.deadline !== deadline) {
      shown.deadline = deadline;
      setClock(p.clock, deadline, T.deadline);
    }
  }

  // The centre's box is built once, after the seats (it is read after them), and its lines again
  // when what they show changed: the box keeps its fixed size, so a new trick lays out and repaints
  // that box alone, never the grid around it (a new grid item would lay out the table).
  const center = el("div", { class: "center", id: "center" });
  let centerDrawn = null;
  function drawCenter() {
    const v = s.view;
    const owner = v.table ? v.players[v.table.seat] || `#${v.table.seat}` : null;
    const key = JSON.stringify([owner, v.table, v.called_card]);
    if (key === centerDrawn) return;
    centerDrawn = key;
    if (!center.isConnected) grid.append(center);
    center.replaceChildren(
      el("div", { class: "label" }, owner ? `${T.table_label}: ${owner}` : T.table_label),
      v.table ? cardRow(v.table.cards) : el("span", { class: "empty" }, T.nothing),
      ...(v.called_card ? [el("div", { class: "called-note" }, actionName("call"), " ", cardRow([v.called_card]))] : []));
  }

  // The countdowns: a seat's while it is asked, and the next deal's. The text is the seconds left,
  // rounded up (a turn starts at its full count, and 0 is the deadline). One timer, set for when the
  // next number is due, and a second later the first time a countdown starts: a turn that ends within
  // a second or two (most turns in a deal) costs no timer and no frame, and a longer one costs one
  // text change a second (as a clock ticking every second showed it, up to a second late).
  const clocks = new Set();
  let clockTimer = 0;
  function countdown(deadline, unit) {
    const left = Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
    return `${left} ${unit}`;
  }

  function setClock(node, deadline, unit) {
    if (deadline) {
      node.dataset.deadline = deadline;
      node.dataset.unit = unit;
      node.textContent = countdown(deadline, unit);
      clocks.add(node);
      armClock(1000);
    } else {
      delete node.dataset.deadline;
      node.textContent = "";
      clocks.delete(node);
    }
  }

  function armClock(later) {
    clearTimeout(clockTimer);
    const now = Date.now();
    let due = Infinity;
    for (const node of clocks) {
      const left = Date.parse(node.dataset.deadline) - now;
      if (left > 0) due = Math.min(due, left % 1000 || 1000);
    }
    if (due < Infinity) clockTimer = setTimeout(tick, due + later + 5);
  }

  function tick() {
    for (const node of clocks) {
      if (!node.isConnected) {
        clocks.delete(node);
        continue;
      }
      const text = countdown(node.dataset.deadline, node.dataset.unit);
      if (node.textContent !== text) node.textContent = text;
    }
    armClock(0);
  }

  function chosen() {
    return [...s.selected].sort((a, b) => a - b).map((i) => s.view.hand[i]);
  }

  function matchingPlay() {
    const plays = s.view.legal_actions.filter((a) => a.type === "play");
    const key = playKey(chosen(), s.view.called_card);
    return plays.find((a) => playKey(a.cards, s.view.called_card) === key) || null;
  }

  async function act(action) {
    const version = s.view.version;
    try {
      say("");
      const answer = await post(`games/${gameId}/actions`, { ...action, expected_version: version });
      // The log brings what the action changed; a `your_turn` that came meanwhile is newer.
      if (s.view.version === version) s.view.legal_actions = [];
      s.view.version = Math.max(s.view.version, answer.version);
      s.selected.clear();
      draw();
    } catch (error) {
      fail(error);
      if (error instanceof ApiError && error.status === 409) await reread().catch(fail);
    }
  }

  function select(indexes) {
    s.selected = new Set(indexes);
    for (const button of hand.querySelectorAll(".card")) {
      const on = s.selected.has(Number(button.dataset.index));
      button.classList.toggle("selected", on);
      button.setAttribute("aria-pressed", String(on));
    }
    drawActions();
  }

  function drawHand() {
    const v = s.view;
    hand.replaceChildren();
    const plays = v.legal_actions.filter((a) => a.type === "play").map((a) => a.cards);
    hand.dataset.plays = JSON.stringify(plays);
    v.hand.forEach((code, index) => {
      const button = card(code, {
        called: v.called_card,
        onClick: () => {
          if (dragged) {
            dragged = false;
            return;
          }
          const next = new Set(s.selected);
          if (next.has(index)) next.delete(index); else next.add(index);
          select(next);
        },
      });
      // A double click (a double tap) takes every card of that rank.
      button.addEventListener("dblclick", () => {
        const key = playKey([code], v.called_card);
        select([...s.selected, ...v.hand.flatMap((held, i) => (playKey([held], v.called_card) === key ? [i] : []))]);
      });
      button.dataset.index = index;
      // One tab stop for the whole hand; the arrows move between its cards (WAI-ARIA roving tabindex).
      button.tabIndex = index === 0 ? 0 : -1;
      if (s.selected.has(index)) {
        button.classList.add("selected");
        button.setAttribute("aria-pressed", "true");
      }
      hand.append(button);
    });
  }

  // Dragging across the hand selects (or unselects, from a selected card) every card it passes over.
  let drag = null;
  let dragged = false;
  hand.addEventListener("pointerdown", (event) => {
    const start = event.target.closest(".card");
    dragged = false;
    drag = start ? { start, on: !s.selected.has(Number(start.dataset.index)), moved: false } : null;
  });
  hand.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const over = document.elementFromPoint(event.clientX, event.clientY)?.closest("#hand .card");
    if (!over || (over === drag.start && !drag.moved)) return;
    const next = new Set(s.selected);
    for (const node of drag.moved ? [over] : [drag.start, over]) {
      if (drag.on) next.add(Number(node.dataset.index)); else next.delete(Number(node.dataset.index));
    }
    drag.moved = true;
    select(next);
  });
  document.addEventListener("pointerup", () => {
    dragged = !!(drag && drag.moved);
    drag = null;
  }, { signal: stop.signal });

  hand.addEventListener("keydown", (event) => {
    const cards = [...hand.querySelectorAll(".card")];
    const at = cards.indexOf(document.activeElement);
    if (at < 0) return;
    let to = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") to = Math.min(cards.length - 1, at + 1);
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") to = Math.max(0, at - 1);
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = cards.length - 1;
    if (to === null) return;
    event.preventDefault();
    cards[at].tabIndex = -1;
    cards[to].tabIndex = 0;
    cards[to].focus();
  });

  async function hint() {
    try {
      const action = await get(`games/${gameId}/hint`);
      if (action.type !== "play") {
        // A pass, or a window's answer: point at its button.
        select([]);
        const button = actions.querySelector(`[data-action=${action.type}]`);
        if (button) button.focus();
        say(`${T.hint}: ${actionName(action.type)}${action.card ? ` ${cardLabel(action.card)}` : ""}`);
        return;
      }
      const used = new Set();
      for (const code of action.cards) {
        const index = s.view.hand.findIndex((held, i) => !used.has(i) && held === code);
        used.add(index);
      }
      select(used);
      say(`${T.hint}: ${action.cards.map(cardLabel).join(" ")}`);
    } catch (error) {
      fail(error);
    }
  }

  let passArmed = 0;
  function passByKey() {
    // `p` asks first: a second `p` within three seconds passes (docs/web-client.md "Keyboard").
    const button = actions.querySelector("[data-action=pass]");
    if (!button) return;
    if (Date.now() - passArmed < 3000) {
      passArmed = 0;
      button.click();
    } else {
      passArmed = Date.now();
      say(T.pass_confirm);
    }
  }

  function drawActions() {
    const v = s.view;
    actions.replaceChildren();
    const me = mySeat();
    if (me === null) {
      actions.append(el("p", { class: "note" }, T.spectating));
      return;
    }
    const legal = v.legal_actions;
    if (legal.some((a) => a.type === "play")) {
      const play = matchingPlay();
      actions.append(
        el("button", { type: "button", class: "primary", id: "play", disabled: !play, onclick: () => play && act(play) },
          T.play),
        el("button", { type: "button", id: "hint", "aria-keyshortcuts": "h", onclick: hint }, T.hint),
        el("button", { type: "button", id: "clear", "aria-keyshortcuts": "Escape", onclick: () => select([]) },
          T.clear));
    } else if (legal.length > 1) {
      actions.append(el("button", { type: "button", id: "hint", "aria-keyshortcuts": "h", onclick: hint }, T.hint));
    }
    for (const action of legal) {
      if (action.type === "play") continue;
      actions.append(el("button", {
        type: "button", class: "action", "data-action": action.type, "data-card": action.card || null,
        "aria-keyshortcuts": action.type === "pass" ? "p" : null,
        onclick: () => act(action),
      }, actionName(action.type), action.card ? ` ${cardLabel(action.card)}` : ""));
    }
  }

  function drawBanner() {
    // 托管: the server plays this seat until its player takes it back (docs/client-guide.md §8).
    const me = mySeat();
    const on = me !== null && s.view.trustee[me] && s.view.status === "running";
    banner.hidden = !on;
    if (!on) {
      banner.replaceChildren();
      return;
    }
    if (banner.childElementCount) return;
    banner.append(el("span", {}, T.trustee_banner), el("button", {
      type: "button", class: "primary", id: "trustee-back",
      onclick: async () => {
        try {
          await post(`games/${gameId}/trustee`, { on: false });
          await reread();
        } catch (error) {
          fail(error);
        }
      },
    }, T.trustee_back));
  }

  function draw() {
    const v = s.view;
    const me = mySeat();
    const asked = me !== null && v.legal_actions.length > 0;
    patch(header, "head", [v.preset, v.table_id, v.number, v.phase, v.multiplier, asked], () =>
      el("span", { class: "head-line" },
        el("a", { href: "/", "data-route": true }, T.home),
        el("span", {}, ` ${presetName(v.preset)} · #${v.table_id}/${v.number + 1} · `),
        el("span", { class: "phase", id: "phase" }, phaseName(v.phase)),
        v.multiplier > 1 ? el("span", { class: "badge" }, `×${v.multiplier}`) : null,
        el("strong", { class: "turn-note", id: "turn-note" }, asked ? ` ${T.your_turn}` : "")));
    for (const seat of [0, 1, 2, 3, 4]) drawSeat(seat);
    drawCenter();
    const title = `${asked ? "● " : ""}${T.title}`;
    if (document.title !== title) document.title = title;
    if (asked && !wasAsked) say(T.your_turn);
    wasAsked = asked;
    drawBanner();
    if (v.status !== "running") {
      if (!s.finalShown) {
        s.finalShown = true;
        showFinal();
      }
      return;
    }
    if (handFrom.hand === v.hand && handFrom.legal === v.legal_actions && handFrom.called === v.called_card) return;
    Object.assign(handFrom, { hand: v.hand, legal: v.legal_actions, called: v.called_card });
    const handKey = JSON.stringify([v.hand, v.legal_actions, v.called_card]);
    if (handKey !== handDrawn) {
      handDrawn = handKey;
      drawHand();
    }
    const actionsKey = JSON.stringify(v.legal_actions);
    if (actionsKey !== actionsDrawn) {
      actionsDrawn = actionsKey;
      drawActions();
    }
  }

  function placeName(place) {
    return T[`place_${place}`] || String(place);
  }

  async function showFinal() {
    const v = s.view;
    end.hidden = false;
    hand.replaceChildren();
    actions.replaceChildren();
    const title = v.status === "void" ? T.void : v.status === "aborted" ? T.aborted : T.final;
    end.replaceChildren(el("h2", { id: "final-title" }, title));
    say(title);
    try {
      const final = await get(`games/${gameId}/final`);
      const table = await get(`tables/${v.table_id}`).catch(() => s.table);
      const totals = (table && table.scores) || [];
      const rows = final.hands.map((cards, seat) => el("tr", {},
        el("th", { scope: "row" }, final.players[seat] || `#${seat}`),
        el("td", {}, roleName(final.roles[seat]), final.places[seat] ? ` · ${placeName(final.places[seat])}` : ""),
        el("td", { class: "score" }, String(final.scores[seat])),
        el("td", { class: "score" }, totals.length ? String(totals[seat]) : ""),
        el("td", { class: "dealt" }, cardRow(cards))));
      end.append(
        el("table", { class: "scores", id: "scores" },
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, T.player), el("th", { scope: "col" }, T.role),
            el("th", { scope: "col" }, T.scores), el("th", { scope: "col" }, T.totals),
            el("th", { scope: "col", class: "dealt" }, T.hands_dealt))),
          el("tbody", {}, rows)),
        el("p", { class: "note", id: "score-note" }, T.score_note, final.multiplier > 1 ? ` ×${final.multiplier}` : ""),
        el("p", {}, el("a", { href: `/replay/${gameId}`, "data-route": true, class: "button", id: "replay-link" },
          T.replay)),
        mySeat() === null ? null : reportForm(final, table));
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "game_not_over")) fail(error);
    }
    const next = el("div", { class: "next", id: "next" });
    end.append(next);
    watchNext(next);
  }

  function reportForm(final, table) {
    // A report to the moderators (POST reports, docs/moderation.md): a seat of this deal, a reason, a
    // few words.
    const seats = ((table && table.seats) || []).filter((seat) => seat.user && seat.seat !== mySeat());
    if (!seats.length) return null;
    const who = el("select", { id: "report-user" },
      seats.map((seat) => el("option", { value: seat.user.id }, final.players[seat.seat] || seat.user.username)));
    const reason = el("select", { id: "report-reason" },
      ["cheating", "collusion", "abuse", "stalling", "other"].map((r) => el("option", { value: r }, T[`report_${r}`])));
    const text = el("input", { id: "report-text", maxlength: "2000" });
    const form = el("form", {
      class: "report", id: "report",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await post("reports", { user: Number(who.value), game: gameId, reason: reason.value, text: text.value });
          form.replaceChildren(el("p", {}, T.report_sent));
          say(T.report_sent);
        } catch (error) {
          fail(error);
        }
      },
    }, el("details", {}, el("summary", {}, T.report),
      el("label", { for: "report-user" }, T.player), who,
      el("label", { for: "report-reason" }, T.report_reason), reason,
      el("label", { for: "report-text" }, T.report_text), text,
      el("button", { type: "submit", id: "report-send" }, T.report_send)));
    return form;
  }

  function showNext(box, table) {
    // The next deal, once it is dealt; its start time when the table announces one (`next_deal_at`).
    // The table is read every few seconds: the box is built again only when what it says changed.
    const at = (table && table.next_deal_at) || s.view.next_deal_at;
    const key = JSON.stringify([s.next, s.closed, s.closed && table && table.closed_reason, at]);
    if (box.dataset.shown === key) return;
    box.dataset.shown = key;
    box.replaceChildren();
    if (s.next) {
      box.append(el("button", { type: "button", class: "primary", id: "next-deal", onclick: () => go(`/play/${s.next}`) },
        T.next_deal));
    } else if (s.closed) {
      const reason = table && table.closed_reason;
      box.append(el("p", { id: "table-closed" }, T.table_closed, reason ? ` ${T[`closed_${reason}`] || reason}` : ""),
        el("a", { href: "/", "data-route": true, class: "button primary", id: "go-home" }, T.home));
    } else {
      const clock = el("span", { class: "deadline" });
      box.append(el("p", { id: "next-wait" }, T.waiting_deal, " ", at ? clock : null));
      if (at) setClock(clock, at, T.seconds);
    }
  }

  async function watchNext(box) {
    // The next deal's id comes on the feed (deal_started); the table says when it closed and why.
    let table = null;
    while (!s.next && !s.closed && !stop.signal.aborted) {
      try {
        table = await get(`tables/${s.view.table_id}`);
        if (table.current_game && table.current_game !== gameId) s.next = table.current_game;
        else if (table.status === "finished" || table.status === "dissolved") s.closed = true;
      } catch (error) {
        fail(error);
        return;
      }
      showNext(box, table);
      if (!s.next && !s.closed) await new Promise((resolve) => setTimeout(resolve, 3000));
    }
    showNext(box, table);
  }

  function onFeed(type, data) {
    if (type === "deal_started" && s.view && data.table === s.view.table_id && data.game !== gameId) {
      s.next = data.game;
      const box = document.getElementById("next");
      if (box) showNext(box, null);
    } else if (type === "your_turn" && data.game === gameId && s.view && data.version >= s.view.version) {
      Object.assign(s.view, { version: data.version, deadline: data.deadline, legal_actions: data.legal_actions });
      if (s.view.phase === "play") {
        s.view.turn = mySeat();
        s.view.to_act = [mySeat()];
      }
      draw();
    }
    return false;
  }

  const trouble = () => say(T.connection_lost, "error");
  (async () => {
    try {
      await resync();
      s.table = await get(`tables/${s.view.table_id}`);
      draw();
      if (s.view.status !== "running") return;
      if (mySeat() !== null) {
        const feed = await get("me/events?after=0");
        follow("me/events", { after: feed.last_seq, signal: stop.signal, onEvent: onFeed, onTrouble: trouble })
          .catch(fail);
      }
      follow(`games/${gameId}/events`, { after: s.seq, signal: stop.signal, onEvent: onGameEvent, onTrouble: trouble })
        .catch(fail);
    } catch (error) {
      fail(error);
    }
  })();
  const keys = (event) => {
    const target = event.target;
    if (target.tagName === "INPUT" || target.tagName === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) return;
    // Enter on a focused button is that button's own (a card toggles, an answer answers): it plays
    // only from elsewhere on the page.
    if (event.key === "Enter" && target.tagName !== "BUTTON" && target.tagName !== "A") {
      document.getElementById("play")?.click();
    } else if (event.key === "p") passByKey();
    else if (event.key === "h") document.getElementById("hint")?.click();
    else if (event.key === "Escape") document.getElementById("clear")?.click();
  };
  document.addEventListener("keydown", keys);
  return () => {
    stop.abort();
    clearTimeout(clockTimer);
    document.removeEventListener("keydown", keys);
  };
}

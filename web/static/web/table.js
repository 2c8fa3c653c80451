// The table (docs/client-guide.md §3, §4, §8): your view from GET games/{id}, redrawn when the deal's
// log (followed as Server-Sent Events) says something happened; your actions are exactly the view's
// `legal_actions`; the final view at the end; the next deal from your feed (me/events).
import { ApiError, auth, follow, get, post } from "./api.js";
import { card, cardLabel, cardRow, playKey } from "./cards.js";
import { T, actionName, el, fail, phaseName, presetName, roleName, say } from "./ui.js";

const ENDS = new Set(["deal_over", "void", "aborted"]);

export function tablePage(root, gameId, go) {
  const stop = new AbortController();
  const s = { view: null, table: null, selected: new Set(), last: [null, null, null, null, null], next: null };
  let refreshing = null;
  let again = false;
  // What the hand and the buttons were last drawn from: most events change neither (another seat
  // played), so they are drawn again only when these change (docs/web-client.md "Tests and budgets").
  let handDrawn = null;
  let actionsDrawn = null;

  const header = el("div", { class: "table-head", id: "table-head" });
  const grid = el("div", { class: "table-grid", id: "seats" });
  const hand = el("div", { class: "hand", id: "hand", role: "group", "aria-label": T.your_hand });
  const actions = el("div", { class: "actions", id: "actions" });
  const end = el("section", { class: "panel final", id: "final", hidden: true });
  root.append(header, grid, hand, actions, end);

  if (!auth.token) {
    go("/");
    return () => stop.abort();
  }

  const mySeat = () => (s.view && Number.isInteger(s.view.seat) ? s.view.seat : null);

  function refresh() {
    // One read at a time; events that arrive meanwhile ask for one more read, not one each.
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        again = false;
        try {
          s.view = await get(`games/${gameId}`);
          draw();
        } catch (error) {
          fail(error);
        }
      } while (again && !stop.signal.aborted);
      refreshing = null;
      if (s.view && s.view.status !== "running" && !s.finalShown) {
        s.finalShown = true;
        showFinal();
      }
    })();
    return refreshing;
  }

  function seatBox(seat) {
    const v = s.view;
    const me = mySeat();
    const position = (seat - (me === null ? 0 : me) + 5) % 5;
    const asked = (v.to_act || []).includes(seat) || (v.window && v.window.asked.includes(seat));
    const info = s.table && s.table.seats[seat].user;
    const last = s.last[seat];
    return el("div", {
      class: `seat pos-${position}${asked ? " turn" : ""}${seat === me ? " mine" : ""}`,
      "data-seat": seat,
    },
    el("div", { class: "seat-name" }, v.players[seat] || "—",
      info && info.is_bot ? el("span", { class: "badge" }, T.bot) : null),
    el("div", { class: "seat-facts" },
      el("span", { class: "count" }, `${v.counts[seat]} ${T.cards}`),
      v.roles[seat] ? el("span", { class: `badge role role-${v.roles[seat]}` }, roleName(v.roles[seat])) : null,
      v.trustee[seat] ? el("span", { class: "badge trustee" }, T.trustee) : null,
      v.places[seat] ? el("span", { class: "badge" }, `${v.places[seat]} ${T.place}`) : null),
    el("div", { class: "seat-last" },
      last === "pass" ? el("span", { class: "passed" }, actionName("pass")) : last ? cardRow(last) : null),
    asked && v.deadline ? el("div", { class: "deadline", "data-deadline": v.deadline }) : null);
  }

  function tick() {
    for (const node of grid.querySelectorAll("[data-deadline]")) {
      const left = Math.max(0, Math.round((Date.parse(node.dataset.deadline) - Date.now()) / 1000));
      node.textContent = `${left} ${T.deadline}`;
    }
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
    try {
      say("");
      s.view = await post(`games/${gameId}/actions`, { ...action, expected_version: s.view.version });
      s.selected.clear();
      handDrawn = null;
      actionsDrawn = null;
      draw();
    } catch (error) {
      if (error instanceof ApiError && error.code === "stale_version") refresh();
      fail(error);
    }
  }

  function drawHand() {
    const v = s.view;
    hand.replaceChildren();
    const plays = v.legal_actions.filter((a) => a.type === "play").map((a) => a.cards);
    hand.dataset.plays = JSON.stringify(plays);
    (v.hand || []).forEach((code, index) => {
      const button = card(code, {
        called: v.called_card,
        onClick: () => {
          if (s.selected.has(index)) s.selected.delete(index); else s.selected.add(index);
          button.classList.toggle("selected", s.selected.has(index));
          button.setAttribute("aria-pressed", String(s.selected.has(index)));
          drawActions();
        },
      });
      if (s.selected.has(index)) {
        button.classList.add("selected");
        button.setAttribute("aria-pressed", "true");
      }
      hand.append(button);
    });
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
        el("button", {
          type: "button", id: "hint",
          onclick: () => {
            const first = legal.find((a) => a.type === "play");
            s.selected.clear();
            const used = new Set();
            const want = playKey(first.cards, v.called_card).split(",");
            for (const need of want) {
              const index = v.hand.findIndex((code, i) => !used.has(i) && playKey([code], v.called_card) === need);
              used.add(index);
              s.selected.add(index);
            }
            drawHand();
            drawActions();
          },
        }, T.hint),
        el("button", { type: "button", id: "clear", onclick: () => { s.selected.clear(); drawHand(); drawActions(); } },
          T.clear));
    }
    for (const action of legal) {
      if (action.type === "play") continue;
      actions.append(el("button", {
        type: "button", class: "action", "data-action": action.type, "data-card": action.card || null,
        onclick: () => act(action),
      }, actionName(action.type), action.card ? ` ${cardLabel(action.card)}` : ""));
    }
    if (v.trustee[me]) {
      actions.append(el("button", {
        type: "button", id: "trustee-back",
        onclick: async () => {
          try {
            await post(`games/${gameId}/trustee`, { on: false });
            refresh();
          } catch (error) {
            fail(error);
          }
        },
      }, T.trustee_back));
    }
  }

  function draw() {
    const v = s.view;
    const me = mySeat();
    const asked = me !== null && v.legal_actions.length > 0;
    header.replaceChildren(el("span", { class: "head-line" },
      el("a", { href: "/", "data-route": true }, T.home),
      el("span", {}, ` ${presetName(v.preset)} · #${v.table_id}/${v.number + 1} · `),
      el("span", { class: "phase", id: "phase" }, phaseName(v.phase)),
      v.multiplier > 1 ? el("span", { class: "badge" }, `×${v.multiplier}`) : null,
      el("strong", { class: "turn-note", id: "turn-note" }, asked ? ` ${T.your_turn}` : "")));
    const middle = el("div", { class: "center", id: "center" },
      el("div", { class: "label" }, T.table_label),
      v.table ? cardRow(v.table.cards) : el("span", { class: "note" }, T.nothing),
      v.called_card ? el("div", { class: "note" }, actionName("call"), " ", cardRow([v.called_card])) : null);
    grid.replaceChildren(...[0, 1, 2, 3, 4].map(seatBox), middle);
    document.title = `${asked ? "● " : ""}${T.title}`;
    const handKey = JSON.stringify([v.hand, v.legal_actions, v.called_card]);
    if (handKey !== handDrawn) {
      handDrawn = handKey;
      drawHand();
    }
    const actionsKey = JSON.stringify([v.legal_actions, me === null ? null : v.trustee[me]]);
    if (actionsKey !== actionsDrawn) {
      actionsDrawn = actionsKey;
      drawActions();
    }
    tick();
  }

  async function showFinal() {
    const v = s.view;
    end.hidden = false;
    hand.replaceChildren();
    actions.replaceChildren();
    const title = v.status === "void" ? T.void : v.status === "aborted" ? T.aborted : T.final;
    end.replaceChildren(el("h2", { id: "final-title" }, title));
    try {
      const final = await get(`games/${gameId}/final`);
      const rows = final.hands.map((cards, seat) => el("tr", {},
        el("th", {}, final.players[seat] || `#${seat}`),
        el("td", {}, roleName(final.roles[seat])),
        el("td", { class: "score" }, String(final.scores[seat])),
        el("td", {}, cardRow(cards))));
      end.append(
        el("table", { class: "scores", id: "scores" },
          el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, ""), el("th", {}, T.scores),
            el("th", {}, T.hands_dealt))),
          el("tbody", {}, rows)),
        el("p", {}, el("a", { href: `/replay/${gameId}`, "data-route": true, class: "button", id: "replay-link" },
          T.replay)));
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "game_not_over")) fail(error);
    }
    const next = el("button", { type: "button", class: "primary", id: "next-deal", disabled: !s.next,
      onclick: () => s.next && go(`/play/${s.next}`) }, s.next ? T.next_deal : T.waiting_deal);
    end.append(next);
    watchNext(next);
  }

  async function watchNext(button) {
    // The next deal's id comes on the feed (deal_started); a spectator asks the table now and then.
    while (!s.next && !stop.signal.aborted) {
      try {
        const table = await get(`tables/${s.view.table_id}`);
        if (table.current_game && table.current_game !== gameId) s.next = table.current_game;
        else if (table.status === "finished" || table.status === "dissolved") return;
      } catch (error) {
        return fail(error);
      }
      if (!s.next) await new Promise((resolve) => setTimeout(resolve, 3000));
    }
    if (s.next) {
      button.disabled = false;
      button.textContent = T.next_deal;
    }
  }

  function onGameEvent(type, data) {
    if (type === "play") s.last[data.seat] = data.cards;
    else if (type === "pass") s.last[data.seat] = "pass";
    else if (type === "play_started") s.last = [null, null, null, null, null];
    refresh();
    return ENDS.has(type);
  }

  function onFeed(type, data) {
    if (type === "deal_started" && s.view && data.table === s.view.table_id && data.game !== gameId) {
      s.next = data.game;
      const button = document.getElementById("next-deal");
      if (button) {
        button.disabled = false;
        button.textContent = T.next_deal;
      }
    }
    return false;
  }

  const trouble = () => say(T.connection_lost, "error");
  (async () => {
    try {
      await refresh();
      s.table = await get(`tables/${s.view.table_id}`);
      draw();
      if (s.view.status !== "running") return;
      follow(`games/${gameId}/events`, { signal: stop.signal, onEvent: onGameEvent, onTrouble: trouble }).catch(fail);
      if (mySeat() !== null) {
        const feed = await get("me/events?after=0");
        follow("me/events", { after: feed.last_seq, signal: stop.signal, onEvent: onFeed, onTrouble: trouble })
          .catch(fail);
      }
    } catch (error) {
      fail(error);
    }
  })();
  const timer = setInterval(tick, 1000);
  const keys = (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "Enter") document.getElementById("play")?.click();
    else if (event.key === "p") document.querySelector("[data-action=pass]")?.click();
    else if (event.key === "h") document.getElementById("hint")?.click();
    else if (event.key === "Escape") document.getElementById("clear")?.click();
  };
  document.addEventListener("keydown", keys);
  return () => {
    stop.abort();
    clearInterval(timer);
    document.removeEventListener("keydown", keys);
  };
}

// Home: sign in (a guest, or an account), choose a preset, quick match with bots, the lobby, your
// seats at unfinished tables (docs/client-guide.md §1, §2, §5).
import { auth, call, get, post } from "./api.js";
import { pushPanel } from "./push.js";
import { PRESETS, T, el, fail, presetName, say } from "./ui.js";

function signIn(root, go) {
  const username = el("input", {
    name: "username", autocomplete: "username", required: true, id: "username", maxlength: "150",
    "aria-describedby": "username-rules",
  });
  const password = el("input", {
    name: "password", type: "password", autocomplete: "current-password", required: true, id: "password",
    "aria-describedby": "password-rules",
  });
  const submit = (path) => async (event) => {
    event.preventDefault();
    try {
      const answer = await post(path, { username: username.value, password: password.value });
      auth.token = answer.token;
      go("/");
    } catch (error) {
      fail(error);
    }
  };
  const form = el("form", { class: "panel login", onsubmit: submit("auth/token") },
    el("h2", {}, T.log_in),
    el("label", { for: "username" }, T.username), username,
    el("small", { class: "field-rules", id: "username-rules" }, T.username_rules),
    el("label", { for: "password" }, T.password), password,
    el("small", { class: "field-rules", id: "password-rules" }, T.password_rules),
    el("div", { class: "buttons" },
      el("button", { type: "submit" }, T.log_in),
      el("button", { type: "button", onclick: submit("auth/register") }, T.register)));
  root.append(
    el("section", { class: "panel welcome" },
      el("button", {
        type: "button", class: "primary", id: "guest",
        onclick: async () => {
          try {
            auth.token = (await post("auth/guest")).token;
            go("/");
          } catch (error) {
            fail(error);
          }
        },
      }, T.play_guest)),
    form);
}

function presetChooser() {
  const select = el("select", { id: "preset", name: "preset" },
    PRESETS.map((p) => el("option", { value: p.id }, p.name)));
  select.value = localStorage.getItem("bh.preset") || "pagat";
  const rules = el("p", { class: "rules", id: "preset-rules" });
  const show = () => {
    localStorage.setItem("bh.preset", select.value);
    rules.textContent = PRESETS.find((p) => p.id === select.value).rules;
  };
  select.addEventListener("change", show);
  show();
  const details = el("details", {}, el("summary", {}, T.rules), rules);
  return { select, block: el("div", { class: "preset" }, el("label", { for: "preset" }, T.preset), select, details) };
}

async function waitForTicket(ticket, signal, go) {
  while (!signal.aborted && ticket.status === "waiting") {
    ticket = await get(`matchmaking/tickets/${ticket.id}?wait=10`);
  }
  if (ticket.status === "matched") go(`/play/${ticket.game}`);
  else if (!signal.aborted) say(ticket.status, "error");
}

async function waitForDeal(tableId, signal, go) {
  while (!signal.aborted) {
    const table = await get(`tables/${tableId}`);
    if (table.current_game) return go(`/play/${table.current_game}`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
}

const LOBBY_SECONDS = 10;

// The invitation to a table: /join/<table>, a private table's code after `#`, so that the code never
// reaches a server's logs (a fragment is not sent).
export function inviteLink(table) {
  return `${location.origin}/join/${table.id}${table.private ? `#${table.code}` : ""}`;
}

// Sit down at a table (docs/client-guide.md §2) and wait for its first deal.
export async function joinTable(table, code, signal, go) {
  await post(`tables/${table}/join`, code ? { code } : {});
  say(T.waiting_players);
  await waitForDeal(table, signal, go);
}

function createPanel(select, stop, go) {
  const privateBox = el("input", { type: "checkbox", id: "private-table" });
  const invite = el("p", { class: "invite", id: "invite", hidden: true });
  const create = el("button", {
    type: "button", id: "create-table",
    onclick: async () => {
      try {
        create.disabled = true;
        const table = await post("tables", { preset: select.value, private: privateBox.checked });
        const link = inviteLink(table);
        invite.replaceChildren(el("label", { for: "invite-link" }, T.invite_link),
          el("input", { id: "invite-link", readonly: true, value: link, onfocus: (event) => event.target.select() }));
        invite.hidden = false;
        await joinTable(table.id, table.code, stop.signal, go);
      } catch (error) {
        create.disabled = false;
        fail(error);
      }
    },
  }, T.create_table);
  return el("section", { class: "panel" }, el("h2", {}, T.create_table),
    el("div", { class: "buttons" }, el("label", {}, privateBox, " ", T.private_table), create), invite);
}

export function joinPage(root, tableId, go) {
  // An invitation link (inviteLink): sign in first, then sit down.
  const stop = new AbortController();
  if (!auth.token) {
    signIn(root, () => go(`${location.pathname}${location.hash}`));
    return () => stop.abort();
  }
  const code = decodeURIComponent(location.hash.slice(1)) || null;
  root.append(el("section", { class: "panel" }, el("h2", {}, `${T.join} #${tableId}`),
    el("p", {}, el("a", { href: "/", "data-route": true, class: "button", id: "go-home" }, T.home))));
  joinTable(tableId, code, stop.signal, go).catch(fail);
  return () => stop.abort();
}

function tableRow(table, action) {
  const taken = table.seats.filter((s) => s.user).length;
  return el("li", { class: "table-row" },
    el("span", {}, `#${table.id} ${presetName(table.preset)} · ${taken}/5 ${T.seats_taken}`),
    action);
}

export function homePage(root, go) {
  const stop = new AbortController();
  if (!auth.token) {
    signIn(root, go);
    return () => stop.abort();
  }
  const { select, block } = presetChooser();
  let ticket = null;
  // Waiting for a ticket stops with the page or with Cancel.
  let waiting = new AbortController();
  stop.signal.addEventListener("abort", () => waiting.abort());
  const cancel = el("button", {
    type: "button", hidden: true, id: "cancel-ticket",
    onclick: async () => {
      if (!ticket) return;
      try {
        await call("DELETE", `matchmaking/tickets/${ticket.id}`);
        waiting.abort();
        ticket = null;
        cancel.hidden = true;
        quick.disabled = false;
        say(T.cancelled);
      } catch (error) {
        fail(error);
      }
    },
  }, T.cancel);
  const quick = el("button", {
    type: "button", class: "primary", id: "quick-match",
    onclick: async () => {
      try {
        quick.disabled = true;
        ticket = await post("matchmaking/tickets", { preset: select.value, bots: true });
        say(T.waiting_match);
        cancel.hidden = false;
        waiting = new AbortController();
        await waitForTicket(ticket, waiting.signal, go);
      } catch (error) {
        quick.disabled = false;
        fail(error);
      }
    },
  }, T.quick_match);
  const active = el("ul", { class: "list", id: "active" });
  const lobby = el("ul", { class: "list", id: "lobby" });
  const playing = el("ul", { class: "list", id: "playing" });
  root.append(
    el("section", { class: "panel" }, block, el("div", { class: "buttons" }, quick, cancel)),
    createPanel(select, stop, go),
    el("section", { class: "panel" }, el("h2", {}, T.your_seats), active),
    el("section", { class: "panel" }, el("h2", {}, T.lobby), lobby),
    el("section", { class: "panel" }, el("h2", {}, T.playing_tables), playing),
  );
  const push = pushPanel(); // docs/web-client.md "Notifications"
  if (push) root.append(push);

  async function showLobby() {
    // The lobby is read again every LOBBY_SECONDS while the page is open: new tables appear.
    const open = await get(`tables?status=waiting&preset=${select.value}`);
    lobby.replaceChildren(...(open.results.length ? [] : [el("li", {}, T.lobby_empty)]));
    for (const table of open.results) {
      lobby.append(tableRow(table, el("button", {
        type: "button",
        onclick: async () => {
          try {
            await post(`tables/${table.id}/join`, {});
            await waitForDeal(table.id, stop.signal, go);
          } catch (error) {
            fail(error);
          }
        },
      }, T.join)));
    }
    // Tables in play to watch: those players created, and the quick matches (`matched=true`).
    const [created, matched] = await Promise.all([get("tables?status=playing"), get("tables?status=playing&matched=true")]);
    const busy = [...created.results, ...matched.results].filter((table) => table.current_game);
    playing.replaceChildren(...(busy.length ? [] : [el("li", {}, T.playing_empty)]));
    for (const table of busy) {
      playing.append(tableRow(table,
        el("a", { href: `/play/${table.current_game}`, "data-route": true, class: "button watch" }, T.watch)));
    }
  }

  (async () => {
    try {
      const mine = await get("me/active");
      for (const seat of mine.tables) {
        active.append(el("li", { class: "table-row" },
          el("span", {}, `#${seat.table}`),
          seat.game ? el("a", { href: `/play/${seat.game}`, "data-route": true, class: "button" }, T.rejoin) : null));
      }
      if (!mine.tables.length) active.append(el("li", {}, T.no_seats));
      for (const held of mine.tickets) {
        ticket = held;
        say(T.waiting_match);
        cancel.hidden = false;
        quick.disabled = true;
        waitForTicket(held, waiting.signal, go).catch(fail);
      }
      select.addEventListener("change", () => showLobby().catch(fail));
      while (!stop.signal.aborted) {
        await showLobby();
        await new Promise((resolve) => setTimeout(resolve, LOBBY_SECONDS * 1000));
      }
    } catch (error) {
      if (!stop.signal.aborted) fail(error);
    }
  })();
  return () => stop.abort();
}

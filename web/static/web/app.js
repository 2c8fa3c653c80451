// The router: every page is /, /play/<game>, /replay/<game> or /join/<table> (web/urls.py); each
// draws itself from the API. Links inside the client change the page without reloading it.
import { auth, get, post } from "./api.js";
import { homePage, joinPage } from "./home.js";
import { replayPage } from "./replay.js";
import { tablePage } from "./table.js";
import { T, el, fail, say } from "./ui.js";

let current = null; // the page's teardown (its streams and timers)

export function go(path) {
  history.pushState(null, "", path);
  route();
}

async function showWho() {
  const who = document.getElementById("who");
  who.replaceChildren();
  if (!auth.token) return;
  try {
    const me = await get("me");
    who.append(
      el("span", { class: "me-name" }, `${T.signed_in_as} ${me.username}`),
      el("button", {
        type: "button", class: "link", id: "logout",
        onclick: async () => {
          await post("auth/logout").catch(() => null);
          auth.token = null;
          go("/");
        },
      }, T.log_out),
    );
  } catch (error) {
    if (error.status !== 401) fail(error);
  }
}

function route() {
  if (current) current();
  current = null;
  say("");
  const root = document.getElementById("app");
  root.replaceChildren();
  const path = location.pathname;
  let match;
  if ((match = path.match(/^\/play\/(\d+)$/))) current = tablePage(root, Number(match[1]), go);
  else if ((match = path.match(/^\/replay\/(\d+)$/))) current = replayPage(root, Number(match[1]), go);
  else if ((match = path.match(/^\/join\/(\d+)$/))) current = joinPage(root, Number(match[1]), go);
  else current = homePage(root, go);
  showWho();
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-route]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  go(link.getAttribute("href"));
});
window.addEventListener("popstate", route);
document.getElementById("lang-select").addEventListener("change", (event) => event.target.form.submit());
route();

// The admin's replay (matchmaking/moderation/admin.py): every hand at each step, stepped with the
// buttons, the arrow keys or a click on a step; the address keeps the step (#step-n, or ?step=n
// when the page is opened). The action list below is the server's, this only draws the cards.
import { cardRow } from "../web/cards.js";

const replay = JSON.parse(document.getElementById("replay-data").textContent);
const marks = JSON.parse(document.getElementById("replay-marks").textContent);
const labels = JSON.parse(document.getElementById("replay-labels").textContent);
const host = document.getElementById("replay-board");
// The cards are drawn with the web client's stylesheet, inside a shadow root: its page rules (the
// background, buttons, `.actions`) stay off the admin's page.
const shadow = host.attachShadow({ mode: "open" });
const sheets = host.dataset.stylesheets.split(" ").map((href) => {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  return link;
});
const board = document.createElement("div");
board.className = "replay";
shadow.append(...sheets, board);
const total = replay.steps.length;
let index = 0;

function stepFromAddress() {
  const hash = /^#step-(\d+)$/.exec(window.location.hash);
  const query = new URLSearchParams(window.location.search).get("step");
  const found = hash ? hash[1] : query;
  return found && /^\d+$/.test(found) ? Number(found) : 0;
}

function tableLine(step) {
  const line = document.createElement("p");
  line.className = "replay-table";
  if (!step.table) {
    line.textContent = labels.empty;
    return line;
  }
  const owner = document.createElement("span");
  owner.className = "replay-owner";
  owner.textContent = `${labels.table} #${step.table.seat} ${replay.players[step.table.seat] || ""} `;
  line.append(owner, cardRow(step.table.cards));
  return line;
}

function draw() {
  index = Math.max(0, Math.min(index, total));
  const step = index === 0 ? replay.start : replay.steps[index - 1];
  document.getElementById("replay-step").textContent = `${index} / ${total}`;
  board.replaceChildren(tableLine(step));
  step.hands.forEach((cards, seat) => {
    const box = document.createElement("div");
    box.className = "replay-seat";
    box.dataset.seat = seat;
    if (index > 0 && step.seat === seat) box.classList.add("turn");
    if (step.table && step.table.seat === seat) box.classList.add("owner");
    if (marks.reported === seat) box.classList.add("reported");
    if (marks.reporter === seat) box.classList.add("reporter");
    const name = document.createElement("div");
    name.className = "seat-name";
    name.textContent = `#${seat} ${replay.players[seat] || ""} ${step.roles[seat] || ""} (${cards.length})`;
    box.append(name, cardRow(cards));
    board.append(box);
  });
  for (const item of document.querySelectorAll("#replay-steps li")) {
    item.classList.toggle("current", Number(item.dataset.step) === index);
  }
  document.querySelector("#replay-steps li.current")?.scrollIntoView({ block: "nearest" });
  document.getElementById("replay-start").disabled = index === 0;
  document.getElementById("replay-back").disabled = index === 0;
  document.getElementById("replay-forward").disabled = index === total;
  document.getElementById("replay-end").disabled = index === total;
}

function go(target) {
  index = Math.max(0, Math.min(target, total));
  // The address names the step shown, so a moderator's link opens the same table.
  history.replaceState(null, "", `${window.location.pathname}${window.location.search}#step-${index}`);
  draw();
}

const steps = { "replay-start": () => 0, "replay-back": () => index - 1, "replay-forward": () => index + 1, "replay-end": () => total };
for (const [id, target] of Object.entries(steps)) {
  document.getElementById(id).addEventListener("click", () => go(target()));
}
document.addEventListener("keydown", (event) => {
  if (event.key === "ArrowRight") go(index + 1);
  else if (event.key === "ArrowLeft") go(index - 1);
});
// A click on a step or a summary's link changes the hash.
window.addEventListener("hashchange", () => { index = stepFromAddress(); draw(); });
index = stepFromAddress();
draw();

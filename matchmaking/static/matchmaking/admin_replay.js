// The admin's replay (matchmaking/moderation/admin.py): every hand at each step, stepped with the
// buttons or the arrow keys; the action list below is the server's, this only draws the cards.
import { cardRow } from "../web/cards.js";

const replay = JSON.parse(document.getElementById("replay-data").textContent);
const marks = JSON.parse(document.getElementById("replay-marks").textContent);
const board = document.getElementById("replay-board");
const total = replay.steps.length;
let index = 0;

function draw() {
  index = Math.max(0, Math.min(index, total));
  const step = index === 0 ? replay.start : replay.steps[index - 1];
  document.getElementById("replay-step").textContent = `${index} / ${total}`;
  board.replaceChildren();
  const table = document.createElement("p");
  table.className = "replay-table";
  table.append(step.table ? cardRow(step.table.cards) : "—");
  board.append(table);
  step.hands.forEach((cards, seat) => {
    const box = document.createElement("div");
    box.className = "replay-seat";
    if (index > 0 && step.seat === seat) box.classList.add("turn");
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

const steps = { "replay-start": () => 0, "replay-back": () => index - 1, "replay-forward": () => index + 1, "replay-end": () => total };
for (const [id, target] of Object.entries(steps)) {
  document.getElementById(id).addEventListener("click", () => { index = target(); draw(); });
}
document.addEventListener("keydown", (event) => {
  if (event.key === "ArrowRight") index += 1;
  else if (event.key === "ArrowLeft") index -= 1;
  else return;
  draw();
});
draw();

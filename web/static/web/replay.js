// A finished deal step by step (GET games/{id}/replay): every hand, the table and the action of each
// step; forward and back with the buttons or the arrow keys; the step is in the URL (#step=n).
import { get } from "./api.js";
import { cardLabel, cardRow } from "./cards.js";
import { T, actionName, el, fail, phaseName, presetName, roleName } from "./ui.js";

export function actionText(step) {
  const cards = step.action.cards.length ? ` ${step.action.cards.map(cardLabel).join(" ")}` : "";
  const card = step.action.card ? ` ${cardLabel(step.action.card)}` : "";
  return `${actionName(step.action.type)}${cards}${card}`;
}

export function replayPage(root, gameId) {
  let replay = null;
  let index = Number((location.hash.match(/step=(\d+)/) || [])[1] || 0);
  const head = el("div", { class: "table-head" });
  const controls = el("div", { class: "actions", id: "replay-controls" });
  const board = el("div", { class: "replay", id: "replay" });
  root.append(head, controls, board);

  function draw() {
    const total = replay.steps.length;
    index = Math.max(0, Math.min(index, total));
    history.replaceState(null, "", `#step=${index}`);
    const step = index === 0 ? replay.start : replay.steps[index - 1];
    const acting = index === 0 ? null : step.seat;
    head.replaceChildren(
      el("a", { href: "/", "data-route": true }, T.home),
      ` ${T.replay_of} #${replay.id} · ${presetName(replay.preset)} · `,
      el("span", { id: "replay-step" }, `${T.step} ${index}/${total}`),
      ` · ${phaseName(step.phase)}`);
    const button = (id, label, target) => el("button", {
      type: "button", id, disabled: target < 0 || target > total || target === index,
      onclick: () => { index = target; draw(); },
    }, label);
    controls.replaceChildren(
      button("replay-start", T.start, 0), button("replay-back", T.back, index - 1),
      button("replay-forward", T.forward, index + 1), button("replay-end", T.to_end, total));
    board.replaceChildren(
      // No mark of 串牌 here: whether a pass helped the other side is the moderators' judgment
      // (docs/web-client.md "Where it is").
      el("p", { class: "replay-action", id: "replay-action" },
        acting === null ? T.hands_dealt : `${replay.players[acting] || acting}: ${actionText(step)}`),
      el("div", { class: "center" }, el("span", { class: "label" }, T.table_label), " ",
        step.table ? cardRow(step.table.cards) : T.nothing),
      ...step.hands.map((cards, seat) => el("div", { class: `replay-seat${seat === acting ? " turn" : ""}` },
        el("div", { class: "seat-name" }, replay.players[seat] || `#${seat}`, " ",
          step.roles[seat] ? el("span", { class: "badge" }, roleName(step.roles[seat])) : null,
          replay.scores && index === total ? el("span", { class: "badge" }, `${T.scores}: ${replay.scores[seat]}`) : null),
        cardRow(cards))));
  }

  const keys = (event) => {
    if (!replay) return;
    if (event.key === "ArrowRight") index += 1;
    else if (event.key === "ArrowLeft") index -= 1;
    else return;
    draw();
  };
  document.addEventListener("keydown", keys);
  get(`games/${gameId}/replay`).then((answer) => { replay = answer; draw(); }).catch(fail);
  return () => document.removeEventListener("keydown", keys);
}

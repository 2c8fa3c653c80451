// A client typed from docs/openapi.yaml today reads what a later minor version may send: an event type
// and an error code it does not know are kept and reach the `default` branch, never a crash (docs/
// client-guide.md §3, §7). Run by tests/contract/test_forward_compatible.py:
//   node build/forward.js '<{"events": GameEvents, "error": Error}>'
import type { components } from "./build/schema.js";

type GameEvents = components["schemas"]["GameEvents"];
type GameEvent = components["schemas"]["GameEvent"];
type ApiError = components["schemas"]["Error"];

const input = process.argv[2];
if (!input) throw new Error("usage: node build/forward.js <JSON>");
const answers = JSON.parse(input) as { events: GameEvents; error: ApiError };

function describe(event: GameEvent): string {
  switch (event.type) {
    case "play":
      return `play ${event.cards.join(" ")}`;
    case "pass":
      return `pass ${event.seat}`;
    default:
      return `kept ${String(event.type)}`;
  }
}

function explain(error: ApiError): string {
  switch (error.code) {
    case "stale_version":
      return `stale at ${error.extra.version ?? "?"}`;
    default:
      return `kept ${error.code}`;
  }
}

console.log(JSON.stringify({ events: answers.events.events.map(describe), error: explain(answers.error) }));

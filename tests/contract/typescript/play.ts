// Five guests play one deal through a client typed from docs/openapi.yaml alone (openapi-typescript +
// openapi-fetch), compiled by `tsc --strict`: a body the schema declares wrongly fails to compile or
// to decode here. Run by tests/contract/test_typescript_client.py against a live server:
//   node build/play.js <base URL>
import createClient from "openapi-fetch";
import type { components, paths } from "./build/schema.js";

type Client = ReturnType<typeof createClient<paths>>;
type GameView = components["schemas"]["GameView"];
type GameAction = components["schemas"]["GameAction"];

const baseUrl = process.argv[2];
if (!baseUrl) throw new Error("usage: node build/play.js <base URL>");

// A seeded choice, so that a failing run can be repeated.
let seed = 20261203;
function pick<T>(items: readonly T[]): T {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  const item = items[seed % items.length];
  if (item === undefined) throw new Error("nothing to choose from");
  return item;
}

function ok<T>(answer: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (answer.data === undefined) {
    throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

async function guest(): Promise<Client> {
  const anonymous = createClient<paths>({ baseUrl });
  const signedIn = ok(await anonymous.POST("/api/v1/auth/guest"), "guest");
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${signedIn.token}` } });
}

// `GET games/{id}` is a seated view or a spectator's (`GameDetail`); every player here is seated.
async function view(client: Client, game: number): Promise<GameView> {
  const answer = ok(await client.GET("/api/v1/games/{game_id}", { params: { path: { game_id: game } } }), "view");
  if (!("seat" in answer)) throw new Error("a seated player got a spectator's view");
  return answer;
}

async function dealsStarted(client: Client, table: number): Promise<number[]> {
  const games: number[] = [];
  let after = 0;
  for (;;) {
    const page = ok(
      await client.GET("/api/v1/tables/{table_id}/events", {
        params: { path: { table_id: table }, query: { after } },
      }),
      "table events",
    );
    for (const event of page.events) {
      if (event.type === "deal_started") games.push(event.game);
    }
    if (page.last_seq === after) return games;
    after = page.last_seq;
  }
}

function prompted(public_: GameView): number[] {
  if (public_.to_act) return [...public_.to_act];
  return public_.window ? [...public_.window.asked] : [0, 1, 2, 3, 4];
}

async function playDeal(players: Client[], game: number): Promise<GameView> {
  for (let step = 0; step < 3000; step++) {
    const public_ = await view(players[0]!, game);
    if (public_.phase === "over" || public_.phase === "void") return public_;
    let acted = false;
    for (const seat of prompted(public_)) {
      const player = players[seat]!;
      const mine = await view(player, game);
      const legal: GameAction[] = mine.legal_actions ?? [];
      if (legal.length === 0) continue;
      const plays = legal.filter((action) => action.type === "play");
      const action = plays.length > 0 && seed % 5 !== 0 ? pick(plays) : pick(legal);
      const after = ok(
        await player.POST("/api/v1/games/{game_id}/actions", {
          params: { path: { game_id: game } },
          body: {
            type: action.type,
            cards: action.cards,
            ...(action.card === null ? {} : { card: action.card }),
            expected_version: mine.version,
          },
        }),
        "action",
      );
      if (after.version !== mine.version + 1) throw new Error("the version did not advance by one");
      acted = true;
      break;
    }
    if (!acted) throw new Error(`no prompted seat may act in game ${game}`);
  }
  throw new Error("the deal did not end");
}

const players = await Promise.all([0, 1, 2, 3, 4].map(() => guest()));
const creator = players[0]!;
const table = ok(await creator.POST("/api/v1/tables", { body: { preset: "weihai" } }), "create table");
for (const [seat, player] of players.entries()) {
  ok(
    await player.POST("/api/v1/tables/{table_id}/join", {
      params: { path: { table_id: table.id } },
      body: { seat },
    }),
    "join",
  );
}
for (let deal = 0; deal < 4; deal++) {
  const game = (await dealsStarted(creator, table.id)).at(-1);
  if (game === undefined) throw new Error("no deal started");
  const end = await playDeal(players, game);
  const final = ok(
    await creator.GET("/api/v1/games/{game_id}/final", { params: { path: { game_id: game } } }),
    "final",
  );
  if (final.hands.length !== 5 || final.scores.length !== 5) throw new Error("a final view of five seats");
  if (final.scores.reduce((sum, score) => sum + score, 0) !== 0) throw new Error("scores do not sum to 0");
  if (end.phase === "over" && !final.void) {
    console.log(JSON.stringify({ played: game, phase: end.phase, scores: final.scores }));
    process.exit(0);
  }
}
throw new Error("no scored deal in four");

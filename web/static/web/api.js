// The client's only door to the server: /api/v1/ with the bearer token (docs/client-guide.md §1),
// and its event streams read as Server-Sent Events through fetch, because EventSource cannot send
// an Authorization header.
const TOKEN_KEY = "bh.token";

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.extra = (body && body.extra) || {};
  }
}

export const auth = {
  get token() { return localStorage.getItem(TOKEN_KEY); },
  set token(value) {
    if (value) localStorage.setItem(TOKEN_KEY, value); else localStorage.removeItem(TOKEN_KEY);
  },
};

function headers(extra) {
  const result = { Accept: "application/json", ...extra };
  if (auth.token) result.Authorization = `Bearer ${auth.token}`;
  return result;
}

export async function call(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`/api/v1/${path}`, init);
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    // A token the server no longer knows (expired, signed out elsewhere): start over as nobody.
    if (response.status === 401) auth.token = null;
    throw new ApiError(response.status, data);
  }
  return data;
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, body === undefined ? {} : body);

function parseBlock(block) {
  const event = { id: null, type: "message", data: "" };
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue; // a keep-alive comment
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") event.id = value;
    else if (field === "event") event.type = value;
    else if (field === "data") data.push(value);
    else if (field === "retry") event.retry = Number(value);
  }
  if (!data.length) return event.retry ? event : null;
  event.data = data.join("\n");
  return event;
}

// Follow an event stream until `signal` aborts or `onEvent` answers true (the log ended). The
// server ends a stream now and then (EVENTS_SSE_MAX_SECONDS, a busy server): reconnect from the
// last id with Last-Event-ID, so nothing is missed and nothing comes twice (docs/client-guide.md §3).
export async function follow(path, { after = 0, signal, onEvent, onTrouble }) {
  let lastId = String(after);
  let retry = 2000;
  while (!signal.aborted) {
    try {
      const response = await fetch(`/api/v1/${path}`, {
        headers: headers({ Accept: "text/event-stream", "Last-Event-ID": lastId }),
        signal,
      });
      if (!response.ok) {
        const body = await response.json().catch(() => null);
        if (response.status !== 503) throw new ApiError(response.status, body);
      } else {
        // The bytes decoded as they come (a TextDecoder streaming, not a TextDecoderStream: one
        // promise per chunk rather than a pipe's several, on the main thread of every event).
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const event = parseBlock(buffer.slice(0, cut));
            buffer = buffer.slice(cut + 2);
            if (!event) continue;
            if (event.retry) retry = event.retry;
            if (!event.data) continue;
            if (event.id !== null) lastId = event.id;
            if (onEvent(event.type, JSON.parse(event.data), Number(lastId))) return;
          }
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.status !== 503) throw error;
      if (onTrouble) onTrouble(error);
    }
    await new Promise((resolve) => setTimeout(resolve, retry));
  }
}

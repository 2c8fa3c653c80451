// The web client's service worker (docs/web-client.md "Notifications"): it shows the pushes the server
// sends this browser (docs/notifications.md: `{title, body, data: {type, seq, ids}}`, already in the
// language the device registered with) and, on a click, opens the game or the home page. It handles
// nothing else: no fetch, no cache, so the client keeps reading everything from the API.
"use strict";

// The kinds whose click opens their game's table (the others open home: the inbox, the lobby).
const OPENS_GAME = ["ticket_matched", "your_turn", "deal_over", "tournament_round"];

function notificationOf(message) {
  const data = message.data || {};
  return {
    title: message.title || "",
    options: {
      body: message.body || "",
      // One notification per game: a newer "your turn" or the deal's end replaces the older one, as
      // the push's Topic does for a message still on its way.
      tag: data.game !== undefined ? `game-${data.game}` : `entry-${data.seq}`,
      data,
    },
  };
}

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = {};
  }
  const { title, options } = notificationOf(message);
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const path = OPENS_GAME.includes(data.type) && data.game !== undefined ? `/play/${data.game}` : "/";
  event.waitUntil(self.clients.openWindow(path));
});

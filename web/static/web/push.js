// Notifications in this browser (docs/web-client.md "Notifications"): a toggle on the home page that
// subscribes with the server's VAPID key (`GET push/vapid-key`) through the service worker push-sw.js
// and registers the subscription as a device (`POST me/devices`, docs/notifications.md); turned off,
// it unsubscribes and removes the device. The panel is absent where the browser has no Web Push or
// the server has it off (404).
import { call, get, post } from "./api.js";
import { T, el, fail, say } from "./ui.js";

const DEVICE_KEY = "bh.push_device";
// Next to the modules, so its scope is /static/web/: it controls no page (it serves no fetch), and a
// push reaches it whatever its scope.
const WORKER_URL = new URL("./push-sw.js", import.meta.url).href;

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function activated(registration) {
  // pushManager.subscribe needs an active worker; `serviceWorker.ready` waits for one controlling
  // this page, which a worker scoped to /static/web/ never does.
  const worker = registration.installing || registration.waiting || registration.active;
  if (worker && worker.state !== "activated") {
    await new Promise((resolve) => {
      worker.addEventListener("statechange", () => worker.state === "activated" && resolve());
    });
  }
  return registration;
}

async function subscribe(publicKey) {
  if ((await Notification.requestPermission()) !== "granted") {
    say(T.push_denied, "error");
    return false;
  }
  const registration = await activated(await navigator.serviceWorker.register(WORKER_URL));
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: keyBytes(publicKey),
  });
  const device = await post("me/devices", {
    platform: "webpush",
    subscription: subscription.toJSON(),
    locale: document.documentElement.lang,
    name: "Web",
  });
  localStorage.setItem(DEVICE_KEY, String(device.id));
  say(T.push_on);
  return true;
}

async function unsubscribe() {
  const registration = await navigator.serviceWorker.getRegistration(WORKER_URL);
  const subscription = registration && (await registration.pushManager.getSubscription());
  if (subscription) await subscription.unsubscribe();
  const device = localStorage.getItem(DEVICE_KEY);
  localStorage.removeItem(DEVICE_KEY);
  if (device) await call("DELETE", `me/devices/${device}`).catch(() => null); // gone already: fine
  say(T.push_off);
}

export function pushPanel() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return null;
  const toggle = el("input", { type: "checkbox", id: "push-toggle", disabled: true });
  const panel = el("section", { class: "panel", id: "push-panel", hidden: true },
    el("label", { for: "push-toggle" }, toggle, " ", T.push_toggle));
  (async () => {
    let key;
    try {
      key = (await get("push/vapid-key")).public_key;
    } catch (error) {
      return; // Web Push is off on this server: no panel
    }
    const registration = await navigator.serviceWorker.getRegistration(WORKER_URL);
    const subscription = registration && (await registration.pushManager.getSubscription());
    toggle.checked = Boolean(subscription && localStorage.getItem(DEVICE_KEY));
    toggle.disabled = false;
    panel.hidden = false;
    toggle.addEventListener("change", async () => {
      toggle.disabled = true;
      try {
        toggle.checked = toggle.checked ? await subscribe(key) : (await unsubscribe(), false);
      } catch (error) {
        toggle.checked = false;
        fail(error);
      } finally {
        toggle.disabled = false;
      }
    });
  })().catch(fail);
  return panel;
}

// Small shared helpers: the page's translated strings (rendered by the server from the catalogue,
// web/views.py), element building, the status line.
export const T = JSON.parse(document.getElementById("bh-strings").textContent);
export const PRESETS = JSON.parse(document.getElementById("bh-presets").textContent);

export function el(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else if (key in element && typeof value !== "string") element[key] = value;
    else element.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

export function say(message, kind = "info") {
  const status = document.getElementById("status");
  status.textContent = message || "";
  status.dataset.kind = kind;
}

export function fail(error) {
  // A refused field says which field and why (docs/client-guide.md §7: `extra.fields.<name>`).
  const fields = error && error.extra && error.extra.fields;
  if (fields && typeof fields === "object") {
    const said = Object.entries(fields).map(([name, messages]) => `${T[name] || name}: ${[].concat(messages).join(" ")}`);
    if (said.length) return say(said.join(" · "), "error");
  }
  return say(error && error.message ? error.message : String(error), "error");
}

export const actionName = (type) => T[`action_${type}`] || type;
export const roleName = (role) => (role ? T[`role_${role}`] || role : "");
export const phaseName = (phase) => T[`phase_${phase}`] || phase;
export const presetName = (id) => (PRESETS.find((p) => p.id === id) || { name: id }).name;

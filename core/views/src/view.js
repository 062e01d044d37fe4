"use strict";
// The view's side of MCP Apps (io.modelcontextprotocol/ui), by hand: JSON-RPC 2.0 over
// postMessage with the host (the parent frame). The host answers ui/initialize with its
// capabilities and context, then sends the tool's input and result; the view asks the
// host to open links and to call tools, and tells it its size.
const PROTOCOL = "2026-01-26";
const host = { caps: {}, ctx: {} };
let nextId = 1;
const pending = new Map();
const on = {};

function send(msg) { window.parent.postMessage(msg, "*"); }
function request(method, params) {
  const id = nextId++;
  send({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
function notify(method, params) { send({ jsonrpc: "2.0", method, params }); }

window.addEventListener("message", (e) => {
  if (e.source !== window.parent) return;
  const m = e.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.method === undefined) {
    const p = pending.get(m.id);
    if (p) { pending.delete(m.id); m.error ? p.reject(new Error(m.error.message)) : p.resolve(m.result); }
    return;
  }
  const h = on[m.method];
  if (h) h(m.params || {});
  if (m.id !== undefined) {
    if (h || m.method === "ping") send({ jsonrpc: "2.0", id: m.id, result: {} });
    else send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found: " + m.method } });
  }
});

// The host's context: its theme, style variables and display mode.
function applyContext(c) {
  Object.assign(host.ctx, c);
  const root = document.documentElement;
  if (c.theme) root.dataset.theme = c.theme;
  const vars = c.styles && c.styles.variables;
  if (vars) for (const k in vars) if (k.startsWith("--") && typeof vars[k] === "string") root.style.setProperty(k, vars[k]);
  if (c.displayMode) root.dataset.display = c.displayMode;
  const modes = c.availableDisplayModes || host.ctx.availableDisplayModes || [];
  const b = document.getElementById("expand");
  if (b) b.hidden = !modes.includes("fullscreen") || host.ctx.displayMode === "fullscreen";
  if (c.locale) locale = c.locale;
}
on["ui/notifications/host-context-changed"] = applyContext;
on["ui/resource-teardown"] = () => {};

let locale = "en-NZ";
function money(n) {
  return typeof n === "number" ? new Intl.NumberFormat(locale, { style: "currency", currency: "NZD" }).format(n) : "";
}
function day(s) {
  if (!s) return "";
  const d = new Date(s.length === 10 ? s + "T00:00:00Z" : s);
  return isNaN(d) ? s : new Intl.DateTimeFormat(locale, { weekday: "short", day: "numeric", month: "short", timeZone: s.length === 10 ? "UTC" : "Pacific/Auckland" }).format(d);
}

// el builds an element: attributes (on* are listeners), then children (strings are text).
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    const v = attrs[k];
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== undefined && k !== null && k !== false) e.append(k.nodeType ? k : String(k));
  return e;
}

// Vehicle classes drawn inline (no image is fetched).
const ICONS = {
  compact: '<path d="M6 24h44v-9l-7-8H14l-8 9z"/><path d="M17 9h11v7H12z"/>',
  campervan: '<path d="M4 24h48v-9l-6-9H6l-2 4z"/><path d="M34 8h9l5 7H34z"/><path d="M10 10h18v5H10z"/>',
  motorhome: '<path d="M3 24h50v-8l-5-6h-6V3H5v4l-2 2z"/><path d="M42 12h4l4 5h-8z"/><path d="M9 8h12v6H9zM24 8h12v6H24z"/>',
};
function icon(cls) {
  const s = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  s.setAttribute("viewBox", "0 0 56 32");
  s.setAttribute("class", "icon");
  s.setAttribute("aria-hidden", "true");
  s.setAttribute("fill", "none");
  s.setAttribute("stroke", "currentColor");
  s.setAttribute("stroke-width", "2");
  s.innerHTML = (ICONS[cls] || ICONS.campervan) + '<circle cx="15" cy="26" r="4" fill="currentColor"/><circle cx="42" cy="26" r="4" fill="currentColor"/>';
  return s;
}

// openLink asks the host to open url (ui/open-link); the view itself navigates nowhere.
async function openLink(url, status) {
  try {
    const r = await request("ui/open-link", { url });
    if (r && r.isError) status.textContent = "The host did not open the link: " + url;
  } catch (err) { status.textContent = "The host did not open the link: " + err.message; }
}

// callTool runs a tool of this server through the host and returns its structuredContent.
async function callTool(name, args) {
  const r = await request("tools/call", { name, arguments: args });
  if (!r || r.isError) throw new Error((r && r.content && r.content[0] && r.content[0].text) || name + " failed");
  return r.structuredContent;
}

const main = () => document.getElementById("main");
const status = () => document.getElementById("status");
function show(...nodes) { main().replaceChildren(...nodes); }

// Tell the host our size whenever it changes.
let lastW = 0, lastH = 0;
new ResizeObserver(() => {
  const w = Math.ceil(document.documentElement.scrollWidth), h = Math.ceil(document.documentElement.scrollHeight);
  if (w !== lastW || h !== lastH) { lastW = w; lastH = h; notify("ui/notifications/size-changed", { width: w, height: h }); }
}).observe(document.documentElement);

let input = {};
on["ui/notifications/tool-input"] = (p) => { input = p.arguments || {}; };
on["ui/notifications/tool-result"] = (r) => {
  if (r.isError || !r.structuredContent) {
    show(el("p", { class: "err", role: "alert" }, (r.content && r.content[0] && r.content[0].text) || "The tool returned no result."));
    return;
  }
  render(r.structuredContent);
};
on["ui/notifications/tool-cancelled"] = () => show(el("p", { class: "sub" }, "Cancelled."));

// expand asks the host to show the view full screen (ui/request-display-mode).
async function expand() {
  try { applyContext({ displayMode: (await request("ui/request-display-mode", { mode: "fullscreen" })).mode }); }
  catch (err) { status().textContent = "The host did not change the display: " + err.message; }
}

async function start() {
  document.getElementById("expand").addEventListener("click", expand);
  const r = await request("ui/initialize", {
    protocolVersion: PROTOCOL,
    appInfo: { name: "campervan-" + document.body.dataset.view, version: "1.0.0" },
    appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] },
  });
  host.caps = r.hostCapabilities || {};
  applyContext(r.hostContext || {});
  notify("ui/notifications/initialized", {});
}
start().catch((err) => { status().textContent = "Could not connect to the host: " + err.message; });

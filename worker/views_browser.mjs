// The MCP Apps views in a real browser against the running Worker: Debian's headless
// Chromium (puppeteer-core) opens a host page built on AppBridge of
// @modelcontextprotocol/ext-apps (pinned), which loads each view's HTML, as the
// Worker's resources/read gives it, into a sandboxed frame on another origin under the
// MCP Apps default CSP, and sends it a real tool input and result of the Worker. It
// checks that the view shows the result (every vehicle's name and total; the quote's
// fees, cancellation tiers and payments; the calendar's cells), that its hand-off
// controls ask the host to open the right URL or to call get_quote, that the frame
// asked nothing of any origin and logged no error. It saves each view's screenshot,
// light and dark, into OUT. Run by TestE2EViews (views_e2e_test.go):
//
//   node_modules/.bin/node worker/views_browser.mjs BASE_URL OUT_DIR
//
// Prints one line per check; exits 1 if any failed.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const [base, out] = process.argv.slice(2);
if (!base || !out) {
  console.error("usage: views_browser.mjs BASE_URL OUT_DIR");
  process.exit(2);
}
setTimeout(() => { console.log("FAIL the browser check took more than 120 s"); process.exit(1); }, 120_000).unref();
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let failed = 0;
function check(ok, what, detail) {
  console.log((ok ? "ok   " : "FAIL ") + what + (ok || detail === undefined ? "" : ": " + JSON.stringify(detail).slice(0, 800)));
  if (!ok) failed++;
}

// The Worker's MCP endpoint, as a host would call it (2025-11-25, no session).
let rid = 0;
async function rpc(method, params) {
  const r = await fetch(base + "/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rid, method, params }) });
  const j = await r.json();
  if (j.error) throw new Error(method + ": " + j.error.message);
  return j.result;
}
const { tools } = await rpc("tools/list", {});
const viewOf = Object.fromEntries(tools.filter((t) => t._meta?.ui?.resourceUri).map((t) => [t.name, t._meta.ui.resourceUri]));
check(viewOf.search_vehicles && viewOf.search_calendar && viewOf.get_quote && viewOf.check_quote, "tools/list: the view tools link their views", viewOf);
const html = {};
for (const uri of new Set(Object.values(viewOf))) {
  const { contents } = await rpc("resources/read", { uri });
  check(contents.length === 1 && contents[0].mimeType === "text/html;profile=mcp-app" && contents[0].text.startsWith("<!doctype html>"), `resources/read ${uri}: one HTML document, text/html;profile=mcp-app`);
  html[uri] = contents[0].text;
}

// Real results: a search with insurance (dates moved on until something is free), its
// calendar and a quote of its first vehicle.
const day = (t) => new Date(t).toISOString().slice(0, 10);
let search, found;
for (let k = 0; k < 10 && !found?.structuredContent?.vehicles?.length; k++) {
  const t0 = Date.now() + (40 + 7 * k) * 86400000;
  search = { pick_up_depot_id: 2, drop_off_depot_id: 3, pick_up_date: day(t0), drop_off_date: day(t0 + 9 * 86400000), include: "insurance", limit: 8 };
  found = await rpc("tools/call", { name: "search_vehicles", arguments: search });
}
const vehicles = found.structuredContent.vehicles;
check(vehicles.length > 1, "search_vehicles: vehicles to show", search);
const calArgs = { pick_up_depot_id: 2, drop_off_depot_id: 3, earliest_pick_up_date: search.pick_up_date, latest_pick_up_date: day(Date.parse(search.pick_up_date) + 6 * 86400000), days: "7,10,14" };
const cal = await rpc("tools/call", { name: "search_calendar", arguments: calArgs });
const quoteArgs = { pick_up_depot_id: 2, drop_off_depot_id: 3, pick_up_date: search.pick_up_date, drop_off_date: search.drop_off_date, vehicle_id: vehicles[0].vehicleId, insurance_id: vehicles[0].insuranceOptions.at(-1).id };
const quote = await rpc("tools/call", { name: "get_quote", arguments: quoteArgs });
check(!quote.isError && !cal.isError, "search_calendar and get_quote: results", [cal.content?.[0]?.text, quote.content?.[0]?.text]);

// The host page (this origin) and the views' origin (another port): the view's frame
// is sandboxed (scripts only: an opaque origin) and its document carries the CSP that
// the MCP Apps specification has a host apply to a view declaring no domains (no
// connections, no frames, base-uri 'self').
const viewCSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'";
const bridgeJS = execFileSync(join(root, "node_modules/.bin/esbuild"), [join(root, "worker/views_host_entry.mjs"), "--bundle", "--format=iife", "--global-name=MCPApps", "--minify", "--log-level=warning"], { cwd: root });
const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>host</title><script src="/bridge.js"></script></head>
<body style="margin:0"><div id="frames"></div></body></html>`;
const listen = (handler) => new Promise((res) => { const s = createServer(handler); s.listen(0, "127.0.0.1", () => res(s)); });
const hostSrv = await listen((req, res) => {
  if (req.url === "/bridge.js") { res.writeHead(200, { "content-type": "text/javascript" }); res.end(bridgeJS); return; }
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }); res.end(hostPage);
});
const viewSrv = await listen((req, res) => {
  const uri = decodeURIComponent(req.url.slice(1));
  if (!html[uri]) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": viewCSP }); res.end(html[uri]);
});
const hostOrigin = `http://127.0.0.1:${hostSrv.address().port}`;
const viewOrigin = `http://localhost:${viewSrv.address().port}`;

const profile = mkdtempSync(join(tmpdir(), "views-chromium-"));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, userDataDir: profile,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
mkdirSync(out, { recursive: true });

// show loads view uri in a frame of the host page under theme, hands it input and
// result, and returns the page and the view's frame once it has rendered.
async function show(name, uri, input, result, theme, width) {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900 });
  const errors = [], requests = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (r.frame() && r.frame() !== page.mainFrame()) requests.push(r.url()); });
  await page.goto(hostOrigin + "/", { waitUntil: "load" });
  await page.evaluate(async ({ src, input, result, theme, base }) => {
    window.opened = []; window.called = [];
    const f = document.createElement("iframe");
    f.setAttribute("sandbox", "allow-scripts");
    f.style.cssText = "width:100%;height:400px;border:0";
    document.getElementById("frames").append(f);
    const bridge = new MCPApps.AppBridge(null, { name: "test-host", version: "1.0.0" }, { openLinks: {}, serverTools: {} },
      { hostContext: { theme, displayMode: "inline", availableDisplayModes: ["inline", "fullscreen"], platform: "web" } });
    bridge.onopenlink = async ({ url }) => { window.opened.push(url); return {}; };
    bridge.oncalltool = async (params) => {
      window.called.push(params);
      const r = await fetch(base + "/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }) });
      return (await r.json()).result;
    };
    bridge.onrequestdisplaymode = async ({ mode }) => { window.modes = (window.modes || []).concat(mode); return { mode }; };
    bridge.onsizechange = ({ height }) => { if (height) f.style.height = height + "px"; };
    bridge.oninitialized = async () => { await bridge.sendToolInput({ arguments: input }); await bridge.sendToolResult(result); };
    await bridge.connect(new MCPApps.PostMessageTransport(f.contentWindow, f.contentWindow));
    f.src = src;
  }, { src: viewOrigin + "/" + encodeURIComponent(uri), input, result, theme, base });
  const frame = await (await page.waitForSelector("iframe")).contentFrame();
  await frame.waitForSelector("#main h1, #main p[role=status]", { timeout: 15_000 });
  await new Promise((r) => setTimeout(r, 300)); // a size change lands
  return { page, frame, errors, requests };
}
const nzd = (x) => new Intl.NumberFormat("en-NZ", { style: "currency", currency: "NZD" }).format(x);
async function finish(v, name, theme) {
  check(v.errors.length === 0, `${name} (${theme}): no console error`, v.errors);
  check(v.requests.every((u) => u.startsWith(viewOrigin + "/")) && v.requests.length === 1, `${name} (${theme}): the view asked nothing of any origin`, v.requests);
  const bg = await v.frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const dark = bg.match(/\d+/g).slice(0, 3).reduce((a, c) => a + +c, 0) < 3 * 128;
  check(dark === (theme === "dark"), `${name} (${theme}): the host's theme`, bg);
  const h = await v.page.$eval("iframe", (f) => f.getBoundingClientRect().height);
  await v.page.setViewport({ width: v.page.viewport().width, height: Math.ceil(h) });
  await new Promise((r) => setTimeout(r, 300));
  await (await v.page.$("iframe")).screenshot({ path: join(out, `view-${name}-${theme}.png`) });
  await v.page.close();
}

try {
  for (const theme of ["light", "dark"]) {
    // search_vehicles: every card, in order; Book opens the bookingUrl; Get quote calls get_quote.
    let v = await show("search", viewOf.search_vehicles, search, found, theme, 760);
    const cards = await v.frame.$$eval("li.card", (els) => els.map((e) => ({ name: e.querySelector("[data-k=name]").textContent, total: e.querySelector("[data-k=total]").textContent,
      ins: [...e.querySelectorAll("[data-k=ins-total]")].map((x) => x.textContent) })));
    check(JSON.stringify(cards.map((c) => c.name)) === JSON.stringify(vehicles.map((x) => x.name)), `search (${theme}): every vehicle's name, in order`, cards.map((c) => c.name));
    check(cards.every((c, i) => c.total === nzd(vehicles[i].totalAmount)), `search (${theme}): every vehicle's total`, cards.map((c) => c.total));
    check(cards.every((c, i) => JSON.stringify(c.ins) === JSON.stringify(vehicles[i].insuranceOptions.map((o) => nzd(o.totalAmount)))), `search (${theme}): each plan's total`);
    if (theme === "light") {
      await v.frame.click("li.card:nth-child(2) [data-act=book]");
      await v.page.waitForFunction(() => window.opened.length > 0, { timeout: 5000 });
      const opened = await v.page.evaluate(() => window.opened);
      check(opened[0] === vehicles[1].bookingUrl, "search: Book asks the host to open the vehicle's bookingUrl", opened);
      await v.frame.focus("li.card:nth-child(1) [data-act=quote]");
      await v.page.keyboard.press("Enter"); // by keyboard
      await v.frame.waitForSelector("li.card:nth-child(1) [data-act=checkout]", { timeout: 10_000 });
      const called = await v.page.evaluate(() => window.called);
      check(called.length === 1 && called[0].name === "get_quote" && called[0].arguments.vehicle_id === vehicles[0].vehicleId && called[0].arguments.pick_up_date === search.pick_up_date,
        "search: Get quote calls get_quote through the host for that vehicle", called);
      await v.frame.click("li.card:nth-child(1) [data-act=checkout]");
      await v.page.waitForFunction(() => window.opened.length > 1, { timeout: 5000 });
      const co = (await v.page.evaluate(() => window.opened))[1];
      check(co.includes("quote_id=") && co.includes("vehicle_id=" + vehicles[0].vehicleId), "search: then Checkout opens the quote's checkoutUrl", co);
    }
    await finish(v, "search", theme);

    // search_calendar: each cell's cheapest total and free count; closed dates say why.
    v = await show("calendar", viewOf.search_calendar, calArgs, cal, theme, 760);
    const rows = cal.structuredContent.calendar;
    const shownCells = Object.fromEntries(await v.frame.$$eval(".cal tbody td", (els) => els.map((e) => [e.dataset.cell, { cheapest: e.querySelector("[data-k=cheapest]")?.textContent ?? null, free: e.querySelector("[data-k=free]")?.textContent ?? null, closed: e.querySelector("[data-k=closed]")?.textContent ?? null }])));
    const cellOf = (r) => shownCells[r.pick_up_date + "/" + r.days];
    check(rows.every((r) => cellOf(r)), `calendar (${theme}): a cell for each start date and length`, Object.keys(shownCells));
    check(rows.every((r) => r.reason && !r.free ? cellOf(r)?.closed === r.reason : cellOf(r)?.free === `${r.free || 0} free` && (!r.free || cellOf(r)?.cheapest === nzd((r.cheapest || r.vehicles)[0].totalAmount))),
      `calendar (${theme}): each cell's cheapest total and free count (closed dates with their reason)`, rows.map((r) => [r, cellOf(r)]).slice(0, 3));
    const want = [...rows].sort((a, b) => a.pick_up_date < b.pick_up_date ? -1 : a.pick_up_date > b.pick_up_date ? 1 : a.days - b.days);
    if (theme === "light") {
      await v.frame.click(".cal button.cell");
      await v.frame.waitForSelector("section li.card", { timeout: 10_000 });
      const called = await v.page.evaluate(() => window.called);
      const first = want.find((r) => r.free);
      check(called[0]?.name === "search_vehicles" && called[0].arguments.pick_up_date === first.pick_up_date && called[0].arguments.drop_off_date === first.drop_off_date && called[0].arguments.days === undefined,
        "calendar: a cell asks for that search", called);
    }
    await finish(v, "calendar", theme);

    // get_quote: the fees, the cancellation tiers, the payments, the checkout.
    v = await show("quote", viewOf.get_quote, quoteArgs, quote, theme, 420);
    const q = quote.structuredContent;
    const fees = await v.frame.$$eval("tr[data-fee] td", (els) => els.map((e) => e.textContent));
    const b = q.priceBreakdown;
    check(JSON.stringify(fees) === JSON.stringify([b.rentalFee, b.routeFee, b.accessoriesFee, b.insuranceFee].map(nzd)), `quote (${theme}): the four fees`, fees);
    check(await v.frame.$eval("[data-k=total]", (e) => e.textContent) === nzd(q.totalAmount), `quote (${theme}): the total`);
    const tiers = await v.frame.$$eval("[data-k=cancellation] li", (els) => els.map((e) => e.textContent));
    check(tiers.length === q.terms.cancellation.length && tiers.every((t, i) => t.endsWith("fee " + nzd(q.terms.cancellation[i].fee))), `quote (${theme}): every cancellation tier`, tiers);
    const pays = await v.frame.$$eval("[data-k=payment] li", (els) => els.map((e) => e.textContent));
    check(pays.length === q.terms.payment.length && pays.every((t, i) => t.startsWith(nzd(q.terms.payment[i].amount) + " due")), `quote (${theme}): every payment`, pays);
    if (theme === "light") {
      await v.frame.click("[data-act=checkout]");
      await v.page.waitForFunction(() => window.opened.length > 0, { timeout: 5000 });
      check((await v.page.evaluate(() => window.opened))[0] === q.checkoutUrl, "quote: Checkout asks the host to open checkoutUrl");
      await v.frame.click("#expand");
      await v.page.waitForFunction(() => window.modes?.length > 0, { timeout: 5000 });
      check(JSON.stringify(await v.page.evaluate(() => window.modes)) === '["fullscreen"]' && await v.frame.$eval("html", (e) => e.dataset.display) === "fullscreen" && await v.frame.$eval("#expand", (e) => e.hidden),
        "quote: Full screen asks the host for that display mode, then hides itself");
    }
    await finish(v, "quote", theme);
  }
  // The docs page plays the host for each view with the site's sample results.
  const origin = new URL(base).origin;
  const samples = await (await fetch(origin + "/views/samples.json")).json();
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 900 });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(origin + "/docs", { waitUntil: "load" });
  for (const name of ["search", "calendar", "quote"]) {
    const frame = await (await page.waitForSelector(`iframe.view[data-view=${name}]`)).contentFrame();
    await frame.waitForSelector("#main h1", { timeout: 15_000 });
    const sc = samples[name].result.structuredContent;
    const totals = await frame.$$eval("[data-k=total]", (els) => els.map((e) => e.textContent));
    const want = name === "search" ? sc.vehicles.map((x) => nzd(x.totalAmount)) : name === "quote" ? [nzd(sc.totalAmount)] : [];
    check(JSON.stringify(totals) === JSON.stringify(want) && (name !== "calendar" || (await frame.$$("[data-k=free]")).length === sc.calendar.length),
      `/docs: the ${name} view shows its sample result`, totals);
  }
  check(errors.length === 0, "/docs: no console error", errors);
  await (await page.$("#views")).screenshot({ path: join(out, "docs-views.png") });
  await page.close();
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
  hostSrv.close();
  viewSrv.close();
}
console.log(failed ? `FAIL ${failed} checks` : "PASS all checks");
process.exit(failed ? 1 : 0);

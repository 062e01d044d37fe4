// The docs page in a real browser: Debian's headless Chromium, driven by puppeteer-core
// (pinned in package.json), opens ORIGIN/docs, waits until Swagger UI has rendered the
// OpenAPI document, and checks that every operation given is shown, that the quick
// start names this origin, and that the page logged no error, failed no request and
// asked nothing of another origin. It saves a full-page screenshot. Run by
// TestE2ESite (site_e2e_test.go):
//
//   node_modules/.bin/node worker/docs_browser.mjs ORIGIN SHOT.png "GET /api/agent/depots" ...
//
// Prints one line per check; exits 1 if any failed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer from "puppeteer-core";

const [origin, shot, ...want] = process.argv.slice(2);
if (!origin || !shot || want.length === 0) {
  console.error('usage: docs_browser.mjs ORIGIN SHOT.png "GET /path" ...');
  process.exit(2);
}
setTimeout(() => { console.log("FAIL the browser check took more than 60 s"); process.exit(1); }, 60_000).unref();

let failed = 0;
function check(ok, what, detail) {
  console.log((ok ? "ok   " : "FAIL ") + what + (ok || detail === undefined ? "" : ": " + JSON.stringify(detail)));
  if (!ok) failed++;
}

const profile = mkdtempSync(join(tmpdir(), "docs-chromium-"));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  userDataDir: profile,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const errors = [], foreign = [], failedRequests = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith(origin + "/") && !r.url().startsWith("data:")) foreign.push(r.url()); });
  page.on("requestfailed", (r) => failedRequests.push(r.url() + " " + r.failure()?.errorText));
  page.on("response", (r) => { if (r.status() >= 400) failedRequests.push(r.url() + " " + r.status()); });

  const t0 = Date.now();
  const resp = await page.goto(origin + "/docs", { waitUntil: "load", timeout: 20_000 });
  check(resp.status() === 200 && resp.headers()["content-type"]?.startsWith("text/html"), "GET /docs: 200 text/html", resp.status());
  await page.waitForFunction((n) => document.querySelectorAll("#swagger-ui .opblock").length >= n, { timeout: 20_000 }, want.length);
  await page.waitForNetworkIdle({ idleTime: 300, timeout: 10_000 });
  console.log(`     Swagger UI rendered in ${Date.now() - t0} ms`);

  const shown = await page.$$eval("#swagger-ui .opblock", (els) => els.map((e) =>
    (e.querySelector(".opblock-summary-method")?.textContent ?? "") + " " +
    (e.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "")));
  const servers = await page.$$eval("#swagger-ui .servers select option", (els) => els.map((e) => e.value));
  const base = servers[0] ?? "";
  const got = shown.map((s) => s.replace(" ", " " + base)).sort();
  check(JSON.stringify(got) === JSON.stringify([...want].sort()), `every operation of the table is shown (${want.length})`, { shown: got, want });
  const title = await page.$eval("#swagger-ui .title", (e) => e.textContent);
  check(title.includes("Campervan rental agent API"), "the reference's title", title);
  const origins = await page.$$eval(".origin", (els) => els.map((e) => e.textContent));
  check(origins.length > 0 && origins.every((o) => o === origin), "the quick start and the MCP set-up name this origin", origins);
  const steps = await page.$$eval("#quick-start pre", (els) => els.map((e) => e.textContent));
  check(steps.length >= 4 && steps.every((s) => s.startsWith("curl -s '" + origin + base + "/")), "the quick start's curl commands", steps);

  check(errors.length === 0, "no error logged", errors);
  check(failedRequests.length === 0, "no request failed", failedRequests);
  check(foreign.length === 0, "nothing asked of another origin (no CDN)", foreign);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`     screenshot: ${shot}`);
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(failed ? `FAIL ${failed} checks` : "PASS all checks");
process.exit(failed ? 1 : 0);

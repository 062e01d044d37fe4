// A real MCP client against the Worker: the official TypeScript SDK's Client over
// StreamableHTTPClientTransport connects to {base}/mcp, lists the tools and calls
// each one, checking values (and, through the SDK, each result's structuredContent
// against the tool's outputSchema). Run by TestE2EMCPClient (mcp_e2e_test.go):
//
//   node_modules/.bin/node worker/mcp_e2e.mjs http://127.0.0.1:8787/api/agent
//
// Prints one line per check; exits 1 if any failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const base = process.argv[2];
if (!base) {
  console.error("usage: mcp_e2e.mjs BASE_URL (e.g. http://127.0.0.1:8787/api/agent)");
  process.exit(2);
}
let failed = 0;
function check(ok, what, detail) {
  console.log((ok ? "ok   " : "FAIL ") + what + (ok || detail === undefined ? "" : ": " + JSON.stringify(detail)));
  if (!ok) failed++;
}

const client = new Client({ name: "campervan-mcp-e2e", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(base + "/mcp"));
await client.connect(transport);
check(client.getServerVersion()?.name === "campervan-agent-api", "initialize: serverInfo", client.getServerVersion());
check(client.getServerCapabilities()?.tools !== undefined, "initialize: tools capability");
check(typeof client.getInstructions() === "string" && client.getInstructions().includes("list_depots"), "initialize: instructions");
await client.ping();
check(true, "ping");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
check(JSON.stringify(names) === JSON.stringify(["list_depots", "search_vehicles", "search_calendar", "list_accessories", "list_insurance_plans", "get_terms", "get_quote", "check_quote"]), "tools/list: the eight tools", names);
for (const t of tools) {
  check(t.annotations?.readOnlyHint === true && t.annotations?.openWorldHint === false && t.outputSchema?.type === "object", `tools/list: ${t.name} annotations and outputSchema`);
}

async function call(name, args) {
  const r = await client.callTool({ name, arguments: args }); // the SDK validates structuredContent
  if (r.isError) throw new Error(`${name}: isError: ${r.content?.[0]?.text}`);
  const text = JSON.parse(r.content[0].text);
  check(JSON.stringify(text) === JSON.stringify(r.structuredContent), `${name}: text block = structuredContent`);
  return r.structuredContent;
}

const { depots } = await call("list_depots", {});
check(depots.some((d) => d.name.includes("Auckland")), "list_depots: includes Auckland", depots.map((d) => d.name));
check(depots.some((d) => d.id === 2) && depots.some((d) => d.id === 3), "list_depots: depots 2 and 3");

// Dates a month ahead (New Zealand calendar), moved on a day at a time until the
// one-way search 2 -> 3 finds a vehicle.
const day = (t) => new Date(t).toISOString().slice(0, 10);
let search, vehicles = [];
for (let k = 0; k < 10 && vehicles.length === 0; k++) {
  const t0 = Date.now() + (30 + 7 * k) * 86400000;
  search = { pick_up_depot_id: 2, drop_off_depot_id: 3, pick_up_date: day(t0), drop_off_date: day(t0 + 11 * 86400000) };
  const r = await client.callTool({ name: "search_vehicles", arguments: search });
  if (!r.isError) vehicles = r.structuredContent.vehicles;
}
check(vehicles.length > 0 && vehicles.every((v) => v.days === 12 && v.rentalFee > 0), "search_vehicles: vehicles for 12 days", search);
const v = vehicles.find((x) => x.vehicleId === 5) ?? vehicles[0];

const { accessories } = await call("list_accessories", { vehicleId: v.vehicleId, pick_up_date: search.pick_up_date, drop_off_date: search.drop_off_date });
check(accessories.length > 0 && accessories.every((a) => typeof a.cost === "number"), "list_accessories: with costs for the period");
const { insurancePlans } = await call("list_insurance_plans", { vehicleId: String(v.vehicleId) });
check(insurancePlans.length > 0 && insurancePlans.every((p) => p.cost === undefined), "list_insurance_plans: without dates, no cost");
const plan = insurancePlans.find((p) => p.price > 0) ?? insurancePlans[0];

const args = { ...search, vehicle_id: v.vehicleId, accessory_ids: `${accessories[0].id},${accessories[0].id}`, insurance_id: plan.id };
const quote = await call("get_quote", args);
const fees = quote.priceBreakdown;
const sum = Math.round(100 * (fees.rentalFee + fees.routeFee + fees.accessoriesFee + fees.insuranceFee));
check(Math.round(100 * quote.totalAmount) === sum, "get_quote: totalAmount = the sum of the four fees", quote);
check(fees.rentalFee === v.rentalFee && quote.vehicleId === v.vehicleId && quote.days === 12, "get_quote: rental fee as searched");
check(quote.accessories[0]?.quantity === 2 && quote.insurance?.id === plan.id, "get_quote: accessories and insurance");
const cents = (x) => Math.round(100 * x);
check(quote.terms.payment.reduce((a, p) => a + cents(p.amount), 0) === cents(quote.totalAmount) && quote.terms.cancellation.at(-1).until === search.pick_up_date,
  "get_quote: terms (payments add up to the total, the last tier ends on the pick-up date)", quote.terms);
// The all-in search: each option's total is get_quote's with that plan and no accessories.
// Its result comes in pages (nextPage, the page argument): all of them are the HTTP list.
const allIn = { vehicles: [] };
for (let page, n = 0; n === 0 || page; n++) {
  const r = await call("search_vehicles", { ...search, driver_age: 30, include: "insurance", ...(page ? { page } : {}) });
  allIn.vehicles.push(...r.vehicles);
  page = r.nextPage;
  check(n < 20 && r.vehicles.length > 0, "search_vehicles: each page has vehicles", r);
}
const allInHTTP = await (await fetch(`${base}/vehicles/availability?${new URLSearchParams({ ...search, driver_age: "30", include: "insurance", limit: "100" })}`)).json();
check(JSON.stringify(allIn.vehicles) === JSON.stringify(allInHTTP), "search_vehicles: the pages hold the HTTP list", allIn.vehicles.length);
const opt = allIn.vehicles.find((x) => x.vehicleId === v.vehicleId)?.insuranceOptions?.find((o) => o.id === plan.id);
const plain = await call("get_quote", { ...search, vehicle_id: v.vehicleId, insurance_id: plan.id, driver_age: "30" });
check(opt !== undefined && cents(opt.totalAmount) === cents(plain.totalAmount) && opt.excess === plain.terms.excess, "search_vehicles include insurance: an option's total = get_quote's", opt);
const terms = await call("get_terms", {});
check(terms.insurance.some((p) => p.id === plan.id && p.excess === plain.terms.excess) && terms.drivers.minimumAge.length > 0, "get_terms: the plans' excess, the minimum ages", terms);
// The same quote from the HTTP API.
const qs = new URLSearchParams(Object.entries(args).map(([k, x]) => [k, String(x)]));
const http = await (await fetch(`${base}/quotes?${qs}`)).json();
check(http.totalAmount === quote.totalAmount && JSON.stringify(http.priceBreakdown) === JSON.stringify(fees), "get_quote: equals GET /quotes", http);

// The calendar of that start date (and the next two) for the same vehicle: its total is
// the quote's without extras.
const { calendar } = await call("search_calendar", { pick_up_depot_id: 2, drop_off_depot_id: 3, earliest_pick_up_date: search.pick_up_date,
  latest_pick_up_date: day(Date.parse(search.pick_up_date) + 2 * 86400000), days: 12, vehicle_id: v.vehicleId });
check(calendar.length === 3 && calendar[0].pick_up_date === search.pick_up_date && calendar[0].drop_off_date === search.drop_off_date, "search_calendar: one entry per start date", calendar);
check(calendar[0].free === 1 && calendar[0].cheapest.length === 1 && Math.round(100 * calendar[0].cheapest[0].totalAmount) === Math.round(100 * (fees.rentalFee + fees.routeFee)), "search_calendar: totalAmount = the quote's rental + route fee", calendar[0]);
// The quote checked by its id: still valid, re-quoted at the same total.
const checked = await call("check_quote", { quoteId: quote.quoteId });
check(checked.status === "valid" && checked.originalTotalAmount === quote.totalAmount && checked.quote?.totalAmount === quote.totalAmount && checked.quote.quoteId !== quote.quoteId, "check_quote: valid, the same total, a new id", checked);
const forged = await client.callTool({ name: "check_quote", arguments: { quoteId: quote.quoteId.slice(0, -2) + (quote.quoteId.endsWith("AA") ? "BA" : "AA") } });
check(forged.isError === true && forged.content[0].text.includes("quoteId"), "check_quote: an altered id is isError naming quoteId", forged);

// A bad argument: isError naming it, as the HTTP API's 400 does.
const bad = await client.callTool({ name: "get_quote", arguments: { ...args, pick_up_date: "2026-02-30" } });
check(bad.isError === true && bad.content[0].text.includes("pick_up_date") && bad.structuredContent === undefined, "get_quote: a bad date is isError naming pick_up_date", bad);
// An unknown tool: a JSON-RPC error.
try {
  await client.callTool({ name: "book_vehicle", arguments: {} });
  check(false, "unknown tool: an error");
} catch (err) {
  check(err.code === -32602 && String(err.message).includes("book_vehicle"), "unknown tool: JSON-RPC -32602", String(err));
}

await client.close();
console.log(failed === 0 ? "PASS all checks" : `FAIL ${failed} checks`);
process.exit(failed === 0 ? 0 : 1);

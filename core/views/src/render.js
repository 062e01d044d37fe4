"use strict";
// What each view shows of its tool's structuredContent.

function render(sc) {
  const v = document.body.dataset.view;
  if (v === "search") show(...searchView(sc.vehicles || [], input, !!sc.nextPage));
  else if (v === "calendar") show(...calendarView(sc.calendar || []));
  else show(...quoteView(sc));
}

const canCall = () => !!host.caps.serverTools;

// searchView: one card per vehicle, in the result's order.
function searchView(vehicles, args, more) {
  if (vehicles.length === 0) return [el("p", { role: "status" }, "No vehicle is free for these dates and depots.")];
  const head = el("h1", null, (more ? "The first " : "") + vehicles.length + (vehicles.length === 1 ? " vehicle" : " vehicles") + " free",
    args.pick_up_date ? el("span", { class: "sub" }, " · " + day(args.pick_up_date) + " – " + day(args.drop_off_date)) : "");
  return [head, el("ul", { class: "grid", "aria-label": "Vehicles" }, vehicles.map((v) => vehicleCard(v, args)))];
}

function vehicleCard(v, args) {
  const note = el("p", { class: "sub", role: "status", "aria-live": "polite" });
  const ins = (v.insuranceOptions || []).length ? el("table", { class: "ins" },
    el("caption", { class: "sr" }, "Insurance for " + v.name),
    el("thead", null, el("tr", null, el("th", null, "Insurance"), el("th", { class: "n" }, "Total"), el("th", { class: "n" }, "Excess"), el("th", { class: "n" }, "Bond"))),
    el("tbody", null, v.insuranceOptions.map((o) => el("tr", null, el("td", null, o.name), el("td", { class: "n", "data-k": "ins-total" }, money(o.totalAmount)), el("td", { class: "n" }, money(o.excess)), el("td", { class: "n" }, money(o.bond)))))) : "";
  const actions = el("div", { class: "row" });
  if (v.bookingUrl) actions.append(el("button", { class: canCall() ? "ghost" : "", "data-act": "book", onclick: () => openLink(v.bookingUrl, note) }, "Book ", el("span", { class: "sr" }, v.name)));
  if (canCall() && args.pick_up_date) {
    const q = el("button", { "data-act": "quote", onclick: async () => {
      q.disabled = true;
      note.textContent = "Getting a quote…";
      try {
        const quote = await callTool("get_quote", quoteArgs(args, v.vehicleId));
        note.replaceChildren("Quote " + money(quote.totalAmount) + ", valid until " + day(quote.expiresAt) + ". ",
          el("button", { "data-act": "checkout", onclick: () => openLink(quote.checkoutUrl, note) }, "Checkout"));
      } catch (err) { note.textContent = err.message; note.className = "err"; q.disabled = false; }
    } }, "Get quote ", el("span", { class: "sr" }, "for " + v.name));
    actions.append(q);
  }
  return el("li", { class: "card", "data-vehicle": v.vehicleId },
    el("div", { class: "row" }, el("h2", { "data-k": "name" }, v.name), icon(v.class)),
    el("p", { class: "sub" }, [cap(v.class), v.berths + " berths", v.transmission, v.days + " days"].join(" · ")),
    el("div", { class: "row" }, el("span", { class: "total", "data-k": "total" }, money(v.totalAmount)), el("span", { class: "sub" }, money(v.rentalDailyRate) + " a day")),
    ins, actions, note);
}

function quoteArgs(args, vehicleId) {
  const a = { vehicle_id: vehicleId };
  for (const k of ["pick_up_depot_id", "drop_off_depot_id", "pick_up_date", "drop_off_date", "driver_age"]) if (args[k] !== undefined) a[k] = args[k];
  return a;
}
const cap = (s) => s ? s[0].toUpperCase() + s.slice(1) : "";

// calendarView: start dates down, hire lengths across; a cell runs that search.
function calendarView(rows) {
  const starts = [...new Set(rows.map((r) => r.pick_up_date))];
  const lengths = [...new Set(rows.map((r) => r.days))].sort((a, b) => a - b);
  const at = new Map(rows.map((r) => [r.pick_up_date + "/" + r.days, r]));
  const out = el("section", { "aria-live": "polite" });
  const table = el("table", { class: "cal" },
    el("caption", { class: "sr" }, "Cheapest total and free vehicles by start date and hire length"),
    el("thead", null, el("tr", null, el("th", { scope: "col" }, "Start"), lengths.map((d) => el("th", { scope: "col" }, d + " days")))),
    el("tbody", null, starts.map((s) => el("tr", null, el("th", { scope: "row" }, day(s)), lengths.map((d) => el("td", { "data-cell": s + "/" + d }, calendarCell(at.get(s + "/" + d), out)))))));
  return [el("h1", null, "Flexible dates"), el("div", { class: "scroll" }, table), out];
}

function calendarCell(r, out) {
  if (!r) return "";
  if (r.reason && !r.free) return el("span", { class: "closed", "data-k": "closed" }, r.reason);
  const low = (r.cheapest || r.vehicles || [])[0];
  const label = el("span", null, el("b", { "data-k": "cheapest" }, low ? money(low.totalAmount) : "–"), el("small", { "data-k": "free" }, (r.free || 0) + " free"));
  if (!canCall() || !r.free) return label;
  return el("button", { class: "cell", "aria-label": day(r.pick_up_date) + ", " + r.days + " days: from " + (low ? money(low.totalAmount) : "") + ", " + r.free + " free. Show these vehicles",
    onclick: async () => {
      const args = { ...input, pick_up_date: r.pick_up_date, drop_off_date: r.drop_off_date };
      for (const k of ["earliest_pick_up_date", "latest_pick_up_date", "days", "detail", "page", "limit", "vehicle_id"]) delete args[k];
      out.replaceChildren(el("p", { class: "sub" }, "Searching…"));
      try { const sc = await callTool("search_vehicles", args); out.replaceChildren(...searchView(sc.vehicles || [], args, !!sc.nextPage)); }
      catch (err) { out.replaceChildren(el("p", { class: "err" }, err.message)); }
    } }, label);
}

// quoteView: a get_quote result, or check_quote's status with the quote priced now.
function quoteView(sc) {
  const parts = [];
  let q = sc;
  if (sc.status) {
    parts.push(el("p", { class: sc.status === "valid" ? "okc" : "err", role: "status", "data-k": "status" },
      { valid: "This quote is still valid.", changed: "The price has changed: it was " + money(sc.originalTotalAmount) + ".", unavailable: "No longer available" + (sc.reason ? ": " + sc.reason : "."), expired: "This quote has expired." }[sc.status] || sc.status));
    (sc.suggestions || []).forEach((s) => parts.push(el("p", null, el("button", { class: "ghost", onclick: (e) => openLink(s.url, e.target) }, s.reason))));
    q = sc.quote;
    if (!q) return parts;
  }
  const b = q.priceBreakdown || {};
  const fees = [["Rental", b.rentalFee], ["One-way fee", b.routeFee], ["Accessories", b.accessoriesFee], ["Insurance", b.insuranceFee]];
  const t = q.terms || {};
  const note = el("p", { class: "sub", role: "status" });
  parts.push(
    el("h1", null, "Quote for " + q.days + " days", el("span", { class: "sub" }, " · vehicle " + q.vehicleId)),
    el("table", null, el("caption", { class: "sr" }, "Price breakdown"),
      el("tbody", null, fees.map(([k, v]) => el("tr", { "data-fee": k }, el("th", { scope: "row" }, k), el("td", { class: "n" }, money(v)))),
        (q.accessories || []).map((a) => el("tr", null, el("td", { class: "sub" }, "  " + a.quantity + " × " + a.name), el("td", { class: "n sub" }, money(a.cost)))),
        q.insurance ? el("tr", null, el("td", { class: "sub" }, "  " + q.insurance.name), el("td", { class: "n sub" }, money(q.insurance.cost))) : "",
        el("tr", null, el("th", { scope: "row" }, "Total (NZD, GST " + money(q.gstIncluded) + " incl.)"), el("td", { class: "n total", "data-k": "total" }, money(q.totalAmount))))),
    el("p", { class: "sub" }, "Excess " + money(t.excess) + " · bond " + money(t.bond) + (t.minimumDriverAge ? " · drivers " + t.minimumDriverAge + "+" : "")),
    el("h3", null, "Cancellation"),
    el("ol", { class: "tl", "data-k": "cancellation" }, (t.cancellation || []).map((c) => el("li", null, (c.until ? "Until " + day(c.until) : "After that") + ": fee " + money(c.fee)))),
    el("h3", null, "Payments"),
    el("ol", { class: "tl", "data-k": "payment" }, (t.payment || []).map((p) => el("li", null, money(p.amount) + " due " + day(p.due)))),
    el("p", { class: "sub" }, q.note || ""),
    el("div", { class: "row" }, el("span", { class: "sub" }, "Valid until " + day(q.expiresAt)),
      q.checkoutUrl ? el("button", { "data-act": "checkout", onclick: () => openLink(q.checkoutUrl, note) }, "Checkout") : ""),
    note);
  return parts;
}

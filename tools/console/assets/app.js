// The dead-letter console: the overview (counts by cause, origin and age), a filtered, paginated
// list, one dead letter in full, and replay / purge of a selection after a confirmation that says
// how many will be touched. Talks to the JSON API of console_api.hpp; no third-party code.
"use strict";

const state = { filter: {}, offset: 0, limit: 50, total: 0, selected: new Set(), readOnly: true,
                payload: null, mode: "text" };
const $ = (id) => document.getElementById(id);

function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else if (name === "className") node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function showBanner(message, kind = "error") {
  const banner = $("banner");
  banner.textContent = message;
  banner.className = kind === "info" ? "info" : "";
  banner.hidden = false;
}

async function api(path, options = {}) {
  const response = await fetch(path, { credentials: "same-origin", ...options });
  let body = null;
  try { body = await response.json(); } catch (e) { body = { error: response.statusText }; }
  if (!response.ok) throw new Error(body.error || `${response.status} ${response.statusText}`);
  return body;
}

function query(extra = {}) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...state.filter, ...extra })) {
    if (value !== "" && value !== undefined) params.set(name, value);
  }
  return params.toString();
}

function shortTopic(topic) {
  if (!topic) return "(none)";
  return topic.replace(/^persistent:\/\/public\/default\//, "");
}

function humanAge(ms) {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(0)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d`;
}

function chart(container, entries) {
  container.replaceChildren();
  const most = Math.max(1, ...entries.map(([, count]) => count));
  if (entries.length === 0) container.append(element("p", { className: "muted", text: "none" }));
  for (const [label, count] of entries) {
    const bar = element("div", { className: "bar" });
    bar.style.width = count > 0 ? `${Math.max(1, (100 * count) / most)}%` : "0";
    container.append(element("div", { className: "bar-row", "data-label": label }, [
      element("span", { className: "bar-label", title: label, text: label }),
      element("div", {}, [bar]),
      element("span", { className: "bar-count", text: String(count) }),
    ]));
  }
}

async function loadStats() {
  const stats = await api(`/api/stats?${query()}`);
  $("total").textContent = String(stats.count);
  $("total-label").textContent = stats.count === 1 ? "dead letter" : "dead letters";
  $("bytes").textContent = `${stats.payloadBytes} bytes of payload`;
  chart($("chart-cause"), Object.entries(stats.byCause));
  chart($("chart-origin"), Object.entries(stats.byOrigin).map(([t, n]) => [shortTopic(t), n]));
  chart($("chart-age"), stats.ages.map((bucket) => [bucket.label, bucket.count]));
}

function updateSelection() {
  $("selected").textContent = `${state.selected.size} selected`;
  for (const id of ["replay", "purge"]) $(id).disabled = state.selected.size === 0;
}

async function loadList() {
  const page = await api(`/api/list?${query({ offset: state.offset, limit: state.limit })}`);
  state.total = page.total;
  const rows = $("rows");
  rows.replaceChildren();
  for (const item of page.items) {
    const box = element("input", { type: "checkbox", className: "select", "data-id": item.id,
                                   "aria-label": `Select ${item.id}` });
    box.checked = state.selected.has(item.id);
    box.addEventListener("change", () => {
      if (box.checked) state.selected.add(item.id); else state.selected.delete(item.id);
      updateSelection();
    });
    const open = element("button", { text: item.id, "data-id": item.id });
    open.addEventListener("click", () => show(item.id).catch((e) => showBanner(e.message)));
    rows.append(element("tr", { "data-id": item.id }, [
      element("td", {}, [box]),
      element("td", { className: "id" }, [open]),
      element("td", { text: humanAge(item.ageMs) }),
      element("td", { text: item.cause }),
      element("td", { text: item.category ?? "-" }),
      element("td", { text: shortTopic(item.originTopic) }),
      element("td", { className: "reason", title: item.reason, text: item.reason }),
    ]));
  }
  const last = Math.min(page.total, state.offset + page.items.length);
  $("page").textContent = page.total === 0 ? "nothing matches"
                                           : `${state.offset + 1}–${last} of ${page.total}`;
  $("prev").disabled = state.offset === 0;
  $("next").disabled = last >= page.total;
  updateSelection();
}

// Each finished refresh counts up body[data-generation]: a test (or a person) waiting for a
// change knows when both the counts and the list show it.
let generation = 0;
async function refresh() {
  try {
    await Promise.all([loadStats(), loadList()]);
  } catch (e) {
    showBanner(e.message);
  }
  document.body.dataset.generation = String(++generation);
}

function bytesOf(payload, encoding) {
  if (encoding === "base64") return Uint8Array.from(atob(payload), (c) => c.charCodeAt(0));
  return new TextEncoder().encode(payload);
}

function renderPayload() {
  const { payload, payloadEncoding } = state.payload;
  let text;
  if (state.mode === "hex") {
    const bytes = bytesOf(payload, payloadEncoding);
    const lines = [];
    for (let i = 0; i < bytes.length; i += 16) {
      const chunk = Array.from(bytes.slice(i, i + 16));
      lines.push(`${i.toString(16).padStart(6, "0")}  ` +
                 chunk.map((b) => b.toString(16).padStart(2, "0")).join(" ").padEnd(48) + "  " +
                 chunk.map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join(""));
    }
    text = lines.join("\n");
  } else if (state.mode === "json") {
    try {
      text = JSON.stringify(JSON.parse(payload), null, 2);
    } catch (e) {
      text = `(not JSON: ${e.message})`;
    }
  } else {
    text = payloadEncoding === "base64" ? `(binary, shown as base64)\n${payload}` : payload;
  }
  $("payload").textContent = text;
  for (const button of document.querySelectorAll("button.mode")) {
    button.setAttribute("aria-pressed", String(button.dataset.mode === state.mode));
  }
}

async function show(id) {
  const letter = await api(`/api/show?id=${encodeURIComponent(id)}`);
  $("detail-title").textContent = `Dead letter ${letter.id}`;
  const summary = $("detail-summary");
  summary.replaceChildren();
  const facts = [["Cause", letter.cause], ["Category", letter.category ?? "-"],
                 ["Reason", letter.reason || "-"], ["Origin", letter.originTopic ?? "(none)"],
                 ["Original id", letter.originMessageId ?? "-"],
                 ["Retries", String(letter.reconsumeTimes)], ["Replayed before", String(letter.replayCount)],
                 ["Key", letter.key ?? "-"], ["Dead-lettered", `${letter.publishTimeUtc} (${humanAge(letter.ageMs)} ago)`]];
  for (const [name, value] of facts) summary.append(element("dt", { text: name }), element("dd", { text: value }));
  const history = $("detail-history");
  history.replaceChildren();
  for (const hop of letter.history) {
    const when = new Date(hop.at).toISOString();
    const what = hop.delayMs > 0 ? `retry ${hop.count}, after ${hop.delayMs} ms` : `dead-lettered after ${hop.count} retries`;
    history.append(element("li", { className: hop.delayMs > 0 ? "" : "dead" }, [
      element("strong", { text: when }), ` ${what}`,
      hop.reason ? element("div", { className: "muted", text: hop.reason }) : "",
      hop.category ? element("div", { className: "muted", text: `category ${hop.category}` }) : "",
    ]));
  }
  if (letter.history.length === 0) history.append(element("li", { text: "no history recorded" }));
  const properties = $("detail-properties").tBodies[0];
  properties.replaceChildren();
  for (const [name, value] of Object.entries(letter.properties)) {
    properties.append(element("tr", {}, [element("th", { text: name }), element("td", { text: value })]));
  }
  $("payload-size").textContent = `(${letter.payloadSize} bytes, ${letter.payloadEncoding})`;
  state.payload = letter;
  state.mode = letter.payloadEncoding === "base64" ? "hex" : "text";
  renderPayload();
  $("detail").hidden = false;
  $("detail").scrollIntoView();
}

function confirmDialog(text, action) {
  return new Promise((resolve) => {
    const dialog = $("confirm");
    $("confirm-text").textContent = text;
    $("confirm-yes").textContent = action;
    const done = (answer) => { dialog.close(); resolve(answer); };
    $("confirm-yes").onclick = () => done(true);
    $("confirm-no").onclick = () => done(false);
    dialog.showModal();
  });
}

async function change(kind) {
  const ids = Array.from(state.selected);
  const post = (dryRun) => api(`/api/${kind}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Reconsume-Console": "1" },
    body: JSON.stringify({ ids, dryRun }),
  });
  try {
    const plan = await post(true);
    const count = kind === "replay" ? plan.matched - plan.skipped : plan.matched;
    const noun = count === 1 ? "dead letter" : "dead letters";
    const text = kind === "replay"
      ? `Replay ${count} ${noun} to ${count === 1 ? "its" : "their"} original topic${count === 1 ? "" : "s"}? ` +
        "They are republished and then removed from the dead-letter topic."
      : `Purge ${count} ${noun}? They are removed from the dead-letter topic for good.`;
    if (!(await confirmDialog(text, kind === "replay" ? `Replay ${count}` : `Purge ${count}`))) return;
    const result = await post(false);
    const done = kind === "replay" ? result.replayed : result.purged;
    showBanner(`${kind === "replay" ? "Replayed" : "Purged"} ${done} of ${result.matched}` +
               (result.error ? `: ${result.error}` : ""), result.error ? "error" : "info");
    state.selected.clear();
    await refresh();
  } catch (e) {
    showBanner(e.message);
  }
}

function readFilter() {
  const form = new FormData($("filter-form"));
  state.filter = Object.fromEntries(Array.from(form.entries()).filter(([, v]) => v !== ""));
  state.offset = 0;
  state.selected.clear();
}

async function start() {
  try {
    const config = await api("/api/config");
    $("topic").textContent = config.topic;
    state.readOnly = config.readOnly;
    $("readonly").hidden = !config.readOnly;
    for (const button of document.querySelectorAll("button.change")) button.hidden = config.readOnly;
    if (config.warnings.length > 0) showBanner(config.warnings.join(" "), "info");
  } catch (e) {
    showBanner(e.message);
    return;
  }
  $("filter-form").addEventListener("submit", (event) => {
    event.preventDefault();
    $("banner").hidden = true;
    readFilter();
    refresh();
  });
  $("clear").addEventListener("click", () => {
    $("filter-form").reset();
    readFilter();
    refresh();
  });
  $("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - state.limit); loadList().catch((e) => showBanner(e.message)); });
  $("next").addEventListener("click", () => { state.offset += state.limit; loadList().catch((e) => showBanner(e.message)); });
  $("select-all").addEventListener("change", (event) => {
    for (const box of document.querySelectorAll("#rows input.select")) {
      box.checked = event.target.checked;
      if (box.checked) state.selected.add(box.dataset.id); else state.selected.delete(box.dataset.id);
    }
    updateSelection();
  });
  $("replay").addEventListener("click", () => change("replay"));
  $("purge").addEventListener("click", () => change("purge"));
  $("detail-close").addEventListener("click", () => { $("detail").hidden = true; });
  for (const button of document.querySelectorAll("button.mode")) {
    button.addEventListener("click", () => { state.mode = button.dataset.mode; renderPayload(); });
  }
  await refresh();
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", start);

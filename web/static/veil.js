// Veil's page: sessions, turns with a live trace (Server-Sent Events), answers, uploads.
// Plain DOM, no build step; elements get textContent, never innerHTML (thread text stays text).
"use strict";

const csrf = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);
const form = $("ask");
const conversation = $("conversation");
let session = new URLSearchParams(location.hash.slice(1)).get("s");

let running = null; // the turn this page is waiting for: {id, view}
$("tz").value = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
// The zone picker searches the browser's IANA list, filled on first use.
$("tz").addEventListener("focus", () => {
  const list = $("zones");
  if (list.childElementCount || !Intl.supportedValuesOf) return;
  // ICU lists a few zones by old names (Asia/Calcutta): add today's too.
  const zones = new Set([...Intl.supportedValuesOf("timeZone"), "Asia/Kolkata", "Europe/Kyiv",
    "Asia/Ho_Chi_Minh", "Asia/Kathmandu", "Asia/Yangon", "America/Nuuk", "Pacific/Kanton"]);
  list.append(...[...zones].sort().map((zone) => el("option", { value: zone })));
}, { once: true });

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

async function api(path, { method = "GET", json, body } = {}) {
  const headers = { "X-CSRF-Token": csrf };
  if (json !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: json !== undefined ? JSON.stringify(json) : body,
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// ---------------------------------------------------------------- sessions
async function loadSessions() {
  const { sessions } = await api("/api/sessions");
  const list = $("session-list");
  list.replaceChildren();
  for (const item of sessions) {
    const button = el("button", { type: "button", text: item.title });
    if (item.id === session) {
      button.setAttribute("aria-current", "page");
      $("session-title").textContent = item.title;
    }
    button.addEventListener("click", () => openSession(item.id));
    list.append(el("li", {}, button));
  }
  $("session-actions").hidden = !session;
  if (!session) $("session-title").textContent = "New chat";
}

async function openSession(id) {
  session = id;
  location.hash = id ? `s=${id}` : "";
  conversation.replaceChildren();
  proposals = [];
  if (id) {
    try {
      const { turns } = await api(`/api/sessions/${id}`);
      for (const turn of turns) {
        const view = turnView(turn.id, turn.said);
        for (const event of turn.events) addTrace(view, event);
        if (turn.status === "running") follow(view, turn.id);
        else showOutcome(view, turn);
      }
    } catch (error) {
      session = null;
      location.hash = "";
    }
  }
  await Promise.all([loadSessions(), loadWeek()]);
  $("request").focus();
  document.body.dataset.ready = "1";
}

// Actions show only for a saved chat; a failure is said on the page, never left uncaught.
function sessionAction(id, work) {
  $(id).addEventListener("click", async () => {
    if (!session) return;
    try {
      await work();
    } catch (error) {
      showError(error.message);
    }
  });
}

function showError(message) {
  $("upload-status").replaceChildren(el("p", { class: "error", role: "alert", text: message }));
}

$("new-session").addEventListener("click", () => openSession(null));
sessionAction("rename-session", async () => {
  const title = prompt("New name for this chat:", $("session-title").textContent);
  if (title) await api(`/api/sessions/${session}/rename`, { method: "POST", json: { title } });
  await loadSessions();
});
sessionAction("forget-session", async () => {
  if (!confirm("Forget this chat's messages, files and names? The chat stays in the list.")) return;
  await api(`/api/sessions/${session}/forget`, { method: "POST", json: {} });
  await openSession(session);
});
sessionAction("delete-session", async () => {
  if (!confirm("Delete this chat and everything Veil remembers from it?")) return;
  await api(`/api/sessions/${session}/delete`, { method: "POST", json: {} });
  await openSession(null);
});

// ---------------------------------------------------------------- turns
function turnView(id, said) {
  const list = el("ol", { class: "trace-list" });
  const count = el("span", { text: "0" });
  const trace = el("details", { class: "trace", open: "" },
    el("summary", {}, "Trace (", count, " events)"), list);
  const answer = el("div", { class: "answer" });
  const article = el("article", { class: "turn", id: `turn-${id}`, "aria-label": "Turn" },
    el("p", { class: "said", text: said }), trace, answer);
  conversation.append(article);
  article.scrollIntoView({ block: "end" });
  return { id, article, list, count, answer, trace };
}

// Stages as a person would say them: the trace lists them, the progress line shows the last.
const STAGES = {
  queued: "Waiting to start", warming: "Waiting for Veil to finish loading",
  redact: "Reading the thread", times: "Finding the times you stated", link: "Reading the thread",
  plan: "Planning", import: "Importing the calendar", reply: "Writing the reply", done: "Done",
};
const TOOLS = { create_event: "Adding the event", create_reminder: "Adding the reminder",
  draft_reply: "Drafting the e-mail", move_event: "Moving the event", cancel_event: "Cancelling the event" };

function doing(event) {
  if (event.stage === "queue") return `In line behind another turn: position ${event.position}`;
  if (event.stage === "step")
    return TOOLS[event.tool] || (/event|slot|conflict/.test(event.tool) ? "Checking your calendar" : "Working");
  return event.stage === "done" ? "" : STAGES[event.stage];
}

function describe(event) {
  if (event.stage === "plan" && event.status === "ok")
    return `Plan (${event.planner}): ${(event.steps || []).join(" → ")}`;
  if (event.stage === "step") {
    const mark = { running: "▶", ok: "✓", failed: "✗", blocked: "⛔" }[event.status] || "";
    return `${mark} ${event.tool}${event.status === "running" ? "…" : ` ${event.status}`}` +
      (event.detail ? ` — ${event.detail}` : "");
  }
  return doing(event) || STAGES[event.stage] || `${event.stage} ${event.status || ""}`;
}

function addTrace(view, event) {
  const seconds = ((event.ms || 0) / 1000).toFixed(1);
  view.list.append(el("li", { class: `trace-event ${event.status || ""}`, "data-stage": event.stage },
    `${describe(event)} `, el("span", { class: "meta", text: `+${seconds} s` })));
  view.count.textContent = String(view.list.children.length);
  if (running && running.view === view && doing(event) && !running.stopping)
    $("stage").textContent = `${doing(event)}…`;
}

// While a turn runs: the stage and a spinner, Ask disabled, Stop (or Esc) ends it cleanly.
function setRunning(turn) {
  running = turn;
  $("send").disabled = Boolean(turn);
  $("stop").hidden = !turn;
  $("stop").disabled = false;
  $("progress").hidden = !turn;
  if (turn) $("stage").textContent = "Starting…";
}

async function stop() {
  if (!running || running.stopping) return;
  const turn = running;
  turn.stopping = true;
  $("stop").disabled = true;
  $("stage").textContent = "Stopping…";
  try {
    const { stopping } = await api(`/api/turns/${turn.id}/stop`, { method: "POST", json: {} });
    if (!stopping && running === turn) $("stage").textContent = "Too late to stop: Veil is saving, almost done…";
  } catch (error) {
    showError(error.message);
  }
}

$("stop").addEventListener("click", stop);
document.addEventListener("keydown", (key) => { if (key.key === "Escape" && running) stop(); });
$("request").addEventListener("keydown", (key) => {
  if (key.key !== "Enter" || key.shiftKey || key.isComposing) return;
  key.preventDefault();
  form.requestSubmit();
});

function follow(view, id) {
  setRunning({ id, view });
  const source = new EventSource(`/api/turns/${id}/events`);
  let seen = view.list.children.length;
  source.addEventListener("trace", (message) => {
    const event = JSON.parse(message.data);
    if (event.seq >= seen) { addTrace(view, event); seen = event.seq + 1; }
  });
  source.addEventListener("end", async () => {
    source.close();
    try {
      const turn = await api(`/api/turns/${id}`);
      showOutcome(view, turn);
      view.shows = turn.answer?.events[0]?.start;
    } catch (error) {
      view.answer.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
    }
    if (running && running.id === id) setRunning(null);
    view.article.scrollIntoView({ block: "end" });
    loadWeek(view.shows);
  });
}

form.addEventListener("submit", async (submit) => {
  submit.preventDefault();
  await ask($("request").value, $("thread").value);
});

async function ask(request, thread) {
  if (running) return;
  const said = [request, thread].filter((part) => part.trim()).join("\n\n");
  try {
    const started = await api("/api/turns", {
      method: "POST", json: { request, thread, tz: $("tz").value, session },
    });
    const fresh = started.session !== session;
    session = started.session;
    location.hash = `s=${session}`;
    if (fresh) await loadSessions();
    $("request").value = "";
    $("thread").value = "";
    $("ocr-note").hidden = true;
    follow(turnView(started.turn, said), started.turn);
  } catch (error) {
    showError(error.message);
  }
}

// ---------------------------------------------------------------- answers
function showOutcome(view, turn) {
  view.trace.open = false;
  if (turn.status === "interrupted") {
    const rerun = el("button", { type: "button", class: "rerun", text: "Re-run this turn" });
    rerun.addEventListener("click", async () => {
      rerun.disabled = true;
      try {
        const started = await api(`/api/turns/${turn.id}/rerun`, {
          method: "POST", json: { tz: $("tz").value },
        });
        follow(turnView(started.turn, view.article.querySelector(".said").textContent), started.turn);
      } catch (error) {
        rerun.disabled = false;
        view.answer.append(el("p", { class: "error", role: "alert", text: error.message }));
      }
    });
    view.answer.replaceChildren(
      el("p", { class: "error", text: "This turn was interrupted (Veil stopped while it ran)." }),
      rerun);
    return;
  }
  if (turn.status === "stopped") {
    view.answer.replaceChildren(el("p", { class: "stopped meta", text: turn.error }));
    return;
  }
  if (turn.error || !turn.answer) {
    view.answer.replaceChildren(el("p", { class: "error", role: "alert", text: turn.error || "No answer." }));
    return;
  }
  const answer = turn.answer;
  const proposed = answer.events.filter((e) => e.status === "proposed");
  proposals = proposed.map((e, i) => ({ title: e.title, start: e.start, answer: answer.slots[i]?.answer }));
  const parts = [el("p", { class: "reply", text: answer.reply })];
  if (answer.question) parts.push(el("p", { class: "question", text: answer.question }));
  if (answer.slots.length) {
    const slots = el("div", { class: "slots", role: "group", "aria-label": "Proposed times" });
    for (const slot of answer.slots) {
      const button = el("button", { type: "button", class: "slot", text: slot.label,
        "aria-label": `Choose ${slot.label}` });
      button.addEventListener("click", () => ask(slot.answer, ""));
      slots.append(button);
    }
    parts.push(slots);
  }
  for (const event of answer.events) parts.push(eventCard(event, turn.tz || $("tz").value));
  if (answer.files.length) parts.push(downloads(answer));
  parts.push(modelSaw(view.id));
  view.answer.replaceChildren(...parts);
}

function eventCard(event, tz) {
  const rows = el("dl");
  const add = (term, value) => { if (value) rows.append(el("dt", { text: term }), el("dd", {}, value)); };
  add("When", `${event.when} (${tz})`);
  add("Where", event.location);
  add("With", event.attendees.join(", "));
  add("Status", el("span", {},
    el("span", { class: `badge status-${event.status}`, text: event.status }), ` ${event.reason}`));
  if (event.conflicts.length) {
    const list = el("ul", { class: "conflicts" });
    for (const c of event.conflicts)
      list.append(el("li", {}, el("span", { class: "badge conflict", text: "conflict" }),
        ` ${c.title}, ${c.when} (${tz}; ${c.relation})`));
    add("Conflicts", list);
  }
  return el("article", { class: "event-card", "aria-label": event.title },
    el("h4", { text: event.title }), rows);
}

function downloads(answer) {
  const box = el("div", { class: "downloads", role: "group", "aria-label": "Downloads" });
  const names = { ics: "Download .ics", eml: "Download e-mail (.eml)", mailto: "Open in mail app" };
  for (const file of answer.files) {
    const link = el("a", { href: file.url, class: `file-${file.type}`, text: names[file.type],
      title: file.label, "aria-label": `${names[file.type]}: ${file.label}` });
    if (file.type !== "mailto") link.setAttribute("download", "");
    box.append(link);
  }
  if (answer.all_ics)
    box.append(el("a", { href: answer.all_ics, class: "file-all", download: "", text: "Download all (.ics)" }));
  return box;
}

function modelSaw(id) {
  const body = el("div");
  const panel = el("details", { class: "model-saw" }, el("summary", { text: "What the model saw" }), body);
  panel.addEventListener("toggle", async () => {
    if (!panel.open || body.childElementCount) return;
    const { prompts, model } = await api(`/api/turns/${id}/prompts`);
    if (!prompts.length) {
      body.append(el("p", { class: "meta", text: `No model call in this turn (model: ${model}); rules did the work.` }));
      return;
    }
    for (const p of prompts) body.append(el("h5", { text: p.purpose }), el("pre", { text: p.prompt }));
  });
  return panel;
}

// ---------------------------------------------------------------- the week strip
// Seven days of the calendar (imported and created events, conflicts marked) and the last
// answer's proposals, which book with a click; redrawn after every turn and import.
let weekStart = null; // the strip's first day, YYYY-MM-DD in the user's zone
let proposals = [];

function shiftDay(day, days) {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

async function loadWeek(showing) {
  const tz = $("tz").value;
  try {
    weekStart ||= new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date());
    const day = showing && showing.slice(0, 10);
    if (day && (day < weekStart || day >= shiftDay(weekStart, 7))) weekStart = day;
    const { events, more } = await api(`/api/week?start=${weekStart}&tz=${encodeURIComponent(tz)}`);
    drawWeek(events, more);
  } catch (error) {
    $("week-days").replaceChildren(el("li", { class: "meta", text: error.message }));
  }
}

function drawWeek(events, more) {
  const items = [...events.map((e) => ({ ...e, status: e.kind })),
    ...proposals.map((p) => ({ ...p, status: "proposed" }))];
  const days = [];
  for (let i = 0; i < 7; i++) {
    const day = shiftDay(weekStart, i);
    const list = el("ul");
    for (const item of items.filter((e) => e.start.slice(0, 10) === day).sort((a, b) => a.start < b.start ? -1 : 1)) {
      const text = `${item.all_day ? "all day" : item.start.slice(11, 16)} ${item.title}`;
      const chip = el("li", { class: `chip ${item.status}${item.conflict ? " clash" : ""}` });
      if (item.answer) {
        const choose = el("button", { type: "button", text, "aria-label": `Choose ${text}` });
        choose.addEventListener("click", () => ask(item.answer, ""));
        chip.append(choose, " (proposed)");
      } else chip.append(text);
      if (item.conflict) chip.append(" ", el("span", { class: "badge conflict", text: "conflict" }));
      list.append(chip);
    }
    const name = new Date(`${day}T12:00Z`).toLocaleDateString(undefined,
      { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" });
    days.push(el("li", { class: list.childElementCount ? "day" : "day empty" }, el("strong", { text: name }), list));
  }
  if (!items.some((e) => e.start.slice(0, 10) >= weekStart && e.start.slice(0, 10) < shiftDay(weekStart, 7)))
    days.push(el("li", { class: "meta", text: "Nothing in these seven days yet." }));
  if (more) days.push(el("li", { class: "meta", text: "More events than fit here." }));
  $("week-days").replaceChildren(...days);
}

$("week-prev").addEventListener("click", () => { weekStart = shiftDay(weekStart, -7); loadWeek(); });
$("week-next").addEventListener("click", () => { weekStart = shiftDay(weekStart, 7); loadWeek(); });
$("tz").addEventListener("change", () => { weekStart = null; loadWeek(); });

// ---------------------------------------------------------------- uploads
async function upload(file) {
  const status = $("upload-status");
  status.replaceChildren(el("p", { text: `Reading ${file.name}…` }));
  const body = new FormData();
  body.append("file", file);
  body.append("tz", $("tz").value);
  try {
    const result = await api("/api/upload", { method: "POST", body });
    if (result.kind === "ics") {
      const parts = [el("p", { class: "imported", text: result.message })];
      if (result.refused.length) {
        const list = el("ul", { class: "refused", "aria-label": "Refused items" });
        for (const r of result.refused) list.append(el("li", { text: `${r.item}: ${r.reason}` }));
        parts.push(list);
      }
      const undo = el("button", { type: "button", text: `Undo import of ${result.name}` });
      undo.addEventListener("click", async () => {
        undo.disabled = true;
        try {
          const { message } = await api("/api/imports/undo", { method: "POST", json: { name: result.name } });
          status.replaceChildren(el("p", { class: "undone", text: message }));
          loadWeek();
        } catch (error) {
          showError(error.message);
        }
      });
      status.replaceChildren(...parts, undo);
      loadWeek();
    } else {
      // A screenshot's text or an export's messages go to the thread box, checked before a turn.
      const thread = $("thread");
      thread.value = (thread.value.trim() ? `${thread.value.trim()}\n` : "") + result.text;
      const note = $("ocr-note");
      if (result.kind === "export") {
        note.textContent = [`Read ${result.name}.`, result.note, ...result.notes]
          .filter(Boolean).join(" ");
      } else {
        note.textContent = `Read ${result.name} (${result.engine}, ${result.seconds} s). Check and ` +
          "correct the text above before you ask: “Them” is the other person, “Me” is you.";
      }
      note.hidden = false;
      status.replaceChildren();
      thread.focus();
    }
  } catch (error) {
    status.replaceChildren(el("p", { class: "error", role: "alert", text: `${file.name}: ${error.message}` }));
  }
}

const zone = $("dropzone");
$("file").addEventListener("change", async (change) => {
  for (const file of change.target.files) await upload(file);
  change.target.value = "";
});
zone.addEventListener("dragover", (drag) => { drag.preventDefault(); zone.classList.add("over"); });
zone.addEventListener("dragleave", () => zone.classList.remove("over"));
zone.addEventListener("drop", async (drop) => {
  drop.preventDefault();
  zone.classList.remove("over");
  for (const file of drop.dataTransfer.files) await upload(file);
});

// ---------------------------------------------------------------- getting ready
// The server answers at once and loads its parts behind the page; a turn sent meanwhile
// waits for them, so the Ask button stays usable and this note only says what is going on.
const LOADING = { starting: "starting", privacy: "the name detector", times: "the time parser",
  model: "the language model", ready: "done" };
async function watchReadiness() {
  const note = $("ready-note");
  for (;;) {
    let health;
    try {
      health = await (await fetch("/healthz")).json();
    } catch {
      health = null;
    }
    if (health && health.error) {
      note.textContent = `Veil could not load a part it needs: ${health.error}`;
      note.className = "error";
      note.hidden = false;
      return;
    }
    if (health && health.ready) {
      note.hidden = true;
      return;
    }
    const part = health ? LOADING[health.stage] || health.stage : "starting";
    note.textContent = `Getting ready (loading ${part}); you can ask now, your turn will wait.`;
    note.hidden = false;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

watchReadiness();
openSession(session);

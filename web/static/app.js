"use strict";

// The page draws the team from /api/snapshot, again each time the event
// stream says it changed, and acts through the API's POSTs.

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function age(t, now) {
  const s = Math.max(0, (now - new Date(t)) / 1000);
  if (s < 60) return Math.floor(s) + "s";
  if (s < 3600) return Math.floor(s / 60) + "m";
  if (s < 172800) return Math.floor(s / 3600) + "h";
  return Math.floor(s / 86400) + "d";
}

function stateOf(a) {
  if (a.asking > 0) return ["asks you", "asks"];
  if (a.state === "waiting") return ["at a prompt", "waiting"];
  if (a.state === "idle" && a.urgent > 0) return ["idle, urgent", "asks"];
  if (a.state === "exited" && a.exit_status != null) return ["exited " + a.exit_status, "exited"];
  return [a.state, a.state];
}

function needsYou(a) {
  return a.asking > 0 || a.state === "waiting" || (a.state === "idle" && a.urgent > 0);
}

async function post(path, body, done) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  $("said").textContent = r.ok ? done : "refused: " + (await r.text());
  refresh();
}

function button(label, onClick) {
  const b = el("button", label);
  b.addEventListener("click", onClick);
  return b;
}

function draw(s) {
  const now = new Date(s.at);
  const agents = s.agents || [];
  $("summary").textContent = `${agents.length} agents · ${agents.filter(needsYou).length} need you · status ${s.status || "-"}` + (s.phase ? ` · phase ${s.phase}` : "");
  const body = $("agents").tBodies[0];
  body.replaceChildren();
  for (const a of agents) {
    const [word, cls] = stateOf(a);
    const tr = el("tr", undefined, needsYou(a) ? "needs" : "");
    tr.dataset.agent = a.name;
    tr.append(el("td", "\u00a0\u00a0".repeat(a.depth) + (a.depth ? "└ " : "") + a.name));
    tr.append(el("td", word, "state-" + cls));
    tr.append(el("td", a.unread || "-"), el("td", a.urgent || "-"), el("td", a.task || ""));
    tr.append(el("td", a.last_in ? age(a.last_in.time, now) + " " + a.last_in.title : ""));
    tr.append(el("td", a.last_out ? age(a.last_out.time, now) + " " + a.last_out.title : ""));
    const acts = el("td");
    acts.append(
      button("send", () => { const t = prompt(`Send to ${a.name}: title`); if (t) post("/api/send", { agent: a.name, title: t }, `sent to ${a.name}`); }),
      button("interrupt", () => { const r = prompt(`Interrupt ${a.name}: why?`); if (r) post("/api/interrupt", { agent: a.name, reason: r }, `interrupted ${a.name}`); }),
      button("cancel", () => { const r = prompt(`Cancel ${a.name} and its helpers: why?`); if (r !== null) post("/api/cancel", { agent: a.name, reason: r }, `cancelled ${a.name}`); }),
    );
    tr.append(acts);
    body.append(tr);
  }
  const qs = $("questions");
  qs.replaceChildren();
  $("questions-section").hidden = !(s.requests && s.requests.length);
  for (const q of s.requests || []) {
    const li = el("li", `${age(q.time, now)} #${q.seq} ${q.from} → ${(q.to || []).join(", ")}: ${q.title} `);
    li.dataset.request = q.id;
    if (!(q.to || []).includes("operator")) {
      li.append(el("em", `waits on ${(q.to || []).join(", ")}`));
    } else {
      for (const option of (q.options && q.options.length ? q.options : ["allow", "deny"])) {
        li.append(button(option, () => post("/api/answer", { id: q.id, option }, `answered #${q.seq}: ${option}`)));
      }
    }
    qs.append(li);
  }
  const log = $("log");
  log.replaceChildren();
  for (const r of (s.log || []).slice(-200)) {
    const to = (r.delivered || []).concat((r.blocked || []).map((b) => "✗" + b.to));
    const li = el("li", `#${r.seq} ${new Date(r.time).toLocaleTimeString()} ${r.message.from} → ${to.join(", ")}: ${r.message.title}`, r.status === "blocked" ? "blocked" : "");
    li.value = r.seq;
    li.addEventListener("click", () => {
      $("message-text").textContent = `#${r.seq}  ${r.message.title}\nfrom ${r.message.from} to ${(r.message.to || []).join(", ")}\nrouting: ${r.status}\n\n${r.message.content || ""}`;
      $("message").showModal();
    });
    log.append(li);
  }
  log.lastElementChild?.scrollIntoView({ block: "nearest" });
}

async function refresh() {
  const r = await fetch("/api/snapshot");
  if (!r.ok) {
    $("said").textContent = "cannot read the team: " + (await r.text());
    return;
  }
  draw(await r.json());
}

$("message-close").addEventListener("click", () => $("message").close());
new EventSource("/api/events").addEventListener("change", refresh);

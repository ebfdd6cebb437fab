"use strict";

// The page draws the team from /api/snapshot, again each time the event
// stream says it changed, and acts through the API's POSTs.

const $ = (id) => document.getElementById(id);

// What each panel last drew, to draw it again only when it changed.
const drawn = {};

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
  // A panel is drawn again only when what it shows changed: a button
  // under the pointer stays where it is while the rest of the team moves.
  const changed = (key, value) => {
    const text = JSON.stringify(value);
    if (drawn[key] === text) return false;
    drawn[key] = text;
    return true;
  };
  const agents = s.agents || [];
  $("summary").textContent = `${agents.length} agents · ${agents.filter(needsYou).length} need you · status ${s.status || "-"}` + (s.phase ? ` · phase ${s.phase}` : "");
  const body = $("agents").tBodies[0];
  if (changed("agents", agents)) body.replaceChildren();
  for (const a of body.childElementCount ? [] : agents) {
    const [word, cls] = stateOf(a);
    const tr = el("tr", undefined, needsYou(a) ? "needs" : "");
    tr.dataset.agent = a.name;
    const name = el("td", "\u00a0\u00a0".repeat(a.depth) + (a.depth ? "└ " : "") + a.name);
    if (a.host) name.append(el("span", " @" + a.host, "host"));
    if (a.worktree) {
      const tree = el("span", ` +${a.worktree.added}/-${a.worktree.deleted}`, "tree");
      tree.title = `worktree ${a.worktree.path}, branch ${a.worktree.branch}`;
      name.append(tree);
    }
    tr.append(name);
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
  const requests = s.requests || [];
  $("questions-section").hidden = requests.length === 0;
  if (changed("questions", requests)) qs.replaceChildren();
  for (const q of qs.childElementCount ? [] : requests) {
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

// drawRules draws the rules graph: the agents on a circle, an arrow for
// each allowed direction, a dashed red one for each forbidden.
async function drawRules() {
  const r = await fetch("/api/rules");
  if (!r.ok) return;
  const g = await r.json();
  const svg = $("rules");
  const ns = "http://www.w3.org/2000/svg";
  const node = (tag, attrs) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  };
  svg.replaceChildren();
  const defs = node("defs", {});
  for (const [id, color] of [["allowed", "#555"], ["forbidden", "#b42318"]]) {
    const m = node("marker", { id: "arrow-" + id, viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "8", markerHeight: "8", orient: "auto-start-reverse" });
    m.append(node("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: color }));
    defs.append(m);
  }
  svg.append(defs);
  const w = 640, h = 480, cx = w / 2, cy = h / 2, radius = Math.min(w, h) / 2 - 70;
  const at = {};
  g.nodes.forEach((n, i) => {
    const a = (2 * Math.PI * i) / g.nodes.length - Math.PI / 2;
    at[n.name] = [cx + radius * Math.cos(a), cy + radius * Math.sin(a)];
  });
  for (const e of g.edges) {
    const [x1, y1] = at[e.from], [x2, y2] = at[e.to];
    const d = Math.hypot(x2 - x1, y2 - y1) || 1, pad = 22;
    // The two directions of a pair run side by side, 4 px apart.
    const ox = (-(y2 - y1) / d) * 4, oy = ((x2 - x1) / d) * 4;
    const line = node("line", {
      x1: x1 + ((x2 - x1) * pad) / d + ox, y1: y1 + ((y2 - y1) * pad) / d + oy, x2: x2 - ((x2 - x1) * pad) / d + ox, y2: y2 - ((y2 - y1) * pad) / d + oy,
      stroke: e.allowed ? "#555" : "#b42318", "stroke-dasharray": e.allowed ? "" : "5 4", "marker-end": `url(#arrow-${e.allowed ? "allowed" : "forbidden"})`,
    });
    const title = node("title", {});
    title.textContent = e.allowed ? `${e.from} may write to ${e.to}` : `${e.from} → ${e.to} forbidden: ${e.reason || ""}`;
    line.append(title);
    svg.append(line);
  }
  for (const n of g.nodes) {
    const [x, y] = at[n.name];
    svg.append(node("circle", { cx: x, cy: y, r: 18, fill: n.overseer ? "#fff6d6" : "#eef", stroke: "#333" }));
    const label = node("text", { x: x, y: y + 34, "text-anchor": "middle", "font-size": "12", "font-weight": n.overseer ? "bold" : "normal" });
    label.textContent = n.name;
    svg.append(label);
  }
}

$("message-close").addEventListener("click", () => $("message").close());
drawRules();
new EventSource("/api/events").addEventListener("change", refresh);

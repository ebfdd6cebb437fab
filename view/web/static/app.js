"use strict";

// The page draws the team from /api/snapshot, again each time the event
// stream says it changed, and acts through the API's POSTs.

const $ = (id) => document.getElementById(id);

// The token comes after the address's #, which the browser sends to no
// server. The page keeps it in sessionStorage, which belongs to this
// scheme, host and port alone (a cookie would go to every server of the
// host, whatever its port), takes it out of the address bar, and sends it
// in a header with each call of the API.
let token = null;

function takeToken() {
  const given = new URLSearchParams(location.hash.slice(1)).get("token");
  if (given) {
    sessionStorage.setItem("switchboard-token", given);
    history.replaceState(null, "", location.pathname);
  }
  token = sessionStorage.getItem("switchboard-token");
}

function say(text) {
  $("said").textContent = text;
}

// api calls the API with the token; a refusal of the token is said once,
// here, for every call.
async function api(path, init = {}) {
  const auth = token ? { Authorization: "Bearer " + token } : {};
  const r = await fetch(path, { ...init, headers: { ...init.headers, ...auth } });
  if (r.status === 401) {
    say(token ? "the token is refused: the web view was started again; open the address it printed this time"
      : "this tab has no token: open the address switchboard web printed (it ends with #token=…)");
  }
  return r;
}

// What each panel last drew, to draw it again only when it changed.
const drawn = {};

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

// young is set by when while the page draws an age under a minute: the
// page's clock then draws it again a second later, and only then.
let young = false;

// when tells a time as the console does: its age while under a minute
// ("42s"), drawn anew each second; after that its clock time ("14:03"), or
// its day ("Nov 24") before today, which stay true with no timer: a page
// at rest runs none.
function when(t, now) {
  const d = new Date(t), s = (now - d) / 1000;
  if (s < 60) {
    young = true;
    return Math.max(0, Math.floor(s)) + "s";
  }
  const two = (n) => String(n).padStart(2, "0");
  if (d.toDateString() === now.toDateString()) return `${two(d.getHours())}:${two(d.getMinutes())}`;
  return d.toLocaleDateString("en-US", { month: "short", day: "numeric" });
}

function stateOf(a) {
  if (a.asking > 0) return ["asks you", "asks"];
  if (a.state === "waiting") return ["at a prompt", "waiting"];
  if (a.state === "idle" && a.urgent > 0) return ["idle, urgent", "asks"];
  if (a.state === "exited" && a.exit_status != null) return ["exited " + a.exit_status, "exited"];
  return [a.state, a.state.replace(/ /g, "-")];
}

function needsYou(a) {
  return a.asking > 0 || a.asks_you > 0 || ["waiting", "limited", "over budget"].includes(a.state) || (a.state === "idle" && a.urgent > 0);
}

// spent is what an agent's clients spent today, "18.2k $0.05", and the
// figures in full for its tooltip.
function spent(a) {
  const u = a.usage_today;
  const t = u && u.tokens;
  const sum = t ? t.in + t.out + t.cache_read + t.cache_write : 0;
  if (!sum) return ["-", ""];
  const short = sum < 1e3 ? String(sum) : sum < 1e6 ? (sum / 1e3).toFixed(1) + "k" : (sum / 1e6).toFixed(1) + "M";
  return [`${short} $${u.cost_usd.toFixed(2)}`,
    `today: ${t.in} in, ${t.out} out, ${t.cache_read} read from the cache, ${t.cache_write} written to it; about $${u.cost_usd.toFixed(4)}` +
    (u.unpriced ? ` (no price for ${u.unpriced.join(", ")})` : "")];
}

async function post(path, body, done) {
  const r = await api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (r.status !== 401) say(r.ok ? done : "refused: " + (await r.text()));
  refresh();
}

// ask shows the page's own dialog for an action, with its fields and two
// buttons that each say what they do: a browser's prompt() has a "Cancel"
// that would mean "do nothing" beside an "OK" that cancels an agent. It
// resolves to the fields' values, or to null when the person keeps things
// as they are (the second button, or Escape).
function ask({ heading, about, fields, yes, no }) {
  const dialog = $("act");
  $("act-heading").textContent = heading;
  $("act-about").textContent = about;
  const inputs = fields.map((f) => {
    const input = el(f.long ? "textarea" : "input");
    input.name = f.name;
    input.required = !!f.required;
    const label = el("label", f.label);
    label.append(input);
    return label;
  });
  $("act-fields").replaceChildren(...inputs);
  $("act-do").textContent = yes;
  $("act-keep").textContent = no;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "do" ? Object.fromEntries(new FormData($("act-form"))) : null);
    }, { once: true });
  });
}

// act asks for an action's fields and, unless the person keeps things as
// they are, posts them.
async function act(path, question, body, done) {
  const values = await ask(question);
  if (values) post(path, { ...body, ...values }, done);
}

function button(label, onClick) {
  const b = el("button", label);
  b.addEventListener("click", onClick);
  return b;
}

// titled is a cell of a title: cut to two lines by the style, whole on
// hover.
function titled(text) {
  const td = el("td", undefined, "title");
  td.append(el("div", text));
  td.title = text;
  return td;
}

// clock says when, as switchboard log does: the local date and a 24-hour
// clock, whatever the browser's language.
function clock(t) {
  const d = new Date(t), two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

// permissionButtons answer a permission prompt: only a question the
// master vouched for as one has a permission (its title proves nothing,
// any agent writes it), and only its answer runs or refuses a command.
function permissionButtons(q) {
  const what = q.permission.command ? `${q.permission.tool}: ${q.permission.command}` : q.permission.tool;
  const says = {
    allow: `run ${what} this once`,
    deny: `refuse ${what} this once`,
    always: `run it, and from now on every call of ${q.covers}`,
    never: `refuse it, and from now on every call of ${q.covers}`,
  };
  return Object.entries(says).map(([option, title]) => {
    const b = button(option, () => post("/api/answer", { id: q.id, option }, `answered #${q.seq}: ${option}`));
    b.title = `${q.permission.agent}: ${title}`;
    return b;
  });
}

// answerButton answers any other question with what the person types: it
// offers no allow or deny of its own, whatever its title and options say.
function answerButton(q) {
  const options = q.options && q.options.length ? ` (one of: ${q.options.join(", ")})` : "";
  return button("answer…", () => act("/api/answer", {
    heading: `Answer #${q.seq} from ${q.from}`,
    about: `${q.from} asks: ${q.title}. It is an ordinary question, not a permission prompt: your answer goes to ${q.from} as a reply, and runs nothing itself.`,
    fields: [{ name: "option", label: "your answer" + options, required: true }],
    yes: `Answer ${q.from}`, no: "Leave it unanswered",
  }, { id: q.id }, `answered #${q.seq}`));
}

function draw(s) {
  // The snapshot's time, and as long again as it has been shown.
  const now = new Date(Date.parse(s.at) + (performance.now() - s.came));
  young = false;
  // A panel is drawn again only when what it shows changed: a button
  // under the pointer stays where it is while the rest of the team moves.
  const changed = (key, value) => {
    const text = JSON.stringify(value);
    if (drawn[key] === text) return false;
    drawn[key] = text;
    return true;
  };
  const agents = s.agents || [];
  // The times as they read now: a table whose ages changed is drawn again.
  const times = agents.map((a) => [a.last_in && when(a.last_in.time, now), a.last_out && when(a.last_out.time, now)]);
  $("summary").textContent = `${agents.length} agents · ${agents.filter(needsYou).length} need you · status ${s.status || "-"}` + (s.phase ? ` · phase ${s.phase}` : "");
  const body = $("agents").tBodies[0];
  if (changed("agents", [agents, times])) body.replaceChildren();
  for (const [i, a] of (body.childElementCount ? [] : agents).entries()) {
    const [word, cls] = stateOf(a);
    const tr = el("tr", undefined, needsYou(a) ? "needs" : "");
    tr.dataset.agent = a.name;
    const name = el("td", "\u00a0\u00a0".repeat(a.depth) + (a.depth ? "└ " : "") + a.name);
    if (a.host) name.append(el("span", " @" + a.host, "host"));
    if (a.worktree) {
      const refused = a.worktree.refused;
      const tree = el("span", refused ? " REFUSED" : ` +${a.worktree.added}/-${a.worktree.deleted}`, "tree");
      tree.title = refused ? `worktree ${a.worktree.path}: no git run in it, ${refused}` : `worktree ${a.worktree.path}, branch ${a.worktree.branch}`;
      name.append(tree);
    }
    tr.append(name);
    tr.append(el("td", word, "state-" + cls));
    const [today, figures] = spent(a);
    const cost = el("td", today, "spent");
    cost.title = figures;
    tr.append(el("td", a.unread || "-"), el("td", a.urgent || "-"), cost, titled(a.task || ""));
    tr.append(titled(a.last_in ? times[i][0] + " " + a.last_in.title : ""));
    tr.append(titled(a.last_out ? times[i][1] + " " + a.last_out.title : ""));
    const acts = el("td");
    acts.append(
      button("send", () => act("/api/send", {
        heading: `Send to ${a.name}`, about: "A message from you, as switchboard send would post it.",
        fields: [{ name: "title", label: "title", required: true }, { name: "content", label: "content", long: true }],
        yes: `Send to ${a.name}`, no: "Don't send",
      }, { agent: a.name }, `sent to ${a.name}`)),
      button("interrupt", () => act("/api/interrupt", {
        heading: `Interrupt ${a.name}`, about: `${a.name} stops what it is doing (Escape in its pane) and is told why.`,
        fields: [{ name: "reason", label: "why", required: true }],
        yes: `Interrupt ${a.name}`, no: "Let it work",
      }, { agent: a.name }, `interrupted ${a.name}`)),
      button("cancel", () => act("/api/cancel", {
        heading: `Cancel ${a.name}'s work`, about: `${a.name} and every agent spawned under it stop (Escape in their panes) and are told they are cancelled, the deepest first; a parent waiting on one stops waiting.`,
        fields: [{ name: "reason", label: "why (told to them)" }],
        yes: "Cancel the agent's work", no: "Keep working",
      }, { agent: a.name }, `cancelled ${a.name}`)),
    );
    tr.append(acts);
    body.append(tr);
  }
  const qs = $("questions");
  const requests = s.requests || [];
  $("questions-section").hidden = requests.length === 0;
  const asked = requests.map((q) => when(q.time, now));
  if (changed("questions", [requests, asked])) qs.replaceChildren();
  for (const [i, q] of (qs.childElementCount ? [] : requests).entries()) {
    const li = el("li", `${asked[i]} #${q.seq} ${q.from} → ${(q.to || []).join(", ")}: ${q.title} `);
    li.dataset.request = q.id;
    if (!(q.to || []).includes("operator")) {
      li.append(el("em", `waits on ${(q.to || []).join(", ")}`));
    } else if (q.permission) {
      li.append(...permissionButtons(q));
    } else {
      li.append(answerButton(q));
    }
    qs.append(li);
  }
  tick();
  const log = $("log");
  const records = (s.log || []).slice(-200);
  if (!changed("log", records)) return;
  log.replaceChildren();
  for (const r of records) {
    const to = (r.delivered || []).concat((r.blocked || []).map((b) => "✗" + b.to));
    const li = el("li", `#${r.seq} ${clock(r.time)} ${r.message.from} → ${to.join(", ")}: ${r.message.title}`, r.status === "blocked" ? "blocked" : "");
    li.addEventListener("click", () => {
      $("message-text").textContent = `#${r.seq}  ${r.message.title}\nfrom ${r.message.from} to ${(r.message.to || []).join(", ")}\nrouting: ${r.status}\n\n${r.message.content || ""}`;
      $("message").showModal();
    });
    log.append(li);
  }
  log.lastElementChild?.scrollIntoView({ block: "nearest" });
}

// shown is the last snapshot drawn, with when it came (performance.now()),
// which the clock draws again as ages grow; ticking is the clock's timer.
let shown = null, ticking = null;

async function refresh() {
  const r = await api("/api/snapshot");
  if (!r.ok) {
    if (r.status !== 401) say("cannot read the team: " + (await r.text()));
    return;
  }
  shown = await r.json();
  shown.came = performance.now();
  draw(shown);
}

// tick draws the last snapshot again a second later, while it shows an
// age under a minute.
function tick() {
  if (!young || ticking !== null) return;
  ticking = setTimeout(() => {
    ticking = null;
    draw(shown);
  }, 1000);
}

// drawRules draws the rules graph: the agents on a circle, an arrow for
// each allowed direction, a dashed red one for each forbidden.
async function drawRules() {
  const r = await api("/api/rules");
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

// follow reads the event stream through fetch, which sends the token in a
// header (an EventSource cannot), and draws the team again at each change.
// A stream that breaks is opened again, a little later each time; a token
// refused ends it.
let following = false;

async function follow() {
  if (following) return;
  following = true;
  try {
    for (let wait = 500; ; wait = Math.min(wait * 2, 30000)) {
      try {
        const r = await api("/api/events");
        if (r.status === 401) return;
        if (r.ok) {
          wait = 500;
          const events = r.body.pipeThrough(new TextDecoderStream()).getReader();
          let text = "";
          for (;;) {
            const { value, done } = await events.read();
            if (done) break;
            text += value;
            let end;
            while ((end = text.indexOf("\n\n")) >= 0) {
              if (text.slice(0, end).split("\n").includes("event: change")) refresh();
              text = text.slice(end + 2);
            }
          }
        }
      } catch {
        // The server went away, or the network: try again below.
      }
      await new Promise((later) => setTimeout(later, wait));
    }
  } finally {
    following = false;
  }
}

// start reads the token and the team, and follows the team.
function start() {
  takeToken();
  say("");
  drawRules();
  follow();
}

$("message-close").addEventListener("click", () => $("message").close());
$("act-form").addEventListener("submit", (e) => {
  // The form posts nothing itself (the policy allows no form action): its
  // submit, after the browser checked the fields required, closes the
  // dialog as done.
  e.preventDefault();
  $("act").close("do");
});
$("act-keep").addEventListener("click", () => $("act").close());
// An address pasted into a tab that shows the page already changes only
// its fragment, which loads nothing: the page takes the new token itself.
addEventListener("hashchange", start);
start();

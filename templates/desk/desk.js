// The order desk (docs/orders.md, "The order desk"). Every verdict comes from
// the host's own Python (turnproc/reports/judge.py) running under Pyodide:
// this script only draws, reads files and calls it. It never sends the report
// or the password anywhere; the mail goes out through the player's own mail
// program.
"use strict";

const config = JSON.parse(document.getElementById("config").textContent);
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const desk = {
  report: null,      // the report's text, as opened
  data: null,        // the report, read
  judge: null,       // Python: desk_verdicts(report, mail) -> JSON
  hints: {},         // the order form's lines of each own system, by code
  last: null,        // the latest verdicts, read
  checked: 0,        // how many times the lines were judged
};
window.orderDesk = desk;

// -- the checker ----------------------------------------------------------------

function say(text, bad) {
  $("status").textContent = text;
  $("status").classList.toggle("bad", Boolean(bad));
}

// The offline copy's worker (cache.js), in charge before Pyodide's files are
// asked for, so it keeps them as they come; a browser without one (or a page
// opened from a file) goes on without it after a moment.
function offlineCopy() {
  if (!("serviceWorker" in navigator) || !location.protocol.startsWith("http")) return Promise.resolve();
  const inCharge = new Promise((resolve) => {
    if (navigator.serviceWorker.controller) resolve();
    navigator.serviceWorker.addEventListener("controllerchange", resolve);
  });
  navigator.serviceWorker.register("cache.js").catch(() => {});
  return Promise.race([inCharge, new Promise((resolve) => setTimeout(resolve, 3000))]);
}

async function loadChecker() {
  if (!config.pyodide) throw new Error("this site was written without Pyodide's files");
  await offlineCopy();
  await new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = config.pyodide + "pyodide.js";
    script.onload = resolve;
    script.onerror = () => reject(new Error("pyodide.js could not be loaded"));
    document.head.appendChild(script);
  });
  const base = new URL(config.pyodide, location.href).href;
  const pyodide = await loadPyodide({ indexURL: base });
  const bundle = await fetch("turnproc.zip");
  if (!bundle.ok) throw new Error("turnproc.zip could not be loaded");
  pyodide.unpackArchive(await bundle.arrayBuffer(), "zip", { extractDir: "/home/pyodide/desk" });
  pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide/desk')");
  const judge = pyodide.pyimport("turnproc.reports.judge");
  return judge;
}

const ready = loadChecker().then(
  (judge) => {
    desk.judge = judge;
    say("The host's order checker is ready: each line is judged as you type it.");
    if (desk.data) { loadHints(); check(); }
  },
  (error) => {
    // Still a place to write and copy orders: only the checking is missing.
    say("The order checker could not be loaded (" + error.message + "): you can write, send and copy orders, but they are not checked here. The acknowledgement checks them.", true);
    desk.failed = true;
    check();
  },
);
desk.ready = ready;


// -- opening the report -----------------------------------------------------------

function open(text) {
  let data;
  try {
    data = JSON.parse(text);
    if (!data || typeof data !== "object" || !data.empire || !data.map) throw new Error("it is not a turnproc JSON report");
  } catch (error) {
    $("problem").textContent = "That is not your JSON report: " + error.message + ". Open the .json file attached to your report mail.";
    $("problem").hidden = false;
    return;
  }
  $("problem").hidden = true;
  desk.report = text;
  desk.data = data;
  $("who").textContent = "Empire " + data.empire.code + " (" + data.empire.name + "), report of turn " + data.turn +
    "; orders for turn " + data.next_turn + ". Balance " + data.empire.balance + " BP, treasury " + data.empire.treasury + " BP.";
  $("host").textContent = hostAddress();
  $("desk").hidden = false;
  // The desk takes the screen; the picker stays for another report.
  $("open").classList.add("done");
  drawMap();
  if (desk.judge) loadHints();
  check();
}

$("file").addEventListener("change", async () => {
  const file = $("file").files[0];
  // Cleared, so picking the same file again (a report written anew) reads it again.
  $("file").value = "";
  if (file) open(await file.text());
});
$("read").addEventListener("click", () => open($("paste").value));
const drop = $("drop");
drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", async (event) => {
  event.preventDefault();
  drop.classList.remove("over");
  const file = event.dataTransfer.files[0];
  open(file ? await file.text() : event.dataTransfer.getData("text"));
});

function loadHints() {
  try {
    desk.hints = JSON.parse(desk.judge.desk_hints(desk.report));
  } catch (error) {
    desk.hints = {};
  }
}

// -- the map ------------------------------------------------------------------

const PALETTE = ["#d1451b", "#2a9d3a", "#8e44ad", "#c98a00", "#0f8b8d", "#b8336a", "#7a5c1e", "#e377c2", "#17becf", "#bcbd22"];
const STEP = 60;

function colour(owner) {
  if (!owner) return "#8a8fa8";
  if (owner === desk.data.empire.code) return "#4f8df7";
  let h = 0;
  for (const c of owner) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

function known() {
  // What the report says of each system: the map's row, with the own
  // system's or the scouted one's details where it has them.
  const by = new Map();
  for (const s of desk.data.map.systems) by.set(s.code, { ...s });
  for (const s of (desk.data.scouting || [])) by.set(s.code, { ...by.get(s.code), ...s, scouted: true });
  for (const s of desk.data.systems) by.set(s.code, { ...by.get(s.code), ...s, own: true });
  return by;
}

function placed(systems) {
  // A star's planets sit around it; free systems on their grid square.
  const around = new Map();
  for (const s of systems.values()) {
    if (s.star != null) {
      const list = around.get(s.star) || [];
      list.push(s);
      around.set(s.star, list);
    }
  }
  for (const s of systems.values()) {
    s.x = s.col * STEP;
    s.y = s.row * STEP;
  }
  for (const [star, planets] of around) {
    const centre = systems.get(star) || planets[0];
    planets.forEach((p, i) => {
      const angle = (2 * Math.PI * i) / planets.length - Math.PI / 2;
      p.x = centre.col * STEP + 20 * Math.cos(angle);
      p.y = centre.row * STEP + 20 * Math.sin(angle);
    });
  }
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function ships(s) {
  const parts = [];
  if (s.cruisers) parts.push(s.cruisers + "c");
  if (s.fighters) parts.push(s.fighters + "f");
  if (s.colony_ships) parts.push(s.colony_ships + "col");
  return parts.join(" ");
}

const view = { x: 0, y: 0, w: 100, h: 100 };

function drawMap() {
  const svg = $("map");
  svg.textContent = "";
  const systems = known();
  desk.systems = systems;
  placed(systems);
  const g = el("g", {}, svg);
  for (const [a, b] of desk.data.map.links) {
    const p = systems.get(a), q = systems.get(b);
    if (p && q) el("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y }, g);
  }
  for (const s of systems.values()) {
    const dot = el("circle", { cx: s.x, cy: s.y, r: s.star == null ? 9 : 6, fill: colour(s.owner), class: "sys", "data-code": s.code }, g);
    dot.appendChild(document.createElementNS(SVG, "title")).textContent = s.code + " " + s.type + (s.owner ? " " + s.owner : "");
    el("text", { x: s.x + 10, y: s.y - 4 }, g).textContent = s.code;
    const fleet = ships(s);
    if (fleet) el("text", { x: s.x + 10, y: s.y + 9, class: "ships" }, g).textContent = fleet;
  }
  const xs = [...systems.values()].map((s) => s.x), ys = [...systems.values()].map((s) => s.y);
  const pad = 40;
  view.x = Math.min(...xs) - pad;
  view.y = Math.min(...ys) - pad;
  view.w = Math.max(...xs) - Math.min(...xs) + 2 * pad;
  view.h = Math.max(...ys) - Math.min(...ys) + 2 * pad;
  setView();
}

function setView() {
  $("map").setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
}

function toMap(clientX, clientY) {
  const box = $("map").getBoundingClientRect();
  const scale = Math.max(view.w / box.width, view.h / box.height);
  // preserveAspectRatio "xMidYMid meet": the view is centred in the box.
  const offX = (box.width * scale - view.w) / 2, offY = (box.height * scale - view.h) / 2;
  return { x: view.x - offX + (clientX - box.left) * scale, y: view.y - offY + (clientY - box.top) * scale, scale };
}

function zoom(factor, clientX, clientY) {
  const box = $("map").getBoundingClientRect();
  const at = toMap(clientX ?? box.left + box.width / 2, clientY ?? box.top + box.height / 2);
  view.x = at.x - (at.x - view.x) * factor;
  view.y = at.y - (at.y - view.y) * factor;
  view.w *= factor;
  view.h *= factor;
  setView();
}

// Mouse, pen and touch alike: one pointer pans, two pinch, a tap picks.
const pointers = new Map();
let moved = 0;
const map = $("map");
map.addEventListener("pointerdown", (event) => {
  // Moves outside the map still belong to the drag (not every pointer can be captured).
  try { map.setPointerCapture(event.pointerId); } catch (error) { /* a drag that leaves the map ends there */ }
  pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  moved = 0;
});
map.addEventListener("pointermove", (event) => {
  const before = pointers.get(event.pointerId);
  if (!before) return;
  const now = { x: event.clientX, y: event.clientY };
  if (pointers.size === 1) {
    const { scale } = toMap(now.x, now.y);
    view.x -= (now.x - before.x) * scale;
    view.y -= (now.y - before.y) * scale;
    moved += Math.abs(now.x - before.x) + Math.abs(now.y - before.y);
    setView();
  } else if (pointers.size === 2) {
    const other = [...pointers.entries()].find(([id]) => id !== event.pointerId)[1];
    const was = Math.hypot(before.x - other.x, before.y - other.y), is = Math.hypot(now.x - other.x, now.y - other.y);
    if (was > 0 && is > 0) zoom(was / is, (now.x + other.x) / 2, (now.y + other.y) / 2);
    moved += 10;
  }
  pointers.set(event.pointerId, now);
});
function lift(event) {
  const wasTap = pointers.size === 1 && moved < 8;
  pointers.delete(event.pointerId);
  if (wasTap && event.type === "pointerup") {
    const hit = document.elementFromPoint(event.clientX, event.clientY);
    if (hit && hit.dataset && hit.dataset.code) pick(Number(hit.dataset.code));
  }
}
map.addEventListener("pointerup", lift);
map.addEventListener("pointercancel", lift);
map.addEventListener("wheel", (event) => {
  event.preventDefault();
  zoom(event.deltaY > 0 ? 1.2 : 1 / 1.2, event.clientX, event.clientY);
}, { passive: false });
$("zoomin").addEventListener("click", () => zoom(1 / 1.4));
$("zoomout").addEventListener("click", () => zoom(1.4));

// -- the system sheet -------------------------------------------------------------

function pick(code) {
  const s = desk.systems.get(code);
  if (!s) return;
  for (const dot of map.querySelectorAll(".picked")) dot.classList.remove("picked");
  const dot = map.querySelector(`[data-code="${code}"]`);
  if (dot) dot.classList.add("picked");
  const sheet = $("sheet");
  sheet.textContent = "";
  const h = document.createElement("h3");
  h.textContent = `${s.code} ${s.type}${s.name ? " " + s.name : ""}`;
  sheet.appendChild(h);
  const facts = [];
  facts.push(s.owner ? (s.owner === desk.data.empire.code ? "yours" : "held by " + s.owner) : "held by no one");
  if (s.star != null) facts.push("planet of star " + s.star);
  if (s.pop !== undefined) facts.push(`pop ${s.pop}/${s.limit}, ind ${s.industry}`);
  const many = (n, one, more) => (n ? [`${n} ${n === 1 ? one : more}`] : []);
  const fleetWords = [...many(s.cruisers, "cruiser", "cruisers"), ...many(s.fighters, "fighter", "fighters"), ...many(s.colony_ships, "colony ship", "colony ships")];
  if (fleetWords.length) facts.push("ships: " + fleetWords.join(", "));
  if (s.links) facts.push("links " + (s.links.join(" ") || "none"));
  if (!s.own && !s.scouted) facts.push("your report has only its place and owner");
  const p = document.createElement("p");
  p.textContent = facts.join("; ");
  sheet.appendChild(p);
  const lines = desk.hints[String(code)];
  if (lines) {
    const pre = document.createElement("pre");
    pre.textContent = lines.join("\n");
    sheet.appendChild(pre);
    // Each suggestion of the "can:" line, one tap to put it on the orders.
    const can = lines.join(" ").split("can:")[1];
    if (can) {
      for (const part of can.replace(/#/g, " ").split(",")) {
        const order = part.trim().replace(/\s+/g, " ");
        // Only whole orders: "BUILD 102 N" leaves a number to choose.
        if (!/^[A-Z]+( \d+)+$/.test(order)) continue;
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = "+ " + order;
        button.addEventListener("click", () => addLine(order));
        sheet.appendChild(button);
      }
    }
  } else if (s.own && !desk.judge) {
    sheet.appendChild(document.createTextNode("What it can order shows once the checker has loaded."));
  }
  sheet.hidden = false;
}

function addLine(order) {
  const box = $("orders");
  box.value = box.value.replace(/\s*$/, "") + (box.value.trim() ? "\n" : "") + order + "\n";
  check();
}

// -- the mail and its verdicts -------------------------------------------------------

function hostAddress() {
  return config.host;
}

function mailText() {
  const d = desk.data;
  const orders = $("orders").value.replace(/\r\n?/g, "\n").replace(/\s+$/, "");
  // A whole order mail pasted in (a GAME line of its own): judged and sent as it is.
  if (/^\s*GAME\s/im.test(orders)) return orders + "\n";
  return `GAME ${d.game}\nEMPIRE ${d.empire.code} ${$("password").value}\nTURN ${d.next_turn}\n` + (orders ? orders + "\n" : "") + "END\n";
}
desk.mailText = mailText;

function row(text, kind) {
  const pre = document.createElement("pre");
  pre.className = "row " + kind;
  pre.textContent = text;
  return pre;
}

function check() {
  if (!desk.data) return;
  const mail = mailText();
  $("mail").value = mail;
  $("send").href = "mailto:" + encodeURIComponent(hostAddress()).replace("%40", "@") +
    "?subject=" + encodeURIComponent(`Orders ${desk.data.game} turn ${desk.data.next_turn}`) + "&body=" + encodeURIComponent(mail.replace(/\n/g, "\r\n"));
  const out = $("verdicts");
  out.textContent = "";
  if (!desk.judge) {
    out.appendChild(row(desk.failed ? "Not checked: the checker could not be loaded." : "Checking starts once the checker has loaded.", "warning"));
    return;
  }
  const said = JSON.parse(desk.judge.desk_verdicts(desk.report, mail));
  desk.last = said;
  desk.checked += 1;
  if (said.problem) {
    out.appendChild(row("Cannot be checked: " + said.problem, "error"));
    return;
  }
  if (said.reason) out.appendChild(row("The host would not accept this mail: " + said.reason, "error"));
  for (const line of said.lines) {
    out.appendChild(row(line.row, line.result.startsWith("ERROR") || line.result.includes("; ERROR") ? "error" : line.result.startsWith("WARNING") ? "warning" : "ok"));
  }
  for (const skipped of said.skipped) out.appendChild(row("Not read: " + skipped, "warning"));
  const sum = document.createElement("p");
  sum.className = "sum";
  const cost = said.cost;
  const parts = [];
  if (cost) {
    parts.push(`Balance left ${cost.balance + cost.to_balance - cost.balance_cost} BP`);
    parts.push(`treasury left ${cost.treasury + cost.to_treasury - cost.treasury_cost} BP`);
  }
  parts.push(`${said.slots}/16 slots used`);
  // Lines, not errors (one line may have two), as the acknowledgement counts.
  const errors = new Set(said.errors.map((e) => e.line)).size;
  if (errors) parts.push(`${errors} line${errors === 1 ? "" : "s"} with errors`);
  sum.textContent = parts.join("; ") + ".";
  out.appendChild(sum);
}
desk.check = check;

let pending = 0;
function later() {
  clearTimeout(pending);
  pending = setTimeout(check, 120);
}
$("orders").addEventListener("input", later);
$("secret").addEventListener("submit", (event) => event.preventDefault());
$("password").addEventListener("input", later);

$("copy").addEventListener("click", async () => {
  const mail = $("mail");
  try {
    await navigator.clipboard.writeText(mail.value);
  } catch (error) {
    // No clipboard permission (an older phone): select it for the player to copy.
    mail.focus();
    mail.select();
    document.execCommand("copy");
  }
  $("copy").textContent = "Copied";
  setTimeout(() => { $("copy").textContent = "Copy the mail"; }, 1500);
});

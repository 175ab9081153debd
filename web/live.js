// The live touch view (docs/web.md "Live view"): every contact with its trail and id, a
// label for each recognized gesture where it happened, the configured regions, the devices.
// Served by gestured-web at /; uses the JS client (gestured.js). No build step, no CDN.
import { GesturedClient, defaultURL } from "./gestured.js";

const TRAIL_FADE_MS = 2500;
const LABEL_MS = 4000;
const TRAIL_POINTS = 300;
const ARROWS = { left: "←", right: "→", up: "↑", down: "↓" };

const canvas = document.getElementById("view");
const ctx = canvas.getContext("2d");
const ui = {
  version: document.getElementById("version"),
  connection: document.getElementById("connection"),
  devices: document.getElementById("devices"),
  regionsNote: document.getElementById("regions-note"),
  counts: document.getElementById("counts"),
};

/** @type {Map<string, {id: number, device: string, points: {x: number, y: number}[], active: boolean, endedAt: number}>} */
const trails = new Map();
/** @type {{key: string|null, text: string, x: number, y: number, at: number, muted: boolean}[]} */
const labels = [];
/** @type {Map<string, {name: string, rect: {x: number, y: number, width: number, height: number}}>} */
let regions = new Map();
/** @type {Map<string, {kind: string, path: string|null, present: boolean}>} */
const devices = new Map();
const counts = { gestures: 0, touches: 0, dropped: 0 };

// Test hook (scripts' headless Chromium reads it): every message received, with ?test only,
// so a kiosk showing the view for days does not collect them.
const params = new URLSearchParams(location.search);
if (params.has("test")) window.__gestured_received = [];

const client = new GesturedClient(params.get("ws") ?? defaultURL(), { subscribe: { touches: true } });
if (params.has("test")) window.__gestured_client = client;

client.on("message", (message) => {
  window.__gestured_received?.push(message);
});

client.on("open", () => setConnection("connected to " + client.url, "open"));
client.on("close", ({ code, reason, reconnectIn }) => {
  const why = reason ? reason : "code " + code;
  setConnection("disconnected (" + why + ")" + (reconnectIn !== null ? "; retrying in " + (reconnectIn / 1000).toFixed(1) + " s" : ""), "closed");
  for (const device of devices.values()) device.present = false;
  renderDevices();
});

client.on("hello", (hello) => {
  ui.version.textContent = hello.version;
  devices.clear();
  for (const device of hello.devices) devices.set(device.name, { kind: device.kind, path: device.path, present: true });
  renderDevices();
  loadRegions();
});

client.on("device", (event) => {
  devices.set(event.device, { kind: event.kind, path: event.path, present: event.phase === "added" });
  renderDevices();
  loadRegions();
});

client.on("overflow", (overflow) => {
  counts.dropped += overflow.dropped;
  renderCounts();
});

client.on("touch", (touch) => {
  const key = touch.device + "#" + touch.touch;
  let trail = trails.get(key);
  if (touch.phase === "began" || !trail) {
    trail = { id: touch.touch, device: touch.device, points: [], active: true, endedAt: 0 };
    trails.set(key, trail);
    counts.touches += 1;
    renderCounts();
  }
  trail.points.push({ x: touch.location.x, y: touch.location.y });
  if (trail.points.length > TRAIL_POINTS) trail.points.shift();
  if (touch.phase === "ended" || touch.phase === "cancelled") {
    trail.active = false;
    trail.endedAt = performance.now();
  }
  redraw();
});

client.on("gesture", (gesture) => {
  const text = describe(gesture);
  if (gesture.phase === "ended" || gesture.phase === "cancelled" || gesture.gesture === "long-press" && gesture.phase === "began") {
    counts.gestures += gesture.gesture === "press" ? 0 : 1;
    renderCounts();
  }
  if (text === null) return;
  const label = gesture.region ? text + " · " + gesture.region : text;
  // A continuous gesture keeps one label that follows it; others get their own.
  const key = gesture.gesture === "pinch" || gesture.gesture === "rotate" ? "g" + gesture.id : null;
  addLabel(key, label, gesture.location, gesture.phase === "cancelled");
  redraw();
});

/** The label for a gesture event, or null for none. */
function describe(g) {
  switch (g.gesture) {
    case "tap":
      return "tap" + (g.count > 1 ? " ×" + g.count : "") + (g.fingers > 1 ? " (" + g.fingers + " fingers)" : "");
    case "long-press":
      if (g.phase === "began") return "long press";
      return g.phase === "cancelled" ? "long press cancelled" : null;
    case "swipe":
      return "swipe " + (ARROWS[g.direction] ?? g.direction) + (g.edge ? " from " + g.edge + " edge" : "");
    case "pinch":
      return "pinch " + g.scale.toFixed(2).replace(/0$/, "") + "×" + (g.phase === "cancelled" ? " cancelled" : "");
    case "rotate":
      return "rotate " + Math.round(g.rotation) + "°" + (g.phase === "cancelled" ? " cancelled" : "");
    case "drag":
      return g.phase === "cancelled" ? "drag cancelled" : null; // a completed drag's path is its trail
    default:
      return g.phase === "cancelled" && g.gesture !== "press" ? g.gesture + " cancelled" : null;
  }
}

function addLabel(key, text, location, muted) {
  const now = performance.now();
  const existing = key === null ? undefined : labels.find((l) => l.key === key);
  if (existing) {
    Object.assign(existing, { text, x: location.x, y: location.y, at: now, muted });
    return;
  }
  labels.push({ key, text, x: location.x, y: location.y, at: now, muted });
}

async function loadRegions() {
  const known = [...devices.entries()].filter(([, d]) => d.present);
  const queries = known.length ? known.map(([name, d]) => "?device=" + encodeURIComponent(name) + (d.path ? "&path=" + encodeURIComponent(d.path) : "")) : [""];
  const found = new Map();
  const errors = [];
  for (const query of queries) {
    try {
      const reply = await (await fetch("regions" + query, { cache: "no-store" })).json();
      if (reply.error) errors.push(reply.error);
      for (const region of reply.regions) found.set(region.name + JSON.stringify(region.rect), region);
    } catch (error) {
      errors.push(String(error));
    }
  }
  regions = found;
  ui.regionsNote.textContent = found.size ? [...new Set([...found.values()].map((r) => r.name))].join(", ") : "none" + (errors.length ? " (" + errors[0] + ")" : " configured");
  redraw();
}

function setConnection(text, state) {
  ui.connection.textContent = text;
  ui.connection.className = "state " + state;
}

function renderDevices() {
  ui.devices.replaceChildren();
  if (devices.size === 0) {
    const li = document.createElement("li");
    li.className = "none";
    li.textContent = "none";
    ui.devices.append(li);
  }
  for (const [name, device] of devices) {
    const li = document.createElement("li");
    li.textContent = name + " — " + device.kind + (device.path ? " (" + device.path + ")" : "") + (device.present ? "" : ", removed");
    if (!device.present) li.className = "removed";
    ui.devices.append(li);
  }
}

function renderCounts() {
  ui.counts.textContent = counts.gestures + " gestures, " + counts.touches + " touches" + (counts.dropped ? ", " + counts.dropped + " events dropped (slow view)" : "");
}

// --- drawing ---

let frameRequested = false;
function redraw() {
  if (!frameRequested) {
    frameRequested = true;
    requestAnimationFrame(draw);
  }
}

function resize() {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(window.innerWidth * ratio);
  canvas.height = Math.round(window.innerHeight * ratio);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  redraw();
}
window.addEventListener("resize", resize);

function hue(id) {
  return (id * 67) % 360;
}

function draw() {
  frameRequested = false;
  const now = performance.now();
  const w = window.innerWidth, h = window.innerHeight;
  ctx.clearRect(0, 0, w, h);
  let animating = false;

  // A 10 % grid: where 0…1 falls on this screen.
  ctx.strokeStyle = "rgba(255,255,255,0.06)";
  ctx.lineWidth = 1;
  for (let i = 1; i < 10; i++) {
    ctx.beginPath(); ctx.moveTo(w * i / 10, 0); ctx.lineTo(w * i / 10, h); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(0, h * i / 10); ctx.lineTo(w, h * i / 10); ctx.stroke();
  }

  // Regions: dashed outlines with their names.
  ctx.setLineDash([8, 6]);
  ctx.lineWidth = 2;
  ctx.font = "600 15px system-ui, sans-serif";
  ctx.textBaseline = "top";
  for (const region of regions.values()) {
    const r = region.rect;
    ctx.strokeStyle = "rgba(120,180,255,0.75)";
    ctx.strokeRect(r.x * w + 1, r.y * h + 1, r.width * w - 2, r.height * h - 2);
    ctx.fillStyle = "rgba(120,180,255,0.95)";
    ctx.fillText(region.name, r.x * w + 8, r.y * h + 8);
  }
  ctx.setLineDash([]);

  // Trails, then the contacts still down.
  for (const [key, trail] of trails) {
    const age = trail.active ? 0 : now - trail.endedAt;
    if (age > TRAIL_FADE_MS) { trails.delete(key); continue; }
    if (!trail.active) animating = true;
    const alpha = 1 - age / TRAIL_FADE_MS;
    const color = "hsla(" + hue(trail.id) + ",85%,62%,";
    ctx.strokeStyle = color + (0.85 * alpha) + ")";
    ctx.lineWidth = 4;
    ctx.lineJoin = ctx.lineCap = "round";
    ctx.beginPath();
    trail.points.forEach((p, i) => (i ? ctx.lineTo(p.x * w, p.y * h) : ctx.moveTo(p.x * w, p.y * h)));
    ctx.stroke();
    const last = trail.points[trail.points.length - 1];
    if (trail.active && last) {
      ctx.fillStyle = color + "0.35)";
      ctx.strokeStyle = color + "1)";
      ctx.lineWidth = 3;
      ctx.beginPath(); ctx.arc(last.x * w, last.y * h, 26, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
      ctx.fillStyle = "#fff";
      ctx.font = "700 15px system-ui, sans-serif";
      ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.fillText("#" + trail.id, last.x * w, last.y * h);
      ctx.textAlign = "start"; ctx.textBaseline = "top";
    }
  }

  // Gesture labels where they happened; a label that would cover an earlier one (a double
  // tap's two taps, a swipe's end beside a pinch) moves down below it.
  ctx.font = "600 18px system-ui, sans-serif";
  for (let i = labels.length - 1; i >= 0; i--) {
    if (now - labels[i].at > LABEL_MS) labels.splice(i, 1);
  }
  const placed = [];
  for (const label of labels) {
    const age = now - label.at;
    animating = true;
    const alpha = age < LABEL_MS * 0.6 ? 1 : 1 - (age - LABEL_MS * 0.6) / (LABEL_MS * 0.4);
    const width = ctx.measureText(label.text).width + 16;
    const x = Math.min(Math.max(label.x * w + 32, 4), w - width - 4);
    let y = Math.min(Math.max(label.y * h - 34, 4), h - 30);
    while (placed.some((b) => x < b.x + b.width && b.x < x + width && y < b.y + 28 && b.y < y + 28)) y += 28;
    placed.push({ x, y, width });
    ctx.fillStyle = "rgba(0,0,0," + 0.7 * alpha + ")";
    ctx.fillRect(x, y, width, 26);
    ctx.fillStyle = (label.muted ? "rgba(200,200,200," : "rgba(255,220,90,") + alpha + ")";
    ctx.textBaseline = "middle";
    ctx.fillText(label.text, x + 8, y + 13);
    ctx.textBaseline = "top";
  }

  if (animating) redraw();
}

renderDevices();
renderCounts();
resize();

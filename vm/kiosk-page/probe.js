// The kiosk tier's page (probe.html): logs every DOM event a touch causes.
"use strict";
const generation = Number(new URLSearchParams(location.search).get("g") ?? "0");
// The last reset and report the page acted on: the driver counts both up from 0, and a
// number the page has not acted on yet is acted on at its first poll too (a page loaded
// again repeats the last ones: harmless, the driver waits for a new number).
let report = 0;
let reset = 0;
// Whether Chromium may open its context menu (the driver turns it off where it counts right
// clicks: an open menu takes the next right click to close itself), and whether it shows a
// mouse cursor over the page (off: `cursor: none`, as the kiosk guide tells a page).
let menus = true;
let cursor = true;

function log(e, fields = {}) {
  console.log("GK " + JSON.stringify({ e, g: generation, ...fields }));
}
window.probeLog = log;
log("boot", { url: location.href });
addEventListener("error", (event) => log("error", { message: String(event.message) }));
addEventListener("unhandledrejection", (event) => log("error", { message: String(event.reason) }));
const round = (value) => Math.round(value * 100) / 100;

// Text under every finger: a long press has a word to select, and the page is several
// screens tall so that a drag scrolls it.
const words = "touchscreen kiosk gesture pointer selection viewport compositor".split(" ");
const text = document.getElementById("text");
for (let line = 0; line < 160; line++) {
  const p = document.createElement("p");
  p.textContent = Array.from({ length: 12 }, (_, i) => words[(line + i) % words.length]).join(" ");
  text.appendChild(p);
}

const passive = { passive: true };
for (const type of ["pointerdown", "pointermove", "pointerup", "pointercancel"]) {
  addEventListener(type, (event) => log(type, {
    id: event.pointerId, kind: event.pointerType, primary: event.isPrimary,
    x: round(event.clientX), y: round(event.clientY),
  }), passive);
}
for (const type of ["touchstart", "touchmove", "touchend", "touchcancel"]) {
  addEventListener(type, (event) => log(type, {
    down: event.touches.length,
    changed: Array.from(event.changedTouches, (touch) => ({
      id: touch.identifier, x: round(touch.clientX), y: round(touch.clientY),
    })),
  }), passive);
}
// fromTouch: the mouse event was made from a touch (Chromium's compatibility events); false
// for a mouse event the windowing system emulated from a touch on its own.
for (const type of ["mousedown", "mouseup", "click", "dblclick", "auxclick", "contextmenu"]) {
  addEventListener(type, (event) => log(type, {
    x: round(event.clientX), y: round(event.clientY), button: event.button,
    fromTouch: event.sourceCapabilities?.firesTouchEvents ?? null,
  }), passive);
}
// A key reaches the page only from a keyboard: gestured's wake key must never show here; the
// keys an actions runner types do, with the modifiers held.
for (const type of ["keydown", "keyup"]) {
  addEventListener(type, (event) => log(type, {
    text: `${event.code}/${event.key}`,
    held: ["Shift", "Control", "Alt", "Meta"].filter((modifier) => event.getModifierState(modifier)),
  }), passive);
}
addEventListener("contextmenu", (event) => {
  if (!menus) event.preventDefault();
});
document.addEventListener("selectstart", () => log("selectstart"), passive);
document.addEventListener("selectionchange", () => log("selectionchange", { text: getSelection().toString() }), passive);
visualViewport.addEventListener("resize", () => log("viewport", {
  scale: round(visualViewport.scale), ox: round(visualViewport.offsetLeft), oy: round(visualViewport.offsetTop),
}), passive);
addEventListener("resize", () => log("resize", { w: innerWidth, h: innerHeight }), passive);
addEventListener("scrollend", () => log("scrollend", { sx: round(scrollX), sy: round(scrollY) }), passive);

function state() {
  return {
    scale: round(visualViewport.scale), sx: round(scrollX), sy: round(scrollY),
    selection: getSelection().toString(), w: innerWidth, h: innerHeight, dpr: devicePixelRatio, menus, cursor,
  };
}

async function poll() {
  try {
    const response = await fetch("control.js", { cache: "no-store" });
    const control = await response.json();
    if (control.generation !== generation) {
      location.replace("probe.html?g=" + control.generation);
      return;
    }
    if (control.reset !== reset) {
      getSelection().removeAllRanges();
      scrollTo({ left: 0, top: 0, behavior: "instant" });
    }
    reset = control.reset;
    menus = control.menus !== false;
    cursor = control.cursor !== false;
    document.documentElement.style.cursor = cursor ? "" : "none";
    if (control.report !== report) log("state", { report: control.report, ...state() });
    report = control.report;
  } catch (error) {
    log("control-error", { message: String(error) });
  }
  setTimeout(poll, 250);
}

// Ready once the page has loaded and been laid out (a task after load; not an animation
// frame, which a browser may hold back for a page it thinks hidden).
addEventListener("load", () => setTimeout(() => {
  log("ready", { url: location.href, ...state() });
  poll();
}, 0));

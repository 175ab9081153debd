// The kiosk tier's page (probe.html): its gestured-web client, logging what it receives.
// The JS client, through the bridge that served this page (same origin).
import { GesturedClient } from "./gestured.js";
const log = window.probeLog;
const client = new GesturedClient(undefined, {
  subscribe: { gestures: ["swipe", "pinch", "long-press"] },
  maximumDelay: 1000, // back soon after the driver restarts the daemon
});
client.on("open", () => log("bridge-open"));
client.on("close", (info) => log("bridge-close", { code: info.code, reconnectIn: info.reconnectIn }));
client.on("hello", () => log("gestured-hello"));
for (const gesture of ["swipe", "pinch", "long-press"]) {
  client.on(gesture, (event) => log("gestured", {
    gesture: event.gesture, phase: event.phase, region: event.region, fingers: event.fingers,
    direction: event.direction ?? null, edge: event.edge ?? null,
    x: round(event.location.x), y: round(event.location.y),
  }));
}

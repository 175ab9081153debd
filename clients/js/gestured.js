// gestured.js: a browser client for gestured's WebSocket bridge (gestured-web).
// One ES module, no dependencies. The wire contract is docs/protocol.md (protocol 1): each
// WebSocket message is exactly one JSON object the daemon's Unix socket sends.
//
//   import { GesturedClient } from "./gestured.js";
//   const client = new GesturedClient();              // ws://<this page's host>/ws
//   client.on("tap", (tap) => console.log("tap ×" + tap.count, tap.location));
//   client.on("swipe", (swipe) => { if (swipe.edge === "right") exitKiosk(); });
//   client.subscribe({ gestures: ["tap", "swipe"] });
//
// See docs/web.md for the whole API.

/** @typedef {{x: number, y: number}} Point  Normalised 0…1 in screen orientation, origin top-left. */

/** @typedef {"press"|"tap"|"long-press"|"drag"|"swipe"|"pinch"|"rotate"} GestureName */
/** @typedef {"began"|"changed"|"ended"|"cancelled"} GesturePhase */
/** @typedef {"left"|"right"|"up"|"down"} Direction */
/** @typedef {"left"|"right"|"top"|"bottom"} Edge */

/**
 * Fields every gesture event carries.
 * @typedef {Object} GestureCommon
 * @property {"gesture"} type
 * @property {GestureName} gesture
 * @property {GesturePhase} phase
 * @property {number} id         Shared by every phase of one gesture.
 * @property {number} seq        Per-connection sequence number; a gap means events were dropped.
 * @property {number} time       Microseconds, CLOCK_MONOTONIC of the input that caused it.
 * @property {string} device     The input device's name.
 * @property {string|null} region  The configured region that recognized it, or null.
 * @property {number} fingers
 * @property {Point} location
 * @property {Point} [localLocation]  In the region's own 0…1 space (only when region is not null).
 */

/** @typedef {GestureCommon & {gesture: "press"}} PressEvent  `began` at touch-down, `ended` at the last lift, or `cancelled`. */
/** @typedef {GestureCommon & {gesture: "tap", count: number}} TapEvent  Always `ended`; `count` is 1, 2, 3… in a multi-tap. */
/** @typedef {GestureCommon & {gesture: "long-press"}} LongPressEvent */

/**
 * Fields of drags and swipes.
 * @typedef {Object} DragFields
 * @property {Edge|null} edge                The screen edge the drag started from (the same on every event: an edge pan).
 * @property {Point} startLocation
 * @property {Point} [localStartLocation]
 * @property {Point} translation
 * @property {Point} velocity                Normalised units per second.
 * @property {Point} predictedEndLocation
 * @property {Point} predictedEndTranslation
 */

/** @typedef {GestureCommon & DragFields & {gesture: "drag"}} DragEvent */
/** @typedef {GestureCommon & DragFields & {gesture: "swipe", direction: Direction}} SwipeEvent  Always `ended`. */
/** @typedef {GestureCommon & {gesture: "pinch", scale: number, velocity: number}} PinchEvent  `scale`: the fingers' spread relative to where the pinch began; `velocity`: scale per second (0 with no estimate yet: `began`, `cancelled`, or a daemon older than the field). */
/** @typedef {GestureCommon & {gesture: "rotate", rotation: number, velocity: number}} RotateEvent  `rotation`: degrees since the rotation began, clockwise positive; `velocity`: degrees per second (0 as for a pinch). */

/** @typedef {PressEvent|TapEvent|LongPressEvent|DragEvent|SwipeEvent|PinchEvent|RotateEvent} GestureEvent */

/**
 * A raw contact (only after subscribing with `touches: true`).
 * @typedef {Object} TouchEvent
 * @property {"touch"} type
 * @property {"began"|"moved"|"ended"|"cancelled"} phase
 * @property {number} touch    Identifies the contact.
 * @property {number} seq
 * @property {number} time
 * @property {string} device
 * @property {Point} location
 */

/**
 * @typedef {Object} DeviceEvent
 * @property {"device"} type
 * @property {"added"|"removed"} phase
 * @property {number} seq
 * @property {number} time
 * @property {string} device
 * @property {"touchscreen"|"touchpad"|"replay"} kind
 * @property {string|null} path
 */

/**
 * No touch on any device for the daemon's idle timeout (`idle`), or the first touch after it (`active`).
 * Sent to every client whatever its filters.
 * @typedef {Object} ActivityEvent
 * @property {"activity"} type
 * @property {"idle"|"active"} phase
 * @property {number} seq
 * @property {number} time     Microseconds, the daemon's CLOCK_MONOTONIC: when the timeout ran out, or when the waking touch was read.
 */

/** @typedef {{name: string, kind: "touchscreen"|"touchpad"|"replay", path: string|null}} DeviceInfo */

/**
 * @typedef {Object} HelloMessage  The first message of every connection.
 * @property {"hello"} type
 * @property {number} protocol
 * @property {string} server
 * @property {string} version
 * @property {DeviceInfo[]} devices
 */

/** @typedef {{type: "pong", time: number}} PongMessage */

/**
 * @typedef {Object} StatusMessage
 * @property {"status"} type
 * @property {number} protocol
 * @property {string} version
 * @property {number} uptime      Seconds.
 * @property {number|null} lastTouch  When the daemon last read a touch (µs, its CLOCK_MONOTONIC); null before the first.
 * @property {DeviceInfo[]} devices
 * @property {number} clients
 * @property {number} maxClients
 * @property {{events: number, sent: number, dropped: number, connections: number, rejected: number, slowDisconnects: number}} counters
 * @property {{device: string, location: Point, period: number, count: number}[]} [ghosts]  The ghost series touch hygiene
 *   learned (a point, its period in µs, its touches so far); absent when none.
 */

/**
 * The answer to a `metrics` request: the daemon's counters (docs/metrics.md).
 * @typedef {Object} MetricsMessage
 * @property {"metrics"} type
 * @property {number} uptime      Seconds.
 * @property {DeviceInfo[]} devices
 * @property {number} clients
 * @property {number} dropped     Event lines dropped for slow clients.
 * @property {number|null} lastTouch  Wall-clock time (µs since 1970, UTC) of the last touch-down; null before the first.
 * @property {{device: string, region: string|null, counts: {gesture: GestureName, phase: GesturePhase, count: number}[]}[]} gestures
 * @property {{device: string, touches: number, synDropped: number, filtered?: Object<string, number>}[]} inputs
 *           `filtered`: touches touch hygiene dropped or ended, by reason; absent when none.
 * @property {{buckets: {le: number, count: number}[], count: number, sum: number}} latency  Delivery latency in µs, cumulative buckets.
 */

/** @typedef {{type: "error", message: string}} ErrorMessage */
/** @typedef {{type: "overflow", dropped: number}} OverflowMessage  Events were dropped because this client read too slowly. */
/** @typedef {{type: "goodbye", reason: string}} GoodbyeMessage  The connection is being closed by the daemon or the bridge. */

/** @typedef {GestureEvent|TouchEvent|DeviceEvent|ActivityEvent|HelloMessage|PongMessage|StatusMessage|MetricsMessage|ErrorMessage|OverflowMessage|GoodbyeMessage} Message */

/**
 * A message that could not be decoded, for the "invalid" event.
 * @typedef {{data: string, problem: string}} InvalidMessage
 */

/**
 * Filters for `subscribe` (docs/protocol.md "Requests"); an absent or null filter lets everything through.
 * @typedef {Object} SubscribeFilter
 * @property {GestureName[]|null} [gestures]
 * @property {(string|null)[]|null} [regions]   null in the array: outside every region.
 * @property {string[]|null} [devices]
 * @property {boolean} [touches]                 true: also receive raw `touch` events.
 */

/**
 * @typedef {Object} ClientOptions
 * @property {SubscribeFilter|null} [subscribe]  Sent on every (re)connection.
 * @property {boolean} [reconnect]       Reconnect after the connection is lost (default true).
 * @property {number} [initialDelay]     First reconnection delay in ms (default 250).
 * @property {number} [maximumDelay]     Longest reconnection delay in ms (default 10000).
 * @property {typeof WebSocket} [WebSocket]  A WebSocket implementation (default: the browser's).
 */

/**
 * Connection state changes, for the "open" and "close" events.
 * @typedef {{code: number, reason: string, reconnectIn: number|null}} CloseInfo
 */

// --- decoding: one table of the fields each message must carry (docs/protocol.md) ---

const isNumber = (value) => typeof value === "number" && Number.isFinite(value);
const isString = (value) => typeof value === "string";
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const isPoint = (value) => isObject(value) && isNumber(value.x) && isNumber(value.y);
const orNull = (check) => (value) => value === null || check(value);
const optional = (check) => (value) => value === undefined || check(value);
const isArray = Array.isArray;

const EVENT = { seq: isNumber, time: isNumber };
const DRAG = {
  edge: orNull(isString), startLocation: isPoint, localStartLocation: optional(isPoint), translation: isPoint, velocity: isPoint,
  predictedEndLocation: isPoint, predictedEndTranslation: isPoint,
};

/** Each gesture kind's own fields; fields a later release added, with their value when absent. */
const GESTURE_FIELDS = {
  "press": {},
  "tap": { count: isNumber },
  "long-press": {},
  "drag": DRAG,
  "swipe": { direction: isString, ...DRAG },
  "pinch": { scale: isNumber },
  "rotate": { rotation: isNumber },
};
const GESTURE_ADDED = { pinch: { velocity: 0 }, rotate: { velocity: 0 } };

/** The fields every message the daemon sends must carry, by type. */
const MESSAGE_FIELDS = {
  hello: { protocol: isNumber, server: isString, version: isString, devices: isArray },
  gesture: {
    gesture: isString, phase: isString, id: isNumber, ...EVENT, device: isString, region: orNull(isString),
    fingers: isNumber, location: isPoint, localLocation: optional(isPoint),
  },
  touch: { phase: isString, touch: isNumber, ...EVENT, location: isPoint, device: isString },
  device: { phase: isString, ...EVENT, device: isString, kind: isString, path: orNull(isString) },
  activity: { phase: isString, ...EVENT },
  pong: { time: isNumber },
  status: {
    protocol: isNumber, version: isString, uptime: isNumber, lastTouch: orNull(isNumber), devices: isArray,
    clients: isNumber, maxClients: isNumber, counters: isObject,
  },
  metrics: {
    uptime: isNumber, devices: isArray, clients: isNumber, dropped: isNumber, lastTouch: orNull(isNumber),
    gestures: isArray, inputs: isArray, latency: isObject,
  },
  error: { message: isString },
  overflow: { dropped: isNumber },
  goodbye: { reason: isString },
};

/** Every message type the daemon sends, each decoded by `decode` (docs/protocol.md). */
export const MESSAGE_TYPES = Object.freeze(Object.keys(MESSAGE_FIELDS));
/** Every gesture kind, each with its own fields checked by `decode`. */
export const GESTURE_KINDS = Object.freeze(Object.keys(GESTURE_FIELDS));
const GESTURES = GESTURE_KINDS;

/** A message that is not JSON, or lacks a field its type requires (`decode` throws it). */
export class ProtocolError extends Error {}

function check(message, fields, what) {
  for (const [name, valid] of Object.entries(fields)) {
    if (!valid(message[name])) throw fieldError(message, name, what);
  }
}

function fieldError(message, name, what) {
  return new ProtocolError(`${what}: field "${name}" ${name in message ? "has the wrong type" : "is missing"}`);
}

/**
 * Decodes one message from the bridge (a frame's text) into a typed Message: every field its
 * type (and gesture kind) requires is checked, and a field later releases added gets its value
 * when an older daemon left it out (a pinch's or rotate's `velocity`: 0). A message type or
 * gesture kind this client does not know (a newer daemon) is returned as it came, unchecked
 * beyond its `type`; unknown fields are kept.
 * @param {string} text
 * @returns {Message}
 * @throws {ProtocolError} not a JSON object with a string `type`, or a known type without its fields.
 */
export function decode(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch (error) {
    throw new ProtocolError("not JSON (" + error.message + ")");
  }
  if (!isObject(message) || !isString(message.type)) throw new ProtocolError('not a JSON object with a string "type"');
  const fields = MESSAGE_FIELDS[message.type];
  if (!fields) return message;
  check(message, fields, "a " + message.type + " message");
  if (message.type === "gesture" && GESTURE_KINDS.includes(message.gesture)) {
    check(message, GESTURE_FIELDS[message.gesture], "a " + message.gesture + " gesture");
    for (const [name, value] of Object.entries(GESTURE_ADDED[message.gesture] ?? {})) {
      if (!(name in message)) message[name] = value;
      else if (!isNumber(message[name])) throw fieldError(message, name, "a " + message.gesture + " gesture");
    }
  }
  return message;
}

/** The bridge's /ws on the host that served this page (ws: or wss: to match http: or https:). */
export function defaultURL() {
  const location = globalThis.location;
  if (!location) return "ws://127.0.0.1:7412/ws";
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
}

/**
 * A connection to gestured-web that reconnects with exponential backoff.
 *
 * Events for `on`: a gesture name ("tap", "long-press", "swipe"…: gesture events of that kind),
 * a message type ("gesture", "touch", "device", "activity", "hello", "pong", "status",
 * "metrics", "error", "overflow", "goodbye", or a newer daemon's), "message" (every message,
 * decoded), "invalid" (an InvalidMessage: a frame `decode` refused; nothing else sees it),
 * "open" (the WebSocket opened) and "close" (it closed; a CloseInfo says whether and when it
 * reconnects).
 */
export class GesturedClient {
  /**
   * @param {string} [url]  Default: defaultURL().
   * @param {ClientOptions} [options]
   */
  constructor(url = defaultURL(), options = {}) {
    this.url = url;
    this.reconnect = options.reconnect ?? true;
    this.initialDelay = options.initialDelay ?? 250;
    this.maximumDelay = options.maximumDelay ?? 10000;
    /** @type {SubscribeFilter|null} */
    this.filter = options.subscribe ?? null;
    /** @type {HelloMessage|null} The latest connection's hello. */
    this.hello = null;
    this._WebSocket = options.WebSocket ?? globalThis.WebSocket;
    /** @type {Map<string, Set<Function>>} */
    this._handlers = new Map();
    /** @type {{type: string, resolve: Function, reject: Function}[]} */
    this._waiting = [];
    /** @type {Set<{push: (m: Message) => void}>} */
    this._streams = new Set();
    this._attempt = 0;
    this._closed = false;
    this._timer = null;
    /** @type {WebSocket|null} */
    this._socket = null;
    this._open();
  }

  /**
   * Calls `handler` for every event `name` (see the class); returns a function that stops it.
   * @template {string} N
   * @param {N} name
   * @param {(message: N extends "tap" ? TapEvent : N extends "swipe" ? SwipeEvent : N extends "pinch" ? PinchEvent : N extends "rotate" ? RotateEvent : N extends "drag" ? DragEvent : N extends "touch" ? TouchEvent : N extends "device" ? DeviceEvent : N extends "hello" ? HelloMessage : N extends "activity" ? ActivityEvent : N extends "metrics" ? MetricsMessage : N extends "invalid" ? InvalidMessage : N extends "close" ? CloseInfo : any) => void} handler
   * @returns {() => void}
   */
  on(name, handler) {
    if (!this._handlers.has(name)) this._handlers.set(name, new Set());
    this._handlers.get(name).add(handler);
    return () => this.off(name, handler);
  }

  /** Stops calling `handler` for `name`. */
  off(name, handler) {
    this._handlers.get(name)?.delete(handler);
  }

  /**
   * Replaces the connection's filters now and on every reconnection.
   * @param {SubscribeFilter} filter
   */
  subscribe(filter) {
    this.filter = filter;
    this._send({ type: "subscribe", ...filter });
  }

  /** @returns {Promise<PongMessage>} The daemon's answer (rejects on an error reply or a lost connection). */
  ping() {
    return this._request("ping", "pong");
  }

  /** @returns {Promise<StatusMessage>} */
  status() {
    return this._request("status", "status");
  }

  /** @returns {Promise<MetricsMessage>} The daemon's counters (docs/metrics.md). */
  metrics() {
    return this._request("metrics", "metrics");
  }

  /**
   * The message stream: every message (decoded) from now on, across reconnections, until
   * `close()` or until the loop is left.
   * @returns {AsyncIterableIterator<Message>}
   */
  messages() {
    /** @type {Message[]} */
    const buffered = [];
    /** @type {((r: IteratorResult<Message>) => void)|null} */
    let wake = null;
    const stream = {
      push: (message) => {
        if (wake) { const w = wake; wake = null; w({ value: message, done: false }); } else buffered.push(message);
      },
      end: () => { if (wake) { const w = wake; wake = null; w({ value: undefined, done: true }); } },
    };
    this._streams.add(stream);
    const client = this;
    return {
      next() {
        if (buffered.length) return Promise.resolve({ value: buffered.shift(), done: false });
        if (client._closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => { wake = resolve; });
      },
      return() {
        client._streams.delete(stream);
        stream.end();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() { return this; },
    };
  }

  /** Closes the connection for good (no reconnection). */
  close() {
    this._closed = true;
    clearTimeout(this._timer);
    this._socket?.close(1000, "client closed");
    for (const stream of this._streams) stream.end();
    this._streams.clear();
    this._failWaiting(new Error("client closed"));
  }

  // --- internals ---

  _open() {
    if (this._closed) return;
    const socket = new this._WebSocket(this.url);
    this._socket = socket;
    socket.onopen = () => {
      if (this.filter) socket.send(JSON.stringify({ type: "subscribe", ...this.filter }));
      this._emit("open", { url: this.url });
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      let message;
      try {
        message = decode(event.data);
      } catch (error) {
        console.warn("gestured.js: ignored a message:", error.message);
        this._emit("invalid", { data: event.data, problem: error.message });
        return;
      }
      this._dispatch(message);
    };
    socket.onclose = (event) => {
      if (this._socket !== socket) return;
      this._socket = null;
      this._failWaiting(new Error("connection closed: " + (event.reason || event.code)));
      let reconnectIn = null;
      if (!this._closed && this.reconnect) {
        const delay = Math.min(this.maximumDelay, this.initialDelay * 2 ** this._attempt);
        reconnectIn = Math.round(delay / 2 + Math.random() * delay / 2); // jitter: a fleet does not reconnect in step
        this._attempt += 1;
        this._timer = setTimeout(() => this._open(), reconnectIn);
      }
      this._emit("close", { code: event.code, reason: event.reason, reconnectIn });
    };
  }

  /** @param {Message} message */
  _dispatch(message) {
    if (message.type === "hello") {
      this.hello = message;
      this._attempt = 0; // reached the daemon: the next loss starts the backoff afresh
    }
    const waiter = this._waiting.find((w) => w.type === message.type || message.type === "error");
    if (waiter && (message.type === "pong" || message.type === "status" || message.type === "metrics" || message.type === "error")) {
      this._waiting.splice(this._waiting.indexOf(waiter), 1);
      if (message.type === "error") waiter.reject(new Error(message.message)); else waiter.resolve(message);
    }
    for (const stream of this._streams) stream.push(message);
    this._emit("message", message);
    this._emit(message.type, message);
    if (message.type === "gesture" && GESTURES.includes(message.gesture)) this._emit(message.gesture, message);
  }

  _emit(name, value) {
    for (const handler of this._handlers.get(name) ?? []) {
      try {
        handler(value);
      } catch (error) {
        setTimeout(() => { throw error; }); // reported, and the other handlers still run
      }
    }
  }

  _send(request) {
    if (this._socket?.readyState === 1) this._socket.send(JSON.stringify(request));
  }

  _request(type, replyType) {
    if (this._socket?.readyState !== 1) return Promise.reject(new Error("not connected"));
    return new Promise((resolve, reject) => {
      this._waiting.push({ type: replyType, resolve, reject });
      this._send({ type });
    });
  }

  _failWaiting(error) {
    const waiting = this._waiting;
    this._waiting = [];
    for (const w of waiting) w.reject(error);
  }
}

/**
 * A new client (see GesturedClient).
 * @param {string} [url]
 * @param {ClientOptions} [options]
 */
export function connect(url, options) {
  return new GesturedClient(url, options);
}

import ConfigFile
import GestureCore
import GestureProtocol
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SystemCalls

/// An HTTP response the bridge sends for a plain (not upgraded) request.
public struct HTTPReply: Sendable {
    public var status: HTTPResponseStatus
    public var contentType: String
    public var body: [UInt8]
    /// Why the request was refused (403), for the log.
    public var refusal: String?
    /// Headers besides the ones every reply has.
    public var headers: [(String, String)] = []

    init(_ status: HTTPResponseStatus, contentType: String = "text/plain; charset=utf-8", body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    init(_ status: HTTPResponseStatus, text: String) {
        self.init(status, body: Array((text + "\n").utf8))
    }
}

/// What the bridge serves over plain HTTP (docs/web.md "Endpoints"): the live view's
/// static files from `webRoot`, `/regions` (the region outlines from the daemon's
/// configuration), and the answers to a `/ws` request that is not a WebSocket upgrade or
/// whose origin is refused. `/metrics` needs the daemon's answer first: `HTTPHandler` asks
/// it (`MetricsScrape`) and renders it (`MetricsExposition`).
public struct Routes: Sendable {
    public let policy: OriginPolicy
    /// Directory of the live view's files (`index.html`, `live.js`, `gestured.js`, …).
    public let webRoot: String
    /// The daemon's configuration file, for `/regions`.
    public let daemonConfig: String
    /// Where the live view was looked for (`WebRootLookup.searched`, or the `--web-root`
    /// given): the page `GET /` answers when `webRoot` has no `index.html` lists them.
    public let searched: [String]

    /// The parsed daemon configuration and the `/regions` answers made from it.
    private let regionsCache = RegionsCache()

    public init(policy: OriginPolicy, webRoot: String, daemonConfig: String, searched: [String] = []) {
        self.policy = policy
        self.webRoot = webRoot
        self.daemonConfig = daemonConfig
        self.searched = searched
    }

    /// The WebSocket endpoint.
    public static let webSocketPath = "/ws"
    /// Prometheus' endpoint (answered by `HTTPHandler`, which asks the daemon first).
    public static let metricsPath = "/metrics"
    /// Largest static file served (the live view's files are a few KiB).
    static let maximumFileSize = 4 << 20

    /// Whether a WebSocket upgrade of `head` may go ahead (path, origin, and RFC 6455
    /// 4.2.1: a GET of HTTP/1.1 or later, `Sec-WebSocket-Version: 13`); a refused upgrade
    /// reaches `reply`, which answers it.
    public func mayUpgrade(_ head: HTTPRequestHead) -> Bool {
        Self.path(of: head.uri) == Self.webSocketPath && Self.isValidUpgrade(head) && decision(for: head) == .allowed
    }

    /// HTTP/1.1 or later.
    static func isHTTP11(_ version: HTTPVersion) -> Bool {
        version.major > 1 || version.major == 1 && version.minor >= 1
    }

    static func isValidUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.method == .GET && isHTTP11(head.version)
            && head.headers[canonicalForm: "sec-websocket-version"].map(String.init) == ["13"]
    }

    /// The origin check's verdict on `head`.
    public func decision(for head: HTTPRequestHead) -> OriginPolicy.Decision {
        policy.decide(origin: head.headers.first(name: "origin"), host: head.headers.first(name: "host"))
    }

    /// The reply to a plain request.
    public func reply(to head: HTTPRequestHead) -> HTTPReply {
        let path = Self.path(of: head.uri)
        guard head.method == .GET || head.method == .HEAD else {
            return HTTPReply(.methodNotAllowed, text: "only GET and HEAD")
        }
        switch path {
        case Self.webSocketPath:
            if case .refused(let reason) = decision(for: head) {
                var reply = HTTPReply(.forbidden, text: "refused: \(reason)")
                reply.refusal = reason
                return reply
            }
            if !Self.isHTTP11(head.version) {
                return HTTPReply(.badRequest, text: "a WebSocket upgrade needs HTTP/1.1")
            }
            var reply = HTTPReply(
                .upgradeRequired,
                text:
                    "\(Self.webSocketPath) is a WebSocket (RFC 6455, version 13): connect with new WebSocket(\"ws://…\(Self.webSocketPath)\")"
            )
            reply.headers = [("sec-websocket-version", "13"), ("upgrade", "websocket")]
            return reply
        case "/regions":
            return regions(query: Self.query(of: head.uri))
        case "/":
            let index = file(named: "index.html")
            return index.status == .notFound ? noLiveView() : index
        default:
            let name = path.dropFirst()
            // One level of plain file names: nothing outside the web root can be named.
            guard !name.isEmpty, !name.hasPrefix("."),
                name.unicodeScalars.allSatisfy({
                    $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)
                })
            else {
                return HTTPReply(.notFound, text: "not found")
            }
            return file(named: String(name))
        }
    }

    private func file(named name: String) -> HTTPReply {
        guard let type = Self.contentType(of: name) else {
            return HTTPReply(.notFound, text: "not found")
        }
        do {
            let bytes = try RegularFile.read(path: webRoot + "/" + name, limit: Self.maximumFileSize)
            return HTTPReply(.ok, contentType: type, body: bytes)
        } catch {
            return HTTPReply(.notFound, text: "not found")
        }
    }

    /// The answer to `GET /` when the web root has no `index.html`: a page that says where
    /// the live view was looked for and how to name it, rather than a bare 404.
    func noLiveView() -> HTTPReply {
        let places = (searched.isEmpty ? [webRoot] : searched).map { "<li><code>\(Self.htmlEscaped($0))</code></li>" }
        let page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>gestured-web: no live view</title></head>
            <body>
            <h1>No live view here</h1>
            <p>gestured-web is running, but it found no live view (<code>index.html</code>). It looked in:</p>
            <ul>
            \(places.joined(separator: "\n"))
            </ul>
            <p>Start it with <code>--web-root DIR</code>, DIR being the <code>web/</code> directory of a gestured
            checkout or <code>/usr/share/gestured/web</code> of the package. The WebSocket
            <code>\(Self.webSocketPath)</code> and <code>\(Self.metricsPath)</code> work without it.</p>
            </body></html>

            """
        return HTTPReply(.notFound, contentType: "text/html; charset=utf-8", body: Array(page.utf8))
    }

    /// `text` with `&`, `<`, `>` and `"` as HTML character references.
    static func htmlEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func contentType(of name: String) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...] {
        case "html": return "text/html; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "ico": return "image/x-icon"
        default: return nil
        }
    }

    /// `/regions?device=NAME&path=PATH`: the regions the daemon's configuration gives that
    /// device (the first `[[device]]` entry whose `match-name` and `match-path` fit; entries
    /// matched by `match-id` only are not known here), or the top-level regions without
    /// `device`. Served from a cache: the file is parsed again only when it changed (its
    /// `stat` identity: inode, size, times), so an edited configuration shows at the next
    /// request and a request costs one `stat`, not a parse on the event loop.
    func regions(query: [String: String]) -> HTTPReply {
        let key = (query["device"] ?? "") + "\u{0}" + (query["path"] ?? "") + "\u{0}" + (query["device"] == nil ? "" : "d")
        return regionsCache.reply(
            identity: RegularFile.identity(path: daemonConfig), key: key,
            load: { [daemonConfig] in Result { () throws(ConfigError) in try ConfigLoader.load(path: daemonConfig) } },
            render: { regions(query: query, configuration: $0) })
    }

    /// How often `/regions` parsed the daemon's configuration (for tests).
    var regionsParses: Int { regionsCache.parses }

    private func regions(query: [String: String], configuration: Result<Configuration, ConfigError>) -> HTTPReply {
        var json = #"{"config":"# + WireEncoder.jsonString(daemonConfig)
        do {
            let configuration = try configuration.get()
            let engine: EngineConfiguration
            if let device = query["device"] {
                let paths = query["path"].map { [$0] } ?? []
                engine = configuration.settings(forDevice: device, vendor: 0, product: 0, paths: paths).engine
            } else {
                engine = configuration.engine
            }
            let regions = engine.regions.map { region in
                let rect = region.rect
                return
                    #"{"name":\#(WireEncoder.jsonString(region.name)),"rect":{"x":\#(rect.x),"y":\#(rect.y),"width":\#(rect.width),"height":\#(rect.height)}}"#
            }
            json += #","regions":[\#(regions.joined(separator: ","))],"error":null}"#
        } catch {
            json += #","regions":[],"error":\#(WireEncoder.jsonString(error.description))}"#
        }
        return HTTPReply(.ok, contentType: "application/json", body: Array(json.utf8))
    }

    /// The path of a request target, without query or fragment.
    static func path(of uri: String) -> String {
        String(uri.prefix { $0 != "?" && $0 != "#" })
    }

    /// The query parameters of a request target, percent-decoded (`+` is a space); the
    /// first of repeated names wins.
    static func query(of uri: String) -> [String: String] {
        guard let mark = uri.firstIndex(of: "?") else { return [:] }
        let query = uri[uri.index(after: mark)...].prefix { $0 != "#" }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(parts[0]) else { continue }
            let value = parts.count > 1 ? percentDecoded(parts[1]) : ""
            if let value, result[name] == nil {
                result[name] = value
            }
        }
        return result
    }

    /// nil for a bad escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// `/regions` answers by query, valid while the configuration file keeps its identity; at
/// most `maximumEntries` of them (a query with a new device name beyond that empties it).
final class RegionsCache: Sendable {
    static let maximumEntries = 64

    private struct State {
        var identity: FileIdentity?
        var configuration: Result<Configuration, ConfigError>?
        var replies: [String: HTTPReply] = [:]
        var parses = 0
    }

    private let state = NIOLockedValueBox(State())

    var parses: Int { state.withLockedValue { $0.parses } }

    /// The answer for `key`: cached while the file's identity stays; else `render`ed from
    /// the cached configuration, which is `load`ed again only when the identity changed (or
    /// the file cannot be statted).
    func reply(
        identity: FileIdentity?, key: String, load: () -> Result<Configuration, ConfigError>,
        render: (Result<Configuration, ConfigError>) -> HTTPReply
    ) -> HTTPReply {
        let cached = state.withLockedValue { state -> (HTTPReply?, Result<Configuration, ConfigError>?) in
            guard let identity, state.identity == identity else { return (nil, nil) }
            return (state.replies[key], state.configuration)
        }
        if let reply = cached.0 {
            return reply
        }
        let configuration: Result<Configuration, ConfigError>
        if let known = cached.1 {
            configuration = known
        } else {
            configuration = load()
        }
        let reply = render(configuration)
        state.withLockedValue { state in
            if cached.1 == nil {
                state.parses += 1
                state.identity = identity
                state.configuration = identity == nil ? nil : configuration
                state.replies = [:]
            }
            if state.replies.count >= Self.maximumEntries {
                state.replies = [:]
            }
            if identity != nil {
                state.replies[key] = reply
            }
        }
        return reply
    }
}

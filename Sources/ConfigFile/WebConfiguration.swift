import GestureCore

/// gestured-web's configuration: the `[web]` table of `gestured-web.toml`
/// (`config/gestured-web.toml` documents every key; docs/web.md explains them).
public struct WebConfiguration: Sendable, Equatable {
    /// Origins besides the bridge's own whose pages may open `/ws` (`allowed-origins`).
    public var allowedOrigins: [WebOrigin] = []
    /// Host names, besides IP literals and `localhost`, that a request's `Host` may name
    /// (`allowed-hosts`): what keeps a DNS-rebinding page out.
    public var allowedHosts: [String] = []
    /// Event lines held for one browser that is not reading (`client-queue`).
    public var clientQueue = 1024
    /// What the bridge does with a browser that does not read its events fast enough
    /// (`slow-client`, as the daemon's: docs/protocol.md "Limits and slow clients").
    public var slowClient = SlowClientPolicy.dropOldest
    /// The daemon's configuration file, read for the live view's region outlines
    /// (`daemon-config`).
    public var daemonConfig = ConfigLoader.defaultPath
    /// Bytes held for one browser that does not read, events, replies and pongs together
    /// (`client-memory`, given in KiB).
    public var clientMemory = 1 << 20
    /// Bytes held for all browsers together (`bridge-memory`, given in MiB).
    public var bridgeMemory = 64 << 20
    /// Connections (HTTP and WebSocket) held open at once (`max-connections`).
    public var maxConnections = 512
    /// Connections to the daemon at once, one per browser and one per scrape in progress
    /// (`daemon-connections`): keep it below the daemon's `max-clients`.
    public var daemonConnections = 32
    /// Seconds an HTTP connection may take to send a complete request, after connecting or
    /// after its last response (`request-timeout`).
    public var requestTimeout = 10

    public init() {}
}

/// A web origin as a browser sends it in `Origin` (RFC 6454): `scheme://host[:port]`,
/// `file://`, or `null` (an opaque origin). Scheme and host are lower-cased; `port` is the
/// explicit port or the scheme's default (80 for http and ws, 443 for https and wss).
public struct WebOrigin: Sendable, Hashable, CustomStringConvertible {
    public var scheme: String
    public var host: String
    public var port: Int?

    /// The opaque origin `null` (Firefox's `file://` pages, sandboxed frames).
    public static let opaque = WebOrigin(scheme: "null", host: "", port: nil)

    public init(scheme: String, host: String, port: Int?) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Parses an `Origin` value; nil for anything else (a path, user information, an empty
    /// host, a bad port).
    public init?(parsing text: String) {
        let lowered = text.lowercased()
        if lowered == "null" {
            self = .opaque
            return
        }
        let parts = lowered.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let scheme = String(parts[0])
        let rest = String(parts[1])
        guard let first = scheme.unicodeScalars.first, ("a"..."z").contains(first),
            scheme.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        if rest.isEmpty {
            // `file://`: Chromium's origin for local files.
            guard scheme == "file" else { return nil }
            self.init(scheme: scheme, host: "", port: nil)
            return
        }
        guard let authority = HostAndPort(parsing: rest) else { return nil }
        self.init(scheme: scheme, host: authority.host, port: authority.port ?? Self.defaultPort(scheme: scheme))
    }

    /// The port a URL of `scheme` means when it names none.
    public static func defaultPort(scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }

    public var description: String {
        if self == .opaque { return "null" }
        if host.isEmpty { return "\(scheme)://" }
        guard let port, port != Self.defaultPort(scheme: scheme) else { return "\(scheme)://\(host)" }
        return "\(scheme)://\(host):\(port)"
    }
}

/// `host[:port]` as in a `Host` header or a URL's authority: a name, an IPv4 address or a
/// bracketed IPv6 address (kept with its brackets), lower-cased; no user information, path,
/// query or fragment.
public struct HostAndPort: Sendable, Hashable {
    public var host: String
    public var port: Int?

    public init?(parsing text: String) {
        let text = text.lowercased()
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[...close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
            guard host.count > 2, host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            if let colon = text.firstIndex(of: ":") {
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
            } else {
                host = text[...]
            }
            guard !host.isEmpty,
                host.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0) }
                )
            else { return nil }
        }
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let port = Int(portText),
                (1...65535).contains(port)
            else {
                return nil
            }
            self.port = port
        } else {
            self.port = nil
        }
        self.host = String(host)
    }
}

/// Reads `gestured-web.toml`. Every problem is a `ConfigError` naming the file and the line,
/// as for `gestured.toml`.
public enum WebConfigLoader {
    /// Where `gestured-web` looks when given no `--config`.
    public static let defaultPath = "/etc/gestured/gestured-web.toml"

    /// Reads and parses the file at `path`.
    public static func load(path: String) throws(ConfigError) -> WebConfiguration {
        try parse(text: try ConfigLoader.readText(path: path), path: path)
    }

    /// Parses configuration text; `path` only names the file in errors.
    public static func parse(text: String, path: String) throws(ConfigError) -> WebConfiguration {
        let root = try TOMLParser.parse(text, path: path)
        let top = Place(path: path, table: "the top level")
        var configuration = WebConfiguration()
        try decode(root, with: [.table("web", \WebConfiguration.self, fields, name: "[web]")], into: &configuration, place: top)
        return configuration
    }

    private static var fields: [Field<WebConfiguration>] {
        [
            Field(key: "allowed-origins") { (configuration: inout WebConfiguration, node: TOMLNode, place: Place) throws(ConfigError) in
                configuration.allowedOrigins = try strings(node, key: "allowed-origins", place: place).map {
                    (text, line) throws(ConfigError) in
                    guard let origin = WebOrigin(parsing: text) else {
                        throw place.invalid(
                            "allowed-origins",
                            "holds '\(text)', which is not an origin: scheme://host[:port] with no path (\"http://kiosk.local:8080\"), \"file://\" or \"null\"",
                            line: line)
                    }
                    return origin
                }
            },
            Field(key: "allowed-hosts") { (configuration: inout WebConfiguration, node: TOMLNode, place: Place) throws(ConfigError) in
                configuration.allowedHosts = try strings(node, key: "allowed-hosts", place: place).map { (text, line) throws(ConfigError) in
                    guard let name = HostAndPort(parsing: text), name.port == nil else {
                        throw place.invalid(
                            "allowed-hosts", "holds '\(text)', which is not a host name (no scheme, no port: \"kiosk.local\")", line: line)
                    }
                    return name.host
                }
            },
            .integer("client-queue", \.clientQueue, 1...1_000_000),
            Field(key: "client-memory") { (configuration: inout WebConfiguration, node: TOMLNode, place: Place) throws(ConfigError) in
                configuration.clientMemory = try Values.integer(node, key: "client-memory", range: 16...1_048_576, place: place) << 10
            },
            Field(key: "bridge-memory") { (configuration: inout WebConfiguration, node: TOMLNode, place: Place) throws(ConfigError) in
                configuration.bridgeMemory = try Values.integer(node, key: "bridge-memory", range: 1...4096, place: place) << 20
            },
            .integer("max-connections", \.maxConnections, 1...1_000_000),
            .integer("daemon-connections", \.daemonConnections, 1...65_536),
            .integer("request-timeout", \.requestTimeout, 1...3600),
            .choice("slow-client", \.slowClient, SlowClientPolicy.allCases.map { ($0.rawValue, $0) }),
            Field(key: "daemon-config") { (configuration: inout WebConfiguration, node: TOMLNode, place: Place) throws(ConfigError) in
                let path = try Values.string(node, key: "daemon-config", place: place)
                guard path.hasPrefix("/") else {
                    throw place.invalid("daemon-config", "must be an absolute path, not '\(path)'", line: node.line)
                }
                configuration.daemonConfig = path
            },
        ]
    }

    /// An array of strings with the line of each.
    private static func strings(_ node: TOMLNode, key: String, place: Place) throws(ConfigError) -> [(String, Int)] {
        var result: [(String, Int)] = []
        for element in try Values.array(node, key: key, place: place) {
            result.append((try Values.string(element, key: key, place: place), element.line))
        }
        return result
    }
}

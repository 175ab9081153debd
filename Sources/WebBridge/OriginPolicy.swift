import ConfigFile

/// Who may open `/ws` (docs/web.md "Origins"). A web page the kiosk browser happens to
/// open must not read the touch stream: a browser names the page's origin in `Origin`, and
/// only the bridge's own origin (the one `Host` names) and `allowed-origins` are let in. A
/// request whose `Host` is not an address of this bridge (an IP literal, `localhost` or one
/// of `allowed-hosts`) is refused too: that is what a DNS-rebinding page, whose own origin
/// would otherwise look like the bridge's, sends.
///
/// A request without `Origin` is not from a browser page (browsers always send it with a
/// WebSocket handshake) and is let in: a local program can send any `Origin` it likes, so
/// refusing it would protect nothing.
public struct OriginPolicy: Sendable {
    /// The verdict on one request.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Refused, with the reason for the log and the 403 body.
        case refused(String)
    }

    private let allowedOrigins: Set<WebOrigin>
    private let allowedHosts: Set<String>

    public init(allowedOrigins: [WebOrigin], allowedHosts: [String]) {
        self.allowedOrigins = Set(allowedOrigins)
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
    }

    public init(configuration: WebConfiguration) {
        self.init(allowedOrigins: configuration.allowedOrigins, allowedHosts: configuration.allowedHosts)
    }

    /// Decides on a request from its `Origin` and `Host` header values (nil when absent).
    public func decide(origin: String?, host: String?) -> Decision {
        if case .refused(let reason) = decide(host: host) {
            return .refused(reason)
        }
        guard let host, let bridge = HostAndPort(parsing: host) else {
            return .refused("the request has no Host header")
        }
        guard let origin else {
            return .allowed
        }
        guard let parsed = WebOrigin(parsing: origin) else {
            return .refused("Origin '\(origin)' is not an origin")
        }
        if allowedOrigins.contains(parsed) {
            return .allowed
        }
        let own = WebOrigin(scheme: "http", host: bridge.host, port: bridge.port ?? 80)
        if parsed == own {
            return .allowed
        }
        return .refused("Origin '\(origin)' is neither the bridge's own (\(own)) nor in allowed-origins")
    }

    /// Decides on a request to any route from its `Host` header value alone (nil when
    /// absent): what keeps a DNS-rebinding page from reading `/metrics` or `/regions`.
    public func decide(host: String?) -> Decision {
        guard let host else {
            return .refused("the request has no Host header")
        }
        guard let bridge = HostAndPort(parsing: host) else {
            return .refused("Host '\(host)' is not host[:port]")
        }
        guard Self.isAddressLiteral(bridge.host) || bridge.host == "localhost" || allowedHosts.contains(bridge.host) else {
            return .refused("Host '\(host)' is not an address of this bridge (an IP address, localhost, or a name in allowed-hosts)")
        }
        return .allowed
    }

    /// An IPv4 address in dotted decimal or a bracketed IPv6 address.
    static func isAddressLiteral(_ host: String) -> Bool {
        if host.hasPrefix("[") {
            return true  // HostAndPort accepts only hex digits, ':' and '.' inside brackets
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                    && Int(part).map { $0 <= 255 } == true
            }
    }
}

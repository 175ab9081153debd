import ConfigFile
import Testing

@testable import WebBridge

@Suite("The origin check on /ws")
struct OriginPolicyTests {
    let strict = OriginPolicy(allowedOrigins: [], allowedHosts: [])

    @Test("the bridge's own origin is allowed, for IPv4, IPv6 and localhost, any letter case")
    func ownOrigin() {
        #expect(strict.decide(origin: "http://127.0.0.1:7412", host: "127.0.0.1:7412") == .allowed)
        #expect(strict.decide(origin: "http://[::1]:7412", host: "[::1]:7412") == .allowed)
        #expect(strict.decide(origin: "http://LOCALHOST:7412", host: "localhost:7412") == .allowed)
        // Port 80 is http's default, named or not.
        #expect(strict.decide(origin: "http://127.0.0.1", host: "127.0.0.1:80") == .allowed)
    }

    @Test("another port, host or scheme is another origin, and refused")
    func foreignOrigins() {
        for origin in [
            "http://127.0.0.1:8080", "http://evil.example", "https://127.0.0.1:7412", "http://localhost:7412", "file://", "null",
        ] {
            guard case .refused(let reason) = strict.decide(origin: origin, host: "127.0.0.1:7412") else {
                Issue.record("\(origin) was allowed")
                continue
            }
            #expect(reason.contains("allowed-origins"))
        }
    }

    @Test("allowed-origins lets the listed origins in, normalised")
    func allowedOrigins() throws {
        let origins = ["http://Kiosk.local:8080", "file://", "https://app.example"].compactMap(WebOrigin.init(parsing:))
        #expect(origins.count == 3)
        let policy = OriginPolicy(allowedOrigins: origins, allowedHosts: [])
        #expect(policy.decide(origin: "http://kiosk.local:8080", host: "127.0.0.1:7412") == .allowed)
        #expect(policy.decide(origin: "file://", host: "127.0.0.1:7412") == .allowed)
        #expect(policy.decide(origin: "https://app.example:443", host: "127.0.0.1:7412") == .allowed)
        #expect(policy.decide(origin: "http://kiosk.local:8081", host: "127.0.0.1:7412") != .allowed)
        #expect(policy.decide(origin: "null", host: "127.0.0.1:7412") != .allowed)
    }

    @Test("a Host that is not an address of the bridge is refused (DNS rebinding), unless in allowed-hosts")
    func rebinding() {
        // A page on evil.example whose name now resolves to 127.0.0.1: its origin matches its Host.
        #expect(strict.decide(origin: "http://evil.example:7412", host: "evil.example:7412") != .allowed)
        let policy = OriginPolicy(allowedOrigins: [], allowedHosts: ["kiosk.local"])
        #expect(policy.decide(origin: "http://kiosk.local:7412", host: "kiosk.local:7412") == .allowed)
    }

    @Test("no Origin (not a browser page) is allowed; no or a malformed Host, or a malformed Origin, is refused")
    func missingOrMalformed() {
        #expect(strict.decide(origin: nil, host: "127.0.0.1:7412") == .allowed)
        #expect(strict.decide(origin: "http://127.0.0.1:7412", host: nil) != .allowed)
        for host in ["", "127.0.0.1:99999", "127.0.0.1:", "user@127.0.0.1", "[::1", "a/b"] {
            #expect(strict.decide(origin: nil, host: host) != .allowed, "Host \(host)")
        }
        for origin in ["127.0.0.1:7412", "http://127.0.0.1:7412/path", "http://", "://x", "http://a:b"] {
            #expect(strict.decide(origin: origin, host: "127.0.0.1:7412") != .allowed, "Origin \(origin)")
        }
    }

    @Test("IP literals are recognised as addresses; names and bad quads are not")
    func addressLiterals() {
        #expect(OriginPolicy.isAddressLiteral("127.0.0.1"))
        #expect(OriginPolicy.isAddressLiteral("[::1]"))
        #expect(!OriginPolicy.isAddressLiteral("127.0.0.256"))
        #expect(!OriginPolicy.isAddressLiteral("1.2.3"))
        #expect(!OriginPolicy.isAddressLiteral("kiosk.local"))
    }
}

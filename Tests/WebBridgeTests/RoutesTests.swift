import Glibc
import NIOHTTP1
import Testing

@testable import WebBridge

@Suite("The bridge's HTTP endpoints")
struct RoutesTests {
    /// A scratch directory with a web root and a daemon configuration in it.
    final class Scratch {
        let path: String

        init() {
            var template = Array("/tmp/gestured-web-tests.XXXXXX".utf8CString)
            path = String(cString: mkdtemp(&template))
            mkdir(path + "/web", 0o755)
        }

        func write(_ name: String, _ text: String) {
            let file = fopen(path + "/" + name, "w")!
            fputs(text, file)
            fclose(file)
        }

        deinit {
            for name in ["web/index.html", "web/live.js", "web/notes.txt", "gestured.toml"] {
                unlink(path + "/" + name)
            }
            rmdir(path + "/web")
            rmdir(path)
        }
    }

    private func request(
        _ uri: String, origin: String? = nil, host: String? = "127.0.0.1:7412", method: HTTPMethod = .GET,
        version: HTTPVersion = .http1_1, webSocketVersion: String? = "13"
    )
        -> HTTPRequestHead
    {
        var headers = HTTPHeaders()
        if let host { headers.add(name: "Host", value: host) }
        if let origin { headers.add(name: "Origin", value: origin) }
        if let webSocketVersion { headers.add(name: "Sec-WebSocket-Version", value: webSocketVersion) }
        return HTTPRequestHead(version: version, method: method, uri: uri, headers: headers)
    }

    private func routes(_ scratch: Scratch) -> Routes {
        Routes(
            policy: OriginPolicy(allowedOrigins: [], allowedHosts: []), webRoot: scratch.path + "/web",
            daemonConfig: scratch.path + "/gestured.toml")
    }

    private func text(_ reply: HTTPReply) -> String {
        String(decoding: reply.body, as: UTF8.self)
    }

    @Test("/ws from a foreign origin is refused with 403 and a reason for the log; from its own, only an upgrade goes")
    func webSocketEndpoint() {
        let scratch = Scratch()
        let routes = routes(scratch)
        let foreign = request("/ws", origin: "http://evil.example")
        #expect(!routes.mayUpgrade(foreign))
        let refused = routes.reply(to: foreign)
        #expect(refused.status == .forbidden)
        #expect(refused.refusal?.contains("http://evil.example") == true)
        let own = request("/ws?x=1", origin: "http://127.0.0.1:7412")
        #expect(routes.mayUpgrade(own))
        #expect(routes.reply(to: own).status == .upgradeRequired)
        #expect(!routes.mayUpgrade(request("/", origin: "http://127.0.0.1:7412")))
    }

    /// Before, upgrades by POST or over HTTP/1.0 were accepted. RFC 6455
    /// 4.2.1: a GET of HTTP/1.1 with `Sec-WebSocket-Version: 13`, else 400 or 426 (with the
    /// version the bridge speaks). Fails on the earlier code (mayUpgrade was true).
    @Test("only a GET of HTTP/1.1 with version 13 upgrades")
    func upgradeRequirements() {
        let scratch = Scratch()
        let routes = routes(scratch)
        let post = request("/ws", method: .POST)
        #expect(!routes.mayUpgrade(post))
        #expect(routes.reply(to: post).status == .methodNotAllowed)
        let old = request("/ws", version: .http1_0)
        #expect(!routes.mayUpgrade(old))
        #expect(routes.reply(to: old).status == .badRequest)
        let twelve = request("/ws", webSocketVersion: "12")
        #expect(!routes.mayUpgrade(twelve))
        let reply = routes.reply(to: twelve)
        #expect(reply.status == .upgradeRequired)
        #expect(reply.headers.contains { $0.0 == "sec-websocket-version" && $0.1 == "13" })
    }

    /// Before, `/regions` parsed the daemon's configuration on the event loop
    /// for every request (a 1 024-region file: WebSocket p99 from 2.4 to 124 ms at 116
    /// requests/s). Fails on the earlier code (no cache: 50 parses): now it is
    /// parsed once per version of the file, and an edit shows at the next request.
    @Test("/regions parses the configuration once per version of the file")
    func regionsAreCached() {
        let scratch = Scratch()
        let routes = routes(scratch)
        scratch.write("gestured.toml", "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 0.5, 0.5]\n")
        for index in 0..<50 {
            let body = text(routes.reply(to: request(index % 2 == 0 ? "/regions" : "/regions?device=X")))
            #expect(body.contains(#""name":"a""#))
        }
        #expect(routes.regionsParses == 1)
        scratch.write("gestured.toml", "[[region]]\nname = \"bb\"\nrect = [0.0, 0.0, 0.5, 0.5]\n")
        #expect(text(routes.reply(to: request("/regions"))).contains(#""name":"bb""#))
        #expect(routes.regionsParses == 2)
    }

    @Test("static files come from the web root only, with their content type")
    func staticFiles() {
        let scratch = Scratch()
        scratch.write("web/index.html", "<!doctype html>")
        scratch.write("web/live.js", "export {}")
        scratch.write("web/notes.txt", "not served")
        scratch.write("gestured.toml", "")
        let routes = routes(scratch)
        let index = routes.reply(to: request("/"))
        #expect(index.status == .ok && index.contentType.hasPrefix("text/html") && text(index) == "<!doctype html>")
        let script = routes.reply(to: request("/live.js?v=2"))
        #expect(script.status == .ok && script.contentType.hasPrefix("text/javascript"))
        for uri in ["/notes.txt", "/../gestured.toml", "/web/../../gestured.toml", "/.hidden.js", "/missing.js", "/%2e%2e/gestured.toml"] {
            #expect(routes.reply(to: request(uri)).status == .notFound, "\(uri)")
        }
        #expect(routes.reply(to: request("/", method: .POST)).status == .methodNotAllowed)
    }

    /// Before, this answered a bare "not found" (text/plain), which fails the first two
    /// expectations on the old code.
    @Test("GET / with no index.html in the web root is a page that lists where it looked and names --web-root")
    func noLiveView() {
        let scratch = Scratch()
        let routes = Routes(
            policy: OriginPolicy(allowedOrigins: [], allowedHosts: []), webRoot: scratch.path + "/web",
            daemonConfig: scratch.path + "/gestured.toml", searched: [scratch.path + "/web", "a <checkout> & more"])
        let reply = routes.reply(to: request("/"))
        #expect(reply.status == .notFound)
        #expect(reply.contentType.hasPrefix("text/html"))
        #expect(text(reply).contains("<li><code>\(scratch.path)/web</code></li>"))
        #expect(text(reply).contains("<li><code>a &lt;checkout&gt; &amp; more</code></li>"))
        #expect(text(reply).contains("--web-root DIR"))
        // Other missing files stay a plain 404; a present index.html is served.
        #expect(text(routes.reply(to: request("/live.js"))) == "not found\n")
        scratch.write("web/index.html", "<!doctype html>")
        #expect(routes.reply(to: request("/")).status == .ok)
    }

    @Test("/regions gives the daemon configuration's regions, per device, or the error")
    func regions() {
        let scratch = Scratch()
        let routes = routes(scratch)
        let missing = text(routes.reply(to: request("/regions")))
        #expect(missing.contains(#""regions":[]"#) && missing.contains("no such file"))
        scratch.write(
            "gestured.toml",
            """
            [[region]]
            name = "menu"
            rect = [0.0, 0.0, 0.5, 0.25]

            [[device]]
            match-name = "Panel*"
            [[device.region]]
            name = "panel-only"
            rect = [0.5, 0.5, 0.5, 0.5]
            """)
        let top = text(routes.reply(to: request("/regions")))
        #expect(top.contains(#"{"name":"menu","rect":{"x":0.0,"y":0.0,"width":0.5,"height":0.25}}"#), "\(top)")
        #expect(top.contains(#""error":null"#))
        let panel = text(routes.reply(to: request("/regions?device=Panel%20One&path=%2Fdev%2Finput%2Fevent3")))
        #expect(panel.contains(#""name":"panel-only""#) && !panel.contains(#""name":"menu""#), "\(panel)")
        let other = text(routes.reply(to: request("/regions?device=Other+Screen")))
        #expect(other.contains(#""name":"menu""#))
    }

    @Test("query strings are percent-decoded; bad escapes are skipped")
    func query() {
        #expect(Routes.query(of: "/regions?device=A%20B+C&path=%2Fx&device=second") == ["device": "A B C", "path": "/x"])
        #expect(Routes.query(of: "/regions?device=%zz&x=1#frag") == ["x": "1"])
        #expect(Routes.path(of: "/ws?x#y") == "/ws")
    }

    @Test("listen addresses are HOST:PORT, IPv6 in brackets")
    func listenAddresses() {
        #expect(ListenAddress(parsing: "127.0.0.1:7412")?.description == "127.0.0.1:7412")
        #expect(ListenAddress(parsing: "[::1]:7412")?.host == "::1")
        #expect(ListenAddress(parsing: "[::1]:7412")?.description == "[::1]:7412")
        #expect(ListenAddress(parsing: "127.0.0.1") == nil)
        #expect(ListenAddress(parsing: "::1:7412") == nil)
        #expect(ListenAddress(parsing: "127.0.0.1:0") == nil)
    }
}

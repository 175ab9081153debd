import ConfigFile
import GestureCore
import Testing

@Suite("gestured-web.toml")
struct WebConfigurationTests {
    @Test("an empty file, and one without [web], give the defaults")
    func defaults() throws {
        let empty = try WebConfigLoader.parse(text: "", path: "web.toml")
        #expect(empty == WebConfiguration())
        #expect(empty.allowedOrigins.isEmpty && empty.allowedHosts.isEmpty)
        #expect(empty.clientQueue == 1024 && empty.slowClient == .dropOldest)
        #expect(empty.daemonConfig == "/etc/gestured/gestured.toml")
        #expect(try WebConfigLoader.parse(text: "# nothing\n[web]\n", path: "web.toml") == WebConfiguration())
    }

    @Test("every key is read")
    func everyKey() throws {
        let text = """
            [web]
            allowed-origins = ["http://Kiosk.local:8080", "file://",
                               "null"]
            allowed-hosts = ["Kiosk.local"]
            client-queue = 64
            slow-client = "disconnect"
            daemon-config = "/srv/gestured.toml"
            client-memory = 256
            bridge-memory = 16
            max-connections = 100
            daemon-connections = 8
            request-timeout = 3
            """
        let configuration = try WebConfigLoader.parse(text: text, path: "web.toml")
        #expect(
            configuration.allowedOrigins == [
                WebOrigin(scheme: "http", host: "kiosk.local", port: 8080), WebOrigin(scheme: "file", host: "", port: nil), .opaque,
            ])
        #expect(configuration.allowedHosts == ["kiosk.local"])
        #expect(configuration.clientQueue == 64)
        #expect(configuration.slowClient == .disconnect)
        #expect(configuration.daemonConfig == "/srv/gestured.toml")
        #expect(configuration.clientMemory == 256 << 10 && configuration.bridgeMemory == 16 << 20)
        #expect(configuration.maxConnections == 100 && configuration.daemonConnections == 8)
        #expect(configuration.requestTimeout == 3)
    }

    @Test("the configuration shipped in config/gestured-web.toml is the defaults")
    func shippedFile() throws {
        let path = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let configuration = try WebConfigLoader.load(path: "/" + path + "/config/gestured-web.toml")
        #expect(configuration == WebConfiguration())
    }

    @Test(
        "bad files are errors naming the file and the line",
        arguments: [
            ("[web]\nallowed-origins = [\"http://a.example/path\"]\n", 2, "not an origin"),
            ("[web]\nallowed-origins = \"http://a.example\"\n", 2, "must be an array"),
            ("[web]\n\nallowed-hosts = [\"a.example:80\"]\n", 3, "not a host name"),
            ("[web]\nclient-queue = 0\n", 2, "between 1 and"),
            ("[web]\nslow-client = \"drop\"\n", 2, "must be one of"),
            ("[web]\ndaemon-config = \"gestured.toml\"\n", 2, "absolute path"),
            ("[web]\nallowed-origin = []\n", 2, "did you mean 'allowed-origins'"),
            ("[webb]\n", 1, "did you mean 'web'"),
            ("[web]\nclient-queue = \n", 2, ""),
        ])
    func errors(text: String, line: Int, message: String) {
        #expect {
            try WebConfigLoader.parse(text: text, path: "web.toml")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.path == "web.toml" && error.line == line && error.message.contains(message)
        }
    }

    @Test("a missing file is an error naming it")
    func missingFile() {
        #expect(throws: ConfigError.self) { try WebConfigLoader.load(path: "/nonexistent/gestured-web.toml") }
    }
}

import GestureProtocol
import Testing

/// The one rule for where the daemon's socket is (docs/protocol.md "Transport").
@Suite struct DaemonSocketTests {
    /// An environment holding only `variables`.
    static func lookup(_ variables: [String: String]) -> (String) -> String? {
        { variables[$0] }
    }

    @Test func anExplicitSettingWinsOverTheVariable() {
        let path = DaemonSocket.path(explicit: "/srv/kiosk.sock", environment: Self.lookup(["GESTURED_SOCKET": "/tmp/moved.sock"]))
        #expect(path == "/srv/kiosk.sock")
    }

    @Test func theVariableMovesTheDefault() {
        #expect(DaemonSocket.path(explicit: nil, environment: Self.lookup(["GESTURED_SOCKET": "/tmp/moved.sock"])) == "/tmp/moved.sock")
    }

    /// `GESTURED_SOCKET=` (set but empty) is no setting, as in the Python client.
    @Test func anEmptyVariableIsNoSetting() {
        #expect(DaemonSocket.path(explicit: nil, environment: Self.lookup(["GESTURED_SOCKET": ""])) == DaemonSocket.standardPath)
    }

    /// The documented default, where `gestured.socket` listens (systemd/gestured.socket).
    @Test func withoutEitherTheStandardPath() {
        #expect(DaemonSocket.path(explicit: nil, environment: Self.lookup(["OTHER": "/x"])) == "/run/gestured/gestured.sock")
    }
}

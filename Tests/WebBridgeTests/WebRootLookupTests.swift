import GestureTestSupport
import Testing

@testable import WebBridge

@Suite("Where gestured-web finds the live view without --web-root")
struct WebRootLookupTests {
    /// A lookup over a fixed set of existing files.
    private func locate(_ executable: String, files: Set<String>) -> WebRootLookup {
        WebRootLookup.locate(executable: executable) { files.contains($0) }
    }

    @Test("installed: share/gestured/web beside bin/, before any checkout")
    func installed() {
        let files: Set = ["/usr/share/gestured/web/index.html", "/usr/local/share/gestured/web/index.html"]
        #expect(locate("/usr/bin/gestured-web", files: files).root == "/usr/share/gestured/web")
        #expect(locate("/usr/local/bin/gestured-web", files: files).root == "/usr/local/share/gestured/web")
        // Installed wins over a checkout around the binary.
        let both = files.union(["/usr/Package.swift", "/usr/web/index.html"])
        #expect(locate("/usr/bin/gestured-web", files: both).root == "/usr/share/gestured/web")
    }

    /// Before, a build's binary found nothing (root .build/<triple>/share/gestured/web),
    /// so `swift run gestured-web` served a bare 404.
    @Test("a build in a checkout: the web/ of the nearest directory above with Package.swift and web/index.html")
    func checkout() {
        let files: Set = [
            "/src/gestured/Package.swift", "/src/gestured/web/index.html",
            // A Package.swift without web/index.html (a dependency's checkout) is passed over.
            "/src/gestured/.build/checkouts/swift-nio/Package.swift",
        ]
        let lookup = locate("/src/gestured/.build/checkouts/swift-nio/.build/debug/gestured-web", files: files)
        #expect(lookup.root == "/src/gestured/web")
        #expect(locate("/src/gestured/.build/x86_64-unknown-linux-gnu/release/gestured-web", files: files).root == "/src/gestured/web")
        // web/index.html without Package.swift is not a checkout.
        #expect(locate("/opt/app/bin/gestured-web", files: ["/opt/web/index.html"]).root == nil)
    }

    @Test("nothing found: root nil, and where it looked, in order")
    func nothing() {
        let lookup = locate("/opt/gestured/bin/gestured-web", files: [])
        #expect(lookup.root == nil)
        #expect(lookup.searched.count == 2)
        #expect(lookup.searched.first == "/opt/gestured/share/gestured/web")
        #expect(lookup.searched.last?.contains("at or above /opt/gestured/bin") == true)
        #expect(locate("/gestured-web", files: []).searched.first == "/share/gestured/web")
        #expect(locate("/gestured-web", files: ["/Package.swift", "/web/index.html"]).root == "/web")
    }

    @Test("on a real directory tree: a checkout's build directory finds its web/")
    func realTree() {
        let directory = TemporaryDirectory()
        directory.createFile("Package.swift")
        directory.createDirectory("web")
        directory.createFile("web/index.html", text: "<!doctype html>")
        directory.createDirectory(".build")
        directory.createDirectory(".build/debug")
        let lookup = WebRootLookup.locate(executable: directory.file(".build/debug/gestured-web"))
        #expect(lookup.root == directory.file("web"))
    }
}

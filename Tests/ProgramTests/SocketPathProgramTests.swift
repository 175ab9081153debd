import Foundation
import GestureProtocol
import GestureTestSupport
import Glibc
import SystemCalls
import Testing

/// The daemon process binding its socket path against an attacker and a live daemon.
@Suite struct SocketPathProgramTests {
    /// An attacker who owns the socket's directory wins every race: right after each
    /// successful `bind` (an LD_PRELOAD shim stands in for them) the socket's name, and any
    /// directory the daemon made beside it, is swapped for a symlink to a root-only file (or
    /// a directory holding one under the socket's temporary name). The mode the daemon then
    /// sets must land on its own socket, never on the victims.
    @Test func symlinksSwappedInDuringTheBindAreNeverFollowed() throws {
        let directory = TemporaryDirectory()
        let shim = try compileBindRaceShim(in: directory)
        let victim = directory.file("victim")
        let victimDirectory = directory.file("victim-directory")
        #expect(mkdir(victimDirectory, 0o700) == 0)
        for file in [victim, victimDirectory + "/s"] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data("secret".utf8), attributes: [.posixPermissions: 0o600]))
        }
        let run = directory.file("run")
        #expect(mkdir(run, 0o755) == 0)
        let daemon = try DaemonProcess(
            environment: [
                "LD_PRELOAD": shim, "RACE_VICTIM": victim, "RACE_VICTIM_DIRECTORY": victimDirectory,
                "RACE_PUBLIC": run + "/gestured.sock", "RACE_DIRECTORY": run,
            ],
            configuration: "[daemon]\nsocket-mode = \"0666\"\n", socketName: run + "/gestured.sock")
        _ = try daemon.notify.wait(for: "READY=1")
        for file in [victim, victimDirectory + "/s"] {
            var info = stat()
            #expect(stat(file, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600, "\(file) changed to \(String(info.st_mode & 0o777, radix: 8))")
        }
        var socketInfo = stat()
        #expect(lstat(daemon.socketPath, &socketInfo) == 0)
        #expect(socketInfo.st_mode & S_IFMT == S_IFSOCK)
        #expect(socketInfo.st_mode & 0o777 == 0o666)
        let client = try LineClient(path: daemon.socketPath)
        _ = try client.readMessage(\.hello)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// A daemon started as nobody saw EACCES connecting to a live root daemon's socket,
    /// took it for stale, deleted it and took the path over. Only ECONNREFUSED is stale now:
    /// it refuses to start, and the live daemon keeps its socket.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func aSocketThatCannotBeProbedIsNotStale() throws {
        let live = try DaemonProcess(configuration: "[daemon]\nsocket-mode = \"0600\"\n")
        _ = try live.notify.wait(for: "READY=1")
        chmod(live.directory.path, 0o777)  // the second daemon could remove the socket
        // Bounded: a daemon that took the path over would run until killed.
        let second = try runToCompletion(
            "/usr/bin/timeout",
            [
                "20", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                try builtExecutable("gestured"), "run", "--no-devices", "--socket", live.socketPath,
            ])
        #expect(second.status == 69, "\(second)")
        #expect(second.error.contains("cannot tell whether a server listens on \(live.socketPath)"), "\(second.error)")
        let client = try LineClient(path: live.socketPath)
        _ = try client.readMessage(\.hello)
        live.signal(SIGTERM)
        #expect(try live.waitForExit() == 0)
    }
}

/// Builds the LD_PRELOAD shim standing in for the attacker of
/// `symlinksSwappedInDuringTheBindAreNeverFollowed` with the toolchain's clang.
func compileBindRaceShim(in directory: TemporaryDirectory) throws -> String {
    let source = directory.file("bind-race.c")
    let library = directory.file("bind-race.so")
    try #"""
    #define _GNU_SOURCE
    #include <dirent.h>
    #include <dlfcn.h>
    #include <limits.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/socket.h>
    #include <sys/un.h>
    #include <unistd.h>

    /* After every successful bind: the socket's public name RACE_PUBLIC, if it exists,
       becomes a symlink to RACE_VICTIM; every ".gestured-*" directory in RACE_DIRECTORY
       becomes a symlink to RACE_VICTIM_DIRECTORY. */
    int bind(int fd, const struct sockaddr *address, socklen_t length) {
        int (*real)(int, const struct sockaddr *, socklen_t) = dlsym(RTLD_NEXT, "bind");
        int result = real(fd, address, length);
        const char *victim = getenv("RACE_VICTIM"), *victimDirectory = getenv("RACE_VICTIM_DIRECTORY");
        const char *public = getenv("RACE_PUBLIC"), *directory = getenv("RACE_DIRECTORY");
        if (result != 0 || !victim || !victimDirectory || !public || !directory) return result;
        char moved[PATH_MAX + 8];
        if (access(public, F_OK) == 0) {
            snprintf(moved, sizeof moved, "%s.moved", public);
            if (rename(public, moved) == 0) symlink(victim, public);
        }
        DIR *listing = opendir(directory);
        if (!listing) return result;
        struct dirent *entry;
        while ((entry = readdir(listing))) {
            if (strncmp(entry->d_name, ".gestured-", 10) != 0 || strstr(entry->d_name, ".moved")) continue;
            char from[PATH_MAX], to[PATH_MAX + 8];
            snprintf(from, sizeof from, "%s/%s", directory, entry->d_name);
            snprintf(to, sizeof to, "%s.moved", from);
            if (rename(from, to) == 0) symlink(victimDirectory, from);
        }
        closedir(listing);
        return result;
    }
    """#.write(toFile: source, atomically: false, encoding: .utf8)
    let swift = try runToCompletion("/usr/bin/env", ["which", "swift"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    let clang = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("clang").path
    let compiled = try runToCompletion(clang, ["-shared", "-fPIC", "-O1", "-o", library, source, "-ldl"])
    guard compiled.status == 0 else { throw TestFailure(description: "cannot build the bind shim: \(compiled.error)") }
    return library
}

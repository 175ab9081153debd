import Glibc
import SystemCalls
import SystemPackage

/// The daemon's `status`, asked once with a bounded wait and no reader thread: for a
/// command that shows what a running daemon knows beside what it finds itself (`gestured
/// devices` shows the ghost series the daemon learned).
public enum StatusQuery {
    /// The `status` reply of the daemon at `path`, or why there is none: not running,
    /// permission denied, the daemon's refusal, the connection closed, or no reply within
    /// `timeoutMilliseconds`.
    public static func ask(path: String, timeoutMilliseconds: Int32) -> Result<StatusMessage, ConnectionError> {
        let fd: FileDescriptor
        do {
            fd = try GestureClient.openSocket(path)
        } catch {
            return .failure(error)
        }
        defer { try? fd.close() }
        do throws(SystemError) {
            try UnixSocket.sendAll(fd, WireEncoder.encode(ClientRequest.status))
        } catch {
            return .failure(.failed(path: path, reason: "send: \(error.reason)"))
        }
        let deadline = monotonicMicroseconds() + UInt64(max(0, timeoutMilliseconds)) * 1000
        var framer = LineFramer()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let now = monotonicMicroseconds()
            guard now < deadline else {
                return .failure(.failed(path: path, reason: "no status reply within \(timeoutMilliseconds) ms"))
            }
            var entry = [pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)]
            let received: Int
            do throws(SystemError) {
                guard try Polling.poll(&entry, timeoutMilliseconds: Int32((deadline - now + 999) / 1000)) > 0 else { continue }
                guard case .processed(let count) = try UnixSocket.receive(fd, into: &chunk) else { continue }
                received = count
            } catch {
                return .failure(.failed(path: path, reason: "recv: \(error.reason)"))
            }
            guard received > 0 else { return .failure(.failed(path: path, reason: "the daemon closed the connection")) }
            let lines: [[UInt8]]
            do {
                lines = try framer.append(chunk[..<received])
            } catch {
                return .failure(.failed(path: path, reason: error.description))
            }
            for line in lines {
                switch try? WireDecoder.message(line) {
                case .status(let status)?: return .success(status)
                case .error(let reason)?: return .failure(.failed(path: path, reason: "the daemon refused: \(reason)"))
                default: continue
                }
            }
        }
    }
}

import FuzzSupport
import GestureProtocol

// The daemon's request reader (GestureProtocol's strict decoder): any line a client can
// send. A line it accepts must encode back to a line that decodes to the same request.
fuzzMain { input in
    let line = Array(input)[...]
    guard let request = try? WireDecoder.request(line) else { return }
    let again = WireEncoder.encode(request).dropLast()
    guard let reread = try? WireDecoder.request(again), reread == request else {
        violation("a request does not survive encoding: \(String(decoding: line, as: UTF8.self)) → \(String(decoding: again, as: UTF8.self))")
    }
}

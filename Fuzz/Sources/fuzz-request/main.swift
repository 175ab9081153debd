@testable import Daemon
import FuzzSupport

// The daemon's request reader (JSONValue + Request): any line a client can send.
fuzzMain { input in
    let line = Array(input)[...]
    _ = JSONValue.parse(line)
    _ = try? Request(line: line)
}

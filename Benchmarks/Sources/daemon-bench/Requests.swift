import GestureProtocol

/// Sends one request, written by GestureProtocol's encoder.
func send(_ request: ClientRequest, to fd: Int32) throws {
    try sendAll(fd, String(decoding: WireEncoder.encode(request), as: UTF8.self))
}

/// Subscribes to everything (what a client that only wants gestures sends).
func subscribeToAll(_ fd: Int32) throws {
    try send(.subscribe(SubscribeRequest()), to: fd)
}

/// `line` decoded; nil when it is not a valid message. For the replies checked once (hello,
/// pong, status): the latency reader reads gesture lines with `WireScanner` instead, as
/// decoding every line of every client on the machine the daemon is measured on would load
/// it more than the daemon's clients do.
func message(_ line: String) -> ServerMessage? {
    try? WireDecoder.message(Array(line.utf8))
}

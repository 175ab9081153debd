extension WireEncoder {
    /// `text` as a JSON string literal, escaped as every string of the protocol is: for the
    /// few JSON documents outside the protocol that are written beside it (the web bridge's
    /// `/regions`), so that there is one JSON escaper in the package. Taken from an encoded
    /// `error` line, so that it goes through the encoder's public path whatever its
    /// internals.
    public static func jsonString(_ text: String) -> String {
        let line = encode(ServerMessage.error(message: text))
        // `{"type":"error","message":` … `}` and the newline.
        return String(decoding: line.dropFirst(errorPrefixLength).dropLast(2), as: UTF8.self)
    }

    private static let errorPrefixLength = #"{"type":"error","message":"#.utf8.count
}

extension WireEncoder {
    /// `text` as a JSON string literal, escaped as every string of the protocol is: for the
    /// few JSON documents outside the protocol that are written beside it (the web bridge's
    /// `/regions`), so that there is one JSON escaper in the package.
    public static func jsonString(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONWriter.append(to: &bytes) { writer in writer.string(text) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

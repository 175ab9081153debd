/// Text that came from a client or a file, made safe to print on a terminal or write into
/// a log: every control character (C0, DEL and C1: ESC, NUL, a newline…) becomes a visible
/// escape (`\n`, `\r`, `\t`, `\u{1B}`), so no input can move the cursor, recolour the
/// screen or start a forged log line. Everything else, backslashes included, is unchanged.
public enum DisplayText {
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}

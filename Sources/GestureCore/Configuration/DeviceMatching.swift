extension DeviceMatch {
    /// Whether a device with this name, vendor/product id and these paths (its node and
    /// every by-id / by-path link) satisfies every criterion the entry gives. An entry with
    /// no criterion matches nothing (it would otherwise silently apply to every device).
    public func matches(name deviceName: String, vendor: UInt16, product: UInt16, paths: [String]) -> Bool {
        guard name != nil || usbID != nil || path != nil else { return false }
        if let name, !Glob(name).matches(deviceName) { return false }
        if let usbID {
            guard let wanted = Self.parseUSBID(usbID), wanted == (vendor, product) else { return false }
        }
        if let path, !paths.contains(path) { return false }
        return true
    }

    /// Parses `vvvv:pppp` (hex, case-insensitive, 1–4 digits each).
    static func parseUSBID(_ text: String) -> (UInt16, UInt16)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...4).contains(parts[0].count), (1...4).contains(parts[1].count),
              let vendor = UInt16(parts[0], radix: 16), let product = UInt16(parts[1], radix: 16)
        else { return nil }
        return (vendor, product)
    }
}

/// A shell-style glob: `*` any run of characters, `?` one character, everything else literal.
struct Glob {
    private let pattern: [Character]

    init(_ pattern: String) { self.pattern = Array(pattern) }

    func matches(_ text: String) -> Bool {
        let text = Array(text)
        // Iterative matcher with one backtrack point for the last `*`: linear in practice,
        // never exponential on hostile patterns.
        var p = 0, t = 0
        var star: Int? = nil, starText = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] && pattern[p] != "*" {
                p += 1; t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p; starText = t; p += 1
            } else if let s = star {
                p = s + 1; starText += 1; t = starText
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

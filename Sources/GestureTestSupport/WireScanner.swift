/// Reads a numeric field straight from a wire line without decoding its JSON: for tools
/// that time deliveries (the end-to-end driver, the daemon benchmark) and must not let a
/// JSON decoder's cost blur what they measure.
public enum WireScanner {
    /// The unsigned integer right after the first occurrence of `key` (for example
    /// `"time":`), or nil when the key is absent or no digit follows it.
    @inlinable
    public static func unsigned<Line: RandomAccessCollection>(after key: [UInt8], in line: Line) -> UInt64?
    where Line.Element == UInt8, Line.Index == Int {
        guard !key.isEmpty, line.count >= key.count else { return nil }
        var start = line.startIndex
        search: while start + key.count <= line.endIndex {
            for offset in 0..<key.count where line[start + offset] != key[offset] {
                start += 1
                continue search
            }
            var index = start + key.count
            var value: UInt64 = 0
            var digits = 0
            while index < line.endIndex, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9") {
                value = value &* 10 &+ UInt64(line[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        return nil
    }
}

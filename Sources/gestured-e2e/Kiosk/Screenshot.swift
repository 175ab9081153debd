import Foundation
import GestureTestSupport

/// What a compositor shows, taken by grim (wlr-screencopy) as a binary PPM: the output's
/// pixels with the cursor where the compositor draws one (`-c`: drawn into the picture even
/// where the GPU shows it on a plane of its own), so two pictures of an unchanged page differ
/// exactly where the cursor came or went.
struct Screenshot {
    let width: Int
    let height: Int
    /// Red, green and blue bytes, row by row.
    let pixels: [UInt8]

    /// Takes one of `compositor`'s output, as its user in its session, into `name`.ppm in its
    /// runtime directory.
    init(of compositor: Compositor, name: String) throws(CaseFailure) {
        let path = "\(compositor.runtimeDirectory)/\(name).ppm"
        let pid = try compositor.runInSession("grim -c -t ppm \(path)", name: "grim-\(name)")
        guard waitForExit(pid, timeout: 60) == 0 else {
            throw CaseFailure("grim failed: \(tail("\(compositor.work)/grim-\(name).log"))")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw CaseFailure("grim wrote no \(path)") }
        try self.init(ppm: [UInt8](data))
    }

    /// Reads a binary PPM (`P6`, width, height, 255, then the pixels; no comments: grim
    /// writes none).
    init(ppm bytes: [UInt8]) throws(CaseFailure) {
        var fields: [String] = []
        var index = 0
        while fields.count < 4, index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
            let start = index
            while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0A { index += 1 }
            fields.append(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        index += 1
        guard fields.count == 4, fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]), fields[3] == "255",
            width > 0, height > 0, bytes.count - index == width * height * 3
        else { throw CaseFailure("not a PPM grim writes: header \(fields), \(bytes.count) bytes") }
        self.width = width
        self.height = height
        pixels = Array(bytes[index...])
    }

    /// How many pixels of the square `size` pixels wide whose top-left corner is `inset`
    /// pixels up and left of (`x`, `y`) differ from `other`'s: a cursor drawn at (`x`, `y`)
    /// (its hot spot) lies in that square.
    func differingPixels(from other: Screenshot, at x: Double, _ y: Double, inset: Int = 8, size: Int = 48) -> Int {
        guard other.width == width, other.height == height else { return width * height }
        let left = max(0, Int(x) - inset)
        let top = max(0, Int(y) - inset)
        var count = 0
        for row in top..<min(height, top + size) {
            for column in left..<min(width, left + size) {
                let offset = (row * width + column) * 3
                if pixels[offset..<offset + 3] != other.pixels[offset..<offset + 3] { count += 1 }
            }
        }
        return count
    }
}

import GestureCore

#if canImport(FoundationEssentials)
    import FoundationEssentials  // not Foundation: the daemon's resident memory (docs/performance.md)
#else
    import Foundation
#endif

/// Finds the description for a recording that has none in the file itself.
enum DescriptionLookup {
    /// Description file extensions, in order of preference when two share a stem.
    /// (`.evemu` last: a full evemu recording's header also describes its device.)
    static let descriptionExtensions = ["desc", "prop", "device", "evemu"]
    private static let stemSeparators: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "_")]

    /// The evemu description beside an events-only file: a `.desc`, `.prop`, `.device` or
    /// `.evemu` file in the same folder whose stem is the events file's stem or a prefix of it ending
    /// at a separator (`.`, space, `-`, `_`); the longest such stem wins, then the
    /// extension order above. So `NAME.DESC.events` → `NAME.desc` (`ETPS2 Elantech
    /// Touchpad.Samsung-700Z3A.events` → `ETPS2 Elantech Touchpad.desc`), `Wacom … Finger
    /// double-tap.events` → `Wacom … Finger.desc`, `3m.event` → `3m.prop`, and
    /// `X.hp8470p.edge-scroll.events` prefers `X.hp8470p.desc` over `X.desc`.
    static func evemuSibling(of path: String) -> String? {
        let (directory, fileName) = split(path)
        let stem = stemAndExtension(fileName).stem
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var best: (stemLength: Int, rank: Int, name: String)?
        for entry in entries where entry != fileName {
            let candidate = stemAndExtension(entry)
            guard let rank = descriptionExtensions.firstIndex(of: candidate.ext) else { continue }
            let candidateBytes = Array(candidate.stem.utf8)
            let stemBytes = Array(stem.utf8)
            guard !candidateBytes.isEmpty, stemBytes.starts(with: candidateBytes) else { continue }
            guard stemBytes.count == candidateBytes.count || stemSeparators.contains(stemBytes[candidateBytes.count]) else {
                continue
            }
            if let current = best,
                current.stemLength > candidateBytes.count || (current.stemLength == candidateBytes.count && current.rank <= rank)
            {
                continue
            }
            best = (candidateBytes.count, rank, entry)
        }
        return best.map { directory + "/" + $0.name }
    }

    /// ChromiumOS touchpad descriptions (`device/*.touchpad`) for header-less evtest files:
    /// looks in the file's folder and in a `device` folder beside it or beside any of its
    /// three nearest ancestors.
    static func touchpadFiles(near path: String) -> [String] {
        var directory = split(path).directory
        for _ in 0..<4 {
            for folder in [directory, directory + "/device"] {
                let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                    .filter { $0.hasSuffix(".touchpad") }.sorted()
                if !files.isEmpty { return files.map { folder + "/" + $0 } }
            }
            let parent = split(directory).directory
            if parent == directory { break }
            directory = parent
        }
        return []
    }

    /// Picks the touchpad a header-less evtest recording was made on:
    /// 1. a touchpad whose name (`link`, `lumpy`, `alex`) is a word of the file name;
    /// 2. otherwise, among the touchpads whose position axes (`ABS_X`/`Y`, `ABS_MT_POSITION_X`/`Y`)
    ///    contain every position in the data, the one that has the most of the other axes the
    ///    events use with every value in range (tracking id −1 aside), then the one with the
    ///    smallest x·y extent (the tightest fit).
    /// Returns nil when none fits.
    static func chooseTouchpad(
        for path: String, events: [InputEvent], candidates: [(name: String, device: DeviceDescription)]
    ) -> (name: String, device: DeviceDescription, reason: String)? {
        let words = Set(split(path).fileName.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
        if let named = candidates.first(where: { words.contains($0.name.lowercased()) }) {
            return (named.name, named.device, "its name is in the file name")
        }
        var used: [UInt16: ClosedRange<Int32>] = [:]
        for event in events where event.type == EV.abs {
            if event.code == ABS.mtTrackingID, event.value == -1 { continue }
            let range = used[event.code].map { min($0.lowerBound, event.value)...max($0.upperBound, event.value) }
            used[event.code] = range ?? event.value...event.value
        }
        let positions: Set<UInt16> = [ABS.x, ABS.y, ABS.mtPositionX, ABS.mtPositionY]
        func fits(_ device: DeviceDescription, _ code: UInt16, _ range: ClosedRange<Int32>) -> Bool {
            guard let info = device.absInfo[code] else { return false }
            return range.lowerBound >= info.minimum && range.upperBound <= info.maximum
        }
        func area(_ device: DeviceDescription) -> Int64 {
            let x = device.absInfo[ABS.mtPositionX] ?? device.absInfo[ABS.x]
            let y = device.absInfo[ABS.mtPositionY] ?? device.absInfo[ABS.y]
            guard let x, let y else { return Int64.max }
            return (Int64(x.maximum) - Int64(x.minimum) + 1) * (Int64(y.maximum) - Int64(y.minimum) + 1)
        }
        struct Ranked {
            let name: String
            let device: DeviceDescription
            let score: Int
            let area: Int64
        }
        var ranked: [Ranked] = []
        for candidate in candidates {
            let positionsFit = used.allSatisfy { code, range in !positions.contains(code) || fits(candidate.device, code, range) }
            guard positionsFit else { continue }
            let score = used.filter { code, range in fits(candidate.device, code, range) }.count
            ranked.append(Ranked(name: candidate.name, device: candidate.device, score: score, area: area(candidate.device)))
        }
        ranked.sort { $0.score != $1.score ? $0.score > $1.score : $0.area < $1.area }
        guard let best = ranked.first else { return nil }
        let missing = used.filter { code, range in !fits(best.device, code, range) }.keys.sorted()
            .map { EventCodeNames.name(type: EV.abs, code: $0) ?? "axis \($0)" }
        var reason =
            ranked.count == 1
            ? "the only touchpad whose axes fit the data" : "the best fit of \(ranked.count) touchpads whose positions fit the data"
        if !missing.isEmpty { reason += "; axes missing or out of range there: \(missing.joined(separator: ", "))" }
        return (best.name, best.device, reason)
    }

    static func split(_ path: String) -> (directory: String, fileName: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    static func stemAndExtension(_ fileName: String) -> (stem: String, ext: String) {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return (fileName, "") }
        return (String(fileName[..<dot]), String(fileName[fileName.index(after: dot)...]))
    }
}

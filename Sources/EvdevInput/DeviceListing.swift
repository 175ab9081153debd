import GestureCore
import SystemCalls

/// One line of `gestured devices`: a node, what it is, and whether gestured would use it.
public struct DeviceReport: Sendable, Hashable {
    public var node: DeviceNode
    /// What opening the node gave: its description, or why it failed.
    public var opened: Result<DeviceDescription, SystemError>
    public var decision: UseDecision
    /// The size the configuration gives the device (its entry's, or the default), if any.
    public var configuredSize: PhysicalSize?
    /// The calibration in force (nil when the node cannot be opened).
    public var calibration: [Double]?
    /// Where `calibration` comes from.
    public var calibrationSource: CalibrationSource?
    /// udev's calibration property when it is there but unusable (shown, not applied).
    public var rejectedSystemCalibration: String?
    /// What udev's database says of the node (the caller looks it up; empty without udev):
    /// the device as a compositor's libinput classifies it.
    public var udevProperties: [String: String] = [:]
    /// Set for a touchscreen no `[[device]]` entry matches while others pass through.
    public var unmatchedTouchscreen: UnmatchedTouchscreen?

    /// `systemCalibration`: udev's matrix for the node (the caller looks it up), applied
    /// when the configuration gives none.
    public init(
        node: DeviceNode, opened: Result<DeviceDescription, SystemError>, configuration: Configuration,
        systemCalibration: [Double]? = nil, rejectedSystemCalibration: String? = nil, udevProperties: [String: String] = [:]
    ) {
        self.node = node
        self.udevProperties = udevProperties
        self.opened = opened
        self.decision = configuration.useDecision(for: opened, paths: node.allPaths, systemCalibration: systemCalibration)
        self.rejectedSystemCalibration = rejectedSystemCalibration
        switch opened {
        case .success(let description):
            let geometry = configuration.settings(for: description, paths: node.allPaths).geometry.withSystemCalibration(systemCalibration)
            configuredSize = geometry.physicalSize
            calibration = geometry.calibration
            calibrationSource = geometry.calibrationSource
            if case .use(let settings) = decision {
                unmatchedTouchscreen = UnmatchedTouchscreen.check(description, settings: settings, in: configuration)
            }
        case .failure:
            configuredSize = nil
        }
    }

    /// Opens the node just long enough to read its description, then reports on it.
    public static func probe(
        _ node: DeviceNode, configuration: Configuration, systemCalibration: [Double]? = nil,
        rejectedSystemCalibration: String? = nil, udevProperties: [String: String] = [:]
    ) -> DeviceReport {
        let opened: Result<DeviceDescription, SystemError>
        do {
            opened = .success(try EvdevDevice(path: node.path).description)
        } catch {
            opened = .failure(error)
        }
        return DeviceReport(
            node: node, opened: opened, configuration: configuration, systemCalibration: systemCalibration,
            rejectedSystemCalibration: rejectedSystemCalibration, udevProperties: udevProperties)
    }
}

/// The flattened, printable facts of a `DeviceReport`; `Encodable` for `--json`.
public struct DeviceSummary: Sendable, Hashable, Encodable {
    public var node: String
    public var name: String?
    /// `vvvv:pppp` in hex.
    public var usbID: String?
    public var kind: String?
    /// Size in millimetres (the JSON keys say so: `widthMM`, `heightMM`).
    public var width: Double?
    public var height: Double?
    /// `resolution`, `configured`, or `unknown` (resolution 0 and nothing configured).
    public var sizeSource: String?
    /// Slots for protocol B; 0 for protocol A and single-touch (see `contacts`).
    public var slots: Int?
    /// `N slots`, `protocol A` or `single-touch`.
    public var contacts: String?
    public var links: [String]
    /// Used with `pass-through = true`: gestured re-emits its touches on a clone.
    public var passThrough: Bool
    /// The clone's node, for a pass-through device whose clone is listed too.
    public var cloneNode: String?
    /// For a pass-through device: `panel` or `screen`, the coordinates its clone reports
    /// (`clone-orientation`).
    public var cloneOrientation: String?
    /// For a pass-through device whose clone is screen-oriented: udev gives the clone (or,
    /// with no clone listed, the device, whose name and ids the clone carries) a
    /// calibration matrix that libinput would apply on top (`ScreenOrientedClone.udevMatrixWarning`).
    public var cloneWarning: String?
    /// For gestured's clone: the node of the device it clones, when listed too.
    public var cloneOf: String?
    /// The calibration matrix in force.
    public var calibration: [Double]?
    /// `default` (identity), `configuration`, or `udev` (`LIBINPUT_CALIBRATION_MATRIX`).
    public var calibrationSource: String?
    /// udev's calibration property when it is unusable (and not applied), with why.
    public var rejectedCalibration: String?
    /// The udev properties a compositor's libinput goes by (`DeviceListing.udevIdentityKeys`),
    /// as udev's database has them; nil without udev.
    public var udev: [String: String]?
    /// The identifier sway's `input` lines match (`vendor:product:name`, decimal ids, blanks
    /// as `_`). A clone keeps its original's name and ids, so the two share it.
    public var swayIdentifier: String?
    public var used: Bool
    public var reason: String?
    public var openError: String?
    /// For a touchscreen no `[[device]]` entry matches while others pass through: that
    /// message (`UnmatchedTouchscreen.message`) and a `match-name` that would match it.
    public var warning: String?
    public var suggestedMatchName: String?

    /// The `--json` keys: the property names, but for the sizes, whose keys carry the unit.
    enum CodingKeys: String, CodingKey {
        case node, name, usbID, kind
        case width = "widthMM"
        case height = "heightMM"
        case sizeSource, slots, contacts, links, used, reason, openError, warning, suggestedMatchName
        case passThrough, cloneNode, cloneOrientation, cloneWarning, cloneOf, calibration, calibrationSource, rejectedCalibration, udev,
            swayIdentifier
    }

    public init(_ report: DeviceReport) {
        node = report.node.path
        links = report.node.links
        used = report.decision.isUsed
        reason = report.decision.reason
        if case .use(let settings) = report.decision {
            passThrough = settings.passThrough
            if settings.passThrough { cloneOrientation = settings.cloneOrientation.rawValue }
        } else {
            passThrough = false
        }
        calibration = report.calibration
        calibrationSource = report.calibrationSource?.rawValue
        rejectedCalibration = report.rejectedSystemCalibration
        warning = report.unmatchedTouchscreen?.message
        suggestedMatchName = report.unmatchedTouchscreen?.suggestedPattern
        let udev = report.udevProperties.filter { DeviceListing.udevIdentityKeys.contains($0.key) }
        self.udev = udev.isEmpty ? nil : udev
        guard case .success(let description) = report.opened else {
            if case .failure(let error) = report.opened { openError = error.description }
            return
        }
        name = description.name
        swayIdentifier = DeviceListing.swayIdentifier(description)
        usbID = DeviceListing.hex4(description.vendor) + ":" + DeviceListing.hex4(description.product)
        kind = description.kind.rawValue
        if let size = report.configuredSize {
            (width, height, sizeSource) = (size.width, size.height, "configured")
        } else if let size = description.reportedPhysicalSize {
            (width, height, sizeSource) = (size.width, size.height, "resolution")
        } else {
            sizeSource = "unknown"
        }
        if description.hasSlots {
            slots = description.slotCount
            contacts = "\(description.slotCount) slots"
        } else {
            slots = 0
            contacts = description.isMultitouch ? "protocol A" : "single-touch"
        }
    }
}

/// Text output of `gestured devices`.
public enum DeviceListing {
    /// One summary per report, each pass-through device paired with its clone (by node: the
    /// clone's `phys` names its original's, `PassThroughClone.physPrefix`).
    public static func summaries(_ reports: [DeviceReport]) -> [DeviceSummary] {
        var summaries = reports.map(DeviceSummary.init)
        for (cloneIndex, report) in reports.enumerated() {
            guard case .passThroughClone(let original) = report.decision else { continue }
            let originalIndex = summaries.indices.first { summaries[$0].node == original }
            guard let originalIndex else { continue }
            summaries[cloneIndex].cloneOf = summaries[originalIndex].node
            summaries[originalIndex].cloneNode = summaries[cloneIndex].node
        }
        for index in summaries.indices where summaries[index].cloneOrientation == CloneOrientation.screen.rawValue {
            // The clone's own udev properties when it is listed, else the original's: a rule
            // on the name or ids gives both the same.
            let clone = summaries.first { $0.node == summaries[index].cloneNode }
            let udev = clone.map { $0.udev ?? [:] } ?? summaries[index].udev ?? [:]
            if udev["LIBINPUT_CALIBRATION_MATRIX"] != nil { summaries[index].cloneWarning = ScreenOrientedClone.udevMatrixWarning }
        }
        return summaries
    }

    /// The udev properties `gestured devices` shows: how udev classified the device (what
    /// libinput then treats it as) and the properties libinput and compositors read.
    public static let udevIdentityKeys: Set<String> = [
        "ID_INPUT", "ID_INPUT_TOUCHSCREEN", "ID_INPUT_TOUCHPAD", "ID_INPUT_MOUSE", "ID_INPUT_TABLET", "ID_INPUT_KEY",
        "ID_INPUT_KEYBOARD", "ID_INPUT_JOYSTICK", "ID_INPUT_POINTINGSTICK", "ID_INPUT_WIDTH_MM", "ID_INPUT_HEIGHT_MM",
        "LIBINPUT_CALIBRATION_MATRIX", "LIBINPUT_DEVICE_GROUP", "LIBINPUT_IGNORE_DEVICE", "ID_SEAT", "WL_SEAT", "WL_OUTPUT",
    ]

    /// sway's identifier for a device (`input <identifier> …`): vendor and product in decimal,
    /// then the name without leading and trailing white space, each blank or unprintable
    /// byte as `_` (sway's `input_device_get_identifier`).
    public static func swayIdentifier(_ description: DeviceDescription) -> String {
        let whiteSpace: Set<UInt8> = [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]
        var bytes = Array(description.name.utf8)
        while let last = bytes.last, whiteSpace.contains(last) { bytes.removeLast() }
        let trimmed = bytes.drop { whiteSpace.contains($0) }
        let name = String(decoding: trimmed.map { (0x21...0x7e).contains($0) ? $0 : UInt8(ascii: "_") }, as: UTF8.self)
        return "\(description.vendor):\(description.product):\(name)"
    }

    /// The line printed when there is no input directory at all.
    public static func noInputDirectoryLine(_ directory: String) -> String {
        "no input devices: \(directory) does not exist"
    }

    /// Human-readable listing, one block per device, in the order given.
    public static func text(_ reports: [DeviceReport]) -> String {
        guard !reports.isEmpty else { return "no input devices: no event nodes found\n" }
        var out = ""
        for (report, summary) in zip(reports, summaries(reports)) {
            out += summary.node
            if let name = summary.name { out += "  \"\(DisplayText.escaped(name))\"" }
            if let id = summary.usbID { out += "  [\(id)]" }
            out += "\n"
            if let kind = summary.kind {
                out += "  kind: \(kind)\n"
                out += "  size: \(sizeText(summary, report))\n"
                out += "  contacts: \(summary.contacts ?? "")\n"
                out += "  calibration: \(calibrationText(summary))\n"
            }
            if let udev = summary.udev {
                out +=
                    "  udev: " + udev.sorted { $0.key < $1.key }.map { "\($0.key)=\(DisplayText.escaped($0.value))" }.joined(separator: " ")
                    + "\n"
            }
            if let identifier = summary.swayIdentifier { out += "  sway identifier: \(DisplayText.escaped(identifier))\n" }
            for link in summary.links { out += "  link: \(link)\n" }
            out += summary.used ? "  used: yes\n" : "  used: no — \(summary.reason ?? "")\n"
            if let warning = summary.warning { out += "  warning: \(DisplayText.escaped(warning))\n" }
            if summary.passThrough {
                out +=
                    "  pass-through: \(summary.cloneNode.map { "clone \($0)" } ?? "clone not present (gestured not running, or no uinput)")"
                    + (summary.cloneOrientation == CloneOrientation.screen.rawValue ? ", in screen orientation" : "") + "\n"
            }
            if let warning = summary.cloneWarning { out += "  warning: \(DisplayText.escaped(warning))\n" }
            if let original = summary.cloneOf { out += "  clone of: \(original)\n" }
        }
        return out
    }

    /// `[1 0 0 0 1 0] (default: none configured, none from udev)`, `[…] (from udev's
    /// LIBINPUT_CALIBRATION_MATRIX)`, `[…] (from the configuration)`.
    static func calibrationText(_ summary: DeviceSummary) -> String {
        let matrix =
            "[" + (summary.calibration ?? DeviceGeometry.identityCalibration).map(DeviceGeometry.shortNumber).joined(separator: " ") + "]"
        var text: String
        switch summary.calibrationSource.flatMap(CalibrationSource.init(rawValue:)) {
        case .configuration?: text = "\(matrix) (from the configuration)"
        case .udev?: text = "\(matrix) (from udev's LIBINPUT_CALIBRATION_MATRIX)"
        case .builtIn?, nil: text = "\(matrix) (default: none configured, none from udev)"
        }
        if let rejected = summary.rejectedCalibration {
            text += "; udev's LIBINPUT_CALIBRATION_MATRIX \(DisplayText.escaped(rejected)) is not used"
        }
        return text
    }

    static func sizeText(_ summary: DeviceSummary, _ report: DeviceReport) -> String {
        let resolution: Int32
        if case .success(let description) = report.opened { resolution = description.reportedResolution } else { resolution = 0 }
        switch (summary.sizeSource, summary.width, summary.height) {
        case ("resolution"?, let width?, let height?):
            return "\(millimetres(width)) × \(millimetres(height)) mm"
        case ("configured"?, let width?, let height?) where resolution > 0:
            return "\(millimetres(width)) × \(millimetres(height)) mm (configured)"
        case ("configured"?, let width?, let height?):
            return "resolution unknown (0): using configured size \(millimetres(width)) × \(millimetres(height)) mm"
        default:
            return "resolution unknown (0): using fallback size (set physical-size in the configuration)"
        }
    }

    /// One decimal, no trailing `.0` noise beyond that: 331.2, 187.0.
    static func millimetres(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        let whole = Int(tenths / 10)
        let fraction = Int(abs(tenths).truncatingRemainder(dividingBy: 10))
        return "\(whole).\(fraction)"
    }

    static func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

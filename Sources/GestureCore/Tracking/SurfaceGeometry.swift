import GestureProtocol

/// Where a surface's physical size came from.
public enum SizeSource: String, Sendable {
    /// Derived from the axes' `absinfo.resolution` (units per millimetre).
    case resolution
    /// Given by the operator (`DeviceGeometry.physicalSize`).
    case configured
    /// Neither was available: a typical diagonal was assumed (`SurfaceGeometry.fallbackDiagonal(for:)`).
    case fallback
}

/// Physical size of a touch surface in millimetres, in screen orientation (width and
/// height are swapped for a panel mounted at 90° or 270°).
public struct SurfaceGeometry: Sendable, Hashable {
    /// Width in millimetres, screen orientation.
    public var width: Double
    /// Height in millimetres, screen orientation.
    public var height: Double
    public var source: SizeSource

    /// Diagonal assumed for a touchscreen that reports no resolution and has no configured size.
    public static let fallbackDiagonal = 338.0  // mm, a 13.3-inch panel
    /// Diagonal assumed for a touchpad without resolution: libinput's default touchpad size,
    /// 69 × 50 mm. A touchscreen's fallback on a touchpad would make every jitter a drag.
    public static let touchpadFallbackDiagonal = 85.2  // mm

    /// The diagonal assumed for `device` when neither resolution nor configuration gives one.
    public static func fallbackDiagonal(for device: DeviceDescription) -> Double {
        device.kind == .touchpad ? touchpadFallbackDiagonal : fallbackDiagonal
    }

    public init(width: Double, height: Double, source: SizeSource) {
        self.width = width
        self.height = height
        self.source = source
    }

    /// The size the tracker uses for `device` mounted as `geometry` says: the configured
    /// size if any, else the axis resolution, else the diagonal fallback.
    public init(device: DeviceDescription, geometry: DeviceGeometry) {
        let axes = TrackedAxes(device: device)
        let size = DeviceSize(axes: axes, geometry: geometry, fallbackDiagonal: SurfaceGeometry.fallbackDiagonal(for: device))
        self = size.surface(rotation: geometry.rotation)
    }
}

/// The two position axes the tracker reads, and the resolution that applies to them.
struct TrackedAxes: Sendable {
    var x: AbsInfo
    var y: AbsInfo
    /// Units per millimetre (0 when unknown), after falling back from the MT axes to
    /// ABS_X/ABS_Y and from one axis to the other.
    var resolutionX: Int32
    var resolutionY: Int32

    init(device: DeviceDescription) {
        let legacyX = device.absInfo[ABS.x]
        let legacyY = device.absInfo[ABS.y]
        let x: AbsInfo
        let y: AbsInfo
        if device.isMultitouch, let mtX = device.absInfo[ABS.mtPositionX], let mtY = device.absInfo[ABS.mtPositionY] {
            x = mtX
            y = mtY
        } else {
            x = legacyX ?? AbsInfo(minimum: 0, maximum: 0)
            y = legacyY ?? AbsInfo(minimum: 0, maximum: 0)
        }
        var resolutionX = x.resolution > 0 ? x.resolution : (legacyX?.resolution ?? 0)
        var resolutionY = y.resolution > 0 ? y.resolution : (legacyY?.resolution ?? 0)
        if resolutionX <= 0 { resolutionX = max(resolutionY, 0) }
        if resolutionY <= 0 { resolutionY = max(resolutionX, 0) }
        self.x = x
        self.y = y
        self.resolutionX = resolutionX
        self.resolutionY = resolutionY
    }

    /// Device units spanned by the x axis (never negative).
    var rangeX: Double { max(Double(x.maximum) - Double(x.minimum), 0) }
    /// Device units spanned by the y axis (never negative).
    var rangeY: Double { max(Double(y.maximum) - Double(y.minimum), 0) }
}

/// The surface size in device orientation (along the device's own x and y axes).
struct DeviceSize: Sendable {
    var width: Double
    var height: Double
    var source: SizeSource

    init(axes: TrackedAxes, geometry: DeviceGeometry, fallbackDiagonal: Double) {
        if let configured = geometry.physicalSize,
            configured.width.isFinite, configured.height.isFinite, configured.width > 0, configured.height > 0
        {
            // The configured size is in screen orientation, like everything an operator sees.
            switch geometry.rotation {
            case .none, .half:
                (width, height) = (configured.width, configured.height)
            case .quarter, .threeQuarters:
                (width, height) = (configured.height, configured.width)
            }
            source = .configured
        } else if axes.resolutionX > 0, axes.resolutionY > 0 {
            width = axes.rangeX / Double(axes.resolutionX)
            height = axes.rangeY / Double(axes.resolutionY)
            source = .resolution
        } else {
            // Square device units: the aspect ratio is that of the axis ranges.
            let diagonalUnits = (axes.rangeX * axes.rangeX + axes.rangeY * axes.rangeY).squareRoot()
            if diagonalUnits > 0 {
                let millimetresPerUnit = fallbackDiagonal / diagonalUnits
                width = axes.rangeX * millimetresPerUnit
                height = axes.rangeY * millimetresPerUnit
            } else {
                width = fallbackDiagonal / 2.0.squareRoot()
                height = width
            }
            source = .fallback
        }
    }

    func surface(rotation: Rotation) -> SurfaceGeometry {
        switch rotation {
        case .none, .half:
            SurfaceGeometry(width: width, height: height, source: source)
        case .quarter, .threeQuarters:
            SurfaceGeometry(width: height, height: width, source: source)
        }
    }
}

/// Converts raw device coordinates to normalised screen space and to millimetres.
///
/// Normalised device coordinates are `(value - minimum) / (maximum - minimum)` per axis;
/// the panel's `ScreenTransform` (calibration, then rotation) takes them to the screen.
/// Millimetres use the rotation but not the calibration. Nothing here can produce NaN or
/// infinity: an empty axis range maps to 0, and a non-finite result (absurd calibration)
/// becomes 0.
struct CoordinateMapper: Sendable {
    private let minimumX: Double
    private let minimumY: Double
    private let inverseRangeX: Double
    private let inverseRangeY: Double
    private let millimetresPerUnitX: Double
    private let millimetresPerUnitY: Double
    private let deviceWidth: Double
    private let deviceHeight: Double
    private let transform: ScreenTransform

    init(axes: TrackedAxes, size: DeviceSize, geometry: DeviceGeometry) {
        minimumX = Double(axes.x.minimum)
        minimumY = Double(axes.y.minimum)
        let rangeX = axes.rangeX
        let rangeY = axes.rangeY
        inverseRangeX = rangeX > 0 ? 1 / rangeX : 0
        inverseRangeY = rangeY > 0 ? 1 / rangeY : 0
        millimetresPerUnitX = rangeX > 0 ? size.width / rangeX : 0
        millimetresPerUnitY = rangeY > 0 ? size.height / rangeY : 0
        deviceWidth = size.width
        deviceHeight = size.height
        transform = ScreenTransform(geometry)
    }

    /// Millimetres per device unit along the device's x and y axes.
    var millimetresPerUnit: (x: Double, y: Double) { (millimetresPerUnitX, millimetresPerUnitY) }

    /// Normalised screen position: calibration on normalised device coordinates, then
    /// the rotation of the panel (`ScreenTransform`).
    @inline(__always)
    func location(x: Int32, y: Int32) -> Point {
        transform.screenPoint(u: (Double(x) - minimumX) * inverseRangeX, v: (Double(y) - minimumY) * inverseRangeY)
    }

    /// Position on the surface: millimetres from the screen's top-left corner (rotation
    /// applied, calibration not).
    @inline(__always)
    func surfaceLocation(x: Int32, y: Int32) -> SurfacePoint {
        let deviceX = (Double(x) - minimumX) * millimetresPerUnitX
        let deviceY = (Double(y) - minimumY) * millimetresPerUnitY
        let screen = ScreenTransform.rotate(x: deviceX, y: deviceY, width: deviceWidth, height: deviceHeight, by: transform.rotation)
        return SurfacePoint(millimetresX: screen.x.isFinite ? screen.x : 0, y: screen.y.isFinite ? screen.y : 0)
    }
}

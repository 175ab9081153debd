/// A gesture line's `velocity`: a point per second for a drag or swipe, a number per second
/// for a pinch (scale) or rotate (degrees). Read as whichever the line holds, so the line's
/// `gesture` may come before or after it; `GestureMessage.Line.message` then checks it
/// against the gesture.
struct WireVelocity {
    /// The drag's or swipe's (when not `isRate`).
    var point: Point
    /// The pinch's or rotate's (when `isRate`).
    var rate: Double
    var isRate: Bool
    /// Where it was read (for the error of the wrong shape); nil when the line has none.
    var offset: Int? = nil

    init(point: Point) {
        self.point = point
        rate = 0
        isRate = false
    }

    init(rate: Double) {
        point = .zero
        self.rate = rate
        isRate = true
    }
}

/// `WireVelocity` on the wire: `{"x":…,"y":…}` or a number, `WireEncoder.velocityDigits`
/// fraction digits either way.
struct VelocityCodec: FieldCodec {
    private var point: PointCodec { PointCodec(digits: WireEncoder.velocityDigits) }

    func accepts(_ kind: JSONReader.ValueKind) -> Bool { kind == .object || kind == .number }

    func read(_ reader: inout JSONReader, field: String) throws(ProtocolError) -> WireVelocity {
        let offset = reader.index
        var velocity =
            reader.peek() == .number
            ? WireVelocity(rate: try reader.double(field: field))
            : WireVelocity(point: try point.read(&reader, field: field))
        velocity.offset = offset
        return velocity
    }

    @inline(__always)
    func write(_ value: WireVelocity, to writer: inout JSONWriter) {
        if value.isRate {
            writer.number(value.rate, digits: WireEncoder.velocityDigits)
        } else {
            point.write(value.point, to: &writer)
        }
    }

    func maximumLength(_ value: WireVelocity) -> Int {
        value.isRate ? JSONWriter.numberLength : point.maximumLength(value.point)
    }
}

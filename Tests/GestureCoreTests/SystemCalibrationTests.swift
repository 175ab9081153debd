import GestureCore
import Testing

/// udev's `LIBINPUT_CALIBRATION_MATRIX` against the configuration's `calibration`.
@Suite struct SystemCalibrationTests {
    @Test(arguments: [
        ("1 0 0 0 1 0", [1.0, 0, 0, 0, 1, 0]),
        ("0 -1 1 1 0 0", [0.0, -1, 1, 1, 0, 0]),
        ("  1.5\t0 -0.25 0 1 0 ", [1.5, 0, -0.25, 0, 1, 0]),
    ])
    func propertyValuesParseAsLibinputReadsThem(text: String, matrix: [Double]) {
        #expect(DeviceGeometry.parseCalibrationProperty(text) == matrix)
    }

    @Test(arguments: ["", "1 0 0 0 1", "1 0 0 0 1 0 0", "1 0 0 0 1 x", "1,0,0,0,1,0"])
    func anythingButSixNumbersIsNotAMatrix(text: String) {
        #expect(DeviceGeometry.parseCalibrationProperty(text) == nil)
    }

    @Test func theSameRuleHoldsForEveryMatrix() {
        #expect(DeviceGeometry.calibrationProblem([1, 0, 0, 0, 1, 0]) == nil)
        #expect(DeviceGeometry.calibrationProblem([11, 0, 0, 0, 1, 0]) == "values must be between -10 and 10")
        #expect(DeviceGeometry.calibrationProblem([0, 0, 0, 0, 0, 0])?.hasPrefix("flattens the panel: a·e − b·d = 0 ") == true)
        #expect(DeviceGeometry.calibrationProblem([1, 0, 0, 0, .nan, 0]) == "must be 6 finite numbers [a, b, c, d, e, f]")
    }

    @Test func udevsMatrixAppliesOnlyWhenTheConfigurationGivesNone() {
        let udev = [0.0, 1, 0, -1, 0, 1]
        let unset = DeviceGeometry(rotation: .quarter)
        let applied = unset.withSystemCalibration(udev)
        #expect(applied.calibration == udev && applied.calibrationSource == .udev && applied.rotation == .quarter)
        #expect(unset.withSystemCalibration(nil) == unset)
        let configured = DeviceGeometry(calibration: [0.5, 0, 0, 0, 0.5, 0], calibrationSource: .configuration)
        #expect(configured.withSystemCalibration(udev) == configured)
    }
}

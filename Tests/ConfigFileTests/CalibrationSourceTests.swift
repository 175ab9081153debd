import ConfigFile
import GestureCore
import Testing

/// `calibration` in the file marks the matrix as the configuration's (udev's then does not
/// apply); a `[[device]]` entry inherits that from `[geometry]`.
@Suite struct CalibrationSourceTests {
    @Test func aCalibrationInTheFileIsTheConfigurations() throws {
        let unset = try ConfigLoader.parse(text: "[[device]]\nmatch-name = \"A\"\n", path: "t.toml")
        #expect(unset.defaultGeometry.calibrationSource == .builtIn)
        #expect(unset.devices[0].geometry.calibrationSource == .builtIn)
        let inherited = try ConfigLoader.parse(
            text: "[geometry]\ncalibration = [1, 0, 0, 0, 1, 0]\n[[device]]\nmatch-name = \"A\"\n", path: "t.toml")
        #expect(inherited.defaultGeometry.calibrationSource == .configuration)
        #expect(inherited.devices[0].geometry.calibrationSource == .configuration)
        let own = try ConfigLoader.parse(text: "[[device]]\nmatch-name = \"A\"\ncalibration = [0, 1, 0, 1, 0, 0]\n", path: "t.toml")
        #expect(own.defaultGeometry.calibrationSource == .builtIn)
        #expect(own.devices[0].geometry.calibrationSource == .configuration)
    }
}

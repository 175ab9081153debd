/// Which coordinates a pass-through clone reports (`[[device]] clone-orientation`).
public enum CloneOrientation: String, Sendable, Hashable, CaseIterable {
    /// The panel's own coordinates and axes, as the device reports them (the default):
    /// whatever reads the clone applies the rotation and calibration itself (the
    /// compositor's output transform, a udev `LIBINPUT_CALIBRATION_MATRIX`).
    case panel
    /// Screen coordinates: the device's `rotation` and `calibration` applied, the axes
    /// swapped for a quarter turn (`ScreenOrientedClone`), for readers that apply neither.
    case screen
}

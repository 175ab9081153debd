/// What a one-finger drag is for the app when its touches reach it as a pointer
/// (`pointer-drag`, per `[[device]]` and per `[[region]]`).
public enum PointerDrag: String, Sendable, Hashable, CaseIterable {
    /// A left-button drag: pressed at the touch-down point once the finger moved beyond the
    /// tap slop, then moved with it (text selection, sliders, drag and drop).
    case button
    /// A wheel scroll that follows the finger, as a two-finger drag always is (a page to
    /// scroll, where selecting text by dragging would be a surprise).
    case scroll
}

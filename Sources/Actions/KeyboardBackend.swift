/// How `gesturectl actions` types the chords of `keys` actions (`keyboard` in an actions
/// file, docs/actions.md).
public enum KeyboardBackend: String, Sendable, Hashable, CaseIterable {
    /// Through the Wayland session's own virtual-keyboard protocol
    /// (`zwp_virtual_keyboard_v1`, offered by wlroots compositors: cage, sway, labwc), by
    /// running `wtype`: needs no device access, reaches only the session it runs in.
    case wayland
    /// Through the X server the session's X11 clients use (`DISPLAY`; Xwayland under a
    /// Wayland compositor), by running `xdotool` (XTEST): reaches X11 clients only. For
    /// compositors without the virtual-keyboard protocol whose app is an X11 client, such as
    /// cage 0.1.4 running Chromium through Xwayland.
    case x11
    /// On a uinput keyboard the runner creates: needs write access to `/dev/uinput`, which
    /// lets any process of the user inject input into every session and virtual terminal.
    case uinput

    /// What an actions file without `keyboard` uses.
    public static let `default` = KeyboardBackend.wayland
}

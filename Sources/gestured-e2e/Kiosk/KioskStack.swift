/// One compositor showing one client, run as a unit of the kiosk tier.
struct KioskStack: Equatable {
    /// The client a compositor shows.
    enum Client: String, CaseIterable {
        /// wev: a Wayland client that prints every `wl_touch` event (the protocol level).
        case wev
        /// Chromium in kiosk mode with the guide's recipe for the compositor (the DOM level).
        case chromium
    }

    let compositor: CompositorKind
    let client: Client

    /// `cage+wev`, `sway+chromium`: the cases' prefix (`kiosk [sway+chromium]: …`).
    var name: String { "\(compositor.rawValue)+\(client.rawValue)" }
}

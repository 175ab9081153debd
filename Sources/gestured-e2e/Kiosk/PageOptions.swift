/// What the tier's page lets Chromium do, set through its control file
/// (`ProbeSite.writeControl`) and confirmed by its `state` report.
struct PageOptions: Equatable {
    /// Whether Chromium may open its context menu (false: the page prevents the
    /// `contextmenu` event's default, so an open menu never takes the next right click).
    var menus = true
    /// Whether Chromium shows a mouse cursor over the page (false: `cursor: none` on the
    /// root element, as the kiosk guide tells a page to hide it).
    var cursor = true

    /// The options as the control file's fields.
    var controlFields: String { "\"menus\": \(menus), \"cursor\": \(cursor)" }
}

/// The release of gestured, reported by `--version`, `hello` and `status`.
public let gesturedVersion = "0.1.0"

/// locationd's version, written in this one place: `locationd --version` prints it, and
/// `scripts/package-deb` reads it from this file for the Debian package's version.
enum LocationdVersion {
    static let current = "0.1.0"
}

/// What is wrong with one feature of a region file, as one sentence without the
/// file and feature (the loader adds those).
package struct RegionFileProblem: Error, Sendable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}

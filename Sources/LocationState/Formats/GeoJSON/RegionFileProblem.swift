/// What is wrong with one feature of a region file, as one sentence without the
/// file and feature (the loader adds those).
struct RegionFileProblem: Error, Sendable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}

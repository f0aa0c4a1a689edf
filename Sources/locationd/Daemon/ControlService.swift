import ServiceLifecycle

/// The control socket as a service: it answers from the moment it is bound (before
/// the group runs, so that a path that cannot be bound stops the daemon at start
/// with its reason) until graceful shutdown, when it closes every client and
/// removes the socket file, last of all.
struct ControlService: Service {
    let server: ControlServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.stop()
    }
}

import Foundation
import LocationState
import ServiceLifecycle

/// The control socket as a service: it answers from the moment it is bound (before
/// the group runs, so that a path that cannot be bound stops the daemon at start
/// with its reason) until graceful shutdown, when it closes every client and
/// removes the socket file, last of all.
struct ControlService: Service {
    let server: ControlServer

    /// Binds the socket and answers from now on; the failure is the one-line
    /// `LocationError` the daemon exits with.
    func startListening() async throws(LocationError) {
        do {
            try await server.start()
        } catch let error as LocationError {
            throw error
        } catch {
            throw .cannotWrite(path: server.path, reason: "cannot listen there (\(error))")
        }
    }

    func run() async throws {
        try? await gracefulShutdown()
        await server.stop()
    }
}

extension ControlService {
    /// The control socket, answering from the context.
    init(context: DaemonContext) {
        let configuration = context.configuration
        self.init(
            server: ControlServer(
                path: configuration.resolvedSocketPath, mode: mode_t(configuration.socketMode),
                responder: ControlResponder(context: context), logger: context.logger))
    }
}

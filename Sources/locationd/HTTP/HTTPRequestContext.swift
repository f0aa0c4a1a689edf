import Hummingbird
import NIOCore

/// A request's context: Hummingbird's basics and the connection, which an event
/// stream closes when its client does not keep up.
struct HTTPRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's connection.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

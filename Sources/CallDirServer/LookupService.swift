import Logging
import ServiceLifecycle
import UnixSignals

/// The daemon as a swift-service-lifecycle `Service`, for a `ServiceGroup` that owns SIGTERM and
/// SIGINT (its graceful-shutdown signals): `run()` binds and loads the index (`LookupServer.start`),
/// reloads on SIGHUP, and on graceful shutdown stops accepting, lets requests in flight finish
/// (`LookupServer.stop`) and returns once the event loops are shut down.
/// The server's own configuration must have `handleSignals` off: the group and this service
/// trap the signals instead of `ReloadWatcher`.
public struct LookupService: Service, CustomStringConvertible {
    public let server: LookupServer

    public init(server: LookupServer) {
        precondition(!server.configuration.handleSignals, "LookupService traps the signals itself")
        self.server = server
    }

    public var description: String { "calldir.serve" }

    public func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)  // trapped before the socket opens
        try server.start()
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask { [holder = server.holder] in
                    for await _ in hangups { holder.reload(reason: "SIGHUP") }
                }
                await server.untilStopped()
                tasks.cancelAll()
            }
        } onGracefulShutdown: { [server] in
            server.stop(reason: "graceful shutdown (SIGTERM or SIGINT)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore

/// What the listening socket does when accept(2) fails for want of descriptors or kernel
/// memory (EMFILE, ENFILE, ENOBUFS, ENOMEM). NIO keeps the listener open on these errors but,
/// left alone, asks again at once; the pending connection keeps the socket readable, so the
/// event loop spins at 100% of a core until clients leave, and /healthz starves with it.
/// NIO's `AcceptBackoffHandler` (which `ServerBootstrap.bind` adds only on its async path)
/// pauses accepting instead; this picks the pause and warns, at most once per `warningEvery`.
enum AcceptBackoff {
    /// Pending connections wait in the backlog meanwhile; a freed descriptor is used within this.
    static let pause = TimeAmount.milliseconds(100)
    static let warningEvery = TimeAmount.seconds(10)

    static func handler(logger: Logger) -> AcceptBackoffHandler {
        var lastWarning: NIODeadline?
        return AcceptBackoffHandler(shouldForwardIOErrorCaught: false) { error in
            guard [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else { return nil }
            let now = NIODeadline.now()
            if lastWarning.map({ now - $0 >= warningEvery }) ?? true {
                lastWarning = now
                logger.warning("cannot accept connections, pausing", metadata: [
                    "reason": "\(String(cString: strerror(error.errnoCode)))",
                    "pause": "\(pause.nanoseconds / 1_000_000)ms",
                    "remedy": "raise the descriptor limit (ulimit -n, LimitNOFILE=) or put fewer clients on this instance",
                ])
            }
            return pause
        }
    }
}

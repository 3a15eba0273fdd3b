#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Watches for a new index and for stop signals, on one serial queue (reloads never run on the
/// event loops, so verifying a large file never delays an answer):
/// - every `pollInterval`, stat()s the index path and reloads when the file was replaced
///   (a compile publishes by rename: a new inode);
/// - SIGHUP reloads unconditionally;
/// - SIGTERM and SIGINT call `onStop` once, from a queue of their own, so a reload in progress
///   (verifying a large file) never delays a stop.
/// Polling rather than inotify: it is portable, costs one stat() per tick, and sees a rename
/// over the path whatever the folder's file system.
package final class ReloadWatcher: Sendable {
    private let holder: IndexHolder
    private let queue = DispatchQueue(label: "calldir.reload")
    private let stopQueue = DispatchQueue(label: "calldir.stop")
    private let sources = Mutex(Sources())

    /// Dispatch sources are thread-safe objects; the array is only touched under the lock.
    private struct Sources: @unchecked Sendable {
        var all: [any DispatchSourceProtocol] = []
    }

    package init(holder: IndexHolder) {
        self.holder = holder
    }

    /// Starts polling (when `pollIntervalNanoseconds` > 0) and, if asked, signal handling;
    /// returns once the signal handlers are registered.
    package func start(pollIntervalNanoseconds: Int64, handleSignals: Bool, onStop: @escaping @Sendable (String) -> Void) {
        var started: [any DispatchSourceProtocol] = []
        if pollIntervalNanoseconds > 0 {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval = DispatchTimeInterval.nanoseconds(Int(pollIntervalNanoseconds))
            timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
            timer.setEventHandler { [holder] in holder.reloadIfReplaced() }
            started.append(timer)
        }
        if handleSignals {
            started.append(signalSource(SIGHUP, on: queue) { [holder] in holder.reload(reason: "SIGHUP") })
            let stopOnce = Mutex(false)
            for (signal, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                started.append(signalSource(signal, on: stopQueue) {
                    let first = stopOnce.withLock { stopped in
                        defer { stopped = true }
                        return !stopped
                    }
                    if first { onStop(name) }
                })
            }
        }
        // Resuming a signal source only schedules its registration; wait for it, so that a
        // signal sent as soon as the daemon answers is acted on, not ignored (SIG_IGN is set).
        let registered = DispatchGroup()
        for source in started {
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.resume()
        }
        registered.wait()
        let add = Sources(all: started)
        sources.withLock { $0.all += add.all }
    }

    package func stop() {
        let running = sources.withLock { sources in
            defer { sources.all.removeAll() }
            return sources
        }
        for source in running.all { source.cancel() }
    }

    private func signalSource(_ signal: Int32, on queue: DispatchQueue,
                              _ handler: @escaping @Sendable () -> Void) -> any DispatchSourceProtocol {
        Glibc.signal(signal, SIG_IGN)  // the default action would kill the process before Dispatch sees it
        let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
        source.setEventHandler(handler: handler)
        return source
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// CallDirPatch's platform seam: with `Files/TemporaryFiles.swift`'s signal handler, the only
// files of the target that call the C library, each under `canImport` for Glibc and Darwin
// (`PlatformSeamTests`). pthread_t is an integer on Linux and an optional pointer on Darwin:
// it is never made with `pthread_t()` here.

/// A thread running one closure, joined explicitly. Plain pthreads: the core library has no
/// Foundation or Dispatch, and a compile or a patch needs exactly one helper thread.
package final class WorkerThread {
    #if canImport(Darwin)
    private let thread: pthread_t?
    #else
    private let thread: pthread_t
    #endif

    /// Starts `body` on a new thread; nil if the system refuses one (callers then run inline).
    package init?(_ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(ClosureBox(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread: pthread_t = 0
        #endif
        let started = pthread_create(&thread, nil, { context in
            let box = Unmanaged<ClosureBox>.fromOpaque(unwrapped(context)).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard started == 0 else {
            Unmanaged<ClosureBox>.fromOpaque(box).release()
            return nil
        }
        self.thread = thread
    }

    /// Waits for the closure to return. Call this or `detach`, once.
    package func join() {
        #if canImport(Darwin)
        if let thread { pthread_join(thread, nil) }
        #else
        pthread_join(thread, nil)
        #endif
    }

    /// Lets the thread finish on its own; its resources are freed when it does.
    package func detach() {
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
    }
}

/// The start routine's context: optional on Linux, not on Darwin; a non-optional argument
/// converts, so one closure compiles on both.
private func unwrapped(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer { context! }

/// Seconds on the monotonic clock (durations in summaries).
package func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// `memcmp(a, b, count) == 0`.
@inline(__always)
package func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
    memcmp(a, b, count) == 0
}

private final class ClosureBox {
    package let body: () -> Void
    package init(_ body: @escaping () -> Void) { self.body = body }
}

/// A bounded first-in first-out queue between one producing and one consuming thread, with
/// a `close` that wakes both (the consumer to finish, the producer to stop early).
package final class Handoff<Element>: @unchecked Sendable {  // all state behind `mutex`
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var items: [Element] = []
    private let capacity: Int
    private var closed = false

    package init(capacity: Int) {
        self.capacity = capacity
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Waits for room, then appends. False (nothing appended) once the queue is closed.
    package func put(_ item: Element) -> Bool {
        locked {
            while items.count >= capacity && !closed { pthread_cond_wait(changed, mutex) }
            guard !closed else { return false }
            items.append(item)
            pthread_cond_broadcast(changed)
            return true
        }
    }

    /// Waits for an item; nil when the queue is closed and empty.
    package func take() -> Element? {
        locked {
            while items.isEmpty && !closed { pthread_cond_wait(changed, mutex) }
            guard !items.isEmpty else { return nil }
            pthread_cond_broadcast(changed)
            return items.removeFirst()
        }
    }

    /// No more puts; takes drain what is queued.
    package func close() {
        locked {
            closed = true
            pthread_cond_broadcast(changed)
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

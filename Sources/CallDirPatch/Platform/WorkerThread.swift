#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread running one closure, joined explicitly. Plain pthreads: the core library has no
/// Foundation or Dispatch, and a compile needs exactly one helper thread.
final class WorkerThread {
    private var thread: pthread_t

    /// Starts `body` on a new thread; nil if the system refuses one (callers then run inline).
    init?(_ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(ClosureBox(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            let box = Unmanaged<ClosureBox>.fromOpaque(context!).takeRetainedValue()
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
    func join() { pthread_join(thread, nil) }

    /// Lets the thread finish on its own; its resources are freed when it does.
    func detach() { pthread_detach(thread) }
}

private final class ClosureBox {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// A bounded first-in first-out queue between one producing and one consuming thread, with
/// a `close` that wakes both (the consumer to finish, the producer to stop early).
final class Handoff<Element>: @unchecked Sendable {  // all state behind `mutex`
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var items: [Element] = []
    private let capacity: Int
    private var closed = false

    init(capacity: Int) {
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
    func put(_ item: Element) -> Bool {
        locked {
            while items.count >= capacity && !closed { pthread_cond_wait(changed, mutex) }
            guard !closed else { return false }
            items.append(item)
            pthread_cond_broadcast(changed)
            return true
        }
    }

    /// Waits for an item; nil when the queue is closed and empty.
    func take() -> Element? {
        locked {
            while items.isEmpty && !closed { pthread_cond_wait(changed, mutex) }
            guard !items.isEmpty else { return nil }
            pthread_cond_broadcast(changed)
            return items.removeFirst()
        }
    }

    /// No more puts; takes drain what is queued.
    func close() {
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

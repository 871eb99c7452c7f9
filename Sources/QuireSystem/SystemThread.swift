import CQuireLinux

#if canImport(Glibc)
import Glibc
#endif

/// A thread of the system's own (`pthread_create`), for the loops that live as long as what they serve: the
/// arbiter's host and connection, the file watcher's reader, a PDF's page workers.
///
/// Foundation's `Thread` does the same job with an object, a dictionary and a start-up handshake: on this
/// 2-vCPU machine its body runs 145-190 µs after `start()`, a plain thread's 38-47 µs. `quire exec` starts its
/// arbiter's host on the way to its first grant, so that difference is paid on every self-hosted run.
public enum SystemThread {
    /// Starts `body` on a new thread named `name` (Linux keeps the first 15 bytes; `ps -L` and `top -H` show
    /// it). A detached thread releases itself when `body` returns; a `joinable` one must be passed to
    /// ``join(_:)`` exactly once.
    /// - Returns: the thread (to join it, when `joinable`).
    /// - Throws: ``SystemCallError`` for `pthread_create` (`EAGAIN` when the process or the system has no room
    ///   for another thread); `body` then never runs.
    @discardableResult
    public static func start(
        name: String, joinable: Bool = false, _ body: @escaping @Sendable () -> Void
    ) throws(SystemCallError) -> pthread_t {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if !joinable { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { context in
                let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
                start.name.withCString { _ = CQuire_nameThisThread($0) }
                start.body()
                return nil
            }, start)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemCallError(call: "pthread_create", errno: status, path: nil)
        }
        return thread
    }

    /// Waits for a thread started `joinable` to return from its body.
    public static func join(_ thread: pthread_t) {
        pthread_join(thread, nil)
    }

    /// What the new thread runs, handed over through `pthread_create`'s one pointer.
    private final class Start {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

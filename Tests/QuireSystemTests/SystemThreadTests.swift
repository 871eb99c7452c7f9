import QuireSystem
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Threads of the system's own")
struct SystemThreadTests {
    @Test("a joinable thread runs its body under its name (cut to the 15 bytes Linux keeps) and can be joined")
    func joinableThreadRunsNamed() throws {
        let seen = Mutex<(name: String, thread: Bool)?>(nil)
        let caller = pthread_self()
        let thread = try SystemThread.start(name: "quire.test-thread-name", joinable: true) {
            let name = Self.threadName()
            seen.withLock { $0 = (name, pthread_equal(pthread_self(), caller) == 0) }
        }
        SystemThread.join(thread)
        let result = try #require(seen.withLock { $0 })
        #expect(result.name == "quire.test-thre")
        #expect(result.thread)
    }

    @Test("a detached thread runs its body once and releases what it captured when it returns")
    func detachedThreadRunsOnce() throws {
        final class Captured: Sendable {
            let released: @Sendable () -> Void
            init(released: @escaping @Sendable () -> Void) { self.released = released }
            deinit { released() }
        }
        let runs = Atomic(0)
        let done = Atomic(false)
        do {
            let captured = Captured { done.store(true, ordering: .releasing) }
            try SystemThread.start(name: "quire.detached") {
                _ = captured
                runs.wrappingAdd(1, ordering: .relaxed)
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !done.load(ordering: .acquiring) && ContinuousClock.now < deadline { sched_yield() }
        let released = done.load(ordering: .acquiring)
        let count = runs.load(ordering: .relaxed)
        #expect(released)
        #expect(count == 1)
    }

    /// The calling thread's name, as the kernel reports it.
    private static func threadName() -> String {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return "" }
        return String(decoding: bytes[..<count].filter { $0 != 0x0A }, as: UTF8.self)
    }
}

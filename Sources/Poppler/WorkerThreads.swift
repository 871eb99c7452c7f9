import QuireSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a body on several OS threads at once: the calling thread is worker 0 and the others are started first.
///
/// poppler work is blocking C code; plain threads keep it off Swift's cooperative pool (notes P12).
enum WorkerThreads {
    /// The number of processors online (at least 1).
    static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Calls `body(i)` for every `i` in `0..<count`, each on its own thread, and returns when all have returned.
    /// If a thread cannot be started, its share runs on the calling thread afterwards.
    static func run(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        var threads: [pthread_t] = []
        var notStarted: [Int] = []
        for index in 1..<count {
            do {
                threads.append(try SystemThread.start(name: "quire.pdf-worker", joinable: true) { body(index) })
            } catch {
                notStarted.append(index)
            }
        }
        body(0)
        for index in notStarted { body(index) }
        for thread in threads { SystemThread.join(thread) }
    }
}

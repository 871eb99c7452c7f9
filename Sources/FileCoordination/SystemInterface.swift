import CoordinationArbiter
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place where this module calls the operating system (clock, paths, thread-local storage).
enum SystemInterface {
    /// The monotonic clock as an arbiter instant.
    static func now() -> Instant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Instant(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    /// `realpath(3)` of an existing path, or nil if it cannot be resolved (missing, no permission, loop).
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The current working directory.
    static func currentDirectory() -> String {
        guard let directory = getcwd(nil, 0) else { return "/" }
        defer { free(directory) }
        return String(cString: directory)
    }
}

/// A per-thread value of class type, stored with `pthread_setspecific` (fast, no dictionary).
final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    private var key = pthread_key_t()
    private let make: () -> Value

    init(_ make: @escaping () -> Value) {
        self.make = make
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
    }

    /// This thread's value, created on first use.
    var value: Value {
        if let existing = pthread_getspecific(key) {
            return Unmanaged<AnyObject>.fromOpaque(existing).takeUnretainedValue() as! Value
        }
        let created = make()
        pthread_setspecific(key, Unmanaged.passRetained(created as AnyObject).toOpaque())
        return created
    }
}

extension PurposeID {
    /// This process's prefix for purpose identifiers: its pid and 64 random bits, so that identifiers made by
    /// different processes (and by a later process with a reused pid) never collide.
    private static let processPrefix = "\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 16))-"
    private static let counter = Atomic<UInt64>(1)

    /// A new purpose identifier, unique across processes; far cheaper than a UUID string.
    static func unique() -> PurposeID {
        PurposeID(processPrefix + String(counter.wrappingAdd(1, ordering: .relaxed).oldValue))
    }
}

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

    /// Calls `body` with the UTF-8 bytes of `realpath(3)` of an existing path given as UTF-8 bytes; nil (and
    /// `body` is not called) if it cannot be resolved. Works in this thread's buffers, so the common case
    /// allocates nothing; a path too long for them takes ``realPath(_:)``.
    static func withRealPath<R>(
        of path: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R? {
        if let base = path.baseAddress, path.count < RealPathBuffers.capacity {
            let buffers = RealPathBuffers.local.value
            UnsafeMutableRawPointer(buffers.input).copyMemory(from: base, byteCount: path.count)
            buffers.input[path.count] = 0
            if realpath(buffers.input, buffers.output) != nil {
                let resolved = UnsafeRawPointer(buffers.output).assumingMemoryBound(to: UInt8.self)
                return body(UnsafeBufferPointer(start: resolved, count: strlen(buffers.output)))
            }
            if errno != ENAMETOOLONG { return nil }
        }
        guard var resolved = realPath(String(decoding: path, as: UTF8.self)) else { return nil }
        return resolved.withUTF8(body)
    }
}

/// One thread's scratch buffers for `realpath(3)`: the NUL-terminated input and the resolved output.
final class RealPathBuffers {
    /// The size of each buffer: `PATH_MAX`, the most `realpath` writes, and its terminating NUL.
    static let capacity = Int(PATH_MAX) + 1
    /// This thread's buffers.
    static let local = ThreadLocal { RealPathBuffers() }

    /// The path to resolve, NUL-terminated.
    let input = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
    /// Where `realpath` writes the resolved path.
    let output = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)

    deinit {
        input.deallocate()
        output.deallocate()
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
            return Unmanaged<Value>.fromOpaque(existing).takeUnretainedValue()
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

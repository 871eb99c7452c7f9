import Foundation

/// Runs blocking test code on a thread of its own and awaits it: the cross-process suite blocks for most of a
/// minute, and on a 2-core machine holding one of the two threads of Swift's cooperative pool that long starves
/// the async suites of the same test process. (Expectations recorded on that thread are reported without the
/// test's name.)
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

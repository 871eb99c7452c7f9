import Synchronization

/// The service's budget of upload bytes in flight: every upload reserves the bytes it receives (all of a declared
/// `Content-Length` at once, a chunked body as it arrives) and gives them back when its temporary file is gone or
/// taken into the store. A reservation that does not fit is refused, never waited for.
final class UploadBudget: Sendable {
    /// The budget, in bytes.
    let limit: Int
    private let reserved = Mutex(0)

    /// A budget of `limit` bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// Reserves `count` bytes; false (nothing reserved) when they do not fit.
    func reserve(_ count: Int) -> Bool {
        reserved.withLock { reserved in
            guard count <= limit - reserved else { return false }
            reserved += count
            return true
        }
    }

    /// Gives back `count` reserved bytes.
    func release(_ count: Int) {
        reserved.withLock { $0 = max(0, $0 - count) }
    }

    /// The bytes reserved now.
    var inFlight: Int { reserved.withLock { $0 } }
}

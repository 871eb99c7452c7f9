import CoordinationArbiter
import Foundation
import Synchronization

/// One item and how to access it, for ``FileCoordinator/coordinate(with:queue:byAccessor:)``.
///
/// Inside the accessor always use ``url``: it follows the item if another coordinator moved it while this
/// intent waited (except for a `.forReplacing` write, which treats whatever is at the URL as a new item). An
/// `NSObject`, as Apple's `NSFileAccessIntent` (its name in `FileCoordinationCompat`).
public final class FileAccessIntent: NSObject, @unchecked Sendable {
    private let current: Mutex<URL>
    let access: AccessIntent.Access

    private init(url: URL, access: AccessIntent.Access) {
        current = Mutex(url)
        self.access = access
        super.init()
    }

    /// An intent to read the item at `url`.
    public class func readingIntent(with url: URL, options: FileCoordinator.ReadingOptions = []) -> FileAccessIntent {
        FileAccessIntent(url: url, access: .reading(AccessIntent.ReadingOptions(rawValue: options.rawValue)))
    }

    /// An intent to write the item at `url`.
    public class func writingIntent(with url: URL, options: FileCoordinator.WritingOptions = []) -> FileAccessIntent {
        FileAccessIntent(url: url, access: .writing(AccessIntent.WritingOptions(rawValue: options.rawValue)))
    }

    /// The item's URL: the one given, or where the item was moved to while the intent waited.
    public var url: URL {
        current.withLock { $0 }
    }

    func update(url: URL) {
        current.withLock { $0 = url }
    }
}

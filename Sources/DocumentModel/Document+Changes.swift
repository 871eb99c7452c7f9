import FileCoordination
import Foundation

extension Document {
    /// The userInfo keys of `Notification.Name.documentUnderlyingFileChanged`.
    public enum UserInfoKey {
        /// The changed file's URL (`URL`).
        public static let changedFileURL = "changedFileURL"
        /// The provider of the file (`CoordinatedFileDataProviding`).
        public static let dataProvider = "dataProvider"
        /// True when the file is being deleted (`Bool`).
        public static let deleteFile = "deleteFile"
    }

    /// A new stream of the document's underlying-file changes (each access makes a new stream: several
    /// consumers may listen). It finishes when the document is closed. The newest 1024 undelivered changes are
    /// kept.
    public var underlyingFileChanges: AsyncStream<UnderlyingFileChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: UnderlyingFileChange.self, bufferingPolicy: .bufferingNewest(1024))
        let id = state.withLock { state -> Int? in
            guard !state.isClosed else { return nil }
            defer { state.nextListener += 1 }
            state.listeners[state.nextListener] = continuation
            return state.nextListener
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Posts the notification and feeds the streams, asynchronously and in order, on the notification queue.
    func post(_ change: UnderlyingFileChange) {
        notificationQueue.async { [self] in
            let listeners = state.withLock { Array($0.listeners.values) }
            NotificationCenter.default.post(
                name: .documentUnderlyingFileChanged, object: self,
                userInfo: [
                    UserInfoKey.changedFileURL: change.fileURL,
                    UserInfoKey.dataProvider: change.dataProvider,
                    UserInfoKey.deleteFile: change.isDeletion,
                ])
            for listener in listeners { listener.yield(change) }
        }
    }
}

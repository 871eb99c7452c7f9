import CoordinationArbiter
import Foundation

extension FileCoordinator {
    /// Waits asynchronously for access to every intent at once, then runs `accessor` on `queue` with nil; the
    /// access ends when `accessor` returns. On failure `accessor` runs with the error and must not touch the
    /// files. Inside, use each intent's ``FileAccessIntent/url``: for a `.forUploading` read it is the snapshot
    /// (made on `queue` before `accessor` runs; see ``ReadingOptions/forUploading``). An empty list is granted at
    /// once.
    public func coordinate(
        with intents: [FileAccessIntent], queue: OperationQueue,
        byAccessor accessor: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let targets: [Target]
        do {
            targets = try intents.map { try target($0.url, $0.access) }
        } catch {
            queue.addOperation { accessor(error) }
            return
        }
        // The id is made first: the grant, and even the accessor, may come before `submit` returns.
        let request = client.makeRequestID()
        submit(targets, as: request, nestedIn: nil) { [self] result in
            switch result {
            case .success(let urls):
                for (intent, url) in zip(intents, urls) { intent.update(url: url) }
                queue.addOperation {
                    let snapshots: UploadSnapshots?
                    do {
                        snapshots = try UploadSnapshots.makeIfNeeded(of: targets, at: urls)
                    } catch {
                        _ = self.takesPresence(request)
                        self.end(request)
                        accessor(error)
                        return
                    }
                    // A read for uploading alone ends its claim once its snapshot exists: nothing is created.
                    let claimHeld = snapshots?.endsClaimEarly != true
                    if let snapshots {
                        for (intent, url) in zip(intents, snapshots.urls) { intent.update(url: url) }
                        if !claimHeld {
                            _ = self.takesPresence(request)
                            self.end(request)
                        }
                    }
                    let probe =
                        claimHeld && self.takesPresence(request)
                        ? ItemPresenceProbe(targets: targets, urls: urls) : nil
                    let carrier =
                        claimHeld && VersionIdentityCarrier.isNeeded(for: targets)
                        ? VersionIdentityCarrier(targets: targets, urls: urls) : nil
                    accessor(nil)
                    carrier?.finish()
                    if claimHeld { self.end(request, presence: probe?.finish() ?? []) }
                    snapshots?.remove()
                }
            case .failure(let error):
                queue.addOperation { accessor(error) }
            }
        }
    }

    /// Waits for access to every intent at once, then runs `accessor` with the intents' URLs (moved where their
    /// items moved; for a `.forUploading` read, its snapshot, made off Swift's cooperative pool); the access ends
    /// when `accessor` returns, or once the snapshots exist if every intent reads for uploading. Cancelling the
    /// task cancels the wait.
    /// - Returns: what `accessor` returns.
    /// - Throws: as ``coordinate(readingItemAt:options:byAccessor:)``, `CancellationError` semantics are those
    ///   of ``cancel()`` (`CocoaError(.userCancelled)`), and whatever `accessor` throws.
    public func coordinate<T: Sendable>(
        with intents: [FileAccessIntent], byAccessor accessor: @Sendable ([URL]) async throws -> T
    ) async throws -> T {
        let targets = try intents.map { try target($0.url, $0.access) }
        let slot = RequestSlot()
        let urls: [URL] = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A task cancelled before its wait began never asks for access (it would be granted at once
                // if the item is free, and the accessor must not run).
                if slot.cancelled {
                    continuation.resume(throwing: CocoaError(.userCancelled))
                    return
                }
                slot.value = submit(targets, nestedIn: nil) { result in
                    if case .success(let urls) = result {
                        for (intent, url) in zip(intents, urls) { intent.update(url: url) }
                    }
                    continuation.resume(with: result)
                }
                if slot.cancelled, let id = slot.value { client.endpoint.submit(.cancelRequested(id)) }
            }
        } onCancel: {
            slot.cancelled = true
            if let id = slot.value { client.endpoint.submit(.cancelRequested(id)) }
        }
        let snapshots: UploadSnapshots?
        do {
            snapshots =
                targets.contains(where: \.readsForUploading)
                ? try await UploadSnapshots.makeOffPool(of: targets, at: urls) : nil
        } catch {
            if let id = slot.value {
                _ = takesPresence(id)
                end(id)
            }
            throw error
        }
        var claimHeld = slot.value != nil
        if let snapshots {
            for (intent, url) in zip(intents, snapshots.urls) { intent.update(url: url) }
            if snapshots.endsClaimEarly, let id = slot.value {
                _ = takesPresence(id)
                end(id)
                claimHeld = false
            }
        }
        // The probe and the carrier look at the file system: never on the cooperative pool.
        let probe: ItemPresenceProbe?
        if claimHeld, let id = slot.value, takesPresence(id) {
            probe = await ItemPresenceProbe.offPool(targets: targets, urls: urls)
        } else {
            probe = nil
        }
        let carrier: VersionIdentityCarrier? =
            claimHeld && VersionIdentityCarrier.isNeeded(for: targets)
            ? await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: VersionIdentityCarrier(targets: targets, urls: urls))
                }
            } : nil
        let result: Result<T, any Error>
        do {
            result = .success(try await accessor(snapshots?.urls ?? urls))
        } catch {
            result = .failure(error)
        }
        if let carrier, !carrier.isEmpty { await carrier.finishOffPool() }
        if claimHeld, let id = slot.value {
            let presence = if let probe { await probe.finishOffPool() } else { [ItemPresence?]() }
            end(id, presence: presence)
        }
        await snapshots?.removeOffPool()
        return try result.get()
    }
}

/// A request id filled in after submission, read by completion and cancellation handlers.
final class RequestSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var storedValue: RequestID?
    private var storedCancelled = false

    var value: RequestID? {
        get { lock.withLock { storedValue } }
        set { lock.withLock { storedValue = newValue } }
    }

    var cancelled: Bool {
        get { lock.withLock { storedCancelled } }
        set { lock.withLock { storedCancelled = newValue } }
    }
}

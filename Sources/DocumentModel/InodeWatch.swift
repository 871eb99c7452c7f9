import Foundation
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The inodes of the files that observed coordinated providers last read, watched with inotify however the file
/// is reached: a change of link count or attributes (`IN_ATTRIB`) and a close after writing (`IN_CLOSE_WRITE`).
///
/// A presenter's watch is its directory's, which hears what is done through the file's own name: a hard link made
/// elsewhere (`ln root/a.pdf /outside/x`, measured: no event at all in `root`'s watch) and a write through that
/// link (`cp other.pdf /outside/x`: none either) are events of the inode alone. So each
/// ``CoordinatedFileDataProvider`` that ``FilePresenterCoordinator`` observes also has the inode it last read
/// watched here (through `/proc/self/fd/N` of the descriptor it read, so the watch is on the very file whose bytes
/// it holds, whatever happened to the path since), and such an event makes it check its file as a change
/// reported by its directory does: a second link makes the file unreadable (a confined provider reads only a file
/// with one link), which its delegate hears of.
///
/// One inotify instance and one thread for the process, made on first use; a kernel watch per inode (inotify
/// gives one watch per inode and instance, shared by the providers of that inode), released when its last
/// provider leaves or the inode goes. When the kernel has no room for another watch (`max_user_watches`), the
/// provider goes unwatched here: what it serves is still checked (``CoordinatedFileDataProvider/isUnchangedSinceLastLook``).
package final class InodeWatch: @unchecked Sendable {
    /// The watch every provider shares.
    static let shared = InodeWatch()

    /// Whether providers start watching their inodes when observed (tests turn it off, to see what the checks at
    /// serving time do without it).
    static let isEnabled = Atomic<Bool>(true)

    /// Turns the watch on or off for the providers observed from now on (tests).
    package static func setEnabled(_ enabled: Bool) {
        isEnabled.store(enabled, ordering: .relaxed)
    }

    /// A provider, weakly (a provider leaves when it is released).
    private struct Member {
        weak var provider: CoordinatedFileDataProvider?
    }

    /// The events asked for: link count and attributes, and a close after writing. `IN_MODIFY` is not asked for:
    /// a large write would wake the watch for every block.
    private static let mask = UInt32(IN_ATTRIB | IN_CLOSE_WRITE)

    private let lock = NSLock()
    /// The inotify instance (-1 until first use, or when none could be made).
    private var descriptor: Int32 = -1
    private var started = false
    /// The providers of each kernel watch.
    private var members: [Int32: [ObjectIdentifier: Member]] = [:]

    private init() {}

    /// Watches the inode open at `file` for `provider`, instead of `previous` (the watch it had, if any); returns
    /// the watch, or nil when none could be added (the previous one is released either way).
    func watch(_ file: Int32, for provider: CoordinatedFileDataProvider, replacing previous: Int32?) -> Int32? {
        lock.withLock {
            guard let instance = instanceLocked() else { return nil }
            // Under the lock: an add and the release of a watch whose last provider left must not interleave
            // (inotify answers the same watch for the same inode).
            let added = inotify_add_watch(instance, "/proc/self/fd/\(file)", Self.mask)
            let key = ObjectIdentifier(provider)
            if added >= 0 { members[added, default: [:]][key] = Member(provider: provider) }
            if let previous, previous != added { leaveLocked(previous, key) }
            return added >= 0 ? added : nil
        }
    }

    /// `provider` no longer watches `watch`.
    func unwatch(_ watch: Int32, for provider: CoordinatedFileDataProvider) {
        lock.withLock { leaveLocked(watch, ObjectIdentifier(provider)) }
    }

    /// The number of kernel watches held (tests).
    package var watchCount: Int { lock.withLock { members.count } }

    private func leaveLocked(_ watch: Int32, _ key: ObjectIdentifier) {
        guard members[watch]?.removeValue(forKey: key) != nil, members[watch]?.isEmpty == true else { return }
        members.removeValue(forKey: watch)
        // EINVAL when the kernel dropped it already (the inode is gone): nothing to do.
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// The inotify instance, made (with its reader thread) on first use.
    private func instanceLocked() -> Int32? {
        if started { return descriptor >= 0 ? descriptor : nil }
        started = true
        guard
            let instance = try? SystemCall.retryingOnInterrupt("inotify_init1", { inotify_init1(Int32(IN_CLOEXEC)) })
        else { return nil }
        do {
            try SystemThread.start(name: "quire.inodes") { [self] in read(instance) }
        } catch {
            SystemCall.close(instance)
            return nil
        }
        descriptor = instance
        return instance
    }

    /// The reader thread: blocks on the instance for the life of the process, and hands each event's providers a
    /// check of their files.
    private func read(_ instance: Int32) {
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            guard let count = try? SystemCall.retryingOnInterrupt("read", { Glibc.read(instance, buffer, capacity) })
            else { return }
            var offset = 0
            var touched: [Int32] = []
            var overflowed = false
            var ignored: [Int32] = []
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true }
                if event.mask & UInt32(IN_IGNORED) != 0 {
                    ignored.append(event.wd)
                } else if event.wd >= 0 {
                    touched.append(event.wd)
                }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
            let providers = lock.withLock { () -> [CoordinatedFileDataProvider] in
                let found =
                    overflowed
                    ? members.values.flatMap { $0.values.compactMap(\.provider) }
                    : touched.flatMap { members[$0]?.values.compactMap(\.provider) ?? [] }
                for watch in ignored { members.removeValue(forKey: watch) }
                return found
            }
            for provider in providers { provider.inodeDidChange() }
        }
    }
}

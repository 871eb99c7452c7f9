import CQuireLinux
import CoordinationArbiter
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The memory a shared arbiter host shares with its clients so that a contended access passes from one client to
/// the next without a trip through the host (protocol version 4).
///
/// Each connection slot below ``cells`` has a cell of 64 bytes (the words are listed in `CQuireLinux.h`). When the
/// host's ``Arbiter`` says that ending a granted access would grant one waiting request and do nothing else (no
/// presenter to tell, no other request to wake), the host *arms* the ender's cell with that prediction. The
/// ending client *fires* it with a compare-and-swap: it writes the grant into the waiter's cell and rings the
/// waiter's doorbell, and sends no end frame. The waiting thread, polling its cell beside its socket, takes the
/// grant and runs. The host learns of the end from the board and catches its arbiter up in order; it takes back
/// (with a compare-and-swap) a grant nobody took and sends it as a frame. Before anything that could change the
/// prediction, it revokes what is armed (a compare-and-swap that fails once a client fired); a new request that
/// surely waits behind the last predicted grant changes nothing and leaves the chain armed, which lets several
/// hand-overs follow each other without the host.
///
/// Each cell carries the generation of its connection: a client of an earlier connection in the same slot can
/// neither fire nor take. The board is a file of the user's coordination directory (mode 0600, named for the
/// host's process), mapped by the host and each client; it holds no secret (anything of the same user can read
/// the arbiter anyway) and all its words are checked. This type owns one mapping; its methods are the only
/// way in, through `CQuireLinux`'s atomic functions. No method blocks except ``sleep(cell:seen:milliseconds:)``.
final class HandOverBoard: @unchecked Sendable {
    /// The number of cells: connection slots from 1 up to `cells - 1` get one.
    static let cells = UInt64(CQUIRE_BOARD_CELLS)
    /// The board's size in bytes.
    static let size = Int(CQUIRE_BOARD_CELLS) * Int(CQUIRE_BOARD_CELL_SIZE)
    /// Generations wrap at this mask.
    static let generationMask = UInt32((1 << CQUIRE_BOARD_GENERATION_BITS) - 1)
    /// The largest access or request number a cell can hold (the host's ids are 40-bit local numbers).
    static let numberMask = UInt64((1 << CQUIRE_BOARD_NUMBER_BITS) - 1)
    /// The prefix of a board's file name in the coordination directory.
    static let filePrefix = "arbiter.board."

    /// The file's name (in the coordination directory).
    let name: String
    private let words: UnsafeMutablePointer<UInt64>

    private init(name: String, words: UnsafeMutablePointer<UInt64>) {
        self.name = name
        self.words = words
    }

    deinit {
        munmap(words, Self.size)
    }

    /// A board in private memory, for tests of the protocol (the same atomic operations, one process).
    /// - Throws: ``SystemCallError`` when the memory cannot be mapped.
    static func anonymous() throws(SystemCallError) -> HandOverBoard {
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else {
            throw SystemCallError(call: "mmap", errno: errno, path: nil)
        }
        return HandOverBoard(name: "anonymous", words: address.assumingMemoryBound(to: UInt64.self))
    }

    /// Creates the host's board in `directory` (a new file named for `pid`, mode 0600, replacing a stale one of
    /// that name) and maps it. Other hosts' boards left there are removed: only one host holds the lock.
    /// - Throws: ``SystemCallError`` when the file cannot be made or mapped.
    static func create(in directory: String, pid: Int32) throws(SystemCallError) -> HandOverBoard {
        removeStale(in: directory)
        let name = filePrefix + String(pid)
        let path = directory + "/" + name
        let descriptor = try SystemCall.retryingOnInterrupt("open", path: path) {
            Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | CQuire_O_NOFOLLOW, 0o600)
        }
        defer { SystemCall.close(descriptor) }
        do {
            try SystemCall.retryingOnInterrupt("ftruncate", path: path) { ftruncate(descriptor, off_t(size)) }
            return try map(descriptor, name: name, path: path)
        } catch {
            SocketSystem.unlinkIfPresent(path)
            throw error
        }
    }

    /// Maps the board a host named, `name` in `directory`: a regular file of this user, of the board's size,
    /// not a symbolic link; anything else is refused.
    /// - Throws: ``SystemCallError`` when it cannot be opened, is not such a file, or cannot be mapped.
    static func open(named name: String, in directory: String) throws(SystemCallError) -> HandOverBoard {
        let path = directory + "/" + name
        guard name.hasPrefix(filePrefix), !name.contains("/") else {
            throw SystemCallError(call: "open", errno: EINVAL, path: path)
        }
        let descriptor = try SystemCall.retryingOnInterrupt("open", path: path) {
            Glibc.open(path, O_RDWR | O_CLOEXEC | CQuire_O_NOFOLLOW)
        }
        defer { SystemCall.close(descriptor) }
        var status = stat()
        try SystemCall.retryingOnInterrupt("fstat", path: path) { fstat(descriptor, &status) }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_uid == getuid(), status.st_size == off_t(size) else {
            throw SystemCallError(call: "open", errno: EINVAL, path: path)
        }
        return try map(descriptor, name: name, path: path)
    }

    /// Removes the host's board file (at a clean shutdown).
    static func remove(named name: String, in directory: String) {
        SocketSystem.unlinkIfPresent(directory + "/" + name)
    }

    private static func map(_ descriptor: Int32, name: String, path: String) throws(SystemCallError) -> HandOverBoard {
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let address, address != MAP_FAILED else {
            throw SystemCallError(call: "mmap", errno: errno, path: path)
        }
        return HandOverBoard(name: name, words: address.assumingMemoryBound(to: UInt64.self))
    }

    /// Unlinks the boards of earlier hosts in `directory`.
    private static func removeStale(in directory: String) {
        for name in (try? SystemCall.directoryEntries(directory)) ?? [] where name.hasPrefix(filePrefix) {
            SocketSystem.unlinkIfPresent(directory + "/" + name)
        }
    }

    // MARK: the host's side

    /// Gives `cell` to a new connection of `generation`; false when the cell's last client is in the middle of
    /// firing (the connection then goes without the board).
    func assign(cell: UInt64, generation: UInt32) -> Bool {
        CQuire_boardAssign(words, UInt32(cell), generation) == 0
    }

    /// Arms `link`; false when the ender's cell is in the middle of firing.
    func arm(_ link: HandOverLink) -> Bool {
        CQuire_boardArm(
            words, UInt32(link.ender), link.enderGeneration, link.access, UInt32(link.waiter), link.waiterGeneration,
            link.request) == 1
    }

    /// Where an armed link stands.
    func state(of link: HandOverLink) -> HandOverLink.State {
        HandOverLink.State(CQuire_boardState(words, UInt32(link.ender), link.enderGeneration, link.access))
    }

    /// Takes an armed link back: `.armed` when it was revoked in time, else how far its ender got.
    func revoke(_ link: HandOverLink) -> HandOverLink.State {
        HandOverLink.State(CQuire_boardRevoke(words, UInt32(link.ender), link.enderGeneration, link.access))
    }

    /// Whether the grant a fired link wrote is still untaken.
    func grantPending(_ link: HandOverLink) -> Bool {
        CQuire_boardGrantPending(words, UInt32(link.waiter), link.waiterGeneration, link.request) == 1
    }

    /// Takes an untaken grant back, to send it as a frame; false when the waiter took it first.
    func reclaim(_ link: HandOverLink) -> Bool {
        CQuire_boardReclaim(words, UInt32(link.waiter), link.waiterGeneration, link.request) == 1
    }

    /// Whether the client of `cell` is waiting on the board (spinning or asleep on its doorbell).
    func isWaiting(cell: UInt64) -> Bool {
        CQuire_boardPresence(words, UInt32(cell)) != 0
    }

    /// Rings `cell`'s doorbell: the host sent its client a frame (a client asleep on the board wakes to read it).
    func ring(cell: UInt64) {
        CQuire_boardRing(words, UInt32(cell))
    }

    // MARK: the client's side

    /// What ending an access did on the board.
    enum Firing: Equatable, Sendable {
        /// Nothing was armed for it: send the end as usual.
        case none
        /// The next client has its grant and waits on the board: no end frame (the host reads the end there).
        case silent
        /// The next client has its grant but does not wait on the board: send the end, which wakes the host to
        /// send the grant as a frame if nobody takes it.
        case announced
    }

    /// Fires the hand-over armed on `cell` for the end of `access`, if any.
    func fire(cell: UInt64, generation: UInt32, access: RequestID) -> Firing {
        guard access.rawValue <= Self.numberMask else { return .none }
        switch CQuire_boardFire(words, UInt32(cell), generation, access.rawValue) {
        case 1: return .silent
        case 2: return .announced
        default: return .none
        }
    }

    /// Takes the grant written for `cell`'s connection of `generation`, if any.
    func take(cell: UInt64, generation: UInt32) -> RequestID? {
        let value = CQuire_boardTake(words, UInt32(cell), generation)
        return value == 0 ? nil : RequestID(value - 1)
    }

    /// How the client of `cell` waits: not at all, spinning, or asleep on the doorbell.
    enum Presence: Int32 {
        case absent = 0
        case spinning = 1
        case sleeping = 2
    }

    /// Publishes how the client of `cell` waits.
    func setPresence(_ presence: Presence, cell: UInt64) {
        CQuire_boardSetPresence(words, UInt32(cell), presence.rawValue)
    }

    /// The doorbell of `cell` now, to sleep on.
    func doorbell(cell: UInt64) -> UInt32 {
        CQuire_boardDoorbell(words, UInt32(cell))
    }

    /// Sleeps until the doorbell of `cell` moves from `seen`, or `milliseconds` pass.
    func sleep(cell: UInt64, seen: UInt32, milliseconds: Int32) {
        CQuire_boardSleep(words, UInt32(cell), seen, milliseconds)
    }
}

/// The process-wide counts behind ``CoordinationService/handOvers``.
enum HandOverCounts {
    static let received = Atomic<Int>(0)
    static let passedOn = Atomic<Int>(0)
}

/// One armed hand-over: when the client of slot `ender` ends its access `access`, the request `request` of slot
/// `waiter` is granted (ids are the clients' own numbers; generations those of the connections).
struct HandOverLink: Equatable, Sendable {
    let ender: UInt64
    let enderGeneration: UInt32
    let access: UInt64
    let waiter: UInt64
    let waiterGeneration: UInt32
    let request: UInt64

    /// Where a link stands on the board.
    enum State: Equatable, Sendable {
        /// Still armed (or, from a revoke, taken back in time).
        case armed
        /// The ender claimed it (and wrote the grant, or is writing it): the end happened.
        case fired
        /// The cell holds something else: nothing of this link can happen any more.
        case gone

        init(_ code: Int32) {
            switch code {
            case 0: self = .armed
            case 1, 2: self = .fired
            default: self = .gone
            }
        }
    }
}

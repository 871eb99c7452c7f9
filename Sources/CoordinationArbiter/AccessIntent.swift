/// One item a request wants to read or write, with Apple's options as raw bit sets.
///
/// File packages are the host's decision: it passes, per intent, the depths at which the path passes through
/// a package (``ItemPath/packageRootDepths(extensions:)`` computes them from an extension set). An intent
/// inside a package claims the outermost package as a whole; presenters of every enclosing package are
/// messaged as presenters of the item.
///
/// ``includesContents`` widens only the presenter round (the presenters of everything inside the item are
/// messaged too, as for `prepare(forReadingItemsAt:...)`); the waiting rules stay those of the access.
public struct AccessIntent: Hashable, Sendable, CustomStringConvertible {
    /// Apple's `NSFileCoordinator.ReadingOptions`, with the same raw values.
    public struct ReadingOptions: OptionSet, Hashable, Sendable {
        /// The raw bits, as Apple's.
        public let rawValue: UInt
        /// Wraps raw bits; unknown bits are kept and ignored.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Do not ask presenters to save first (`1 << 0`).
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        /// The accessor gets the link's target (`1 << 1`); the host resolves it, the arbiter ignores it.
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        /// Metadata only (`1 << 2`); waits and messages like a plain read.
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        /// Read for a snapshot copy (`1 << 3`); waits and messages like a plain read.
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// Apple's `NSFileCoordinator.WritingOptions`, with the same raw values.
    public struct WritingOptions: OptionSet, Hashable, Sendable {
        /// The raw bits, as Apple's.
        public let rawValue: UInt
        /// Wraps raw bits; unknown bits are kept and ignored.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Deleting (`1 << 0`): presenters accommodate the deletion; contents of a directory are excluded.
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        /// Moving (`1 << 1`): contents of a directory are excluded and relinquish too.
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        /// Merging (`1 << 2`): presenters save first.
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        /// Replacing (`1 << 3`): as deleting, and the intent's path does not follow moves while it waits.
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        /// Metadata that does not depend on content (`1 << 4`): relinquish, but no `didChange` afterwards.
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)

        /// The options that make a write exclude everything inside the item and block its descendants.
        static let excludingContents: WritingOptions = [.forDeleting, .forMoving, .forReplacing]
        /// The options after which presenters accommodate a deletion.
        static let removingItem: WritingOptions = [.forDeleting, .forReplacing]
    }

    /// Whether the intent reads or writes, with its options.
    public enum Access: Hashable, Sendable {
        /// A coordinated read.
        case reading(ReadingOptions)
        /// A coordinated write.
        case writing(WritingOptions)
    }

    /// The item, as the requester named it (after moves, as the arbiter updated it).
    public let path: ItemPath
    /// Read or write, with options.
    public let access: Access
    /// Also message the presenters of everything inside the item, as presenters of the item: for a read,
    /// `relinquishToReader` and (unless `.withoutChanges`) `savePresentedItemChanges`; for a write,
    /// `relinquishToWriter` and what the options ask (`accommodateDeletion`, or `savePresentedItemChanges`
    /// for `.forMerging`). Who waits for whom does not change: a read of a directory still leaves its contents
    /// to others. `.forDeleting`, `.forMoving` and `.forReplacing` writes message the contents anyway.
    public let includesContents: Bool
    /// Depths (ascending, each in `1...path.depth`) at which `path` passes through a file package.
    public let packageRootDepths: [Int]

    /// Makes an intent; package depths are sorted, de-duplicated and clipped to the path.
    public init(path: ItemPath, access: Access, packageRootDepths: [Int] = [], includesContents: Bool = false) {
        self.path = path
        self.access = access
        self.includesContents = includesContents
        var isNormal = true
        var previous = 0
        for depth in packageRootDepths {
            if depth <= previous || depth > path.depth { isNormal = false }
            previous = depth
        }
        self.packageRootDepths =
            isNormal ? packageRootDepths : Array(Set(packageRootDepths.filter { $0 >= 1 && $0 <= path.depth })).sorted()
    }

    /// The intent with the package roots of `extensions` along its path added to its own.
    public func withPackages(_ extensions: Set<String>) -> AccessIntent {
        let found = path.packageRootDepths(extensions: extensions)
        if found.isEmpty || found.allSatisfy(packageRootDepths.contains) { return self }
        return AccessIntent(
            path: path, access: access, packageRootDepths: packageRootDepths + found,
            includesContents: includesContents)
    }

    /// A reading intent.
    public static func reading(
        _ path: ItemPath, options: ReadingOptions = [], packageRootDepths: [Int] = [], includesContents: Bool = false
    ) -> AccessIntent {
        AccessIntent(
            path: path, access: .reading(options), packageRootDepths: packageRootDepths,
            includesContents: includesContents)
    }

    /// A writing intent.
    public static func writing(
        _ path: ItemPath, options: WritingOptions = [], packageRootDepths: [Int] = [], includesContents: Bool = false
    ) -> AccessIntent {
        AccessIntent(
            path: path, access: .writing(options), packageRootDepths: packageRootDepths,
            includesContents: includesContents)
    }

    /// `read /a/b` or `write[0x1] /a/b`, followed by ` +contents` when ``includesContents`` is set.
    public var description: String {
        let contents = includesContents ? " +contents" : ""
        switch access {
        case .reading(let options):
            return "read\(options.isEmpty ? "" : "[0x\(String(options.rawValue, radix: 16))]") \(path)\(contents)"
        case .writing(let options):
            return "write\(options.isEmpty ? "" : "[0x\(String(options.rawValue, radix: 16))]") \(path)\(contents)"
        }
    }

    /// True for writes.
    var isWrite: Bool {
        switch access {
        case .reading: return false
        case .writing: return true
        }
    }

    /// The write options, or nil for reads.
    var writingOptions: WritingOptions? {
        switch access {
        case .reading: return nil
        case .writing(let options): return options
        }
    }

    /// True for writes that exclude the item's contents (`.forDeleting`, `.forMoving`, `.forReplacing`).
    var excludesContents: Bool { !(writingOptions?.isDisjoint(with: .excludingContents) ?? true) }

    /// True for `.forReplacing` writes, whose path does not follow moves.
    var isReplacing: Bool { writingOptions?.contains(.forReplacing) ?? false }

    /// The depth of the path that is claimed: the outermost enclosing package, else the item itself.
    var claimDepth: Int { packageRootDepths.first ?? path.depth }

    /// The path that is claimed: the outermost enclosing package, else the item itself.
    var claimedPath: ItemPath {
        guard let package = packageRootDepths.first, package < path.depth else { return path }
        return path.prefix(package)
    }

    /// The same intent at a new path, with the package depths carried along with the moved item.
    ///
    /// Packages at or inside the moved item keep their place relative to it; packages that enclosed `from`
    /// are kept only if they also enclose `to`. The destination's own enclosing packages are not re-derived.
    func moved(from: ItemPath, to: ItemPath) -> AccessIntent? {
        guard let newPath = path.movingPrefix(from: from, to: to) else { return nil }
        var depths: [Int] = []
        for depth in packageRootDepths {
            if depth >= from.depth {
                depths.append(depth - from.depth + to.depth)
            } else if to.hasPrefix(path.prefix(depth)) {
                depths.append(depth)
            }
        }
        return AccessIntent(
            path: newPath, access: access, packageRootDepths: depths, includesContents: includesContents)
    }
}

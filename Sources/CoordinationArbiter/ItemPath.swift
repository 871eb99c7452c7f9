/// An absolute, already-canonical file system path, split into components.
///
/// The host makes paths absolute and resolves symbolic links in the parent directories before it hands them
/// to the arbiter; the arbiter compares components exactly (no case folding, no `.` or `..` handling).
/// The root directory `/` has no components.
public struct ItemPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The path's components, outermost first, none of them empty and none containing `/`.
    public let components: [String]

    /// Makes a path from its components, dropping empty ones.
    @inlinable
    public init<Components: Sequence>(components: Components) where Components.Element == String {
        let all = Array(components)
        self.components = all.contains(where: \.isEmpty) ? all.filter { !$0.isEmpty } : all
    }

    /// Parses `/a/b/c`; repeated or trailing slashes are ignored, so `"/"` and `""` are the root.
    public init(_ string: String) {
        self.components = string.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// The root directory `/`.
    public static let root = ItemPath(components: [String]())

    /// The number of components (0 for the root).
    public var depth: Int { components.count }

    /// The last component, or nil for the root.
    public var lastComponent: String? { components.last }

    /// The enclosing directory, or nil for the root.
    public var parent: ItemPath? {
        components.isEmpty ? nil : ItemPath(trusted: Array(components.dropLast()))
    }

    /// The path made of the first `depth` components (the ancestor at that depth).
    public func prefix(_ depth: Int) -> ItemPath {
        ItemPath(trusted: Array(components.prefix(max(0, depth))))
    }

    /// The path with `component` appended.
    public func appending(_ component: String) -> ItemPath {
        component.isEmpty ? self : ItemPath(trusted: components + [component])
    }

    /// True if `self` is `other` or lies inside it.
    public func hasPrefix(_ other: ItemPath) -> Bool {
        other.components.count <= components.count && components.starts(with: other.components)
    }

    /// True if `other` lies strictly inside `self`.
    public func isAncestor(of other: ItemPath) -> Bool {
        components.count < other.components.count && other.components.starts(with: components)
    }

    /// The path after a move of `from` to `to`, or nil if `self` does not lie at or inside `from`.
    public func movingPrefix(from: ItemPath, to: ItemPath) -> ItemPath? {
        guard hasPrefix(from) else { return nil }
        return ItemPath(trusted: to.components + components.dropFirst(from.components.count))
    }

    /// The depths at which this path passes through a file package, judged by extension.
    ///
    /// A component is a package when the text after its last `.` (not the leading one), lowercased, is in
    /// `extensions` (given without the dot, lowercased). The result is what
    /// ``AccessIntent/packageRootDepths`` expects; hosts that know better (a directory check) may compute
    /// it themselves.
    public func packageRootDepths(extensions: Set<String>) -> [Int] {
        guard !extensions.isEmpty else { return [] }
        var depths: [Int] = []
        for (index, component) in components.enumerated() {
            guard let dot = component.lastIndex(of: "."), dot != component.startIndex else { continue }
            let pathExtension = component[component.index(after: dot)...].lowercased()
            if !pathExtension.isEmpty && extensions.contains(pathExtension) { depths.append(index + 1) }
        }
        return depths
    }

    /// Orders paths component by component, so that a directory sorts right before its contents.
    public static func < (lhs: ItemPath, rhs: ItemPath) -> Bool {
        lhs.components.lexicographicallyPrecedes(rhs.components)
    }

    /// The path as a string: `/a/b/c`, or `/` for the root.
    public var description: String { "/" + components.joined(separator: "/") }

    /// Makes a path from components known to be non-empty (skips the filter).
    init(trusted components: [String]) { self.components = components }
}

extension ItemPath: ExpressibleByStringLiteral {
    /// Parses a string literal such as `"/r/a/x"` (see ``init(_:)``).
    public init(stringLiteral value: String) { self.init(value) }
}

/// One intent of one active request, filed under the path it claims.
struct ClaimEntry: Sendable {
    /// The request that holds or waits for the claim.
    let request: RequestID
    /// The intent's index in the request.
    let intentIndex: Int
    /// The request's arrival order (FIFO key).
    let sequence: UInt64
    /// The request's purpose: equal purposes never conflict.
    let purpose: PurposeID
    /// True for writes.
    let isWrite: Bool
    /// True for writes that also claim everything inside the path.
    let excludesContents: Bool
}

/// The claims and presenters of every path that has any, as a tree of path components.
///
/// A tree rather than a flat dictionary keyed by path, because the waiting rules look up and down the
/// hierarchy: the ancestors of a path (walked through parent links, no hashing) and, for writes that exclude
/// contents, its descendants (skipped entirely while the per-node counts say there are none). Nodes that hold
/// nothing are pruned in batches (a node used again soon is not torn down and rebuilt each time), so the
/// tree stays within a small multiple of the set of paths in use. A flat index by whole path finds an existing
/// node with one hash instead of one per component.
struct ClaimTable: Sendable {
    /// One path component's node.
    struct Node: Sendable {
        /// The node's path.
        var path: ItemPath
        /// The component (empty for the root).
        var name: String
        /// The parent node, or -1 for the root.
        var parent: Int
        /// Child nodes by component.
        var children: [String: Int] = [:]
        /// Intents of active requests that claim exactly this path.
        var claims: [ClaimEntry] = []
        /// How many of `claims` exclude contents (so that descendants can skip this node cheaply).
        var contentExcludingClaims = 0
        /// Presenters registered at exactly this path, in registration order.
        var presenters: [PresenterID] = []
        /// Claims held strictly below this node.
        var claimsBelow = 0
        /// Presenters registered strictly below this node.
        var presentersBelow = 0
    }

    /// Node storage; index 0 is the root.
    private(set) var nodes: [Node] = [Node(path: .root, name: "", parent: -1)]
    /// Every node in use by its path.
    private var index: [ItemPath: Int] = [.root: 0]
    /// Indices of pruned nodes, reused before the storage grows.
    private var freeIndices: [Int] = []
    /// Nodes that became empty since the last sweep (possibly stale or repeated: checked again when swept).
    private var emptied: [Int] = []

    /// The root node's index.
    static let root = 0

    /// The node of `path`, if it exists.
    func node(at path: ItemPath) -> Int? { index[path] }

    /// The node of the deepest existing path among `path` and its ancestors, with that path's depth.
    func deepestExistingNode(along path: ItemPath) -> (node: Int, depth: Int) {
        var index = Self.root
        var depth = 0
        for component in path.components {
            guard let child = nodes[index].children[component] else { break }
            index = child
            depth += 1
        }
        return (index, depth)
    }

    /// The node of `path`, created (with its missing ancestors) if needed.
    mutating func makeNode(at path: ItemPath) -> Int {
        if let existing = index[path] { return existing }
        var (current, depth) = deepestExistingNode(along: path)
        while depth < path.depth {
            let component = path.components[depth]
            depth += 1
            let nodePath = depth == path.depth ? path : path.prefix(depth)
            let node = Node(path: nodePath, name: component, parent: current)
            let child: Int
            if let reused = freeIndices.popLast() {
                nodes[reused] = node
                child = reused
            } else {
                nodes.append(node)
                child = nodes.count - 1
            }
            nodes[current].children[component] = child
            index[nodePath] = child
            current = child
        }
        return current
    }

    /// The path of a node.
    func path(of node: Int) -> ItemPath { nodes[node].path }

    /// Calls `body` with each strict ancestor of `node`, nearest first; stops when `body` returns false.
    func forEachAncestor(of node: Int, _ body: (Int) -> Bool) {
        var index = nodes[node].parent
        while index >= 0 {
            guard body(index) else { return }
            index = nodes[index].parent
        }
    }

    /// Files a claim at `node`.
    mutating func addClaim(_ entry: ClaimEntry, at node: Int) {
        nodes[node].claims.append(entry)
        if entry.excludesContents { nodes[node].contentExcludingClaims += 1 }
        var index = nodes[node].parent
        while index >= 0 {
            nodes[index].claimsBelow += 1
            index = nodes[index].parent
        }
    }

    /// Removes the claim of `request`'s intent `intentIndex` from `node`, pruning the node if it is now empty.
    mutating func removeClaim(of request: RequestID, intentIndex: Int, at node: Int) {
        guard
            let position = nodes[node].claims.firstIndex(where: {
                $0.request == request && $0.intentIndex == intentIndex
            })
        else { return }
        let entry = nodes[node].claims.remove(at: position)
        if entry.excludesContents { nodes[node].contentExcludingClaims -= 1 }
        var index = nodes[node].parent
        while index >= 0 {
            nodes[index].claimsBelow -= 1
            index = nodes[index].parent
        }
        prune(node)
    }

    /// Registers a presenter at `node`.
    mutating func addPresenter(_ presenter: PresenterID, at node: Int) {
        nodes[node].presenters.append(presenter)
        var index = nodes[node].parent
        while index >= 0 {
            nodes[index].presentersBelow += 1
            index = nodes[index].parent
        }
    }

    /// Unregisters a presenter from `node`, pruning the node if it is now empty.
    mutating func removePresenter(_ presenter: PresenterID, at node: Int) {
        guard let position = nodes[node].presenters.firstIndex(of: presenter) else { return }
        nodes[node].presenters.remove(at: position)
        var index = nodes[node].parent
        while index >= 0 {
            nodes[index].presentersBelow -= 1
            index = nodes[index].parent
        }
        prune(node)
    }

    /// Every claim strictly below `node`, in no particular order.
    func claims(below node: Int) -> [ClaimEntry] {
        var found: [ClaimEntry] = []
        var stack = [node]
        while let index = stack.popLast() {
            for child in nodes[index].children.values
            where nodes[child].claimsBelow > 0 || !nodes[child].claims.isEmpty {
                found.append(contentsOf: nodes[child].claims)
                stack.append(child)
            }
        }
        return found
    }

    /// Every presenter strictly below `node`, in no particular order.
    func presenters(below node: Int) -> [PresenterID] {
        var found: [PresenterID] = []
        var stack = [node]
        while let index = stack.popLast() {
            for child in nodes[index].children.values
            where nodes[child].presentersBelow > 0 || !nodes[child].presenters.isEmpty {
                found.append(contentsOf: nodes[child].presenters)
                stack.append(child)
            }
        }
        return found
    }

    /// The parent index of a node on the free list.
    private static let freed = -2

    /// Notes that `node` may have become empty; sweeps the noted nodes once there are enough of them.
    private mutating func prune(_ node: Int) {
        guard isEmpty(node) else { return }
        emptied.append(node)
        guard emptied.count > 256, emptied.count > liveNodeCount / 2 else { return }
        let sweep = emptied
        emptied.removeAll(keepingCapacity: true)
        for index in sweep { remove(index) }
    }

    /// Removes `node` and its emptied ancestors from the tree, if they are still empty (never the root).
    private mutating func remove(_ node: Int) {
        var index = node
        while index != Self.root {
            guard nodes[index].parent >= 0, isEmpty(index) else { return }
            let parent = nodes[index].parent
            nodes[parent].children[nodes[index].name] = nil
            self.index[nodes[index].path] = nil
            nodes[index] = Node(path: .root, name: "", parent: Self.freed)
            freeIndices.append(index)
            index = parent
        }
    }

    /// True if the node holds no claim, no presenter and no child.
    private func isEmpty(_ node: Int) -> Bool {
        nodes[node].claims.isEmpty && nodes[node].presenters.isEmpty && nodes[node].children.isEmpty
    }

    /// The number of nodes in use, root included (tests check that pruning keeps it small).
    var liveNodeCount: Int { nodes.count - freeIndices.count }
}

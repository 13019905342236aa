import Foundation
import Molt

/// A bound on the work of one traversal: no more nodes than the file can hold (each takes at least 8 bytes)
/// and no deeper than any tree realm-core builds, so a damaged file with refs in a cycle, or a subtree
/// referenced many times, throws instead of looping.
final class RealmTraversalBudget {
    private var nodesLeft: Int
    static let maximumDepth = 12

    init(_ file: RealmFileBytes) { nodesLeft = file.size / 8 + 1 }

    func visit(_ file: RealmFileBytes, depth: Int, _ what: @autoclosure () -> String) throws {
        nodesLeft -= 1
        guard nodesLeft >= 0 else {
            throw file.damaged("\(what()) reaches more nodes than the file holds (its refs form a cycle)")
        }
        guard depth <= Self.maximumDepth else {
            throw file.damaged("\(what()) is nested deeper than \(Self.maximumDepth) levels")
        }
    }
}

/// realm-core's B+tree (lists, sets, map keys and values, backlink lists): a leaf, or an inner node whose slot
/// 0 holds the children's offsets (a ref) or the elements per child (tagged), then the children's refs, then
/// the tree's size (tagged).
enum RealmBPlusTree {
    /// realm-core's largest B+tree node (`REALM_MAX_BPNODE_SIZE`).
    static let maximumNodeSize = 1000

    /// Calls `body` with each leaf of the tree at `root`, in order, and checks the leaves hold `size` elements
    /// in all when the root states it.
    static func forEachLeaf(
        _ file: RealmFileBytes, root: RealmNode, budget: RealmTraversalBudget, depth: Int = 0,
        _ what: @autoclosure () -> String, _ body: (RealmNode) throws -> Void
    ) throws {
        let name = what()
        try budget.visit(file, depth: depth, name)
        guard root.isInnerNode else {
            try body(root)
            return
        }
        guard root.count >= 3, root.count - 2 <= maximumNodeSize else {
            throw file.damaged("an inner node of \(name) (offset \(root.ref)) has \(root.count) slots")
        }
        for index in 1..<(root.count - 1) {
            guard let child = try root.child(index, "a child of \(name)") else {
                throw file.damaged("an inner node of \(name) (offset \(root.ref)) has an empty child slot")
            }
            try forEachLeaf(file, root: child, budget: budget, depth: depth + 1, name, body)
        }
    }
}

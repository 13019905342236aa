/// The store during a custom stage from version A to version B: A's tables, untouched, plus what B adds beside
/// them (new columns, new tables, new join tables), so that old and new data are visible together.
///
/// Preparing the workspace only adds: an `ALTER TABLE … ADD COLUMN` per new or retyped attribute (values that
/// convert safely are filled in), a `CREATE TABLE` per new entity or relationship. A's objects keep their
/// identifiers and are B's objects of the matching entity. When the stage ends, ``finalizer`` brings the
/// tables to B's exact layout, rebuilding a table at most once, and can absorb the inferred steps that follow.
struct StageWorkspace {
    init(
        from: Schema, to: Schema, newLayout: StoreLayout, origins: [String: String], finalizer: LightweightMigration,
        requiredWithoutDefault: [String: [(attribute: String, column: String)]]
    ) {
        self.from = from
        self.to = to
        self.newLayout = newLayout
        self.origins = origins
        self.finalizer = finalizer
        self.requiredWithoutDefault = requiredWithoutDefault
    }

    let from: Schema
    let to: Schema
    /// Where B's objects live during the stage.
    let newLayout: StoreLayout
    /// B's entity → A's entity, for entities that existed in A.
    let origins: [String: String]
    /// The change from the workspace to B, not yet applied.
    private(set) var finalizer: LightweightMigration
    /// Required attributes of B whose workspace column may still hold nulls: entity → (attribute, column).
    let requiredWithoutDefault: [String: [(attribute: String, column: String)]]

    /// Names for what the workspace adds beside the old data: the preferred name when it is free (as SQLite
    /// compares names, ignoring case), otherwise `_molt_new_<name>`, numbered if needed.
    struct FreeNames {
        private var taken: Set<String>

        init(taken: [String]) { self.taken = Set(taken.map { $0.lowercased() }) }

        mutating func claim(_ preferred: String) -> String {
            var name = preferred
            var n = 1
            while taken.contains(name.lowercased()) {
                name = "_molt_new_\(preferred)" + (n > 1 ? "_\(n)" : "")
                n += 1
            }
            taken.insert(name.lowercased())
            return name
        }
    }

    static func zeroValue(of type: AttributeType) -> Value {
        switch type {
        case .string: return .string("")
        case .int: return .int(0)
        case .double: return .double(0)
        case .bool: return .bool(false)
        case .date: return .date(Date(timeIntervalSince1970: 0))
        case .data: return .data(.init())
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        }
    }
}

import Foundation

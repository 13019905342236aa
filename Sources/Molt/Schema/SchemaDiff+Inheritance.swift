/// The changes of a diff that concern inheritance: an entity's parent and its being abstract. A renamed entity of
/// a hierarchy is inferred (``HierarchyMigration`` rewrites the entity column of its objects).
extension SchemaDiff {
    /// Records a change of parent or of abstractness; a new parent that puts the entity in another table (another
    /// hierarchy, or a hierarchy where it had its own table, or the reverse) is refused: its objects would move
    /// between tables, which Molt does not infer.
    mutating func compareInheritance(_ old: Entity, _ new: Entity) {
        let newParentOrigin = new.parent.flatMap { originalName(ofEntity: $0) }
        if newParentOrigin != old.parent || (new.parent != nil && newParentOrigin == nil) {
            let oldRoot = source.rootEntity(of: old.name)?.name
            let newRoot = destination.rootEntity(of: new.name).flatMap { originalName(ofEntity: $0.name) }
            var refusal: String?
            if oldRoot != newRoot {
                // An entity without a parent has its own table, under its new name (it may be renamed too).
                let change =
                    new.parent.map { parent in
                        "now inherits from '\(parent)'\(old.parent.map { " instead of inheriting from '\($0)'" } ?? "")"
                    } ?? "no longer has a parent\(old.parent.map { " (it inherited from '\($0)')" } ?? "")"
                let table = new.parent == nil ? nil : newRoot
                refusal =
                    "Entity '\(new.name)' \(change) \(versions): its objects would move from the table of '\(oldRoot ?? old.name)' to \(table.map { "the table of '\($0)'" } ?? "a table of their own ('\(new.name)')"), which Molt does not infer. Keep the entity in its hierarchy (a new entity of the other hierarchy can take its place, its objects copied by your code before the upgrade)."
            }
            changes.append(
                SchemaChange(
                    kind: .entityParentChanged(from: old.parent, to: new.parent), entity: new.name, refusal: refusal))
        }
        if old.isAbstract != new.isAbstract {
            changes.append(SchemaChange(kind: .entityAbstractChanged(isAbstract: new.isAbstract), entity: new.name))
        }
    }

    /// Compares an entity of a hierarchy as its objects are, with their inherited properties: a property moved
    /// up or down a hierarchy is a property some entities gain or lose, not one removed and another added. A
    /// change an entity inherits from a parent that has it too is reported on the parent only.
    mutating func compareInHierarchy(_ old: Entity, _ new: Entity) {
        guard let oldEffective = source.effectiveEntity(named: old.name),
            let newEffective = destination.effectiveEntity(named: new.name)
        else { return }
        let first = changes.count
        compare(oldEffective, newEffective)
        let ancestors = Set(destination.ancestors(of: new.name).map(\.name))
        guard !ancestors.isEmpty else { return }
        let inherited = changes[..<first].filter { ancestors.contains($0.entity) }
        let own = changes[first...].filter { change in
            !inherited.contains { $0.kind == change.kind && $0.property == change.property }
        }
        changes.replaceSubrange(first..., with: own)
    }
}

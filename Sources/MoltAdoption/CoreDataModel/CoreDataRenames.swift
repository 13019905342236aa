import Molt

/// Core Data's renaming identifiers turned into Molt's `originalName`s, one step of a history at a time.
///
/// Core Data matches an entity or a property of the new version with the one of the old version that has the same
/// renaming identifier (`elementID`; the name when there is none). Molt's `originalName` is the name in the version
/// before, so each match whose names differ becomes an `originalName`. An element whose identifier matches nothing
/// is matched by its identifier against the old names, then by name (as Molt matches), and that is reported.
package enum CoreDataRenames {
    /// Sets the `originalName`s of `entities` (version `current`, flattened) from the matches with `previous`, and
    /// returns the deletions of what `current` removes: Core Data drops the data of an entity or a property that
    /// matches nothing in the new version, and a Molt snapshot says so.
    ///
    /// A property that keeps its name but changes kind (relationship ↔ attribute), or a relationship that now points
    /// to an entity that does not come from its old destination, is declared replaced (``Deletion/replaced(_:of:)``):
    /// Core Data's inferred mapping has no value for it (no attribute mapping across kinds, no entity mapping for the
    /// old destination's objects), so the old values or links are dropped and the new property starts empty. An
    /// attribute whose type changes to one Molt does not widen to is *not* declared: Core Data infers no mapping
    /// for a type change (its app ships a mapping model for the step), and Molt likewise refuses the step until a
    /// stage converts the values or the snapshot declares the attribute replaced; a note says so. Each case is
    /// noted.
    package static func resolve(
        _ entities: inout [Entity], current: CoreDataModel, previous: CoreDataModel, notes: inout [String]
    ) -> [Deletion] {
        let entityMatches = match(current.entities, previous.entities, \.name, \.renamingIdentifier)
        var deletions: [Deletion] = []
        // New entity name → the name of the entity of `previous` it comes from.
        let origins = Dictionary(
            entityMatches.map { (current.entities[$0.key].name, previous.entities[$0.value.index].name) },
            uniquingKeysWith: { a, _ in a })
        let matchedOld = Set(entityMatches.values.map(\.index))
        for (index, old) in previous.entities.enumerated()
        where !matchedOld.contains(index) && current.entity(named: old.name) == nil {
            deletions.append(.entity(old.name))
        }
        for (newIndex, found) in entityMatches.sorted(by: { $0.key < $1.key }) {
            let new = current.entities[newIndex], old = previous.entities[found.index]
            if found.byName {
                notes.append(
                    "\(current.name): entity '\(new.name)' (renaming identifier '\(new.identity)') matches no entity of '\(previous.name)' by identifier; taken as its entity '\(old.name)' (renaming identifier '\(old.identity)'), which has the same name"
                )
            }
            guard let e = entities.firstIndex(where: { $0.name == new.name }) else { continue }
            if old.name != new.name { entities[e].originalName = old.name }
            deletions += resolveProperties(
                &entities[e], new: new, old: old, origins: origins, current: current, previous: previous, notes: &notes)
        }
        return deletions
    }

    /// Resolves the properties of `entity` (the new version's `new`, flattened) against `old`, the entity of
    /// `previous` it comes from: `originalName`s for renames, and the deletions of what it removes or replaces.
    private static func resolveProperties(
        _ entity: inout Entity, new: CoreDataEntity, old: CoreDataEntity, origins: [String: String],
        current: CoreDataModel, previous: CoreDataModel, notes: inout [String]
    ) -> [Deletion] {
        var deletions: [Deletion] = []
        let attributes = match(
            new.attributes.filter { !$0.isTransient }, old.attributes.filter { !$0.isTransient }, \.name,
            \.renamingIdentifier)
        let newAttributes = new.attributes.filter { !$0.isTransient },
            oldAttributes = old.attributes.filter { !$0.isTransient }
        for (i, found) in attributes.sorted(by: { $0.key < $1.key }) {
            resolveAttribute(
                &entity, newAttributes[i], from: oldAttributes[found.index], byName: found.byName, new: new, old: old,
                current: current, previous: previous, notes: &notes)
        }
        let newRelationships = new.relationships.filter { !$0.isTransient },
            oldRelationships = old.relationships.filter { !$0.isTransient }
        let relationships = match(newRelationships, oldRelationships, \.name, \.renamingIdentifier)
        let keptNames = Set(newAttributes.map(\.name) + newRelationships.map(\.name))
        let keptAttributes = Set(attributes.values.map(\.index)),
            keptRelationships = Set(relationships.values.map(\.index))
        for (index, removed) in oldAttributes.enumerated()
        where !keptAttributes.contains(index) && !keptNames.contains(removed.name) {
            deletions.append(.property(removed.name, of: old.name))
        }
        for (index, removed) in oldRelationships.enumerated()
        where !keptRelationships.contains(index) && !keptNames.contains(removed.name) {
            deletions.append(.property(removed.name, of: old.name))
        }
        for (i, found) in relationships.sorted(by: { $0.key < $1.key }) {
            let r = newRelationships[i], o = oldRelationships[found.index]
            if found.byName { notes.append(note(current, previous, new.name, r.name, r.identity, o.identity)) }
            if origins[r.destination] != o.destination {
                // No entity mapping carries the old destination's objects to the new one: no link survives.
                if r.name == o.name {
                    deletions.append(.replaced(o.name, of: old.name))
                } else {
                    deletions.append(.property(o.name, of: old.name))
                }
                notes.append(
                    "\(current.name): '\(new.name).\(r.name)' points to '\(r.destination)', which does not come from '\(o.destination)', its destination in '\(previous.name)': Core Data drops the links, so the snapshot declares '\(old.name).\(o.name)' \(r.name == o.name ? "replaced" : "deleted") and the relationship starts empty"
                )
                continue
            }
            if r.name != o.name, let k = entity.relationships.firstIndex(where: { $0.name == r.name }) {
                entity.relationships[k].originalName = o.name
            }
        }
        deletions += replacedAcrossKinds(
            new: new, old: old, matched: (attributes, relationships), current: current, previous: previous,
            notes: &notes)
        return deletions
    }

    /// Marks the attribute `a` of `entity` renamed from `o` with its `originalName`, and notes what Core Data would
    /// not infer for it: a match by name only, a change of type that is not a widening.
    private static func resolveAttribute(
        _ entity: inout Entity, _ a: CoreDataAttribute, from o: CoreDataAttribute, byName: Bool, new: CoreDataEntity,
        old: CoreDataEntity, current: CoreDataModel, previous: CoreDataModel, notes: inout [String]
    ) {
        if byName { notes.append(note(current, previous, new.name, a.name, a.identity, o.identity)) }
        guard let k = entity.attributes.firstIndex(where: { $0.name == a.name }) else { return }
        if a.name != o.name { entity.attributes[k].originalName = o.name }
        let newType = entity.attributes[k].type
        if let oldType = try? CoreDataModel.attributeType(of: o, entity: old.name, version: previous.name),
            oldType != newType, !oldType.widens(to: newType)
        {
            notes.append(
                "\(current.name): '\(new.name).\(a.name)' is \(a.type) (written as \(newType.rawValue)), and '\(old.name).\(o.name)' was \(o.type) (\(oldType.rawValue)) in '\(previous.name)': Core Data infers no mapping for a type change (the app ships a mapping model for this step), and Molt refuses the step until a stage converts the values or the snapshot declares the attribute replaced"
            )
        }
    }

    /// The properties that keep their name but change kind (relationship ↔ attribute), declared replaced: Core Data
    /// has no mapping from one kind to the other, so the old values or links go and the new property starts empty.
    private static func replacedAcrossKinds(
        new: CoreDataEntity, old: CoreDataEntity,
        matched: (attributes: [Int: (index: Int, byName: Bool)], relationships: [Int: (index: Int, byName: Bool)]),
        current: CoreDataModel, previous: CoreDataModel, notes: inout [String]
    ) -> [Deletion] {
        var deletions: [Deletion] = []
        let newAttributes = new.attributes.filter { !$0.isTransient },
            oldAttributes = old.attributes.filter { !$0.isTransient }
        let newRelationships = new.relationships.filter { !$0.isTransient },
            oldRelationships = old.relationships.filter { !$0.isTransient }
        let attributes = matched.attributes, relationships = matched.relationships
        let keptAttributes = Set(attributes.values.map(\.index)),
            keptRelationships = Set(relationships.values.map(\.index))
        let matchedNewAttributes = Set(attributes.keys.map { newAttributes[$0].name })
        let matchedNewRelationships = Set(relationships.keys.map { newRelationships[$0].name })
        for a in newAttributes where !matchedNewAttributes.contains(a.name) {
            guard let index = oldRelationships.firstIndex(where: { $0.name == a.name }),
                !keptRelationships.contains(index)
            else { continue }
            deletions.append(.replaced(a.name, of: old.name))
            notes.append(
                "\(current.name): '\(new.name).\(a.name)' is an attribute, and a relationship of the same name in '\(previous.name)': Core Data drops the relationship's links and adds the attribute, so the snapshot declares '\(old.name).\(a.name)' replaced"
            )
        }
        for r in newRelationships where !matchedNewRelationships.contains(r.name) {
            guard let index = oldAttributes.firstIndex(where: { $0.name == r.name }), !keptAttributes.contains(index)
            else { continue }
            deletions.append(.replaced(r.name, of: old.name))
            notes.append(
                "\(current.name): '\(new.name).\(r.name)' is a relationship, and an attribute of the same name in '\(previous.name)': Core Data drops the attribute's values and adds the relationship, so the snapshot declares '\(old.name).\(r.name)' replaced"
            )
        }
        return deletions
    }

    /// For a single version: a renaming identifier that differs from the name is the name in the version before
    /// (what Core Data's renaming identifier means), so it is written as the `originalName`.
    package static func declareAsWritten(_ entities: inout [Entity], current: CoreDataModel) {
        for source in current.entities {
            guard let e = entities.firstIndex(where: { $0.name == source.name }) else { continue }
            if let id = source.renamingIdentifier, id != source.name { entities[e].originalName = id }
            for a in source.attributes {
                if let id = a.renamingIdentifier, id != a.name,
                    let k = entities[e].attributes.firstIndex(where: { $0.name == a.name })
                {
                    entities[e].attributes[k].originalName = id
                }
            }
            for r in source.relationships {
                if let id = r.renamingIdentifier, id != r.name,
                    let k = entities[e].relationships.firstIndex(where: { $0.name == r.name })
                {
                    entities[e].relationships[k].originalName = id
                }
            }
        }
    }

    private static func note(
        _ current: CoreDataModel, _ previous: CoreDataModel, _ entity: String, _ property: String, _ id: String,
        _ oldID: String
    ) -> String {
        "\(current.name): '\(entity).\(property)' (renaming identifier '\(id)') matches no property of '\(previous.name)' by identifier; taken as the property of the same name (renaming identifier '\(oldID)')"
    }

    /// For each new element (by index), the old element it comes from: same renaming identifier first, then an old
    /// name equal to the new identifier, then the same name (`byName`); each old element is taken once.
    package static func match<T>(
        _ new: [T], _ old: [T], _ name: (T) -> String, _ renamingIdentifier: (T) -> String?
    ) -> [Int: (index: Int, byName: Bool)] {
        var result: [Int: (index: Int, byName: Bool)] = [:]
        var taken = Set<Int>()
        func identity(_ element: T) -> String { renamingIdentifier(element) ?? name(element) }
        func matches(_ pass: Int, _ a: T, _ b: T) -> Bool {
            switch pass {
            case 0: return identity(a) == identity(b)
            case 1: return renamingIdentifier(a) != nil && renamingIdentifier(a) == name(b)
            default: return name(a) == name(b)
            }
        }
        for pass in 0..<3 {
            for (i, element) in new.enumerated() where result[i] == nil {
                if let j = old.indices.first(where: { !taken.contains($0) && matches(pass, element, old[$0]) }) {
                    taken.insert(j)
                    result[i] = (j, pass == 2)
                }
            }
        }
        return result
    }
}

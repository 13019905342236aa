extension SchemaDiff {
    /// A removed entity or attribute that is probably the same as an added one, renamed without its
    /// `originalName`.
    public struct LikelyRename: Hashable, Sendable {
        /// The entity (its name in the newer schema; for an entity rename, the added entity).
        public var entity: String
        /// The removed name (entity or attribute) in the older schema.
        public var from: String
        /// The added name in the newer schema.
        public var to: String
        /// The attribute's type, or nil for an entity.
        public var type: AttributeType?

        /// Whether it is an entity rather than an attribute.
        public var isEntity: Bool { type == nil }

        /// The fix, as a sentence: the `originalName` to add, in a snapshot file (when named) and in Swift.
        public func fix(inFile file: String? = nil) -> String {
            let place = file.map { " in \($0)" } ?? ""
            guard let type else {
                return
                    "If entity '\(from)' was renamed to '\(to)', add \"originalName\" : \"\(from)\" to entity '\(to)'\(place) (in Swift: `@Model(originalName: \"\(from)\")` on the struct '\(to)', or Entity(\"\(to)\", originalName: \"\(from)\")); its objects are then kept instead of deleted."
            }
            return
                "If '\(entity).\(from)' was renamed to '\(to)', add \"originalName\" : \"\(from)\" to attribute '\(to)' of entity '\(entity)'\(place) (in Swift: `@Attribute(originalName: \"\(from)\") var \(to)` in a @Model, or Attribute(\"\(to)\", .\(type.rawValue), originalName: \"\(from)\")); its values are then kept instead of deleted."
        }
    }

    /// Pairs each removed attribute with the added attributes of the same type in the same entity (preferring
    /// the same optionality among several), and each removed entity with the one added entity that has the
    /// same attribute names.
    public var likelyRenames: [LikelyRename] {
        var result: [LikelyRename] = []
        for entity in destination.entities {
            guard let oldName = originalName(ofEntity: entity.name), let oldEntity = source.entity(named: oldName)
            else { continue }
            // A declared replacement is neither: its values are deleted on purpose.
            let removed = changes.filter {
                $0.entity == entity.name && $0.kind == .attributeRemoved && $0.replacement == nil
            }
            .compactMap { change in change.property.flatMap(oldEntity.attribute(named:)) }
            let added = changes.filter {
                $0.entity == entity.name && $0.kind == .attributeAdded && $0.replacement == nil
            }
            .compactMap { change in change.property.flatMap(entity.attribute(named:)) }
            for old in removed {
                var candidates = added.filter { $0.type == old.type }
                if candidates.count > 1, candidates.contains(where: { $0.isOptional == old.isOptional }) {
                    candidates = candidates.filter { $0.isOptional == old.isOptional }
                }
                for new in candidates {
                    result.append(LikelyRename(entity: entity.name, from: old.name, to: new.name, type: new.type))
                }
            }
        }
        let removedEntities = changes.filter { $0.kind == .entityRemoved }.compactMap {
            source.entity(named: $0.entity)
        }
        let addedEntities = changes.filter { $0.kind == .entityAdded }.compactMap {
            destination.entity(named: $0.entity)
        }
        for old in removedEntities {
            let shape = Set(old.attributes.map(\.name))
            let candidates = addedEntities.filter { Set($0.attributes.map(\.name)) == shape }
            guard candidates.count == 1, let new = candidates.first else { continue }
            result.append(LikelyRename(entity: new.name, from: old.name, to: new.name, type: nil))
        }
        return result
    }

    /// A removed attribute that probably moved to another entity: the newer schema removes it from one entity
    /// and adds an attribute of the same name and a compatible type to another (a split: `Person.street` →
    /// `ContactInfo.street`). Inferred, the step would drop the values; only a stage or a mapping can move them.
    public struct LikelyMove: Hashable, Sendable {
        /// The entity that loses the attribute, by its name in the older schema.
        public var entity: String
        /// The attribute, by its name in both schemas.
        public var attribute: String
        /// The entity of the newer schema that gains an attribute of the same name.
        public var destination: String
        /// The type of the attribute in the newer schema.
        public var type: AttributeType

        /// The fix, as a sentence: move the values in a stage or a mapping, or declare the deletion.
        public func fix(from: Int, to: Int) -> String {
            "If '\(entity).\(attribute)' moved to '\(destination).\(attribute)', move its values in a custom stage from version \(from) to \(to) (read them with `migration.enumerateOldObjects(ofType: \"\(entity)\")`, write them with `migration.create(\"\(destination)\", value: …)`) or a mapping of '\(destination)'; if they are meant to go, declare it: `Schema(version: \(to), deleting: [.property(\"\(attribute)\", of: \"\(entity)\")])` (in a snapshot: \"deletions\" : [{\"entity\" : \"\(entity)\", \"property\" : \"\(attribute)\"}])."
        }
    }

    /// Pairs each removed attribute with the attributes of the same name and a compatible type (the same, or
    /// one it widens to) that other entities of the newer schema gain: a new entity's, or one added to an
    /// entity that existed.
    public var likelyMoves: [LikelyMove] {
        var result: [LikelyMove] = []
        let removed = changes.filter { $0.kind == .attributeRemoved }
        guard !removed.isEmpty else { return [] }
        for change in removed {
            guard let property = change.property else { continue }
            let oldEntityName = originalName(ofEntity: change.entity) ?? change.entity
            guard let old = source.entity(named: oldEntityName)?.attribute(named: property) else { continue }
            for entity in destination.entities where entity.name != change.entity {
                guard let new = entity.attribute(named: property), new.type == old.type || old.type.widens(to: new.type)
                else { continue }
                let gained =
                    originalName(ofEntity: entity.name) == nil
                    || changes.contains {
                        $0.entity == entity.name && $0.kind == .attributeAdded && $0.property == property
                    }
                if gained {
                    result.append(
                        LikelyMove(entity: oldEntityName, attribute: property, destination: entity.name, type: new.type)
                    )
                }
            }
        }
        return result
    }

    /// Data the step would delete, as the engine must check it against what is stored.
    public struct Loss: Hashable, Sendable {
        /// The entity, by its name in the older schema.
        public var entity: String
        /// The attribute or relationship, by its name in the older schema; nil for the whole entity.
        public var property: String?
        /// Whether the step declares it (``Schema/deletions``): the loss is intended, and reported.
        public var isDeclared: Bool
        /// Whether it is a likely rename (``likelyRenames``) rather than a plain removal.
        public var isLikelyRename: Bool
        /// The added entity or attribute it is probably the same as, if any.
        public var renamedTo: [String]
        /// The entities of the newer schema that gain an attribute of the same name (``likelyMoves``), if any.
        public var movedTo: [String] = []
        /// Whether a new property of the same name replaces it (``Deletion/replaced(_:of:)``).
        public var isReplaced: Bool = false

        /// Whether it is a likely move to another entity (``likelyMoves``).
        public var isLikelyMove: Bool { !movedTo.isEmpty }

        /// Whether losing stored data here must be refused: an undeclared entity removal, or an undeclared
        /// attribute removal that looks like a rename or a move. A plain attribute removal is inferred, and
        /// reported.
        public var mustBeDeclared: Bool { !isDeclared && (property == nil || isLikelyRename || isLikelyMove) }
    }

    /// Every removal that deletes stored values: entities, attributes and relationships of the older schema
    /// that the newer one no longer has.
    public var losses: [Loss] {
        let renames = likelyRenames
        let moves = likelyMoves
        var result: [Loss] = []
        for change in changes {
            switch change.kind {
            case .entityRemoved:
                let targets = renames.filter { $0.isEntity && $0.from == change.entity }.map(\.to)
                result.append(
                    Loss(
                        entity: change.entity, property: nil, isDeclared: isDeclared(change.entity, nil),
                        isLikelyRename: !targets.isEmpty, renamedTo: targets))
            case .attributeRemoved, .relationshipRemoved:
                let oldEntity = originalName(ofEntity: change.entity) ?? change.entity
                let property = change.property ?? ""
                let targets = renames.filter { !$0.isEntity && $0.entity == change.entity && $0.from == property }.map(
                    \.to)
                let destinations =
                    change.kind == .attributeRemoved
                    ? moves.filter { $0.entity == oldEntity && $0.attribute == property }.map(\.destination) : []
                result.append(
                    Loss(
                        entity: oldEntity, property: property, isDeclared: isDeclared(oldEntity, property),
                        isLikelyRename: !targets.isEmpty, renamedTo: targets, movedTo: destinations,
                        isReplaced: change.replacement != nil))
            default:
                continue
            }
        }
        return result
    }

    private func isDeclared(_ entity: String, _ property: String?) -> Bool {
        declaredDeletions.contains { $0.entity == entity && ($0.property == property || $0.property == nil) }
    }

    /// The error for declared deletions that name nothing the older schema has (a typo would otherwise make
    /// a deletion declaration useless), or nil.
    public var unmatchedDeletionsError: MoltError? {
        let unmatched = declaredDeletions.filter { deletion in
            // An entity's inherited properties are its own to delete (a property moved down a hierarchy).
            guard let entity = source.effectiveEntity(named: deletion.entity) else { return true }
            guard let property = deletion.property else { return false }
            return entity.attribute(named: property) == nil && entity.relationship(named: property) == nil
        }
        guard let first = unmatched.first else { return nil }
        let names = unmatched.map(\.description).joined(separator: ", ")
        return MoltError(
            .invalidPlan,
            "Version \(destination.version) declares the deletion of \(names), which version \(source.version) does not have. A deletion names an entity or property of the previous version; fix the name or remove the declaration.",
            entity: first.entity, property: first.property)
    }
}

extension SchemaDiff {
    /// The steps that make a to-one relationship required, or add it as required, and those that raise a to-many
    /// relationship's minimum count into a version that refuses short owners: each is refused for an object it
    /// leaves without enough destinations, as validation checks after every migration.
    func requiredLinkDependencies(_ form: StepForm) -> [DataDependency] {
        let (from, to) = (source.version, destination.version)
        var result: [DataDependency] = []
        for entity in destination.entities {
            guard let oldName = originalName(ofEntity: entity.name), let old = source.entity(named: oldName) else {
                continue
            }
            for relationship in entity.relationships where relationship.isRequiredToOne {
                let label = "'\(entity.name).\(relationship.name)'"
                let origin = originalName(ofProperty: relationship.name, inEntity: entity.name)
                let oldRelationship = origin.flatMap { old.relationship(named: $0) }
                let change: String
                let data: String
                if let oldRelationship, let origin, oldRelationship.kind == .toOne,
                    originalName(ofEntity: relationship.destination) == oldRelationship.destination
                {
                    guard oldRelationship.isOptional else { continue }  // every object is linked, carried over
                    change =
                        "\(label) becomes required (it \(origin == relationship.name ? "was optional" : "was the optional '\(oldName).\(origin)'"))"
                    data = "\(article(oldName)) '\(oldName)' object links to nothing through '\(origin)'"
                } else {
                    change = "\(label) is added as required"
                    data = "\(article(oldName)) '\(oldName)' object exists (it starts with no '\(relationship.name)')"
                }
                let fix =
                    form == .inferred
                    ? "Link every '\(entity.name)' object in a custom stage from version \(from) to \(to) (`migration.new.set(\"\(relationship.name)\", of: object, to: destination)`), delete the ones that have none, or keep \(label) optional."
                    : "Make the stage from version \(from) to \(to) link every '\(entity.name)' object through '\(relationship.name)' (or delete the ones that have none), or keep \(label) optional."
                result.append(
                    step(
                        .requiredLink, "\(entity.name).\(relationship.name)", change, data, fix,
                        .object(entity: oldName, attribute: nil, value: .null)))
            }
        }
        return result + minimumCountDependencies(form)
    }

    /// The to-many relationships of the newer version (by its names) whose minimum count the step adds or raises,
    /// or whose destination it changes, on entities that existed before: the existing owners may hold fewer
    /// destinations than the minimum. `before` is the older version's relationship when it fed this one (same
    /// destination, to-many), with the minimum it had.
    package func raisedMinimums() -> [(
        entity: String, oldEntity: String, relationship: Relationship, before: Relationship?
    )] {
        var result: [(entity: String, oldEntity: String, relationship: Relationship, before: Relationship?)] = []
        for entity in destination.entities {
            guard let oldName = originalName(ofEntity: entity.name), let old = source.entity(named: oldName) else {
                continue
            }
            for relationship in entity.relationships {
                guard let minimum = relationship.toManyMinimum else { continue }
                let origin = originalName(ofProperty: relationship.name, inEntity: entity.name)
                let was = origin.flatMap { old.relationship(named: $0) }
                if let was, was.kind == .toMany, originalName(ofEntity: relationship.destination) == was.destination {
                    guard (was.toManyMinimum ?? 0) < minimum else { continue }  // every object holds enough
                    result.append((entity.name, oldName, relationship, was))
                } else {
                    result.append((entity.name, oldName, relationship, nil))
                }
            }
        }
        return result
    }

    /// The steps that raise the minimum count of a to-many relationship, or add one with a minimum, into a version
    /// that refuses short owners (``Schema/ShortOwners/refused``): each is refused for an object it leaves with
    /// fewer destinations. A version that keeps them (the default) migrates any data, listing the short owners.
    private func minimumCountDependencies(_ form: StepForm) -> [DataDependency] {
        guard destination.shortOwners == .refused else { return [] }
        var result: [DataDependency] = []
        for (entity, oldName, relationship, was) in raisedMinimums() {
            let minimum = relationship.minimumCount
            let label = "'\(entity).\(relationship.name)'"
            let change: String
            let data: String
            if let was {
                let before = was.minimumCount
                change =
                    "\(label) must hold at least \(minimum) (\(before == 0 ? "it had no minimum count" : "its minimum count was \(before)"))"
                data = "\(article(oldName)) '\(oldName)' object holds fewer than \(minimum) through '\(was.name)'"
            } else {
                change = "\(label) is added with the minimum count \(minimum)"
                data = "\(article(oldName)) '\(oldName)' object exists (it starts with no '\(relationship.name)')"
            }
            let link = "`migration.new.add(destination, to: \"\(relationship.name)\", of: object)`"
            let fix =
                form == .inferred
                ? "Link enough '\(relationship.destination)' objects to every '\(entity)' object in a custom stage from version \(source.version) to \(destination.version) (\(link)), delete the ones that hold too few, lower the minimum count of \(label), or keep the short owners (remove `refusingShortOwners()` from version \(destination.version))."
                : "Make the stage from version \(source.version) to \(destination.version) link enough '\(relationship.destination)' objects to every '\(entity)' object (or delete the ones that hold too few), lower the minimum count of \(label), or keep the short owners (remove `refusingShortOwners()` from version \(destination.version))."
            result.append(
                step(
                    .requiredLink, "\(entity).\(relationship.name)", change, data, fix,
                    .object(entity: oldName, attribute: nil, value: .null)))
        }
        return result
    }
}

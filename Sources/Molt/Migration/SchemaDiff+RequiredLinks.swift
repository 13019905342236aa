extension SchemaDiff {
    /// The steps that make a to-one relationship required, or add it as required: each is refused for an
    /// object it leaves without a destination, as validation checks after every migration.
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
        return result
    }
}

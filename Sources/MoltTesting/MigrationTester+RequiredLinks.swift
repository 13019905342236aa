extension MigrationTester {
    /// `fixtures` with every required to-one relationship they leave unset linked, and every to-many relationship
    /// with a minimum count they leave unset linked to that many objects, so that the older version's own rules
    /// accept a probe: to the object itself when the relationship points to its own entity, and to generated
    /// objects of the destination for the rest (linked the same way in turn, three levels deep at most).
    ///
    /// A probe whose objects could not be stored proves nothing, and was skipped; this lets the kit probe the steps
    /// of versions that require links (Mastodon requires 28 of its 41 to-one relationships).
    static func linkingRequired(_ fixtures: [Fixture], in schema: Schema) -> [Fixture] {
        var result = fixtures
        var pending = Array(result.indices.map { ($0, 0) })
        while let (index, depth) = pending.popLast() {
            let fixture = result[index]
            let required = (schema.effectiveEntity(named: fixture.entity)?.relationships ?? []).filter {
                ($0.kind == .toOne ? !$0.isOptional : $0.minimumCount > 0) && fixture.links[$0.name] == nil
            }
            for relationship in required {
                // A to-one needs one destination; a to-many its minimum count, distinct objects.
                let needed = relationship.kind == .toOne ? 1 : relationship.minimumCount
                var keys: [String] = []
                if schema.entity(fixture.entity, inherits: relationship.destination) { keys.append(fixture.key) }
                if keys.count < needed, depth < 3, let target = concreteEntity(relationship.destination, in: schema) {
                    for number in 1...(needed - keys.count) {
                        let key = "\(fixture.key) → \(relationship.name)\(needed > 1 ? " \(number)" : "")"
                        result.append(sampleObject(target, key, 100 + result.count, in: schema))
                        keys.append(key)
                        pending.append((result.count - 1, depth + 1))
                    }
                }
                if !keys.isEmpty { result[index].links[relationship.name] = FixtureLinks(keys) }
            }
        }
        return result
    }

    /// `name` when it has objects of its own, else its first concrete sub-entity.
    private static func concreteEntity(_ name: String, in schema: Schema) -> String? {
        guard let entity = schema.effectiveEntity(named: name) else { return nil }
        if !entity.isAbstract { return name }
        return schema.subEntities(of: name, recursive: true).first { !$0.isAbstract }?.name
    }
}

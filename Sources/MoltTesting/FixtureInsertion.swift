import Molt

/// Fixtures written into a store: the objects first, then their links, each refused with the fixture's key
/// and what to fix when it does not fit the schema.
struct FixtureInsertion {
    let objects: Objects
    let schema: Schema
    private var inserted: [String: DynamicObject] = [:]
    private var order: [String] = []

    init(objects: Objects, schema: Schema) {
        self.objects = objects
        self.schema = schema
    }

    private func invalid(
        _ fixture: Fixture, _ reason: String, attribute: String? = nil, underlying: MoltError? = nil
    ) -> MigrationTestError {
        let version = schema.version
        return MigrationTestError(
            .invalidFixture,
            "Fixture \"\(fixture.key)\" does not fit schema version \(version): \(reason) Fix the fixtures of version \(version).",
            version: version, entity: fixture.entity, attribute: attribute, object: fixture.key, underlying: underlying)
    }

    /// Inserts the fixture's object with its attribute values.
    mutating func insert(_ fixture: Fixture) throws {
        guard schema.entity(named: fixture.entity) != nil else {
            throw invalid(
                fixture,
                "version \(schema.version) has no entity '\(fixture.entity)'; it has \(schema.entities.map(\.name).joined(separator: ", "))."
            )
        }
        if let problem = fixture.modelProblem(in: schema) {
            throw invalid(fixture, problem.reason, attribute: problem.property)
        }
        guard inserted[fixture.key] == nil else {
            throw invalid(
                fixture, "another fixture already has the key \"\(fixture.key)\"; give each fixture its own key.")
        }
        do {
            inserted[fixture.key] = try objects.insert(fixture.entity, fixture.values)
            order.append(fixture.key)
        } catch let error as MoltError {
            throw invalid(fixture, error.message, attribute: error.property, underlying: error)
        }
    }

    /// Sets the fixture's links to the objects of the fixtures they name (all inserted by then).
    func link(_ fixture: Fixture) throws {
        let entity = schema.effectiveEntity(named: fixture.entity)!
        for name in fixture.links.keys.sorted() {
            guard let relationship = entity.relationship(named: name) else {
                throw invalid(
                    fixture,
                    "entity '\(entity.name)' has no relationship '\(name)'; it has \(entity.relationships.map(\.name).joined(separator: ", ")).",
                    attribute: name)
            }
            var destinations: [DynamicObject] = []
            for key in fixture.links[name]!.keys {
                guard let destination = inserted[key] else {
                    throw invalid(
                        fixture, "its link '\(name)' names the fixture \"\(key)\", which is not among the fixtures.",
                        attribute: name)
                }
                guard destination.entity == relationship.destination else {
                    throw invalid(
                        fixture,
                        "its link '\(name)' names \"\(key)\", a '\(destination.entity)', but '\(entity.name).\(name)' points to '\(relationship.destination)' objects.",
                        attribute: name)
                }
                destinations.append(destination)
            }
            do {
                try objects.set(name, of: inserted[fixture.key]!, to: destinations)
            } catch let error as MoltError {
                throw invalid(fixture, error.message, attribute: name, underlying: error)
            }
        }
    }

    /// The objects as stored, in the fixtures' order, with their links by fixture key.
    func objects(of fixtures: [Fixture]) throws -> [FixtureObject] {
        let keys = Dictionary(
            inserted.map { (ObjectRef(entity: $0.value.entity, id: $0.value.id!), $0.key) },
            uniquingKeysWith: { first, _ in first })
        let given = Dictionary(fixtures.map { ($0.key, Set($0.values.keys)) }, uniquingKeysWith: { first, _ in first })
        return try order.map { key in
            let object = inserted[key]!
            let stored = try objects.object(object.entity, id: object.id!)!
            let links = try StoreReading.links(of: stored, in: objects, schema: schema, keys: keys)
            return FixtureObject(
                key: key, entity: object.entity, version: schema.version, id: object.id!,
                values: stored.attributeValues, links: links,
                givenAttributes: given[key])
        }
    }
}

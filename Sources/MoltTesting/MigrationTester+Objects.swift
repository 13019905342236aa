extension MigrationTester {
    /// Compares fixtures as stored before a migration with the store after it, object by object and attribute
    /// by attribute: the building block of ``migrate(from:fixtures:expectedCounts:expect:check:)``, for tests
    /// that migrate by themselves.
    ///
    /// Each fixture is found at the newest version by its entity (followed through renames) and its identifier
    /// (or its primary key, when its entity has one and its value is expected), then its values and links are
    /// compared with what `expect` says it should hold.
    ///
    /// ```swift
    /// let start = try tester.makeStore(version: 1, fixtures: fixtures, at: url)
    /// try start.close()
    /// let store = try Store.open(at: url, schema: tester.newest, options: .init().migrating(with: plan))
    /// let diffs = try store.read { try tester.differences(of: start.objects, in: $0) }
    /// #expect(diffs.isEmpty, "\(diffs.map(\.description).joined(separator: "\n"))")
    /// ```
    ///
    /// - Parameters:
    ///   - fixtures: The fixtures as stored (``FixtureStore/objects``).
    ///   - objects: The migrated store's objects, at the newest version.
    ///   - expect: What each fixture should become. Defaults to ``ObjectExpectation/survives(_:links:ignoring:)``.
    /// - Returns: One diff per object that is not as expected, in the order of `fixtures`.
    /// - Throws: ``Molt/MoltError`` when the store cannot be read.
    public func differences(
        of fixtures: [FixtureObject], in objects: Objects, expect: (FixtureObject) -> ObjectExpectation = { _ in .survives() }
    ) throws -> [ObjectDiff] {
        guard let oldest = fixtures.map(\.version).min() else { return [] }
        return try compare(fixtures, in: objects, through: try chain(from: oldest), expect: expect)
    }

    /// Compares `fixtures` with the migrated store; `chain` holds the schemas from the fixtures' version (as
    /// stored) to the newest.
    func compare(
        _ fixtures: [FixtureObject], in objects: Objects, through chain: [Schema], expect: (FixtureObject) -> ObjectExpectation
    ) throws -> [ObjectDiff] {
        let newest = chain.last!
        let carried = fixtures.map { fixture in Carried(fixture, through: chain.filter { $0.version >= fixture.version }) }
        var keys: [ObjectRef: String] = [:]
        for (fixture, carry) in zip(fixtures, carried) {
            if let entity = carry.entity { keys[ObjectRef(entity: entity, id: fixture.id)] = fixture.key }
        }
        var diffs: [ObjectDiff] = []
        for (fixture, carry) in zip(fixtures, carried) {
            let expectation = expect(fixture)
            var values: [String: Value] = [:]
            var links: [String: [String]] = [:]
            var entityName = carry.entity ?? fixture.entity
            switch expectation.kind {
            case .unchecked:
                continue
            case .deleted:
                guard let entity = carry.entity else { continue }
                if try find(fixture, entity: entity, expected: [:], in: objects, newest: newest) != nil {
                    diffs.append(ObjectDiff(object: fixture, entity: entity, kind: .notDeleted))
                }
                continue
            case .exactly(let exact, let entity):
                values = exact
                if let entity { entityName = entity }
            case .survives(let changes, let linkChanges, let ignoring):
                guard carry.entity != nil || !changes.isEmpty || !linkChanges.isEmpty else { continue }
                values = carry.values.merging(changes) { _, new in new }
                links = carry.links.merging(linkChanges) { _, new in new }
                for name in ignoring {
                    values[name] = nil
                    links[name] = nil
                }
            }
            guard let entity = newest.entity(named: entityName),
                let found = try find(fixture, entity: entityName, expected: values, in: objects, newest: newest)
            else {
                diffs.append(ObjectDiff(object: fixture, entity: entityName, kind: .missing))
                continue
            }
            var differences = PropertyDifference.compare(expected: values, with: found, order: entity.attributes.map(\.name))
            if !links.isEmpty {
                let actual = try StoreReading.links(of: found, in: objects, schema: newest, keys: keys)
                for relationship in entity.relationships {
                    guard let want = links[relationship.name] else { continue }
                    let have = actual[relationship.name] ?? []
                    let same = relationship.kind == .toMany && !relationship.isOrdered ? want.sorted() == have.sorted() : want == have
                    if !same {
                        differences.append(PropertyDifference(property: relationship.name, expected: .links(want), found: .links(have)))
                    }
                }
            }
            if !differences.isEmpty {
                diffs.append(ObjectDiff(object: fixture, entity: entityName, kind: .changed, differences: differences))
            }
        }
        return diffs
    }

    /// The migrated form of a fixture: by primary key when its entity has one and its value is expected, else
    /// by identifier.
    private func find(_ fixture: FixtureObject, entity: String, expected: [String: Value], in objects: Objects, newest: Schema) throws -> DynamicObject? {
        guard newest.entity(named: entity) != nil else { return nil }
        if let key = newest.entity(named: entity)?.primaryKey, let value = expected[key], !value.isNull {
            return try objects.object(entity, primaryKey: value)
        }
        return try objects.object(entity, id: fixture.id)
    }
}

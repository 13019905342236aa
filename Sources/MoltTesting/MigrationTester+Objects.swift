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
    ///   - expect: What each fixture should become. Defaults to ``ObjectExpectation/survives(_:links:ignoring:dropping:)``.
    /// - Returns: One diff per object that is not as expected, in the order of `fixtures`.
    /// - Throws: `MoltError` when the store cannot be read.
    public func differences(
        of fixtures: [FixtureObject], in objects: Objects,
        expect: (FixtureObject) -> ObjectExpectation = { _ in .survives() }
    ) throws -> [ObjectDiff] {
        guard let oldest = fixtures.map(\.version).min() else { return [] }
        return try compare(fixtures, in: objects, through: try chain(from: oldest), expect: expect)
    }

    /// Compares `fixtures` with the migrated store; `chain` holds the schemas from the fixtures' version to
    /// the newest.
    func compare(
        _ fixtures: [FixtureObject], in objects: Objects, through chain: [Schema],
        expect: (FixtureObject) -> ObjectExpectation
    ) throws -> [ObjectDiff] {
        let carried = fixtures.map { fixture in
            Carried(fixture, through: chain.filter { $0.version >= fixture.version })
        }
        var keys: [ObjectRef: String] = [:]
        for (fixture, carry) in zip(fixtures, carried) {
            if let entity = carry.entity { keys[ObjectRef(entity: entity, id: fixture.id)] = fixture.key }
        }
        let reader = Comparison(objects: objects, newest: chain.last!, keys: keys)
        var diffs: [ObjectDiff] = []
        for (fixture, carry) in zip(fixtures, carried) {
            diffs += try reader.compare(fixture, carry, expect(fixture))
        }
        return diffs
    }
}

/// Compares one fixture at a time with the migrated store.
private struct Comparison {
    let objects: Objects
    let newest: Schema
    /// The fixtures' keys by their place in the migrated store, to name link destinations.
    let keys: [ObjectRef: String]

    func compare(_ fixture: FixtureObject, _ carry: Carried, _ expectation: ObjectExpectation) throws -> [ObjectDiff] {
        var diffs = try compareKind(fixture, carry, expectation)
        guard !expectation.moved.isEmpty, expectation.kind != .unchecked else { return diffs }
        let moves = try movedDifferences(fixture, carry, expectation.moved)
        guard !moves.isEmpty else { return diffs }
        let entity = carry.entity ?? fixture.entity
        if let index = diffs.firstIndex(where: { $0.kind == .changed && $0.entity == entity }) {
            diffs[index] = ObjectDiff(
                object: fixture, entity: entity, kind: .changed, differences: diffs[index].differences + moves)
        } else {
            diffs.append(ObjectDiff(object: fixture, entity: entity, kind: .changed, differences: moves))
        }
        return diffs
    }

    /// The moves an expectation declares (``ObjectExpectation/moving(_:to:)``) that the store does not show: a
    /// value kept in place, or found in no object of the destination.
    ///
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/invalidFixture`` when a move names an
    ///   attribute the fixture's entity does not have, or a destination the newest version does not have.
    private func movedDifferences(
        _ fixture: FixtureObject, _ carry: Carried, _ moved: [String: String]
    ) throws -> [PropertyDifference] {
        var differences: [PropertyDifference] = []
        for (name, destination) in moved.sorted(by: { $0.key < $1.key }) {
            func invalid(_ reason: String) -> MigrationTestError {
                MigrationTestError(
                    .invalidFixture,
                    "From version \(fixture.version): the expectation of fixture \"\(fixture.key)\" moves '\(name)' to '\(destination)', but \(reason)",
                    version: fixture.version, entity: fixture.entity, attribute: name, object: fixture.key)
            }
            guard carry.keptAttributes[name] != nil || carry.removedAttributes[name] != nil else {
                throw invalid(
                    "'\(fixture.entity)' has no attribute '\(name)' at version \(fixture.version). Name the attribute by its name at the fixture's version."
                )
            }
            let parts = destination.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let target = newest.effectiveEntity(named: parts[0]),
                target.attribute(named: parts[1]) != nil
            else {
                throw invalid(
                    "version \(newest.version) has no attribute '\(destination)'. Name the destination as `Entity.attribute` of the newest version."
                )
            }
            let value = fixture[name]
            if let kept = carry.keptAttributes[name] {
                let object = try carry.entity.flatMap { try objects.object($0, id: fixture.id) }
                differences.append(
                    PropertyDifference(
                        property: kept, expected: .moved(value, to: destination), found: .value(object?[kept] ?? .null))
                )
                continue
            }
            guard !value.isNull else { continue }
            var candidates: [DynamicObject] = []
            let links =
                carry.entity.flatMap { newest.effectiveEntity(named: $0) }?.relationships.filter {
                    $0.destination == target.name
                } ?? []
            if !links.isEmpty, let entity = carry.entity, let object = try objects.object(entity, id: fixture.id) {
                for relationship in links { candidates += try objects.destinations(relationship.name, of: object) }
            } else {
                try objects.forEach(target.name) { candidates.append($0) }
            }
            if !candidates.contains(where: { $0[parts[1]] == value }) {
                differences.append(
                    PropertyDifference(
                        property: name, expected: .moved(value, to: destination),
                        found: .dropped(byVersion: carry.removedAttributes[name])))
            }
        }
        return differences
    }

    private func compareKind(
        _ fixture: FixtureObject, _ carry: Carried, _ expectation: ObjectExpectation
    ) throws -> [ObjectDiff] {
        switch expectation.kind {
        case .unchecked:
            return []
        case .deleted:
            guard let entity = carry.entity,
                case .found = try find(fixture, in: entity, sameEntity: true, expected: [:])
            else { return [] }
            return [ObjectDiff(object: fixture, entity: entity, kind: .notDeleted)]
        case .exactly(let values, let target):
            guard let entity = target ?? carry.entity else { return [removedEntity(fixture, carry)] }
            return try check(fixture, in: entity, sameEntity: entity == carry.entity, values: values, links: [:])
        case .survives(let changes, let linkChanges, let ignoring, let dropping):
            guard let entity = carry.entity else { return [removedEntity(fixture, carry)] }
            var values = carry.values.merging(changes) { _, new in new }
            var links = carry.links.merging(linkChanges) { _, new in new }
            for name in ignoring {
                values[name] = nil
                links[name] = nil
            }
            let kept = try keptButDeclaredDropped(fixture, carry, dropping)
            for name in kept { values[name] = nil }
            var diffs = try check(fixture, in: entity, sameEntity: true, values: values, links: links, kept: kept)
            let lost = carry.removedAttributes.keys.sorted().filter { name in
                fixture.givenAttributes.contains(name) && !fixture[name].isNull && !dropping.contains(name)
                    && expectation.moved[name] == nil
            }
            if !lost.isEmpty {
                let differences = lost.map { name in
                    PropertyDifference(
                        property: name, expected: .value(fixture[name]),
                        found: .dropped(byVersion: carry.removedAttributes[name]))
                }
                diffs.append(
                    ObjectDiff(object: fixture, entity: fixture.entity, kind: .valuesDropped, differences: differences))
            }
            return diffs
        }
    }

    private func removedEntity(_ fixture: FixtureObject, _ carry: Carried) -> ObjectDiff {
        ObjectDiff(
            object: fixture, entity: fixture.entity,
            kind: .entityRemoved(byVersion: carry.entityRemovedBy ?? newest.version))
    }

    /// The newest names of the attributes `dropping` lists that the migration keeps.
    ///
    /// - Throws: ``MigrationTestError`` with code ``MigrationTestError/Code/invalidFixture`` when `dropping` names
    ///   an attribute the fixture's entity does not have at its version.
    private func keptButDeclaredDropped(
        _ fixture: FixtureObject, _ carry: Carried, _ dropping: Set<String>
    ) throws -> [String] {
        var kept: [String] = []
        for name in dropping.sorted() where carry.removedAttributes[name] == nil {
            guard let newName = carry.keptAttributes[name] else {
                throw MigrationTestError(
                    .invalidFixture,
                    "From version \(fixture.version): the expectation of fixture \"\(fixture.key)\" drops '\(name)', which '\(fixture.entity)' does not have at version \(fixture.version). Name in `dropping` the attributes of the fixture's own version.",
                    version: fixture.version, entity: fixture.entity, attribute: name, object: fixture.key)
            }
            kept.append(newName)
        }
        return kept
    }

    /// The differences between the object the fixture became in `entity` and the values and links expected;
    /// `kept` are attributes the expectation says are dropped.
    private func check(
        _ fixture: FixtureObject, in entityName: String, sameEntity: Bool, values: [String: Value],
        links: [String: [String]],
        kept: [String] = []
    ) throws -> [ObjectDiff] {
        let found: DynamicObject
        switch try find(fixture, in: entityName, sameEntity: sameEntity, expected: values) {
        case .found(let object): found = object
        case .missing: return [ObjectDiff(object: fixture, entity: entityName, kind: .missing)]
        case .ambiguous(let count):
            return [ObjectDiff(object: fixture, entity: entityName, kind: .ambiguous(matches: count))]
        }
        let entity = newest.effectiveEntity(named: entityName)!
        var differences = PropertyDifference.compare(
            expected: values, with: found, order: entity.attributes.map(\.name))
        differences += kept.map {
            PropertyDifference(property: $0, expected: .dropped(byVersion: nil), found: .value(found[$0]))
        }
        if !links.isEmpty {
            let actual = try StoreReading.links(of: found, in: objects, schema: newest, keys: keys)
            for relationship in entity.relationships {
                guard let want = links[relationship.name] else { continue }
                let have = actual[relationship.name] ?? []
                let same =
                    relationship.kind == .toMany && !relationship.isOrdered
                    ? want.sorted() == have.sorted() : want == have
                if !same {
                    differences.append(
                        PropertyDifference(property: relationship.name, expected: .links(want), found: .links(have)))
                }
            }
        }
        guard !differences.isEmpty else { return [] }
        return [ObjectDiff(object: fixture, entity: entityName, kind: .changed, differences: differences)]
    }

    enum Match {
        case found(DynamicObject)
        case missing
        case ambiguous(Int)
    }

    /// The migrated form of a fixture in `entity`: by primary key when the entity has one and its value is
    /// expected; else, in the entity the fixture's own became, by identifier (Molt keeps it); else, in another
    /// entity, as the one object that holds the expected values. Never by identifier across entities.
    private func find(
        _ fixture: FixtureObject, in entity: String, sameEntity: Bool, expected: [String: Value]
    ) throws -> Match {
        guard let definition = newest.effectiveEntity(named: entity) else { return .missing }
        if let key = definition.primaryKey, let value = expected[key], !value.isNull {
            return try objects.object(entity, primaryKey: value).map(Match.found) ?? .missing
        }
        if sameEntity { return try objects.object(entity, id: fixture.id).map(Match.found) ?? .missing }
        var matches: [DynamicObject] = []
        try objects.forEach(entity) { object in
            if expected.allSatisfy({ object[$0.key] == $0.value }) { matches.append(object) }
        }
        switch matches.count {
        case 0: return .missing
        case 1: return .found(matches[0])
        default: return .ambiguous(matches.count)
        }
    }
}

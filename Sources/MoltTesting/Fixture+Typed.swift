/// The model a typed fixture was written as: checked against the schema version it is stored at.
struct FixtureModel: Sendable, Hashable {
    /// The model's type, as reports name it (`NotesV1.Note`).
    var typeName: String
    /// The model's entity.
    var entity: Entity
    /// The to-one relationships the model value sets, which a fixture must give as links instead.
    var setToOnes: [String]
}

extension Fixture {
    /// A fixture written as a model value of the version it is stored at: its entity and attribute values are
    /// the model's.
    ///
    /// Link fixtures by key, as dynamic fixtures do: a model's to-one relationship holds an identifier, which
    /// means nothing before the store exists, so a model that sets one is refused when the store is made.
    ///
    /// ```swift
    /// try tester.migrateFromEveryVersion { version in
    ///     version == 1
    ///         ? [Fixture("home", V1.Folder(name: "Home")), Fixture("milk", V1.Note(text: "Milk"), links: ["folder": "home"])]
    ///         : [Fixture("home", V2.Folder(name: "Home")), Fixture("milk", V2.Note(body: "Milk"), links: ["folder": "home"])]
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The fixture's name in reports and links.
    ///   - model: The object, as a model of the fixture's version (from its `VersionedSchema`).
    ///   - links: Relationship name → keys of other fixtures of the same store.
    public init<Model: PersistentModel>(_ key: String, _ model: Model, links: [String: FixtureLinks] = [:]) {
        let entity = Model.entity
        let encoded = model.encodedValues
        let toOnes = entity.relationships.filter { $0.kind == .toOne }
        let set = zip(toOnes, encoded.dropFirst(entity.attributes.count)).filter { !$0.1.isNull }.map(\.0.name)
        self.init(entity.name, key, model.dynamicObject.attributeValues, links: links)
        // `ShelfV1.Book`: the type as written in a test, without its module.
        let typeName = String(reflecting: Model.self).split(separator: ".", maxSplits: 1).last.map(String.init)
        self.model = FixtureModel(typeName: typeName ?? "\(Model.self)", entity: entity, setToOnes: set)
    }

    /// Why the model this fixture was written as does not fit `schema`, and the property concerned; nil when it
    /// fits, or the fixture is dynamic.
    func modelProblem(in schema: Schema) -> (reason: String, property: String?)? {
        guard let model, let stored = schema.effectiveEntity(named: model.entity.name) else { return nil }
        let version = schema.version
        if let name = model.setToOnes.first {
            return (
                "its model '\(model.typeName)' sets the to-one relationship '\(name)', an identifier that means nothing before the store exists. Leave it nil and link fixtures by key: `links: [\"\(name)\": \"<key>\"]`.",
                name
            )
        }
        var modelSchema = schema
        modelSchema.entities = schema.entities.map { $0.name == stored.name ? model.entity : $0 }
        let changes = SchemaDiff(from: schema, to: modelSchema).changes.filter { $0.entity == stored.name }
        guard let first = changes.first else { return nil }
        return (
            "its model '\(model.typeName)' does not match entity '\(stored.name)' of version \(version):\n"
                + changes.map { "- \($0)" }.joined(separator: "\n") + "\nWrite it as a model of version \(version).",
            first.property
        )
    }
}

extension ObjectExpectation {
    /// The object survives as this model of the newest version: every attribute holds the model's value. It is
    /// found in the model's entity as ``values(_:in:)`` finds it.
    ///
    /// ```swift
    /// .model(V3.Note(title: "Milk", words: 1))
    /// ```
    public static func model<Model: PersistentModel>(_ model: Model) -> ObjectExpectation {
        .values(model.dynamicObject.attributeValues, in: Model.entity.name)
    }
}

extension MigratedStore {
    /// The migrated form of the fixture with this key, read as a model of the newest version; nil when it is
    /// gone.
    ///
    /// ```swift
    /// let memo = try #require(try migrated.model("groceries", as: V6.UserMemo.self))
    /// #expect(memo.count == 100)
    /// ```
    ///
    /// - Throws: `MoltError` when the store cannot be read or the model does not fit the newest version.
    public func model<Model: PersistentModel>(_ key: String, as type: Model.Type) throws -> Model? {
        try object(key).map { try objects.model(Model.self, from: $0) }
    }
}

extension MigrationTester {
    /// A tester for a typed plan: its versions' schemas and its stages.
    ///
    /// ```swift
    /// let tester = try MigrationTester(plan: NotesPlan.self, snapshots: SchemaSnapshots(nextTo: #filePath))
    /// ```
    ///
    /// - Throws: `MoltError` with code `MoltError/Code/invalidPlan` when the plan does not build.
    public init<Plan: SchemaMigrationPlan>(plan: Plan.Type, snapshots: SchemaSnapshots? = nil) throws {
        self.init(plan: try Plan.migrationPlan(), snapshots: snapshots)
    }
}

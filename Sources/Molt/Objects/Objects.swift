/// Reads and writes the objects of a store, by entity name: the dynamic API that migrations, the CLI and
/// generic tools use.
///
/// You get one from ``Store/read(_:)-15rin`` or ``Store/write(_:)-6ejup``; it is valid only inside that closure.
///
/// ```swift
/// try store.write { objects in
///     let folder = try objects.insert("Folder", ["name": "Home"])
///     let note = try objects.insert("Note", ["text": "Milk"])
///     try objects.set("folder", of: note, to: folder)
///     print(try objects.count("Note", where: .contains("text", "Milk")))
/// }
/// ```
///
/// ## Topics
/// ### Writing
/// - ``insert(_:_:)``
/// - ``update(_:)``
/// - ``delete(_:)-(DynamicObject)``
/// - ``deleteAll(_:where:)-(String,_)``
/// ### Reading
/// - ``fetch(_:where:orderBy:limit:offset:)->[DynamicObject]``
/// - ``object(_:id:)``
/// - ``object(_:primaryKey:)``
/// - ``count(_:where:)-(String,_)``
/// - ``forEach(_:where:orderBy:limit:offset:_:)-(String,_,_,_,_,_)``
/// ### Relationships
/// - ``destination(_:of:)->DynamicObject?``
/// - ``destinations(_:of:)->[DynamicObject]``
/// - ``set(_:of:to:)-(_,_,DynamicObject?)``
/// - ``add(_:to:of:)-(_,String,_)``
/// - ``remove(_:from:of:)-(_,String,_)``
public struct Objects {
    package let db: any SQLConnection
    /// The schema the objects follow.
    public let schema: Schema
    let isWritable: Bool
    private let fixedLayout: StoreLayout
    /// The stage that watches the writes of the new side of a migration stage.
    let observer: (any StageObserver)?
    /// The stage whose old side these objects are: their tables may be replaced by snapshots.
    let layoutSource: (any StageLayoutSource)?
    /// Where the tables read and written are recorded, while an observation of the store is active.
    let access: TableAccess?

    init(
        db: any SQLConnection, schema: Schema, layout: StoreLayout? = nil, isWritable: Bool,
        observer: (any StageObserver)? = nil, layoutSource: (any StageLayoutSource)? = nil,
        access: TableAccess? = nil
    ) {
        self.db = db
        self.schema = schema
        self.fixedLayout = layout ?? .standard(schema, dialect: db.dialect)
        self.isWritable = isWritable
        self.observer = observer
        self.layoutSource = layoutSource
        self.access = access
    }

    /// Where the objects live now.
    package var layout: StoreLayout { layoutSource?.oldLayout ?? fixedLayout }

    package var dialect: any SQLDialect { db.dialect }
    package var idColumn: String { dialect.quote(StoreLayout.idColumn) }

    /// The entity with this name as its objects are: with the attributes and relationships it inherits.
    func entity(_ name: String) throws -> Entity {
        guard let entity = schema.effectiveEntity(named: name) else {
            throw MoltError(
                .invalidValue,
                "Schema version \(schema.version) has no entity '\(name)'; it has \(schema.entities.map(\.name).joined(separator: ", ")).",
                entity: name)
        }
        return entity
    }

    package func requireWritable() throws {
        guard isWritable else {
            throw MoltError(
                .invalidValue,
                "This context is read-only: write inside `store.write { … }` (or on the new side of a migration stage)."
            )
        }
    }

    /// The values to store for an object: every attribute checked against its type, defaults applied to
    /// missing values.
    package func checkedValues(
        _ values: [String: Value], for entity: Entity, applyingDefaults: Bool
    ) throws -> [(Attribute, Value)] {
        // One lookup per attribute; a key that names none is looked for only when some key matched nothing.
        let given = entity.attributes.map { values[$0.name] }
        if given.count(where: { $0 != nil }) < values.count,
            let key = values.keys.first(where: { entity.attribute(named: $0) == nil })
        {
            throw MoltError(
                .invalidValue,
                "Entity '\(entity.name)' has no attribute '\(key)'; it has \(entity.attributes.map(\.name).joined(separator: ", ")).",
                entity: entity.name, property: key)
        }
        return try zip(entity.attributes, given).compactMap { attribute, given in
            // A missing value takes the default; an explicit `.null` stays null (and is refused if required).
            guard var value = given ?? (applyingDefaults ? Optional(Value.null) : Optional<Value>.none) else {
                return nil
            }
            if given == nil, let fallback = attribute.defaultValue { value = fallback }
            return (attribute, try checked(value, for: attribute, in: entity))
        }
    }

    /// The refusal of a value the engine cannot store (``SQLDialect/storageRefusal(_:)``), naming the attribute:
    /// the same from the dynamic and the typed API.
    static func unstorable(entity: String, attribute: String, reason: String) -> MoltError {
        MoltError(
            .invalidValue, "Attribute '\(entity).\(attribute)' cannot store \(reason); nothing was written.",
            entity: entity, property: attribute)
    }

    /// `value` in `attribute`'s type, or the error that names why it does not fit.
    func checked(_ value: Value, for attribute: Attribute, in entity: Entity, objectID: Int64? = nil) throws -> Value {
        if let checked = attribute.coerce(value) {
            if let reason = dialect.storageRefusal(checked) {
                throw Self.unstorable(entity: entity.name, attribute: attribute.name, reason: reason)
            }
            return checked
        }
        if value.isNull {
            throw MoltError(
                .invalidValue,
                "Attribute '\(entity.name).\(attribute.name)' is required; give it a value (or a default in the schema).",
                entity: entity.name, property: attribute.name)
        }
        if let refusal = ValueConversion.numberRefusal(
            entity: entity.name, attribute: attribute.name, type: attribute.type, value: value, objectID: objectID)
        {
            throw refusal
        }
        if case .int(let number) = value, attribute.type == .double {
            throw ValueConversion.inexactDouble(
                entity: entity.name, attribute: attribute.name, value: number, objectID: objectID)
        }
        throw MoltError(
            .invalidValue,
            "Attribute '\(entity.name).\(attribute.name)' holds \(attribute.type.rawValue) values, not \(value).",
            entity: entity.name, property: attribute.name)
    }
}

extension Objects {
    /// Tells the stage, if any, that the objects of `entity` are about to be updated (`properties`) or, with
    /// nil, inserted or deleted.
    ///
    /// `links` says what the write does to required links, for their check at commit.
    func willWrite(_ entity: String, properties: [String]?, links: LinkEffect = .unknown) throws {
        access?.willWrite(layout.physicalTable(entity))
        record(links, writing: entity, properties: properties)
        guard let observer else { return }
        try observer.willWrite(
            table: layout.physicalTable(entity), columns: properties?.map { layout.physicalColumn(entity, $0) })
    }

    /// Tells the stage, if any, that a to-many relationship's links are about to change.
    ///
    /// `owners` are the objects that may be left with fewer destinations (for the check of minimum counts at
    /// commit): none when links are added or the owners deleted.
    func willWriteLinks(_ entity: String, _ relationship: String, owners: [Int64] = []) throws {
        access?.willWrite(layout.physicalJoinTable(entity, relationship))
        access?.mayEmptyLinks(in: layout.physicalJoinTable(entity, relationship), of: owners)
        try observer?.willWrite(table: layout.physicalJoinTable(entity, relationship), columns: nil)
    }
}

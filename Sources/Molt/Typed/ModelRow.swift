import Foundation

/// The stored values of one object, in column order, from which a ``PersistentModel`` initializes itself.
///
/// A row reads either straight from the store's statement through its value codec (fetching: no dictionary)
/// or from a list of ``Value``s (converting a ``DynamicObject``, for instance in a migration stage). Column `0` is the model's
/// first attribute; attributes come in declaration order, then to-one relationships.
///
/// Generated code reads it as below; a hand-written conformance does the same:
///
/// ```swift
/// init(row: ModelRow) throws {
///     persistentID = row.id
///     title = try row.value(at: 0)
///     count = try row.value(at: 1)
/// }
/// ```
public struct ModelRow {
    /// What the rows of one fetch share: the entity, and the reader of the statement's current row (nil for a
    /// row of values). A row holds one reference rather than a copy of the entity's names and lists or of the
    /// statement, which cost a reference count (and, for the statement, a boxed copy) per row and per column.
    final class Source {
        let entity: Entity
        let reader: SQLRowReader?

        init(_ entity: Entity, reader: SQLRowReader? = nil) {
            self.entity = entity
            self.reader = reader
        }
    }

    private let source: Source
    /// The values of a row that does not come from a statement; nil for a fetched row.
    private let values: [Value]?
    /// The entity whose attributes (then to-one relationships) the columns hold, for messages.
    var entity: Entity { source.entity }
    /// The identifier Molt gave the object, or nil for an object that is not stored yet.
    public let id: Int64?

    /// The current row of a fetch whose reader `source` holds (column 0 is the identifier).
    init(reading source: Source) {
        self.source = source
        values = nil
        id = source.reader?.id()
    }

    init(values: [Value], entity: Entity, id: Int64?) {
        self.values = values
        self.source = Source(entity)
        self.id = id
    }

    /// The value of column `index`, converted to the property's type.
    ///
    /// Inlinable, so that a model's `init(row:)` calls its property type's reader directly rather than through
    /// an unspecialized generic.
    ///
    /// - Throws: ``MoltError`` when the stored value does not fit the type (a required attribute left null,
    ///   another type, a store edited outside Molt).
    @inlinable
    public func value<V: PersistentValue>(at index: Int, as type: V.Type = V.self) throws -> V {
        try V.read(from: self, at: index)
    }

    /// Column `index` when the statement holds exactly an integer there (the fast path of typed reads); nil for
    /// anything else, which ``converted(_:_:)`` then converts or refuses.
    @inline(__always)
    func storedInt64(at index: Int) -> Int64? {
        source.reader?.storedInt64(index + 1)
    }

    /// Column `index` when the statement holds exactly a real number there; nil for anything else.
    @inline(__always)
    func storedDouble(at index: Int) -> Double? {
        source.reader?.storedDouble(index + 1)
    }

    /// Column `index` when the statement holds exactly text there; nil for anything else.
    @inline(__always)
    func storedText(at index: Int) -> String? {
        source.reader?.storedText(index + 1)
    }

    /// Whether column `index` holds null.
    public func isNull(at index: Int) -> Bool {
        if let reader = source.reader { return reader.isNull(index + 1) }
        return values?[index].isNull ?? true
    }

    /// The name of column `index`: an attribute, then a to-one relationship.
    private func name(_ index: Int) -> String {
        if index < entity.attributes.count { return entity.attributes[index].name }
        let toOne = entity.relationships.filter { $0.kind == .toOne }
        return index - entity.attributes.count < toOne.count
            ? toOne[index - entity.attributes.count].name : "column \(index)"
    }

    /// The value of column `index` as a dynamic ``Value`` of `type`.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/corruptStore`` when the stored value is not of `type`.
    public func dynamicValue(at index: Int, type: AttributeType) throws -> Value {
        guard let statement = source.reader?.statement else { return values?[index] ?? .null }
        guard let value = statement.value(index + 1, as: type) else {
            throw SQLStoredValue.mismatch(
                entity: entity.name, attribute: name(index), objectID: id, found: statement.describe(index + 1),
                expected: type)
        }
        return value
    }

    /// Converts column `index` to `V`, or throws naming the attribute.
    func converted<V: ValueConvertible & PersistentValue>(_ index: Int, _ type: V.Type) throws -> V {
        let value = try dynamicValue(at: index, type: V.attributeType)
        if let converted = V(moltValue: value) { return converted }
        if value.isNull {
            throw MoltError(
                .invalidValue,
                "Attribute '\(entity.name).\(name(index))' is required but holds null; give it a value before reading it as '\(entity.name)'.",
                entity: entity.name, property: name(index))
        }
        throw MoltError(
            .invalidValue, "Attribute '\(entity.name).\(name(index))' holds \(value), which is not a \(V.self).",
            entity: entity.name,
            property: name(index))
    }
}

/// The stored values of one object being written, in column order: what a ``PersistentModel`` encodes itself
/// into.
///
/// Values go straight to the store's statement when inserting or saving, or into a list of ``Value``s when
/// converting to a ``DynamicObject``. Append attributes in declaration order, then to-one relationships.
///
/// ```swift
/// func encode(to columns: inout ModelColumns) {
///     columns.append(title)
///     columns.append(count)
/// }
/// ```
public struct ModelColumns {
    enum Storage {
        case statement(any SQLStatement)
        case values([Value])
    }

    var storage: Storage
    /// The index of the next column.
    public private(set) var count = 0
    /// The first column given a NaN, which cannot be stored: inserting or saving refuses it, naming the attribute.
    var nanColumn: Int?
    /// The first error binding a value met, thrown by the insert or save.
    var failure: (any Error)?
    /// The first to-one column that points to a destination never inserted, and its entity.
    var uninserted: (column: Int, destination: String)?
    /// The first column given a value the engine cannot store (PostgreSQL: text with a NUL), and why.
    var unstorable: (column: Int, reason: String)?
    /// The engine's dialect, which says what it cannot store; nil for a dynamic object's values.
    private let dialect: (any SQLDialect)?
    /// The columns before the to-one relationships, whose identifiers are kept in ``toOneIDs``.
    private let attributeCount: Int
    /// The to-one relationships' identifiers, as appended after the attributes (read back after an insert).
    private(set) var toOneIDs: [Int64?] = []
    /// The column whose value an upsert finds its object by, kept in ``keyValue`` as it is appended.
    var keyColumn: Int?
    /// The value appended at ``keyColumn``.
    private(set) var keyValue: Value?

    init(statement: any SQLStatement, attributeCount: Int, dialect: any SQLDialect) {
        storage = .statement(statement)
        self.attributeCount = attributeCount
        self.dialect = dialect
    }

    init() {
        storage = .values([])
        attributeCount = .max
        dialect = nil
    }

    /// Appends the next column's value.
    public mutating func append<V: PersistentValue>(_ value: V) {
        value.write(to: &self)
    }

    /// Appends the next column's value as a dynamic ``Value``.
    public mutating func appendValue(_ value: Value) {
        var value = value
        switch value {
        case .double(let v) where v.isNaN: flagNaN(); value = .null
        case .date(let v) where v.timeIntervalSince1970.isNaN: flagNaN(); value = .null
        case .decimal(let v) where v.isNaN: flagNaN(); value = .null
        default: break
        }
        if unstorable == nil, let reason = dialect?.storageRefusal(value) { unstorable = (count, reason) }
        if count == keyColumn { keyValue = value }
        switch storage {
        case .statement(let statement):
            do {
                try statement.bind(value, at: count)
            } catch {
                if failure == nil { failure = error }
            }
            if count >= attributeCount { toOneIDs.append(value.int) }
        case .values(var values):
            storage = .values([])
            values.append(value)
            storage = .values(values)
        }
        count += 1
    }

    /// The values appended so far, for a dynamic object.
    var values: [Value] {
        if case .values(let values) = storage { return values }
        return []
    }

    /// Notes that the next column's value is NaN, before appending it.
    mutating func flagNaN() {
        if nanColumn == nil { nanColumn = count }
    }

    /// Notes that the next column, a to-one relationship, points to a `destination` value never inserted.
    mutating func flagUninserted(_ destination: String) {
        if uninserted == nil { uninserted = (count, destination) }
    }
}

import Foundation

/// Aggregates computed by the engine in one statement, never by reading every object (a sum of decimals excepted:
/// it is added exactly in Swift, one stored value at a time): sums, extremes, averages, distinct values and counts
/// per value, over the objects of an entity that match a predicate.
///
/// ```swift
/// let total = try objects.sum("price", of: "Item")                       // .int(…) or .double(…)
/// let newest = try objects.max("created", of: "Item", where: .equal("kind", "book"))
/// let kinds = try objects.distinctValues("kind", of: "Item")            // sorted
/// let perKind = try objects.counts(groupedBy: "kind", of: "Item")       // [(value, count)], sorted by value
/// ```
///
/// Exact or refused, on both engines:
/// - a sum of integers that does not fit 64 bits throws, naming the attribute, rather than wrapping or turning
///   into a double;
/// - a sum of decimals keeps every digit (SQLite's values are added in Swift, digit by digit past what a
///   `Decimal` holds; PostgreSQL adds `numeric`s), and a sum with more digits than a `Decimal` holds (38
///   significant digits: a 38-digit amount and `0.1`) throws, naming the attribute and the sum, rather than
///   coming back rounded;
/// - extremes, distinct values and counts return stored values as they are.
///
/// Sums and averages of doubles and floats are computed in binary floating point, as the values are, and an
/// average is always a `Double`.
extension Objects {
    /// What an aggregate is computed over, checked: the attribute's column, the table, the predicate's SQL.
    private struct AggregateSource {
        var entity: Entity
        var attribute: Attribute
        var column: String
        var from: String
        var arguments: [Value]
    }

    private func aggregateSource(
        _ attributeName: String, of entityName: String, where predicate: ObjectPredicate?, allowed: Set<AttributeType>,
        operation: String
    ) throws -> AggregateSource {
        let entity = try entity(entityName)
        guard let attribute = entity.attribute(named: attributeName) else {
            throw MoltError(
                .invalidValue,
                "Entity '\(entity.name)' has no attribute '\(attributeName)' to compute the \(operation) of; use one of \(entity.attributes.map(\.name).joined(separator: ", ")).",
                entity: entity.name, property: attributeName)
        }
        guard allowed.contains(attribute.type) else {
            throw MoltError(
                .invalidValue,
                "Cannot compute the \(operation) of '\(entity.name).\(attribute.name)', which holds \(attribute.type) values; the \(operation) is computed over \(allowed.map(\.rawValue).sorted().joined(separator: ", ")) attributes.",
                entity: entity.name, property: attribute.name)
        }
        recordRead(entity.name)
        let (filter, arguments) = try whereClause(predicate, for: entity)
        return AggregateSource(
            entity: entity, attribute: attribute, column: layout.column(entity.name, attribute.name),
            from: "FROM \(layout.table(entity.name))\(filter)", arguments: arguments)
    }

    /// The sum of a numeric attribute over the matching objects (nulls are left out; zero when none match):
    /// `.int` for integers of every size, `.double` for doubles and floats, `.decimal` for decimals, exact.
    ///
    /// ```swift
    /// let pages = try objects.sum("pages", of: "Book", where: .greater("year", 2000))
    /// ```
    ///
    /// - Throws: ``MoltError`` (``MoltError/Code/invalidValue``) naming the attribute when it is not numeric, when
    ///   a sum of integers does not fit 64 bits, or when a sum of decimals has more digits than a `Decimal` holds.
    public func sum(
        _ attribute: String, of entityName: String, where predicate: ObjectPredicate? = nil
    ) throws
        -> Value
    {
        let source = try aggregateSource(
            attribute, of: entityName, where: predicate, allowed: Self.numericTypes.union([.decimal]),
            operation: "sum")
        switch source.attribute.type {
        case .decimal:
            let text: String
            if let expression = dialect.exactDecimalSum(source.column) {
                guard case .string(let sum) = try aggregate(expression, source, as: .string) else {
                    return .decimal(0)
                }
                text = sum
            } else {
                var sum = DecimalText.Sum()
                try addDecimals(source, to: &sum)
                guard let decimal = sum.decimal else { throw Self.decimalSumTooLong(source, sum.text) }
                return .decimal(decimal)
            }
            guard let decimal = DecimalText.decimal(fromText: text) else { throw Self.decimalSumTooLong(source, text) }
            return .decimal(decimal)
        case .int, .int16, .int32:
            // SQLite's SUM refuses a sum that overflows; PostgreSQL's is exact (numeric) and the cast to bigint
            // refuses it: either refusal is the statement's, and is reported as the sum not fitting.
            do {
                let value = try aggregate("CAST(SUM(\(source.column)) AS BIGINT)", source, as: .int)
                return value == .null ? .int(0) : value
            } catch let error as MoltError where error.cause is SQLStatementRefusal {
                throw MoltError(
                    .invalidValue,
                    "The sum of '\(source.entity.name).\(source.attribute.name)' over the matching objects does not fit a 64-bit integer, so it was not computed (never wrapped or rounded to a double). Sum fewer objects (a narrower predicate), or add them in your own code with a wider type.",
                    entity: source.entity.name, property: source.attribute.name, cause: error)
            }
        default:
            let value = try aggregate("SUM(\(source.column))", source, as: .double)
            return value == .null ? .double(0) : value
        }
    }

    /// Adds the decimals of the matching objects in Swift (``DecimalText/Sum``), for an engine that would add
    /// them as doubles (SQLite; ``SQLDialect/exactDecimalSum(_:)``).
    private func addDecimals(_ source: AggregateSource, to sum: inout DecimalText.Sum) throws {
        let statement = try db.makeStatement(.read, "SELECT \(source.column) \(source.from)")
        try statement.bind(source.arguments)
        defer { statement.reset() }
        while try statement.step() {
            switch statement.value(0, as: .decimal) {
            case .decimal(let value)?: sum.add(value)
            case .null?: continue
            default: throw Self.unreadableAggregate(source)
            }
        }
    }

    /// The refusal of a sum of decimals that has more digits than a `Decimal` holds.
    private static func decimalSumTooLong(_ source: AggregateSource, _ text: String) -> MoltError {
        MoltError(
            .invalidValue,
            "The sum of '\(source.entity.name).\(source.attribute.name)' over the matching objects is \(text), which has more digits than a Decimal holds (38 significant digits), so it was not returned rounded. Sum fewer objects (a narrower predicate), or add the values in your own code with more digits.",
            entity: source.entity.name, property: source.attribute.name)
    }

    /// The types a sum or an average is computed over by the engine.
    private static let numericTypes: Set<AttributeType> = [.int, .int16, .int32, .double, .float]

    /// The smallest value of an attribute among the matching objects, `.null` when none has one.
    ///
    /// Strings compare by their UTF-8 bytes, as sorts do; dates by time; decimals by value.
    ///
    /// ```swift
    /// let oldest = try objects.min("created", of: "Note")
    /// ```
    public func min(
        _ attribute: String, of entityName: String, where predicate: ObjectPredicate? = nil
    ) throws
        -> Value
    {
        try extreme("MIN", "minimum", attribute, of: entityName, where: predicate)
    }

    /// The largest value of an attribute among the matching objects, `.null` when none has one.
    ///
    /// ```swift
    /// let newest = try objects.max("created", of: "Note", where: .equal("archived", false))
    /// ```
    public func max(
        _ attribute: String, of entityName: String, where predicate: ObjectPredicate? = nil
    ) throws
        -> Value
    {
        try extreme("MAX", "maximum", attribute, of: entityName, where: predicate)
    }

    private func extreme(
        _ function: String, _ operation: String, _ attribute: String, of entityName: String,
        where predicate: ObjectPredicate?
    ) throws -> Value {
        let source = try aggregateSource(
            attribute, of: entityName, where: predicate, allowed: Self.comparableTypes, operation: operation)
        return try aggregate("\(function)(\(source.column))", source, as: source.attribute.type)
    }

    /// The average of a number attribute (integer, double, float) over the matching objects that have a value, nil when none
    /// has one.
    ///
    /// ```swift
    /// let mean = try objects.average("rating", of: "Review")
    /// ```
    public func average(
        _ attribute: String, of entityName: String, where predicate: ObjectPredicate? = nil
    ) throws
        -> Double?
    {
        let source = try aggregateSource(
            attribute, of: entityName, where: predicate, allowed: Self.numericTypes, operation: "average")
        return try aggregate("CAST(AVG(\(source.column)) AS DOUBLE PRECISION)", source, as: .double).double
    }

    /// The distinct values of an attribute among the matching objects, sorted as ``ObjectSort`` sorts them, null
    /// first when an object has none.
    ///
    /// ```swift
    /// let kinds = try objects.distinctValues("kind", of: "Item")   // ["book", "disc", …]
    /// ```
    public func distinctValues(
        _ attribute: String, of entityName: String, where predicate: ObjectPredicate? = nil
    )
        throws -> [Value]
    {
        try counts(groupedBy: attribute, of: entityName, where: predicate).map(\.value)
    }

    /// How many matching objects hold each value of an attribute, sorted by value (null first).
    ///
    /// ```swift
    /// for (kind, count) in try objects.counts(groupedBy: "kind", of: "Item") { print(kind, count) }
    /// ```
    public func counts(
        groupedBy attribute: String, of entityName: String, where predicate: ObjectPredicate? = nil
    )
        throws -> [(value: Value, count: Int)]
    {
        let source = try aggregateSource(
            attribute, of: entityName, where: predicate, allowed: Set(AttributeType.allCases),
            operation: "counts per value")
        // Nulls first on both engines (PostgreSQL sorts them last by default).
        let sql = """
            SELECT \(source.column), COUNT(*) \(source.from) GROUP BY \(source.column) \
            ORDER BY \(source.column) IS NOT NULL, \(source.column)
            """
        return try rows(sql, source, types: [source.attribute.type, .int]).map { row in
            guard case .int(let count) = row[1] else { throw Self.unreadableAggregate(source) }
            return (row[0], Int(count))
        }
    }

    /// The types whose values have an order both engines agree on.
    private static let comparableTypes: Set<AttributeType> = [
        .int, .int16, .int32, .double, .float, .decimal, .string, .date,
    ]

    private func aggregate(_ expression: String, _ source: AggregateSource, as type: AttributeType) throws -> Value {
        guard let value = try rows("SELECT \(expression) \(source.from)", source, types: [type]).first?.first else {
            throw Self.unreadableAggregate(source)
        }
        return value
    }

    /// The rows of an aggregate's query, each column decoded as `types` says: a value of another type (a store
    /// edited outside Molt) is refused, never passed on as the engine stored it.
    private func rows(_ sql: String, _ source: AggregateSource, types: [AttributeType]) throws -> [[Value]] {
        let statement = try db.makeStatement(.read, sql)
        try statement.bind(source.arguments)
        defer { statement.reset() }
        var rows: [[Value]] = []
        while try statement.step() {
            rows.append(
                try types.indices.map { column in
                    guard let value = statement.value(column, as: types[column]) else {
                        throw Self.unreadableAggregate(source)
                    }
                    return value
                })
        }
        return rows
    }

    private static func unreadableAggregate(_ source: AggregateSource) -> MoltError {
        MoltError(
            .invalidValue,
            "An aggregate of '\(source.entity.name).\(source.attribute.name)' returned a value of another type than \(source.attribute.type); check the store with `molt check`.",
            entity: source.entity.name, property: source.attribute.name)
    }
}

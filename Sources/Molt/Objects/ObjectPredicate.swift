/// A condition on an entity's attributes, for fetching, counting and deleting objects.
///
/// Named so as not to clash with Foundation's `Predicate`; the leading-dot forms read the same.
///
/// ```swift
/// try objects.fetch("UserMemo", where: .equal("favorite", true) && .contains("title", "milk"))
/// ```
public indirect enum ObjectPredicate: Sendable, Hashable {
    case equal(String, Value)
    case notEqual(String, Value)
    case less(String, Value)
    case lessOrEqual(String, Value)
    case greater(String, Value)
    case greaterOrEqual(String, Value)
    case isNull(String)
    case isNotNull(String)
    /// The string attribute contains the text (case-sensitive).
    case contains(String, String)
    /// The string attribute starts with the text (case-sensitive).
    case hasPrefix(String, String)
    /// The attribute equals one of the values.
    case `in`(String, [Value])
    case and([ObjectPredicate])
    case or([ObjectPredicate])
    case not(ObjectPredicate)

    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { .and([lhs, rhs]) }
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { .or([lhs, rhs]) }
    public static prefix func ! (p: ObjectPredicate) -> ObjectPredicate { .not(p) }

    /// The SQL condition and its arguments, checking attribute names against the entity.
    func sql(for entity: Entity, layout: StoreLayout) throws -> (String, [Value]) {
        let terms = FilterTerms(entity: entity, layout: layout)
        let column = terms.column, argument = terms.argument
        func compare(_ name: String, _ op: String, _ value: Value) throws -> (String, [Value]) {
            if value.isNull { return ("\(try column(name)) \(op == "=" ? "IS" : "IS NOT") NULL", []) }
            return ("\(try column(name)) \(op) ?", [try argument(name, value)])
        }
        switch self {
        case .equal(let n, let v): return try compare(n, "=", v)
        case .notEqual(let n, let v): return try compare(n, "<>", v)
        case .less(let n, let v): return ("\(try column(n)) < ?", [try argument(n, v)])
        case .lessOrEqual(let n, let v): return ("\(try column(n)) <= ?", [try argument(n, v)])
        case .greater(let n, let v): return ("\(try column(n)) > ?", [try argument(n, v)])
        case .greaterOrEqual(let n, let v): return ("\(try column(n)) >= ?", [try argument(n, v)])
        case .isNull(let n): return ("\(try column(n)) IS NULL", [])
        case .isNotNull(let n): return ("\(try column(n)) IS NOT NULL", [])
        case .contains(let n, let text): return (layout.dialect.containsCondition(try column(n)), [.string(text)])
        case .hasPrefix(let n, let text):
            return (layout.dialect.hasPrefixCondition(try column(n)), [.string(text), .string(text)])
        case .in(let n, let values):
            if values.isEmpty { return ("0 = 1", []) }
            return (
                "\(try column(n)) IN (\(values.map { _ in "?" }.joined(separator: ", ")))",
                try values.map { try argument(n, $0) }
            )
        case .and(let ps), .or(let ps):
            if ps.isEmpty { if case .and = self { return ("1 = 1", []) } else { return ("0 = 1", []) } }
            let parts = try ps.map { try $0.sql(for: entity, layout: layout) }
            let joiner: String = { if case .and = self { return " AND " } else { return " OR " } }()
            return ("(" + parts.map(\.0).joined(separator: joiner) + ")", parts.flatMap(\.1))
        case .not(let p):
            let (sql, args) = try p.sql(for: entity, layout: layout)
            return ("NOT (\(sql))", args)
        }
    }
}

/// The columns and arguments of one entity's filter terms, checked against the entity.
private struct FilterTerms {
    let entity: Entity
    let layout: StoreLayout

    /// The column an attribute, `_id` or a to-one relationship is stored in.
    func column(_ name: String) throws -> String {
        guard
            entity.attribute(named: name) != nil || name == StoreLayout.idColumn
                || entity.relationship(named: name)?.kind == .toOne
        else {
            throw MoltError(
                .invalidValue,
                "Entity '\(entity.name)' has no attribute '\(name)' to filter on; it has \(entity.attributes.map(\.name).joined(separator: ", ")).",
                entity: entity.name, property: name)
        }
        return layout.column(entity.name, name)
    }

    /// A number compared in the column's own type, exactly: PostgreSQL reads a parameter in the column's type
    /// (an integer beyond 2^53 against a double column would be rounded, and match what it does not equal), so
    /// a number that the type cannot hold exactly is refused rather than compared approximately (40 000 against
    /// an `int16`, 0.1 against a `float`, the double 0.1 against a `decimal`: compare with `.decimal(…)`).
    func argument(_ name: String, _ value: Value) throws -> Value {
        let type = entity.attribute(named: name)?.type ?? .int  // `_id` and to-one columns hold identifiers
        switch (value, type) {
        case (.int, .double), (.double, .int), (.int, .bool), (.bool, .int), (.int, .int16), (.int, .int32),
            (.double, .int16), (.double, .int32), (.int, .float), (.double, .float), (.int, .decimal),
            (.double, .decimal), (.decimal, .int), (.decimal, .int16), (.decimal, .int32):
            guard let converted = ValueConversion.convert(value, to: type) else {
                let given: String
                switch value {
                case .int(let v): given = String(v)
                case .double(let v): given = ValueConversion.text(double: v)
                case .decimal(let v): given = DecimalText.text(v)
                default: given = "\(value)"
                }
                throw MoltError(
                    .invalidValue,
                    "The filter compares '\(entity.name).\(name)', which holds \(type) values, with \(given), which no \(type) value equals exactly. Compare with a \(type) value.",
                    entity: entity.name, property: name)
            }
            return converted
        default:
            return value
        }
    }
}

/// An order for fetched objects.
///
/// ```swift
/// try objects.fetch("UserMemo", orderBy: [.descending("memoDate"), .ascending("title")])
/// ```
public struct ObjectSort: Sendable, Hashable {
    /// The attribute to sort by.
    public var attribute: String
    /// Whether smaller values come first.
    public var isAscending: Bool

    /// Sorts by `attribute`, smaller values first unless `ascending` is false.
    public init(_ attribute: String, ascending: Bool = true) {
        self.attribute = attribute
        self.isAscending = ascending
    }

    /// Sorts by `attribute`, smaller values first.
    public static func ascending(_ attribute: String) -> ObjectSort { ObjectSort(attribute) }
    /// Sorts by `attribute`, larger values first.
    public static func descending(_ attribute: String) -> ObjectSort { ObjectSort(attribute, ascending: false) }
}

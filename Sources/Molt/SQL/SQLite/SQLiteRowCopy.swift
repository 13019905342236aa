import Foundation
import GRDB

/// SQLite's rendering of a bulk copy (``RowCopy``): one `INSERT … SELECT` per entity and per to-many relationship,
/// reading the source attached to the store's connection as ``RowCopy/sourceSchema``, each value turned by the SQL
/// of its meaning into exactly what ``SQLiteStatement`` stores; then its proof (``SQLiteRowCopy/Proof``), in the
/// same savepoint, before it is released.
///
/// Molt stores a date as the seconds since 1970 in a real (seconds since 2001 plus 978,307,200: the double addition
/// `Date.timeIntervalSince1970` makes), Booleans and integers as integers, doubles and floats as reals, a UUID as
/// its upper-case text, a string as its text byte for byte, data as its bytes; a converted value as
/// ``SQLiteStatement/databaseValue(_:)`` stores what its conversion returns.
struct SQLiteRowCopy {
    let copy: RowCopy
    let layout: StoreLayout
    let schema: Schema

    /// `molt_copy_value(index, key, x)`: the copy's conversion at `index` of the value `x` of the row keyed `key`.
    static let function = "molt_copy_value"

    /// One entity of the copy, rendered.
    struct Plan {
        var rows: RowCopy.EntityRows
        var entity: Entity
        /// Per column, the SQL of the value Molt stores.
        var expressions: [String]
        /// Per column, what the proof checks each source value against, and whether a null is unfit.
        var kinds: [(kind: SQLiteRowDigest.Kind, required: Bool)]
        /// Per column, the proof's arguments: the source value, and for a conversion the converted one after it.
        var arguments: [String]
    }

    /// The rendered entities, or why the copy does not fit the schema.
    func plans() -> (plans: [Plan], misfit: String?) {
        if let misfit = copy.misfit(in: schema) { return ([], misfit) }
        let plans = copy.entities.compactMap { rows -> Plan? in
            guard let entity = schema.effectiveEntity(named: rows.entity) else { return nil }
            var plan = Plan(rows: rows, entity: entity, expressions: [], kinds: [], arguments: [])
            for column in rows.columns {
                let (expression, kind) = Self.expression(column.meaning, column.source, key: rows.key)
                // A missing value would take the default when inserted object by object, and a required one is
                // refused: in SQL it would stay null, so a null is unfit for both.
                let required = entity.attribute(named: column.member).map { $0.defaultValue != nil || !$0.isOptional }
                plan.expressions.append(expression)
                plan.kinds.append((kind, required ?? false))
                plan.arguments += kind.arity == 2 ? [column.source, expression] : [column.source]
            }
            return plan
        }
        return (plans, nil)
    }

    /// The SQL of Molt's stored value of source value `x` of `meaning`, and what the proof checks `x` against.
    static func expression(
        _ meaning: RowCopy.Meaning, _ x: String, key: String
    ) -> (String, SQLiteRowDigest.Kind) {
        switch meaning {
        case .text: return (x, .string)
        case .bool: return (x, .bool)
        case .int16: return (x, .int16)
        case .int32: return (x, .int32)
        case .int64: return (x, .int64)
        case .double: return ("CAST(\(x) AS REAL)", .double)
        case .float: return ("CAST(\(x) AS REAL)", .float)
        case .secondsSince2001: return ("(\(x) + 978307200.0)", .secondsSince2001)
        case .uuidBytes:
            let hex = "hex(\(x))"
            let parts = [(1, 8), (9, 4), (13, 4), (17, 4), (21, 12)].map { "substr(\(hex), \($0.0), \($0.1))" }
            return ("CASE WHEN \(x) IS NULL THEN NULL ELSE \(parts.joined(separator: " || '-' || ")) END", .uuid)
        case .bytes: return (x, .blob)
        case .link: return (x, .link)
        case .converted(let index, let input):
            return (
                "\(function)(\(index), \(key), \(x))", input == .bytes ? .convertedBytes : .convertedNumberOrText
            )
        }
    }

    /// Registers ``function`` (the copy's conversions, or their proof's when `forProof`) and the digests on `db`. A
    /// conversion that throws makes its statement fail.
    static func register(_ conversions: [RowCopy.Conversion], forProof: Bool, in db: Database) {
        let function = DatabaseFunction(Self.function, argumentCount: 3, pure: false) { arguments in
            guard let index = Int.fromDatabaseValue(arguments[0]), conversions.indices.contains(index),
                let key = Int64.fromDatabaseValue(arguments[1])
            else { throw DatabaseError(message: "\(Self.function): no such conversion") }
            let stored: Value
            switch arguments[2].storage {
            case .null: return nil
            case .int64(let integer): stored = .int(integer)
            case .double(let real): stored = .double(real)
            case .string(let text): stored = .string(text)
            case .blob(let data): stored = .data(data)
            }
            let conversion = conversions[index]
            return try SQLiteStatement.databaseValue((forProof ? conversion.proof : conversion.convert)(key, stored))
        }
        db.add(function: function)
        SQLiteRowDigest.register(in: db)
    }

    /// Copies and proves in a savepoint of `db`, whose connection has the source attached; `finishing` runs after
    /// the last insert, before the proof, with the relationships the copy gave for at least one object. Nothing is
    /// left written unless the outcome is ``RowCopy/Outcome/copied(_:)``.
    func run(
        _ db: Database, finishing: ([(entity: String, relationship: String)]) throws -> Void
    ) throws
        -> RowCopy.Outcome
    {
        let (plans, misfit) = plans()
        if let misfit { return .unfit(misfit) }
        Self.register(copy.conversions, forProof: false, in: db)
        let proof = Proof(plans: plans, layout: layout)
        // The source's side of the proof is read on another thread while the copy writes.
        let (queries, source, conversions) = (proof.sourceQueries(), copy.source, copy.conversions)
        let original = BackgroundWork("Molt bulk copy proof") {
            try Proof.scanSource(queries, source: source, conversions: conversions)
        }
        var outcome = RowCopy.Outcome.unfit("")
        try db.inSavepoint {
            do {
                var given: [(entity: String, relationship: String)] = []
                for plan in plans { given += try insert(plan, db: db) }
                try finishing(given)
            } catch {
                _ = try? original.value()
                outcome = .unfit("the copy in SQL stopped (\(error))")
                return .rollback
            }
            if let beforeProof = copy.beforeProof { try db.execute(sql: beforeProof) }
            outcome = try proof.compare(db, source: original.value())
            if case .copied = outcome { return .commit }
            return .rollback
        }
        return outcome
    }

    /// Writes one entity's rows and its to-many relationships; returns the relationships given for at least one
    /// object (a to-one set, a to-many with a pair).
    private func insert(_ plan: Plan, db: Database) throws -> [(entity: String, relationship: String)] {
        let name = plan.entity.name, quote = SQLiteDialect.shared.quote
        var columns = [quote(StoreLayout.idColumn)] + plan.rows.columns.map { layout.column(name, $0.member) }
        var select = [plan.rows.key] + plan.expressions
        if layout.hierarchy(name) != nil {
            columns.append(quote(StoreLayout.entityColumn))
            select.append(SQLiteDialect.shared.literal(.string(name)))
        }
        try db.execute(
            sql:
                "INSERT INTO \(layout.table(name)) (\(columns.joined(separator: ", "))) SELECT \(select.joined(separator: ", ")) \(plan.rows.rows) ORDER BY \(plan.rows.key)"
        )
        var given: [(entity: String, relationship: String)] = []
        let own = layout.ownRowsCondition(name).map { " AND \($0)" } ?? ""
        for column in plan.rows.columns where column.meaning == .link {
            let set = try Bool.fetchOne(
                db,
                sql:
                    "SELECT EXISTS (SELECT 1 FROM \(layout.table(name)) WHERE \(layout.column(name, column.member)) IS NOT NULL\(own))"
            )
            if set == true { given.append((name, column.member)) }
        }
        for link in plan.rows.links {
            let ordered = plan.entity.relationship(named: link.relationship)?.isOrdered ?? false
            let pairColumns =
                [StoreLayout.ownerColumn, StoreLayout.targetColumn] + (ordered ? [StoreLayout.positionColumn] : [])
            let list = pairColumns.map(quote).joined(separator: ", ")
            try db.execute(
                sql:
                    "INSERT INTO \(layout.joinTable(name, link.relationship)) (\(list)) SELECT \(list) FROM (\(link.pairs))"
            )
            if db.changesCount > 0 { given.append((name, link.relationship)) }
        }
        return given
    }
}

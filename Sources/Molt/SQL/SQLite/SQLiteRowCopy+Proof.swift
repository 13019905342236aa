import Foundation
import GRDB

extension SQLiteRowCopy {
    /// The proof of a bulk copy, in SQL, in the copy's savepoint, one scan of each table on each side
    /// (``SQLiteRowDigest``):
    ///
    /// - per entity, the digest of the source's rows, each value checked against its meaning and converted in Swift
    ///   into what Molt stores (independently of the SQL that copied it), against the digest of the store's rows of
    ///   that entity as stored (key, attributes, to-one links, and a hierarchy's entity name; storage classes and
    ///   bytes);
    /// - per to-many relationship, the digest of the source's pairs (positions included) against the store's.
    ///
    /// A row, a value or a link missing, added or changed makes the entity's line disagree. A source value the copy
    /// would not have converted exactly makes the copy *unfit* instead, naming the first such object.
    struct Proof {
        let plans: [Plan]
        let layout: StoreLayout

        /// One query of the source's side: the digest of an entity's rows, or of one of its relationships' pairs.
        struct SourceQuery: Hashable, Sendable {
            var entity: String
            var relationship: String?
            var sql: String
        }

        /// The source's side of the proof, in the order ``compare(_:source:)`` reads it.
        func sourceQueries() -> [SourceQuery] {
            plans.flatMap { plan in
                [SourceQuery(entity: plan.entity.name, relationship: nil, sql: sourceRows(plan))]
                    + plan.rows.links.map { link in
                        SourceQuery(
                            entity: plan.entity.name, relationship: link.relationship, sql: sourcePairs(link, plan))
                    }
            }
        }

        /// Runs `queries` on a connection of its own with `source` attached as the copy attaches it, with the
        /// proof's conversions, up to the first that finds an unfit value: what runs while the copy writes.
        static func scanSource(
            _ queries: [SourceQuery], source: String, conversions: [RowCopy.Conversion]
        ) throws -> [SourceQuery: SQLiteRowDigest.Result] {
            var configuration = Configuration()
            configuration.label = "Molt.SQLiteRowCopy.Proof"
            configuration.busyMode = .timeout(30)  // beside other readers of the same file
            let queue = try DatabaseQueue(configuration: configuration)
            return try queue.inDatabase { db in
                SQLiteRowCopy.register(conversions, forProof: true, in: db)
                let schema = SQLiteDialect.shared.quote(RowCopy.sourceSchema)
                try db.execute(sql: "ATTACH DATABASE ? AS \(schema)", arguments: [source])
                defer { try? db.execute(sql: "DETACH DATABASE \(schema)") }
                var results: [SourceQuery: SQLiteRowDigest.Result] = [:]
                for query in queries {
                    let result = try SQLiteRowDigest.fetch(db, sql: query.sql)
                    results[query] = result
                    if result.unfit != nil { break }
                }
                return results
            }
        }

        /// Compares the store, read in `db`, with the source's side read by
        /// ``scanSource(_:source:conversions:)``.
        func compare(_ db: Database, source: [SourceQuery: SQLiteRowDigest.Result]) throws -> RowCopy.Outcome {
            var lines: [RowCopy.Line] = []
            var queries = sourceQueries()[...]
            for plan in plans {
                let name = plan.entity.name
                guard let rowsQuery = queries.popFirst(), let rows = source[rowsQuery] else { throw Self.defect(name) }
                if let unfit = rows.unfit {
                    let names = ["key"] + plan.rows.columns.map(\.member)
                    let member = names.indices.contains(unfit.column) ? "'\(names[unfit.column])' " : ""
                    return .unfit(
                        "'\(name)' holds a value the copy in SQL does not convert (\(member)of object \(unfit.key))")
                }
                let copied = try SQLiteRowDigest.fetch(db, sql: storedRows(plan))
                var agree = rows.agrees(with: copied)
                for link in plan.rows.links {
                    guard let pairsQuery = queries.popFirst(), let pairs = source[pairsQuery] else {
                        throw Self.defect("\(name).\(link.relationship)")
                    }
                    if let unfit = pairs.unfit {
                        return .unfit(
                            "'\(name).\(link.relationship)' holds a link that is not a key (object \(unfit.key))")
                    }
                    agree = try agree && pairs.agrees(with: storedPairs(link, plan, db: db))
                }
                lines.append(
                    RowCopy.Line(
                        entity: name, sourceCount: Int(rows.count), copiedCount: Int(copied.count), agree: agree))
            }
            return lines.allSatisfy(\.holds) ? .copied(lines) : .disagreed(lines)
        }

        private static func defect(_ what: String) -> MoltError {
            MoltError(
                .validationFailed,
                "The proof of a bulk copy has no digest of '\(what)', so nothing was written and the store was left as it was. This is a defect of Molt: report it with this message."
            )
        }

        /// Whether `plan`'s entity is stored with its entity's name beside its values (a hierarchy's table).
        private func named(_ plan: Plan) -> Bool { layout.hierarchy(plan.entity.name) != nil }

        /// The digest of the entity's source rows: key, columns, and for a hierarchy the entity's name.
        private func sourceRows(_ plan: Plan) -> String {
            var kinds: [(kind: SQLiteRowDigest.Kind, required: Bool)] = [(.key, true)] + plan.kinds
            var arguments = [plan.rows.key] + plan.arguments
            if named(plan) {
                kinds.append((.any, false))
                arguments.append(SQLiteDialect.shared.literal(.string(plan.entity.name)))
            }
            let literal = SQLiteDialect.shared.literal(.string(SQLiteRowDigest.kinds(kinds)))
            return
                "SELECT \(SQLiteRowDigest.source)(\(literal), \(arguments.joined(separator: ", "))) \(plan.rows.rows)"
        }

        /// The digest of the entity's rows in the store, in the order of ``sourceRows(_:)``.
        private func storedRows(_ plan: Plan) -> String {
            let name = plan.entity.name
            var columns = [SQLiteDialect.shared.quote(StoreLayout.idColumn)]
            columns += plan.rows.columns.map { layout.column(name, $0.member) }
            if named(plan) { columns.append(SQLiteDialect.shared.quote(StoreLayout.entityColumn)) }
            let own = layout.ownRowsCondition(name).map { " WHERE \($0)" } ?? ""
            return
                "SELECT \(SQLiteRowDigest.stored)(\(columns.joined(separator: ", "))) FROM \(layout.table(name))\(own)"
        }

        private func pairNames(_ link: RowCopy.Link, _ plan: Plan) -> [String] {
            let ordered = plan.entity.relationship(named: link.relationship)?.isOrdered ?? false
            return [StoreLayout.ownerColumn, StoreLayout.targetColumn] + (ordered ? [StoreLayout.positionColumn] : [])
        }

        /// The digest of a relationship's source pairs (and positions).
        private func sourcePairs(_ link: RowCopy.Link, _ plan: Plan) -> String {
            let names = pairNames(link, plan).map(SQLiteDialect.shared.quote)
            let kinds = SQLiteRowDigest.kinds(names.map { _ in (.key, true) })
            return
                "SELECT \(SQLiteRowDigest.source)(\(SQLiteDialect.shared.literal(.string(kinds))), \(names.joined(separator: ", "))) FROM (\(link.pairs))"
        }

        /// The digest of a relationship's pairs (and positions) in the store, for the entity's owners.
        private func storedPairs(_ link: RowCopy.Link, _ plan: Plan, db: Database) throws -> SQLiteRowDigest.Result {
            let quote = SQLiteDialect.shared.quote, name = plan.entity.name
            // Only the entity's owners when its table holds a hierarchy's rows (the join table then being shared).
            let owners =
                layout.ownRowsCondition(name).map {
                    " JOIN \(layout.table(name)) AS m ON m.\(quote(StoreLayout.idColumn)) = j.\(quote(StoreLayout.ownerColumn)) AND m.\($0)"
                } ?? ""
            let columns = pairNames(link, plan).map { "j.\(quote($0))" }.joined(separator: ", ")
            return try SQLiteRowDigest.fetch(
                db,
                sql:
                    "SELECT \(SQLiteRowDigest.stored)(\(columns)) FROM \(layout.joinTable(name, link.relationship)) AS j\(owners)"
            )
        }
    }
}

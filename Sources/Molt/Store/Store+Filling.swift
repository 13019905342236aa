import Foundation

extension Store {
    /// Creates a store at `location` at `schema`'s version and fills it with `fill`, in one exclusive
    /// transaction: other openers wait, and a failure (or a crash) leaves no store behind on a server and an
    /// empty file at most on SQLite. What an adoption writes its copy with.
    ///
    /// A to-many relationship that objects hold fewer destinations through than its minimum count is not refused:
    /// the original's engine let them be (Core Data checks minimum counts only at save), so `fill` reports them
    /// (`Objects.linksUnderMinimumCount(_:)`) and later writes hold the objects they change to it.
    ///
    /// - Parameter attachment: An SQLite file `fill` reads (`path`), attached to the new store's connection under
    ///   the schema name `name` before the transaction begins (SQLite refuses `ATTACH` inside one); SQLite only.
    /// - Throws: ``MoltError/Code/notAMoltStore`` when `location` already holds tables;
    ///   ``MoltError/Code/validationFailed`` when `fill` leaves a required to-one relationship empty; what `fill`
    ///   throws; ``MoltError/Code/invalidPlan`` for an attachment to a store that is not SQLite.
    package static func create(
        at location: StoreLocation, schema: Schema, attaching attachment: (path: String, name: String)? = nil,
        filling fill: (Objects) throws -> Void
    ) throws {
        try schema.validate()
        let database = try location.engine.open(options: Options())
        defer { try? database.close() }
        func fillInOneTransaction() throws {
            try database.exclusive { db in
                if try !db.tableNames().isEmpty { throw notAMoltStore(location) }
                try create(schema, in: db)
                try fill(Objects(db: db, schema: schema, isWritable: true))
                let layout = StoreLayout.standard(schema, dialect: db.dialect)
                if let empty = try EmptyRequiredLink.find(
                    in: db, schema: schema, layout: layout,
                    scope: { _, relationship in relationship.kind == .toOne ? .everyObject : nil }
                ).first {
                    throw empty.fillingRefusal
                }
                return true
            }
        }
        if let attachment {
            try database.attaching(attachment.path, as: attachment.name, fillInOneTransaction)
        } else {
            try fillInOneTransaction()
        }
        try database.finishOpening(journal: .wal, isNew: true)
    }
}

extension Objects {
    /// Each to-many relationship that objects hold fewer destinations through than its minimum count, one line
    /// each, for a new store filled from elsewhere (an adoption's record): `47 'Conversation' objects (_id 4, 7,
    /// 9, …) hold fewer than 1 'participantRoles' (Core Data checks minimum counts only at save); Molt keeps them
    /// and checks them when they are written`.
    ///
    /// - Parameter reason: Why the original holds them, in parentheses after the objects.
    package func linksUnderMinimumCount(_ reason: String) throws -> [String] {
        try EmptyRequiredLink.find(
            in: db, schema: schema, layout: layout,
            scope: { _, relationship in relationship.kind == .toMany ? .everyObject : nil }
        ).map { "\($0.keptPhrase) (\(reason)); Molt keeps them and checks them when they are written" }
    }
}

import Foundation
import Testing
@testable import Molt

/// A mapping's expression, filter and source key are expressions: anything else is refused, naming the mapping
/// and the text, before anything is written.
@Suite("Mappings: expressions that cannot escape")
struct MappingInjectionTests {
    static let v1 = Schema(version: 1) {
        Entity("Pet") {
            Attribute("name", .string); Attribute("age", .int)
        }
        Entity("Toy") {
            Attribute("label", .string); Relationship("owner", to: "Pet")
        }
    }
    static let v2 = Schema(version: 2) {
        Entity("Pet") {
            Attribute("name", .string); Attribute("age", .int); Attribute("nickname", .string, isOptional: true)
        }
        Entity("Toy") {
            Attribute("label", .string); Relationship("owner", to: "Pet")
        }
    }

    static func makeStore(_ url: URL, kind: StoreKind) throws {
        try makeStore(.file(url), kind: kind)
    }

    static func makeStore(_ location: StoreLocation, kind: StoreKind) throws {
        let store = try Store.open(at: location, schema: v1, options: kind.options)
        defer { try? store.close() }
        try store.write { objects in
            for name in ["Rex", "Tom"] {
                let pet = try objects.insert("Pet", ["name": .string(name), "age": 3])
                let toy = try objects.insert("Toy", ["label": "ball"])
                try objects.set("owner", of: toy, to: pet)
            }
        }
    }

    struct Injection: CustomTestStringConvertible, Sendable {
        var name: String
        var mapping: EntityMapping
        var problem: String
        /// What PostgreSQL's allow-list says, where it differs from SQLite's authorizer.
        var postgresProblem: String? = nil
        var testDescription: String { name }

        func problem(on kind: StoreKind) -> String { kind == .postgres ? postgresProblem ?? problem : problem }
    }

    static let prefix =
        "In the mapping of 'Pet' into 'Pet', the expression of 'Pet.nickname' is not one SQL expression over the old version's data: "

    static let injections: [Injection] = [
        Injection(
            name: "a statement after the expression",
            mapping: EntityMapping(destination: "Pet", attributes: ["nickname": "name); DELETE FROM \"Pet\"; --"]),
            problem:
                "In the mapping of 'Pet' into 'Pet', the expression of 'Pet.nickname' is not one SQL expression over the old version's data: `name); DELETE FROM \"Pet\"; --` — it closes a parenthesis it did not open."
        ),
        Injection(
            name: "a commit",
            mapping: EntityMapping(destination: "Pet", attributes: ["nickname": "name) WHERE 1; COMMIT; SELECT (1"]),
            problem:
                "In the mapping of 'Pet' into 'Pet', the expression of 'Pet.nickname' is not one SQL expression over the old version's data: `name) WHERE 1; COMMIT; SELECT (1` — it closes a parenthesis it did not open."
        ),
        Injection(
            name: "an ATTACH in the filter",
            mapping: EntityMapping(
                destination: "Pet", filter: "1; ATTACH DATABASE 'x.sqlite' AS x", attributes: ["nickname": "name"]),
            problem:
                "In the mapping of 'Pet' into 'Pet', the filter is not one SQL expression over the old version's data: `1; ATTACH DATABASE 'x.sqlite' AS x` — it contains ';', which ends a statement."
        ),
        Injection(
            name: "a second column",
            mapping: EntityMapping(destination: "Pet", attributes: ["nickname": "name, \"age\" = 99"]),
            problem:
                "In the mapping of 'Pet' into 'Pet', the expression of 'Pet.nickname' is not one SQL expression over the old version's data: `name, \"age\" = 99` — it is a list, not one expression (a ',' outside parentheses)."
        ),
        Injection(
            name: "a read of Molt's own tables",
            mapping: EntityMapping(
                destination: "Pet", attributes: ["nickname": "(SELECT value FROM _molt_metadata LIMIT 1)"]),
            problem:
                "In the mapping of 'Pet' into 'Pet', the expression of 'Pet.nickname' is not one SQL expression over the old version's data: `(SELECT value FROM _molt_metadata LIMIT 1)` — SQLite cannot read it: no such table: _molt_metadata.",
            postgresProblem: prefix
                + "`(SELECT value FROM _molt_metadata LIMIT 1)` — it names 'value', which is neither a name of the old version's entities nor a word of the read-only SQL a mapping may use."
        ),
        Injection(
            name: "a read of SQLite's catalog",
            mapping: EntityMapping(
                destination: "Pet", attributes: ["nickname": "(SELECT sql FROM sqlite_master LIMIT 1)"]),
            problem:
                "In the mapping of 'Pet' into 'Pet', the expression of 'Pet.nickname' is not one SQL expression over the old version's data: `(SELECT sql FROM sqlite_master LIMIT 1)` — it reads 'sqlite_master', which is not a table of the old version's entities.",
            postgresProblem: prefix
                + "`(SELECT sql FROM sqlite_master LIMIT 1)` — it names 'sql', which is neither a name of the old version's entities nor a word of the read-only SQL a mapping may use."
        ),
        Injection(
            name: "a function with side effects",
            mapping: EntityMapping(destination: "Pet", attributes: ["nickname": "load_extension('evil')"]),
            problem:
                "In the mapping of 'Pet' into 'Pet', the expression of 'Pet.nickname' is not one SQL expression over the old version's data: `load_extension('evil')` — it calls load_extension(), which a mapping may not call.",
            postgresProblem: prefix
                + "`load_extension('evil')` — it calls load_extension(), which a mapping may not call on PostgreSQL (functions without side effects only)."
        ),
        Injection(
            name: "a comment that hides the rest",
            mapping: EntityMapping(destination: "Pet", attributes: ["nickname": "name --"]),
            problem:
                "In the mapping of 'Pet' into 'Pet', the expression of 'Pet.nickname' is not one SQL expression over the old version's data: `name --` — it contains a comment."
        ),
    ]

    /// What only PostgreSQL could be asked to run: it has no authorizer, so its allow-list must refuse these.
    static let postgresInjections: [Injection] = [
        (
            "pg_sleep(5)",
            "it calls pg_sleep(), which a mapping may not call on PostgreSQL (functions without side effects only)"
        ),
        (
            "set_config('search_path', 'public', false)",
            "it calls set_config(), which a mapping may not call on PostgreSQL (functions without side effects only)"
        ),
        (
            "(SELECT passwd FROM pg_shadow LIMIT 1)",
            "it names 'passwd', which is neither a name of the old version's entities nor a word of the read-only SQL a mapping may use"
        ),
        (
            "(SELECT name FROM pg_catalog.pg_class LIMIT 1)",
            "it names 'pg_catalog', which is neither a name of the old version's entities nor a word of the read-only SQL a mapping may use"
        ),
        ("$$x$$", "it contains '$' (a dollar-quoted string or a parameter), which a mapping may not use"),
        (
            "(SELECT name FROM \"Pet\" FOR UPDATE)",
            "it names 'update', which is neither a name of the old version's entities nor a word of the read-only SQL a mapping may use"
        ),
        (
            "CAST(name AS regclass)",
            "it names 'regclass', which is neither a name of the old version's entities nor a word of the read-only SQL a mapping may use"
        ),
        (
            "(WITH x AS (DELETE FROM \"Toy\" RETURNING 1) SELECT name)",
            "it names 'with', which is neither a name of the old version's entities nor a word of the read-only SQL a mapping may use"
        ),
    ].map { text, problem in
        Injection(
            name: text, mapping: EntityMapping(destination: "Pet", attributes: ["nickname": text]),
            problem: prefix + "`\(text)` — \(problem).")
    }

    @Test(
        "an injected statement, clause, write or read is refused and the store is unchanged",
        arguments: StoreKind.durable, injections)
    func refused(kind: StoreKind, injection: Injection) throws {
        try refuse(injection, on: kind)
    }

    @Test(
        "on PostgreSQL, functions with side effects, the catalog and statements inside parentheses are refused",
        arguments: postgresInjections)
    func refusedOnPostgres(injection: Injection) throws {
        try refuse(injection, on: .postgres)
    }

    private func refuse(_ injection: Injection, on kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try Self.makeStore(location, kind: kind)
        let bytes = FileState(location)
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2], stages: [.mapping(from: 1, to: 2, [injection.mapping])])
        let error = moltError {
            _ = try Store.open(at: location, schema: Self.v2, options: kind.options.migrating(with: plan))
        }
        #expect(error?.code == .invalidValue)
        #expect(
            error?.message == injection.problem(on: kind)
                + " A mapping may read the entities of version 1 and call SQL functions; it cannot run statements, write, or read other tables. Nothing was written."
        )
        #expect(FileState(location) == bytes)
        // ATTACH 'x.sqlite' would create the file in the process's current folder.
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/x.sqlite"))
    }

    @Test(
        "an expression that combines rows (an aggregate, a window function) is refused before any write",
        arguments: StoreKind.files, ["count(*)", "max(name)", "row_number() OVER (ORDER BY name)"])
    func rowCombiningRefused(kind: StoreKind, expression: String) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try Self.makeStore(url, kind: kind)
        let bytes = FileState(url)
        // Computed in the one rebuild of 'Pet', such an expression would keep one row per chunk.
        let v2 = Self.v2.next(2) {
            $0.edit("Pet") {
                $0.editAttribute("nickname") {
                    $0.isOptional = false; $0.defaultValue = "x"
                }
            }
        }
        let plan = try MigrationPlan(
            schemas: [Self.v1, v2],
            stages: [
                .mapping(from: 1, to: 2, [EntityMapping(destination: "Pet", attributes: ["nickname": expression])])
            ])
        let error = moltError { _ = try Store.open(at: url, schema: v2, options: kind.options.migrating(with: plan)) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.hasPrefix(Self.prefix + "`\(expression)` — SQLite cannot read it: misuse of ") == true)
        #expect(FileState(url) == bytes)
        #expect(try Store.version(at: url) == 1)
    }

    @Test(
        "expressions with functions, CASE, casts and reads of other old entities are allowed",
        arguments: StoreKind.durable)
    func allowed(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = try kind.location(in: dir)
        try Self.makeStore(url, kind: kind)
        let expression =
            "CASE WHEN age > 2 THEN replace(upper(name), 'R', 'r') || '/' || CAST((SELECT COUNT(*) FROM \"Toy\" WHERE \"Toy\".\"owner\" = \"Pet\".\"_id\") AS TEXT) ELSE NULL END"
        let plan = try MigrationPlan(
            schemas: [Self.v1, Self.v2],
            stages: [
                .mapping(
                    from: 1, to: 2,
                    [
                        EntityMapping(
                            destination: "Pet", filter: "name <> 'nobody'", attributes: ["nickname": expression])
                    ])
            ])
        let store = try Store.open(at: url, schema: Self.v2, options: kind.options.migrating(with: plan))
        defer { try? store.close() }
        #expect(try store.read { try $0.fetch("Pet").map { $0["nickname"] } } == ["rEX/1", "TOM/1"])
    }

    @Test("the expression check reads SQL as tokens: quotes, parentheses, CASE … END, function names")
    func tokens() {
        #expect(SQLExpressionCheck.problem(in: "'a;b' || \"c)\"") == nil)
        #expect(SQLExpressionCheck.problem(in: "CASE WHEN x THEN 1 ELSE 2 END") == nil)
        #expect(SQLExpressionCheck.problem(in: "replace(name, 'a', 'b')") == nil)
        #expect(SQLExpressionCheck.problem(in: "(SELECT 1 FROM \"Toy\")") == nil)
        #expect(SQLExpressionCheck.problem(in: "x FROM y") == "it contains the keyword FROM outside parentheses")
        #expect(SQLExpressionCheck.problem(in: "(x") == "a parenthesis is not closed")
        #expect(SQLExpressionCheck.problem(in: "'x") == "a quote or bracket is not closed")
        #expect(SQLExpressionCheck.problem(in: "  ") == "it is empty")
    }
}

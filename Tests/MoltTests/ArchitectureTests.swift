import Foundation
import Testing

/// The folders of the `Molt` module form an acyclic graph: each may use the types of the folders before it,
/// never those after it (Support ← Schema ← SQL ← Objects ← Migration ← Store ← {Tooling, Typed} ← Observation).
@Suite("Architecture")
struct ArchitectureTests {
    static let layers = [
        "Support", "Schema", "SQL", "Objects", "Migration", "Store", "Tooling", "Typed", "Observation",
    ]

    /// `Sources/Molt`, found from this file.
    static var moduleFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Sources/Molt")
    }

    static func swiftFiles(in folder: String) throws -> [URL] {
        let root = moduleFolder.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    /// The source without comments and string literals.
    static func code(_ url: URL) throws -> String {
        var text = try String(contentsOf: url, encoding: .utf8)
        for pattern in [#"/\*[\s\S]*?\*/"#, #"//[^\n]*"#, #""""[\s\S]*?""""#, #""(?:\\.|[^"\\\n])*""#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        return text
    }

    /// The top-level types each folder declares.
    static func declarations() throws -> [String: String] {
        var result: [String: String] = [:]
        let pattern = try NSRegularExpression(
            pattern:
                #"^(?:(?:public|package|internal|final|indirect)\s+)*(?:struct|class|enum|protocol|typealias|actor)\s+([A-Z]\w*)"#,
            options: .anchorsMatchLines)
        for layer in layers {
            for file in try swiftFiles(in: layer) {
                let text = try code(file)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 1), in: text), result[String(text[range])] == nil {
                        result[String(text[range])] = layer
                    }
                }
            }
        }
        return result
    }

    @Test("no folder uses a type of a folder after it")
    func acyclic() throws {
        let declared = try Self.declarations()
        #expect(declared["Schema"] == "Schema" && declared["Store"] == "Store" && declared["SQLConnection"] == "SQL")
        var violations: [String] = []
        for (rank, layer) in Self.layers.enumerated() {
            for file in try Self.swiftFiles(in: layer) {
                let text = try Self.code(file)
                for (name, owner) in declared {
                    guard let ownerRank = Self.layers.firstIndex(of: owner), ownerRank > rank,
                        !(["Tooling", "Typed"].contains(owner) && ["Tooling", "Typed"].contains(layer)),
                        text.range(of: #"\b\#(name)\b"#, options: .regularExpression) != nil
                    else { continue }
                    violations.append("\(layer)/\(file.lastPathComponent) uses \(name) (\(owner))")
                }
            }
        }
        #expect(violations.sorted() == [])
    }

    /// The top-level types of the SQLite engine (`SQL/SQLite`).
    static func sqliteTypes() throws -> Set<String> {
        let pattern = try NSRegularExpression(
            pattern:
                #"^(?:(?:public|package|internal|final|indirect)\s+)*(?:struct|class|enum|protocol|typealias|actor)\s+([A-Z]\w*)"#,
            options: .anchorsMatchLines)
        var names: Set<String> = []
        for file in try swiftFiles(in: "SQL/SQLite") {
            let text = try code(file)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
            }
        }
        return names
    }

    /// Above the seam, code speaks ``SQLConnection``, ``SQLDatabase`` and ``SQLSchemaChange``: it never names an
    /// engine's type (SQLite's, in `SQL/SQLite`; PostgreSQL's, in `MoltPostgres`) nor imports one, so that what an
    /// engine does differently is one of its capabilities rather than a downcast.
    @Test("nothing above SQL/ names an engine's type or imports an engine")
    func noEngineAboveTheSeam() throws {
        let engineTypes = try Self.sqliteTypes()
        #expect(
            engineTypes.contains("SQLiteDatabase") && engineTypes.contains("SQLiteConnection")
                && engineTypes.contains("SQLiteDialect"))
        var violations: [String] = []
        for layer in Self.layers.drop(while: { $0 != "SQL" }).dropFirst() {
            for file in try Self.swiftFiles(in: layer) {
                let text = try Self.code(file)
                let named = engineTypes.filter { text.range(of: #"\b\#($0)\b"#, options: .regularExpression) != nil }
                for name in named.sorted() { violations.append("\(layer)/\(file.lastPathComponent) names \(name)") }
                for pattern in [
                    #"\bPostgres[A-Z]\w*"#, #"\bimport\s+(GRDB\w*|MoltPostgres|PostgresNIO)\b"#, #"\bsqlite3_\w+"#,
                ] {
                    if let range = text.range(of: pattern, options: .regularExpression) {
                        violations.append("\(layer)/\(file.lastPathComponent) names \(text[range])")
                    }
                }
            }
        }
        #expect(violations.sorted() == [])
    }

    /// MoltPostgres learns what a statement does from its ``SQLStatementKind`` or ``SQLSchemaChange``, never by
    /// reading its text: no regular expression, and no prefix, suffix or keyword test on a statement's SQL. Two
    /// files read SQL on purpose and are left out: `PostgresPlaceholders` (`?` becomes `$n`, a rendering) and the
    /// checks and translation of users' mapping expressions (`PostgresQueryChecker`, `PostgresDialect+Expressions`).
    /// Molt's own helper functions are created because the session's dialect noted a call to one as it rendered it
    /// (`PostgresFunctionUse`), never because a statement's text names one.
    @Test("MoltPostgres reads no statement's SQL to find out what it means")
    func noIntentParsingInPostgres() throws {
        let folder = Self.moduleFolder.deletingLastPathComponent().appendingPathComponent("MoltPostgres")
        let readers: Set<String> = [
            "PostgresPlaceholders.swift", "PostgresQueryChecker.swift", "PostgresDialect+Expressions.swift",
        ]
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" && !readers.contains($0.lastPathComponent) }
        #expect(files.count > 10)
        var found: [String] = []
        let patterns = [
            #"NSRegularExpression|firstMatch\(|\.matches\(in"#,
            #"\b(sql|statement|upper|head)\.(hasPrefix|hasSuffix|uppercased|lowercased|range|drop|prefix|firstIndex|components|split)\b"#,
            #"\b(sql|statement)\.contains\("#,
        ]
        for file in files {
            let text = try Self.code(file)
            for pattern in patterns {
                if let range = text.range(of: pattern, options: .regularExpression) {
                    found.append("\(file.lastPathComponent): \(text[range])")
                }
            }
        }
        #expect(found.sorted() == [])
    }

    @Test("no source file of the library is over 400 lines")
    func smallFiles() throws {
        var long: [String] = []
        for layer in Self.layers {
            for file in try Self.swiftFiles(in: layer) {
                let lines = try String(contentsOf: file, encoding: .utf8).split(
                    separator: "\n", omittingEmptySubsequences: false
                ).count
                if lines > 400 { long.append("\(layer)/\(file.lastPathComponent): \(lines) lines") }
            }
        }
        #expect(long == [])
    }

    /// Every source folder of the package: the library, its PostgreSQL engine, the CLI, the test kit, the macros.
    static var sourceFiles: [URL] {
        let sources = moduleFolder.deletingLastPathComponent()
        guard let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test("no function or initializer of the package's sources is over 60 lines")
    func shortFunctions() throws {
        var long: [String] = []
        let files = Self.sourceFiles
        #expect(files.count > 100)
        for file in files {
            let source = try String(contentsOf: file, encoding: .utf8)
            for function in SwiftSourceScanner.functions(in: source) where function.lines > 60 {
                long.append(
                    "\(file.deletingLastPathComponent().lastPathComponent)/\(file.lastPathComponent): \(function)")
            }
        }
        #expect(long.sorted() == [])
    }

    @Test("the scanner measures bodies, skipping braces in strings, interpolations and comments")
    func scanner() {
        let source = #"""
            protocol P { func required() }
            struct S {
                // func commented() {
                func one() -> String {
                    let text = "{ \(["a"].map { "\($0) }" }.joined()) {"
                    /* { nested /* } */ { */
                    return #"{"# + """
                        }}}
                        """
                }
                init?(x: Int) { }
            }
            """#
        let functions = SwiftSourceScanner.functions(in: source)
        #expect(functions.map(\.name) == ["one", "init?"])
        #expect(functions.map(\.lines) == [7, 1])
        #expect(functions.first?.line == 4)
    }
}

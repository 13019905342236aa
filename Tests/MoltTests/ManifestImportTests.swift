import Foundation
import Testing

/// Every module a target's sources import is declared among its dependencies in `Package.swift` (system
/// modules aside): an import that works only because another dependency brings the module along breaks when
/// that dependency changes, and says nothing true about what the target needs.
@Suite("Package.swift declares every import")
struct ManifestImportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Modules of the platform and the toolchain, which no manifest lists.
    static let system: Set<String> = [
        "Foundation", "FoundationXML", "FoundationNetworking", "FoundationEssentials", "Dispatch", "Glibc", "Darwin",
        "Observation", "Testing", "XCTest", "Synchronization", "os",
    ]

    /// The modules the Swift files under `folder` import.
    static func imports(in folder: URL) throws -> Set<String> {
        let pattern = try NSRegularExpression(
            pattern:
                #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal)\s+)?import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?([A-Za-z_]\w*)"#,
            options: .anchorsMatchLines)
        var result: Set<String> = []
        let files =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let text = try ArchitectureTests.code(file)  // comments and strings may say "import" too
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { result.insert(String(text[range])) }
            }
        }
        return result
    }

    /// Each target of the manifest: its name, its folder, and the modules it depends on (targets by name,
    /// products by name).
    static func targets() throws -> [(name: String, folder: String, dependencies: Set<String>)] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let kinds = #"\.(target|testTarget|executableTarget|macro)\("#
        let starts = try NSRegularExpression(pattern: kinds).matches(
            in: manifest, range: NSRange(manifest.startIndex..., in: manifest))
        var result: [(String, String, Set<String>)] = []
        var end = manifest.startIndex
        for start in starts {
            // A `.target(name:condition:)` among another target's dependencies is not a target of its own.
            guard let range = Range(start.range, in: manifest), range.lowerBound >= end else { continue }
            let kind = String(manifest[range].dropFirst().dropLast())
            let body = balanced(manifest[range.upperBound...])
            end = manifest.index(range.upperBound, offsetBy: body.count)
            guard let name = firstString(after: "name:", in: body) else { continue }
            let folder =
                firstString(after: "path:", in: body) ?? "\(kind == "testTarget" ? "Tests" : "Sources")/\(name)"
            var dependencies: Set<String> = []
            if let list = body.range(of: "dependencies:") {
                let deps = balanced(body[list.upperBound...].drop { $0 != "[" }.dropFirst(), open: "[", close: "]")
                // Every string: targets by name, products by name (a package's name is never a module's).
                let literal = try NSRegularExpression(pattern: #""([^"]+)""#)
                for match in literal.matches(in: deps, range: NSRange(deps.startIndex..., in: deps)) {
                    if let r = Range(match.range(at: 1), in: deps) { dependencies.insert(String(deps[r])) }
                }
            }
            result.append((name, folder, dependencies))
        }
        return result
    }

    /// The text up to the parenthesis (or bracket) that closes the one just opened.
    static func balanced(_ text: Substring, open: Character = "(", close: Character = ")") -> String {
        var depth = 1
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == open { depth += 1 }
            if text[index] == close {
                depth -= 1
                if depth == 0 { break }
            }
            index = text.index(after: index)
        }
        return String(text[..<index])
    }

    /// The string literals that directly follow `label`.
    static func strings(after label: String, in text: String) -> [String] {
        text.components(separatedBy: label).dropFirst().compactMap { part in
            let trimmed = part.drop { $0 == " " }
            guard trimmed.first == "\"" else { return nil }
            return String(trimmed.dropFirst().prefix { $0 != "\"" })
        }
    }

    static func firstString(after label: String, in text: String) -> String? {
        strings(after: label, in: text).first
    }

    @Test("each target's imports are among its declared dependencies")
    func importsDeclared() throws {
        let targets = try Self.targets()
        #expect(targets.count >= 15, "the manifest's targets were not found: \(targets.map(\.name))")
        for target in targets {
            let folder = Self.root.appendingPathComponent(target.folder)
            guard FileManager.default.fileExists(atPath: folder.path) else {
                Issue.record("target \(target.name): no folder \(target.folder)")
                continue
            }
            let undeclared = try Self.imports(in: folder).subtracting(Self.system).subtracting(target.dependencies)
                .subtracting([target.name])
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring them")
        }
    }

    @Test("the reader finds a target's dependencies, bare and as products")
    func reader() throws {
        let adoption = try #require(try Self.targets().first { $0.name == "MoltAdoption" })
        #expect(adoption.folder == "Sources/MoltAdoption")
        #expect(adoption.dependencies.isSuperset(of: ["Molt", "GRDB", "GRDBSQLite"]))
        // The adoption writes through the core (`ObjectImporter`, `RowCopy`), not through the tooling module.
        #expect(!adoption.dependencies.contains("MoltTooling"))
        let worker = try #require(try Self.targets().first { $0.name == "molt-test-worker" })
        #expect(worker.folder == "Tests/Worker")
    }
}

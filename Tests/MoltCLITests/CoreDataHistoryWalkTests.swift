import Foundation
import Molt
import Testing

/// The four real Core Data histories of `../shared/coredata-models/` (218 steps), converted by `molt convert-model`
/// into a folder of snapshots with a mapping file for each step the app shipped a mapping model for, and walked
/// through `molt migrate STORE --to DIR`: from the first version to the last in one command, and version by version,
/// every value of every object and both sides of every link compared with what the walk must leave.
@Suite(
    "Real Core Data histories walk through the CLI",
    .enabled(
        if: FileManager.default.fileExists(atPath: HistoryWalk.shared.path),
        "../shared/coredata-models is absent beside the package: the real histories are test data kept outside the repository"
    ))
struct CoreDataHistoryWalkTests {
    @Test(
        "the folder walks from the first version to the last, and every step keeps every value and link",
        arguments: HistoryApp.all)
    func walk(_ app: HistoryApp) throws {
        let outcome = try HistoryWalk(app: app).run()
        let failures = outcome.failures
        #expect(
            outcome.wholeWalkFailure == nil,
            "\(app.name): the walk 1 → \(outcome.versions) in one molt migrate: \(outcome.wholeWalkFailure ?? "")")
        #expect(
            failures.isEmpty,
            "\(app.name): steps that fail:\n\(failures.keys.sorted().map { "  \($0 - 1) → \($0): \(failures[$0]!)" }.joined(separator: "\n"))"
        )
        #expect(outcome.steps.map(\.to) == Array(2...outcome.versions))
        print(
            "\(app.name): walk 1 → \(outcome.versions) in one command \(outcome.wholeWalkFailure == nil ? "passes" : "fails"); \(outcome.steps.count) steps one by one, \(outcome.steps.count - failures.count) pass; store created again \(outcome.reseeds) times; seconds in molt: \(outcome.seconds.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", "))"
        )
    }

    @Test("the versions are ordered as each app shipped them", arguments: HistoryApp.all)
    func order(_ app: HistoryApp) throws {
        let dir = TemporaryDirectory()
        let result = try Molt.run([
            "convert-model", HistoryWalk.shared.appendingPathComponent(app.model).path, "--out", dir.url.path,
            "--approximate", "all",
        ])
        #expect(result.status == 0, "\(result)")
        let names = try String(contentsOf: dir.file("coredata-versions.txt"), encoding: .utf8)
            .split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
        switch app.name {
        case "WooCommerce":  // MIGRATIONS.md logs Model 1 … 117 in this order
            #expect(names == ["Model"] + (2...117).map { "Model \($0)" })
        case "Mastodon":
            #expect(names == ["CoreData"] + (2...9).map { "CoreData \($0)" })
        case "Simplenote":  // version 1 exists only in the pre-Xcode-4 binary form
            #expect(names == (2...7).map { "Simplenote \($0)" })
        default:  // Wire: its first model, then its releases 1.27 … 2.101.0
            #expect(names.count == 90)
            #expect(
                Array(names.prefix(5)) == [
                    "zmessaging", "zmessaging1.27", "zmessaging1.28", "zmessaging2.3", "zmessaging2.4",
                ])
            let around = names.firstIndex(of: "zmessaging2.24").map { Array(names[$0...($0 + 2)]) }
            #expect(around == ["zmessaging2.24", "zmessaging2.24.1", "zmessaging2.25.0"])
            #expect(names.last == "zmessaging2.101.0")
        }
    }

    /// Issue 22: Integer 16/32, Float and Decimal are written exactly, in every version of every app (Wire's 26
    /// sized integers, WooCommerce's 15 decimals): each attribute of one of those types in a Core Data version is an
    /// int16, int32, float or decimal attribute of its snapshot, and no approximation names them.
    @Test("every version's Integer 16/32, Float and Decimal attributes are written exactly", arguments: HistoryApp.all)
    func exactNumberTypes(_ app: HistoryApp) throws {
        let dir = TemporaryDirectory()
        let model = HistoryWalk.shared.appendingPathComponent(app.model)
        let result = try Molt.run([
            "convert-model", model.path, "--out", dir.url.path, "--approximate", "all", "--json",
        ])
        #expect(result.status == 0, "\(result)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let kinds = Set((report["approximations"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String })
        #expect(kinds.isDisjoint(with: ["sized-integers", "float", "decimal"]))
        let versions = try String(contentsOf: dir.file("coredata-versions.txt"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let types: [String: AttributeType] = [
            "Integer 16": .int16, "Integer 32": .int32, "Float": .float, "Decimal": .decimal,
        ]
        var seen = 0
        for version in versions {
            let contents = model.appendingPathComponent("\(version[1]).xcdatamodel/contents")
            let names = try Self.attributeNames(in: String(contentsOf: contents, encoding: .utf8), types: types)
            let schema = try Schema(snapshotJSON: Data(contentsOf: dir.file("\(version[0]).json")))
            for (coreDataType, type) in types {
                let written = Set(schema.entities.flatMap(\.attributes).filter { $0.type == type }.map(\.name))
                #expect(written == names[coreDataType, default: []], "\(app.name) \(version[1]): \(coreDataType)")
                seen += names[coreDataType, default: []].count
            }
        }
        if app.name == "WooCommerce" || app.name == "Wire" { #expect(seen > 0) }
    }

    /// Issue 22: every version of every app converts without approximating hierarchies or required to-many
    /// relationships (one conversion per app, both checked):
    /// - Core Data's hierarchies are Molt's (Wire's `Message` and its 6 sub-entities, whose siblings declare
    ///   `delivered` and more each; Simplenote's): each sub-entity has the same parent in its snapshot;
    /// - Core Data's non-optional to-manys (Wire's, Mastodon's, WooCommerce's) are Molt minimum counts.
    @Test(
        "every version converts with its hierarchies and required to-manys as Molt's, without approximation",
        arguments: HistoryApp.all)
    func hierarchiesAndMinimumCounts(_ app: HistoryApp) throws {
        let dir = TemporaryDirectory()
        let model = HistoryWalk.shared.appendingPathComponent(app.model)
        let result = try Molt.run([
            "convert-model", model.path, "--out", dir.url.path, "--hierarchies", "--approximate", "all", "--json",
        ])
        #expect(result.status == 0, "\(result)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let kinds = Set((report["approximations"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String })
        #expect(!kinds.contains("inheritance"))
        #expect(!kinds.contains("required-relationships"))
        let versions = try String(contentsOf: dir.file("coredata-versions.txt"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let entityBlock = try NSRegularExpression(
            pattern: "<entity\\s(?:[^>]*/>|[^>]*[^/]>.*?</entity>)", options: [.dotMatchesLineSeparators])
        let entityTag = try NSRegularExpression(pattern: "<entity\\s[^>]*>")
        let relationshipTag = try NSRegularExpression(pattern: "<relationship\\s[^>]*>")
        var (subEntities, required) = (0, 0)
        for version in versions {
            let contents = try String(
                contentsOf: model.appendingPathComponent("\(version[1]).xcdatamodel/contents"), encoding: .utf8)
            let schema = try Schema(snapshotJSON: Data(contentsOf: dir.file("\(version[0]).json")))
            for block in entityBlock.matches(in: contents, range: NSRange(contents.startIndex..., in: contents)) {
                let text = String(contents[Range(block.range, in: contents)!])
                guard let start = entityTag.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                    case let tag = String(text[Range(start.range, in: text)!]), let entity = Self.value("name", tag)
                else { continue }
                let parent = Self.value("parentEntity", tag)
                #expect(schema.entity(named: entity)?.parent == parent, "\(app.name) \(version[1]): \(entity)")
                if parent != nil { subEntities += 1 }
                for match in relationshipTag.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let tag = String(text[Range(match.range, in: text)!])
                    // A transient relationship is not stored, so not written.
                    guard Self.value("toMany", tag) == "YES", Self.value("transient", tag) != "YES",
                        let name = Self.value("name", tag)
                    else { continue }
                    let minimum =
                        Self.value("optional", tag) == "YES"
                        ? 0 : max(Self.value("minCount", tag).flatMap { Int($0) } ?? 1, 1)
                    let written = schema.entity(named: entity)?.relationship(named: name)?.minimumCount
                    #expect(written == minimum, "\(app.name) \(version[1]): \(entity).\(name)")
                    if minimum > 0 { required += 1 }
                }
            }
        }
        if app.name == "Wire" || app.name == "Simplenote" { #expect(subEntities > 0) }
        if app.name != "Simplenote" { #expect(required > 0) }
    }

    /// The value of attribute `key` of an XML start tag.
    static func value(_ key: String, _ element: String) -> String? {
        guard let range = element.range(of: " \(key)=\""), let end = element[range.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return String(element[range.upperBound..<end])
    }

    /// The names of the stored attributes of each of `types` in a Core Data model's `contents`.
    static func attributeNames(in contents: String, types: [String: AttributeType]) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        let tag = try NSRegularExpression(pattern: "<attribute\\s[^>]*>")
        let value = Self.value
        for match in tag.matches(in: contents, range: NSRange(contents.startIndex..., in: contents)) {
            let element = String(contents[Range(match.range, in: contents)!])
            guard let name = value("name", element), let type = value("attributeType", element), types[type] != nil,
                value("transient", element) != "YES"
            else { continue }
            result[type, default: []].insert(name)
        }
        return result
    }
}

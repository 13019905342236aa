import Foundation
import Molt

/// The memo app of seed 000 (a Realm app's `UserMemo`), at each of its seven versions, and what each version
/// changed there.
enum DemoSchemas {
    /// One version of the app: its schema and what the Realm app did at that version.
    struct Version {
        var schema: Schema
        var story: String
    }

    static let entity = "UserMemo"

    /// Versions 0 through 6, oldest first.
    static let versions: [Version] = [
        Version(schema: v0, story: "the memo app ships: title, date, subtitle, content, favorite, objectID key"),
        Version(schema: v1, story: "add `count: Int` (Realm: only the version number changes)"),
        Version(schema: v2, story: "remove `count` again (Realm: only the version number changes)"),
        Version(
            schema: v3, story: "rename memoTitle → title (Realm: `renameProperty`); here `originalName: \"memoTitle\"`"),
        Version(
            schema: v4,
            story: "add a required memoDescription computed from each memo (Realm: `enumerateObjects`): a custom stage"),
        Version(
            schema: v5, story: "add count = 100 for every existing memo (Realm: `new[\"count\"] = 100`); here a default"
        ),
        Version(
            schema: v6, story: "count Int → Double, optional → required with a fallback (Realm: `old[\"count\"] ?? 0`)"),
    ]

    static let v0 = Schema(version: 0) {
        Entity(entity, primaryKey: "objectID") {
            Attribute("objectID", .uuid)
            Attribute("memoTitle", .string)
            Attribute("memoDate", .date)
            Attribute("memoSubtitle", .string, isOptional: true)
            Attribute("memoContent", .string, isOptional: true)
            Attribute("favorite", .bool, default: false)
        }
    }

    static let v1 = adding(Attribute("count", .int, default: 0), to: v0, version: 1)
    static let v2 = v0.withVersion(2)

    static let v3 = Schema(version: 3) {
        Entity(entity, primaryKey: "objectID") {
            Attribute("objectID", .uuid)
            Attribute("title", .string, originalName: "memoTitle")
            Attribute("memoDate", .date)
            Attribute("memoSubtitle", .string, isOptional: true)
            Attribute("memoContent", .string, isOptional: true)
            Attribute("favorite", .bool, default: false)
        }
    }

    static let v4 = adding(Attribute("memoDescription", .string), to: withoutRenames(v3), version: 4)
    static let v5 = adding(Attribute("count", .int, isOptional: true, default: 100), to: v4, version: 5)
    static let v6: Schema = {
        var schema = v5.withVersion(6)
        let index = schema.entities[0].attributes.firstIndex { $0.name == "count" }!
        schema.entities[0].attributes[index] = Attribute("count", .double, default: 0)
        return schema
    }()

    /// The stages the app declares: version 3 → 4 computes memoDescription, which Molt cannot infer.
    static let stages: [MigrationStage] = [
        .custom(from: 3, to: 4) { migration in
            try migration.enumerateObjects(ofType: entity) { old, new in
                let title = old["title"].string ?? ""
                let favorite = old["favorite"].bool ?? false
                new["memoDescription"] = .string("\(title) is \(favorite ? "a favorite" : "not a favorite")")
            }
        }
    ]

    /// The plan an app at version `version` opens its store with: every version up to it, and their stages.
    static func plan(upTo version: Int) throws -> MigrationPlan {
        try MigrationPlan(
            schemas: versions.map(\.schema).filter { $0.version <= version },
            stages: stages.filter { $0.toVersion <= version })
    }

    private static func adding(_ attribute: Attribute, to schema: Schema, version: Int) -> Schema {
        var copy = schema.withVersion(version)
        copy.entities[0].attributes.append(attribute)
        return copy
    }

    /// The schema without its `originalName` hints, which only describe the step into it.
    private static func withoutRenames(_ schema: Schema) -> Schema {
        var copy = schema
        for e in copy.entities.indices {
            for a in copy.entities[e].attributes.indices { copy.entities[e].attributes[a].originalName = nil }
        }
        return copy
    }

    /// The values of the `index`-th sample memo of version 0; the same on every run.
    static func sampleMemo(_ index: Int) -> [String: Value] {
        let topics = ["Groceries", "Meeting notes", "Workout", "Books to read", "Travel plans", "Recipe", "Ideas"]
        var values: [String: Value] = [
            "objectID": .uuid(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", index + 1))!),
            "memoTitle": .string("\(topics[index % topics.count]) #\(index + 1)"),
            "memoDate": .date(Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 3_600)),
            "favorite": .bool(index % 3 == 0),
        ]
        if index % 4 != 0 { values["memoSubtitle"] = .string("subtitle \(index + 1)") }
        if index % 5 != 0 {
            values["memoContent"] = .string("Memo number \(index + 1), written on day \(index / 24 + 1).")
        }
        return values
    }
}

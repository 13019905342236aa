import Foundation
import Molt
import Testing

/// Wire's store at model 1.25 (`../shared/foreign-stores/wire/store1-25.wiredatabase`), adopted and walked in one
/// `molt adopt --to DIR` to the newest model of its folder (2.101.0): the step to 2.6 adds `UserClient`'s four
/// trust and ignore pairs with a minimum count of 1, which none of the store's 7 clients holds. Core Data's
/// lightweight migration kept them; so does Molt, listing them in the step's history entry and in `molt check`.
@Suite(
    "Wire 1.25 walks to 2.101 through the minimum counts its releases added",
    .enabled(
        if: FileManager.default.fileExists(atPath: WireStores.folder.path),
        "../shared/foreign-stores is absent beside the package: the real stores are test data kept outside the repository"
    ))
struct WireShortOwnersWalkTests {
    /// The four to-many relationships 2.6 adds with a minimum count of 1.
    static let pairs = ["ignoredByClients", "ignoredClients", "trustedByClients", "trustedClients"]

    @Test("the adoption walks to the newest version, keeps every client and every value, and lists the short owners")
    func walk() throws {
        let dir = TemporaryDirectory()
        let (store, model, snapshots) = try AdoptCommandTests.converted(
            "wire/store1-25.wiredatabase", model: "wire/model/zmessaging.xcdatamodeld", in: dir)
        let original = WireStores.folder.appendingPathComponent("store1-25.wiredatabase").path
        // One external-storage file of the test store is missing (adopted as null, listed): see `missingExternalData`.
        let adopted = try Molt.run([
            "adopt", store.path, "--model", model, "--to", snapshots, "--missing-external-data", "null",
        ])
        #expect(adopted.status == 0, "\(adopted)")
        #expect(
            adopted.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  kept short by the walk, ") }
                == Self.pairs.map {
                    "  kept short by the walk, 1 → 2: 7 'UserClient' objects (_id 1, 2, 3, …) hold fewer than 1 '\($0)'"
                }, "\(adopted)")
        let info = try Molt.run(["info", store.path, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(json["version"] as? Int == 5)
        let records = ((json["history"] as? [[String: Any]])?.last?["stepRecords"] as? [[String: Any]]) ?? []
        #expect(
            records.map { "\($0["fromVersion"] ?? "") → \($0["toVersion"] ?? "")" } == [
                "1 → 2", "2 → 3", "3 → 4", "4 → 5",
            ])
        // 3 → 4 adds 'Conversation.participantRoles' with a minimum that 4 → 5 drops: nothing to list at the end.
        #expect(
            records.map { $0["underMinimumCount"] as? [String] ?? [] } == [
                Self.pairs.map { "7 'UserClient' objects (_id 1, 2, 3, …) hold fewer than 1 '\($0)'" }, [], [], [],
            ], "\(records)")
        let text = try Molt.run(["info", store.path])
        #expect(
            text.stdout.contains(
                "    kept short (1 → 2): 7 'UserClient' objects (_id 1, 2, 3, …) hold fewer than 1 'ignoredByClients'"),
            "\(text)")
        let check = try Molt.run(["check", store.path])
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.split(separator: "\n").filter { $0.hasPrefix("  kept under a minimum count") }.count == 4)

        // Every value the models did not change, read from the original with sqlite3 and from the walked store with
        // molt export (dates: Core Data's seconds since 2001, exported as seconds since 1970).
        let export = try Molt.run(["export", store.path])
        #expect(export.status == 0, "\(export)")
        let entities = try #require(
            (try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any])?["entities"]
                as? [String: [[String: Any]]])
        func exported(_ entity: String, _ attributes: [String]) -> [String] {
            (entities[entity] ?? []).map { object in
                ([object["_id"]] + attributes.map { object[$0] }).map(Self.text).joined(separator: "|")
            }.sorted()
        }
        #expect(
            exported("UserClient", ["remoteIdentifier", "label", "user"])
                == (try Self.rows(original, "SELECT Z_PK, ZREMOTEIDENTIFIER, ZLABEL, ZUSER FROM ZUSERCLIENT")))
        #expect(exported("User", ["name"]) == (try Self.rows(original, "SELECT Z_PK, ZNAME FROM ZUSER")))
        #expect(
            exported("Conversation", ["userDefinedName"])
                == (try Self.rows(original, "SELECT Z_PK, ZUSERDEFINEDNAME FROM ZCONVERSATION")))
        #expect(
            exported("TextMessage", ["text", "serverTimestamp"])
                == (try Self.rows(
                    original,
                    "SELECT Z_PK, ZTEXT1, printf('%.3f', ZSERVERTIMESTAMP + 978307200) FROM ZMESSAGE WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'TextMessage')"
                )))
        #expect(entities["TextMessage"]?.count == 1681)
        // The clients' new pairs start empty, as Core Data left them.
        for pair in Self.pairs {
            #expect((entities["UserClient"] ?? []).allSatisfy { ($0[pair] as? [Any])?.isEmpty == true }, "\(pair)")
        }
    }

    /// A value as `sqlite3` prints it: null empty, numbers with three decimals when they have a fraction (the
    /// values compared are texts, identifiers and dates).
    static func text(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return ""
        case let string as String: return string
        case let number as NSNumber:
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 1e15
                ? String(Int64(double)) : String(format: "%.3f", double)
        default: return "\(value!)"
        }
    }

    /// The rows of `sql` over the database at `path`, read by the sqlite3 tool (as another app reads it), each
    /// as its values joined by `|`, sorted.
    static func rows(_ path: String, _ sql: String) throws -> [String] {
        let result = try Molt.run(["-c", "sqlite3 -readonly \"$0\" \"$1\"", path, sql], shell: true)
        try #require(result.status == 0, "\(result)")
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init).sorted()
    }
}

/// `../shared/foreign-stores/wire` beside the package.
enum WireStores {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/foreign-stores/wire")
}

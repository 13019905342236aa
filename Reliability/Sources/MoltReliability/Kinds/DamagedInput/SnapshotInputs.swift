import Foundation

/// Damaged and odd schema snapshots, given to `diff 1.json bad.json`, `plan STORE --to bad.json`,
/// `migrate STORE --to bad.json` and `check` of a folder with `1.json` and the snapshot.
///
/// Most are invalid and must be refused with exit 3 and one line by every command (`check`: exit 3 and an error
/// in its report). A few are valid or nearly so (version `Int.max`, beyond what a store records; the same version
/// with another content; non-ASCII names) and have their own expected statuses. Random mutations only have to keep
/// the general contract.
enum SnapshotInputs {
    /// The statuses each command may end with; nil skips the command.
    struct Expected: Sendable {
        var diff: Set<Int32>?
        var plan: Set<Int32>?
        var migrate: Set<Int32>?
        var check: Set<Int32>?
        var text: String

        static let invalid = Expected(diff: [3], plan: [3], migrate: [3], check: [3], text: InputRun.refusedText)
        static let robust = Expected(
            diff: [0, 3], plan: Expectations.exitsForFileProblems, migrate: Expectations.exitsForFileProblems,
            check: [0, 1, 3],
            text: "a documented status (no crash, no usage error)")
    }

    /// The valid snapshot mutated: add-attribute's version 2.
    static let base = MigrationKind.addAttribute.target

    static func pet(_ change: @escaping (inout JSON) -> Void) -> JSON {
        ClinicSchema.editing(base, entity: "Pet", change)
    }

    static func petRelationship(_ change: @escaping (inout JSON) -> Void) -> JSON {
        pet { pet in
            var relationships = pet["relationships"]?.arrayValue ?? []
            change(&relationships[0])
            pet["relationships"] = .array(relationships)
        }
    }

    static func addingEntities(_ entities: [JSON]) -> JSON {
        var copy = base
        copy["entities"] = .array((copy["entities"]?.arrayValue ?? []) + entities)
        return copy
    }

    static func withKey(_ key: String, _ value: JSON?) -> JSON {
        var copy = base
        copy[key] = value
        return copy
    }

    static func firstEntityName(_ name: JSON) -> JSON {
        ClinicSchema.editing(base, entity: "Owner") { $0["name"] = name }
    }

    /// The fixed cases: (name, file content, expected statuses, file name in the `check` folder).
    static func fixed() -> [(String, Data, Expected, String)] {
        let text = base.text()
        let deep =
            #"{"formatVersion":1,"version":2,"entities":"# + String(repeating: "[", count: 100_000)
            + String(repeating: "]", count: 100_000) + "}"
        let cases: [(String, JSON, Expected)] = [
            ("version-string", withKey("version", "2"), .invalid),
            ("version-fraction", withKey("version", .double(2.5)), .invalid),
            ("version-negative", withKey("version", -1), .invalid),
            ("version-int-min", withKey("version", .int(.min)), .invalid),
            ("version-overflow", withKey("version", .number("9223372036854775808")), .invalid),
            ("version-1e300", withKey("version", .number("1e300")), .invalid),
            ("version-null", withKey("version", .null), .invalid),
            ("version-missing", withKey("version", nil), .invalid),
            ("format-newer", withKey("formatVersion", 2), .invalid),
            ("format-string", withKey("formatVersion", "x"), .invalid),
            ("format-negative", withKey("formatVersion", -1), .invalid),
            ("entities-object", withKey("entities", [:]), .invalid),
            ("entities-string", withKey("entities", "Owner"), .invalid),
            ("entities-null", withKey("entities", .null), .invalid),
            ("entities-missing", withKey("entities", nil), .invalid),
            ("entity-name-number", firstEntityName(123), .invalid),
            ("entity-name-empty", firstEntityName(""), .invalid),
            ("entity-name-sql", firstEntityName(#"Owner"; DROP TABLE "Pet"; --"#), .invalid),
            (
                "entity-name-molt-metadata", addingEntities([ClinicSchema.entity("_molt_metadata", attributes: [])]),
                .invalid
            ),
            (
                "entity-name-molt-history", addingEntities([ClinicSchema.entity("_molt_history", attributes: [])]),
                .invalid
            ),
            (
                "entity-name-sqlite-master", addingEntities([ClinicSchema.entity("sqlite_master", attributes: [])]),
                .invalid
            ),
            (
                "entity-name-sqlite-sequence", addingEntities([ClinicSchema.entity("sqlite_sequence", attributes: [])]),
                .invalid
            ),
            ("entity-duplicate", addingEntities([ClinicSchema.entity("Owner", attributes: [])]), .invalid),
            (
                "entity-names-differ-in-case",
                addingEntities([
                    ClinicSchema.entity("Visit", attributes: [ClinicSchema.attribute("day", "date")]),
                    ClinicSchema.entity("visit", attributes: [ClinicSchema.attribute("day", "date")]),
                ]), .invalid
            ),
            (
                "entity-name-case-of-join-table", addingEntities([ClinicSchema.entity("owner_PETS", attributes: [])]),
                .invalid
            ),
            (
                "attribute-names-differ-in-case",
                pet { ClinicSchema.adding([ClinicSchema.attribute("Name", "string", optional: true)], to: &$0) },
                .invalid
            ),
            (
                "attribute-duplicate",
                pet { ClinicSchema.adding([ClinicSchema.attribute("name", "string", optional: true)], to: &$0) },
                .invalid
            ),
            (
                "attribute-name-id",
                pet { ClinicSchema.adding([ClinicSchema.attribute("_id", "int", optional: true)], to: &$0) }, .invalid
            ),
            (
                "attribute-name-sql",
                pet {
                    ClinicSchema.adding(
                        [ClinicSchema.attribute(#"x" TEXT); DROP TABLE "Owner"; --"#, "string", optional: true)],
                        to: &$0)
                }, .invalid
            ),
            (
                "attribute-type-unknown",
                pet { ClinicSchema.editing(attribute: "weight", of: &$0) { $0["type"] = "integer" } }, .invalid
            ),
            (
                "attribute-type-number", pet { ClinicSchema.editing(attribute: "weight", of: &$0) { $0["type"] = 5 } },
                .invalid
            ),
            (
                "attribute-optional-string",
                pet { ClinicSchema.editing(attribute: "weight", of: &$0) { $0["optional"] = "yes" } }, .invalid
            ),
            (
                "attribute-default-wrong-type",
                pet { ClinicSchema.editing(attribute: "visits", of: &$0) { $0["default"] = "zero" } }, .invalid
            ),
            (
                "attribute-default-overflow",
                pet {
                    ClinicSchema.editing(attribute: "visits", of: &$0) {
                        $0["default"] = .number("9223372036854775808")
                    }
                }, .invalid
            ),
            (
                "attribute-default-1e400",
                pet {
                    ClinicSchema.adding([ClinicSchema.attribute("score", "double", default: .number("1e400"))], to: &$0)
                }, .invalid
            ),
            ("relationship-to-nowhere", petRelationship { $0["destination"] = "Nope" }, .invalid),
            ("relationship-kind-unknown", petRelationship { $0["kind"] = "toSome" }, .invalid),
            ("relationship-inverse-mismatch", petRelationship { $0["inverse"] = "nope" }, .invalid),
            ("relationship-delete-rule-unknown", petRelationship { $0["deleteRule"] = "explode" }, .invalid),
            ("primary-key-missing", pet { $0["primaryKey"] = "nope" }, .invalid),
            (
                "too-many-attributes",
                pet { pet in
                    ClinicSchema.adding(
                        (0..<2_100).map { ClinicSchema.attribute("extra\($0)", "string", optional: true) }, to: &pet)
                }, .invalid
            ),
            (
                "version-int-max", withKey("version", .int(.max)),
                // Stores record the version as a 32-bit number, so Molt refuses a greater one as an invalid schema
                // (exit 3, naming the limit); accepting it for a diff and showing the gap in a check are fine too.
                Expected(
                    diff: [0, 3], plan: [0, 3], migrate: [0, 3], check: [1, 3],
                    text:
                        "a documented answer for a schema of version Int.max (accepted, a gap for check, or refused as beyond a store's 32-bit version)"
                )
            ),
            (
                "same-version-other-content", withKey("version", 1),
                Expected(
                    diff: [0, 3], plan: [4], migrate: [4], check: nil,
                    text: "exit 4: version 1 changed without a version bump")
            ),
            (
                "older-version", withKey("version", 0),
                Expected(
                    diff: [0, 3], plan: [4], migrate: [4], check: [0, 1],
                    text: "exit 4: the store is newer than the snapshot")
            ),
            (
                "non-ascii-names",
                addingEntities([
                    ClinicSchema.entity(
                        "Café", attributes: [ClinicSchema.attribute("prénom", "string", optional: true)])
                ]),
                Expected(diff: [0], plan: [0], migrate: [0], check: [0], text: "exit 0: a valid schema")
            ),
        ]
        var result = cases.map { name, json, expected -> (String, Data, Expected, String) in
            let version = json["version"]?.intValue
            let fileName = version.map { "\($0).json" } ?? "2.json"
            return (name, json.data(), expected, fileName == "1.json" ? "2.json" : fileName)
        }
        let cuts = [text.count / 10, text.count / 2, text.count * 9 / 10, text.count - 1]
        for cut in cuts {
            result.append(("truncated-at-\(cut)", Data(text.utf8.prefix(cut)), .invalid, "2.json"))
        }
        result += [
            ("deep-nesting", Data(deep.utf8), .invalid, "2.json"),
            ("empty-file", Data(), .invalid, "2.json"),
            ("json-null", Data("null".utf8), .invalid, "2.json"),
            ("top-level-array", Data("[]".utf8), .invalid, "2.json"),
            ("invalid-utf8", Data([0xFF, 0xFE, 0x7B, 0x22, 0xC3, 0x28]), .invalid, "2.json"),
            ("byte-order-mark", Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8), .robust, "2.json"),
            ("duplicate-json-key", Data(("{\"version\":7," + text.dropFirst()).utf8), .robust, "2.json"),
        ]
        return result
    }

    /// `count` random mutations: a value somewhere in the snapshot replaced by one of another kind.
    static func random(count: Int, random: inout SeededGenerator) -> [(String, Data, Expected, String)] {
        (0..<count).map { index in
            var mutated = base
            let path = JSONMutation.mutate(&mutated, random: &random)
            return ("random-\(index)-\(path)", mutated.data(), .robust, "2.json")
        }
    }

    /// The input cases: each snapshot with the four commands.
    static func cases(_ snapshots: [(String, Data, Expected, String)]) -> [InputCase] {
        let version1 = ClinicSchema.version1.data()
        return snapshots.map { name, data, expected, checkName in
            var runs: [InputRun] = []
            if let diff = expected.diff {
                runs.append(
                    InputRun(
                        command: "diff",
                        arguments: {
                            [
                                "diff", $0.appendingPathComponent("1.json").path,
                                $0.appendingPathComponent("bad.json").path,
                            ]
                        },
                        readsOnly: true, allowed: diff, expected: expected.text))
            }
            if let plan = expected.plan {
                runs.append(
                    InputRun(
                        command: "plan",
                        arguments: {
                            [
                                "plan", $0.appendingPathComponent("store.sqlite").path, "--to",
                                $0.appendingPathComponent("bad.json").path,
                            ]
                        },
                        readsOnly: true, allowed: plan, expected: expected.text))
            }
            if let migrate = expected.migrate {
                runs.append(
                    InputRun(
                        command: "migrate",
                        arguments: {
                            [
                                "migrate", $0.appendingPathComponent("store.sqlite").path, "--to",
                                $0.appendingPathComponent("bad.json").path,
                            ]
                        },
                        readsOnly: false, allowed: migrate, expected: expected.text))
            }
            if let check = expected.check {
                runs.append(
                    InputRun(
                        command: "check", arguments: { ["check", $0.appendingPathComponent("snapshots").path] },
                        readsOnly: true, allowed: check, expected: expected.text, reportsOnStandardOutput: true))
            }
            return InputCase(
                family: "snapshot", name: name,
                files: { _ in
                    [
                        "1.json": version1, "bad.json": data, "snapshots/1.json": version1,
                        "snapshots/\(checkName)": data,
                    ]
                },
                runs: runs)
        }
    }
}

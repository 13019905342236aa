import Foundation

/// Damaged data files given to `molt import`, into a new store and into the existing one.
///
/// The valid file is the campaign's own data (owners and pets, both sides of each link written out, as
/// `molt export` writes them). Relationship sides that disagree, duplicate `_id`s, values of the wrong type, links
/// to missing objects and cut-off JSON must be refused with exit 3 and one line: no new store left behind, the
/// existing one byte for byte unchanged.
enum ImportInputs {
    typealias Mutation = (name: String, data: Data, allowed: Set<Int32>)

    /// The data file of `data`, and the index of a pet with an owner, that owner's index, and another owner's.
    static func fixed(_ data: ClinicData) throws -> [Mutation] {
        let valid = try JSON(parsing: data.importFile())
        guard let petIndex = data.pets.firstIndex(where: { $0.owner != nil }), let ownerID = data.pets[petIndex].owner,
            let otherIndex = data.owners.firstIndex(where: { $0.id != ownerID })
        else { throw HarnessError("the import data has no pet with an owner and a second owner") }
        let ownerIndex = Int(ownerID - 1)
        let petID = data.pets[petIndex].id
        let otherID = data.owners[otherIndex].id

        func edit(_ change: (inout [JSON], inout [JSON]) -> Void) -> Data {
            var file = valid
            var owners = file["entities"]!["Owner"]!.arrayValue!
            var pets = file["entities"]!["Pet"]!.arrayValue!
            change(&owners, &pets)
            file["entities"] = .object(["Owner": .array(owners), "Pet": .array(pets)])
            return file.data()
        }
        func pet(_ key: String, _ value: JSON?) -> Data { edit { _, pets in pets[petIndex][key] = value } }
        func owner(_ key: String, _ value: JSON?) -> Data { edit { owners, _ in owners[ownerIndex][key] = value } }
        func top(_ key: String, _ value: JSON?) -> Data {
            var file = valid
            file[key] = value
            return file.data()
        }
        let text = data.importFile()
        let refused: Set<Int32> = [3]
        let robust = Expectations.exitsForFileProblems
        var mutations: [Mutation] = [
            (
                "sides-disagree-owner-forgets-pet",
                edit { owners, _ in
                    owners[ownerIndex]["pets"] = .array(
                        data.owners[ownerIndex].pets.filter { $0 != petID }.map(JSON.int))
                }, refused
            ),
            (
                "sides-disagree-two-owners-claim-pet",
                edit { owners, _ in
                    owners[otherIndex]["pets"] = .array((data.owners[otherIndex].pets + [petID]).map(JSON.int))
                }, refused
            ),
            ("sides-disagree-pet-names-other-owner", pet("owner", .int(otherID)), refused),
            (
                "duplicate-pet-id",
                edit { _, pets in
                    var copy = pets[petIndex]
                    copy["name"] = "twin"
                    copy["owner"] = .null
                    pets.append(copy)
                }, refused
            ),
            (
                "duplicate-owner-id",
                edit { owners, _ in
                    var copy = owners[otherIndex]
                    copy["pets"] = []
                    owners.append(copy)
                }, refused
            ),
            ("id-text", pet("_id", "1"), refused),
            ("id-fraction", pet("_id", .double(1.5)), refused),
            ("weight-text", pet("weight", "heavy"), refused),
            ("weight-fraction", pet("weight", .double(1.5)), refused),
            ("weight-bool", pet("weight", true), refused),
            ("weight-overflow", pet("weight", .number("9223372036854775808")), refused),
            ("vaccinated-number", pet("vaccinated", 1), refused),
            ("vaccinated-text", pet("vaccinated", "yes"), refused),
            ("name-number", pet("name", 5), refused),
            ("name-null", pet("name", .null), refused),
            ("name-missing", pet("name", nil), refused),
            (
                "name-nested-deeply",
                Data(
                    text.replacingOccurrences(
                        of: "\"name\":\(JSON.string(data.pets[petIndex].name).text())",
                        with: "\"name\":" + String(repeating: "[", count: 100_000)
                            + String(repeating: "]", count: 100_000)
                    ).utf8), refused
            ),
            ("birth-text", pet("birth", "yesterday"), refused),
            ("chip-not-uuid", pet("chip", "not-a-uuid"), refused),
            ("photo-not-base64", pet("photo", "!!!"), refused),
            ("joined-text", owner("joined", "today"), refused),
            ("email-number", owner("email", 5), refused),
            ("owner-missing", pet("owner", 999_999), refused),
            ("to-one-given-two", pet("owner", [.int(ownerID), .int(otherID)]), refused),
            ("to-many-given-object", owner("pets", [:]), refused),
            ("unknown-key", pet("nope", 1), refused),
            ("unknown-entity", edit { _, _ in }.replacingEntities { $0["Nope"] = [[:]] }, refused),
            ("format-other", top("format", "other"), refused),
            ("format-version-99", top("formatVersion", 99), refused),
            ("entities-missing", top("entities", nil), refused),
            ("entities-list", top("entities", []), refused),
            ("empty-file", Data(), refused),
            ("not-json", Data("owners,pets\n1,2\n".utf8), refused),
            ("id-zero", pet("_id", 0), robust),
            ("id-negative", pet("_id", -1), robust),
            ("id-int-max", pet("_id", .int(.max)), robust),
            ("schema-version-7", top("schemaVersion", 7), robust),
            ("valid", valid.data(), [0]),
        ]
        for cut in [text.count / 3, text.count * 2 / 3, text.count - 1] {
            mutations.append(("truncated-at-\(cut)", Data(text.utf8.prefix(cut)), refused))
        }
        return mutations
    }

    /// `count` random mutations of the valid file.
    static func random(_ data: ClinicData, count: Int, random: inout SeededGenerator) throws -> [Mutation] {
        let valid = try JSON(parsing: data.importFile())
        return (0..<count).map { index in
            var file = valid
            let path = JSONMutation.mutate(&file, random: &random)
            return ("random-\(index)-\(path)", file.data(), Expectations.exitsForFileProblems)
        }
    }

    /// Each data file imported into a new store (`new.sqlite`, which must not be left behind on a refusal) and
    /// into the existing store at version 1.
    static func cases(_ mutations: [Mutation], schema: URL) -> [InputCase] {
        mutations.map { name, data, allowed in
            let expected =
                allowed == InputRun.refused
                ? InputRun.refusedText : "one of \(allowed.sorted()) (no crash, no change on refusal)"
            return InputCase(
                family: "import", name: name, files: { _ in ["data.json": data] },
                runs: [
                    InputRun(
                        command: "import-new",
                        arguments: {
                            [
                                "import", $0.appendingPathComponent("new.sqlite").path, "--schema", schema.path,
                                $0.appendingPathComponent("data.json").path,
                            ]
                        },
                        readsOnly: false, allowed: allowed, expected: expected),
                    InputRun(
                        command: "import-existing",
                        arguments: {
                            [
                                "import", $0.appendingPathComponent("store.sqlite").path, "--schema", schema.path,
                                $0.appendingPathComponent("data.json").path,
                            ]
                        },
                        readsOnly: false, allowed: allowed, expected: expected),
                ])
        }
    }
}

private extension Data {
    /// The data file with its `entities` object changed.
    func replacingEntities(_ change: (inout JSON) -> Void) -> Data {
        guard var file = try? JSON(parsing: self), var entities = file["entities"] else { return self }
        change(&entities)
        file["entities"] = entities
        return file.data()
    }
}

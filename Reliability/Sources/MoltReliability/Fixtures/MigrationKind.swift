/// A migration from version 1 of the clinic schema to a version 2: the target snapshot, the mapping file it needs
/// (if any), and the objects it must produce, computed from the data independently of molt.
///
/// | kind | version 2 | how molt does it |
/// |---|---|---|
/// | `add-attribute` | `Pet.nickname: string?`, `Pet.visits: int = 0` | inferred, `ALTER TABLE … ADD COLUMN` |
/// | `rebuild` | `Pet.weight` int → double; `Owner.email` optional → required, default `""` | inferred, table rebuilds |
/// | `mapping` | `Pet.label: string`, required, `name || ' the ' || species` | `--mapping`, one SQL `UPDATE` |
/// | `split` | `Owner`'s street and city move to a new `Address`, linked both ways | `--mapping` with a link |
struct MigrationKind: Sendable {
    var name: String
    var target: JSON
    var mapping: JSON?
    /// The objects version 2 must hold, given the data of version 1.
    var expected: @Sendable (ClinicData) -> ObjectTable
    /// An export reduced to what can be compared with ``expected``: for a split, each owner's address is folded
    /// into the owner, since the new objects' `_id`s are molt's choice.
    var canonical: @Sendable (ObjectTable) -> ObjectTable = { $0 }

    static let all: [MigrationKind] = [addAttribute, rebuild, mapping, split]

    static func named(_ name: String) -> MigrationKind? { all.first { $0.name == name } }

    static let addAttribute = MigrationKind(
        name: "add-attribute",
        target: ClinicSchema.with(
            version: 2,
            ClinicSchema.editing(ClinicSchema.version1, entity: "Pet") { pet in
                ClinicSchema.adding(
                    [
                        ClinicSchema.attribute("nickname", "string", optional: true),
                        ClinicSchema.attribute("visits", "int", default: 0),
                    ], to: &pet)
            }),
        expected: { data in
            var table = data.objectTable()
            table["Pet"] = table["Pet"]!.mapValues { $0.merging(["nickname": .null, "visits": 0]) { $1 } }
            return table
        })

    static let rebuild = MigrationKind(
        name: "rebuild",
        target: ClinicSchema.with(
            version: 2,
            ClinicSchema.editing(
                ClinicSchema.editing(ClinicSchema.version1, entity: "Pet") { pet in
                    ClinicSchema.editing(attribute: "weight", of: &pet) { $0["type"] = "double" }
                },
                entity: "Owner"
            ) { owner in
                ClinicSchema.editing(attribute: "email", of: &owner) {
                    $0["optional"] = false; $0["default"] = ""
                }
            }),
        expected: { data in
            var table = data.objectTable()
            table["Pet"] = table["Pet"]!.mapValues { pet in
                var pet = pet
                if let weight = pet["weight"]?.intValue { pet["weight"] = .double(Double(weight)) }
                return pet
            }
            table["Owner"] = table["Owner"]!.mapValues { owner in
                var owner = owner
                if owner["email"] == .null { owner["email"] = "" }
                return owner
            }
            return table
        })

    static let mapping = MigrationKind(
        name: "mapping",
        target: ClinicSchema.with(
            version: 2,
            ClinicSchema.editing(ClinicSchema.version1, entity: "Pet") { pet in
                ClinicSchema.adding([ClinicSchema.attribute("label", "string")], to: &pet)
            }),
        mapping: ["mappings": [["destination": "Pet", "attributes": ["label": "name || ' the ' || species"]]]],
        expected: { data in
            var table = data.objectTable()
            for pet in data.pets { table["Pet"]![pet.id]!["label"] = .string(pet.name + " the " + pet.species) }
            return table
        })

    /// Version 2 of the split: `Owner` without street and city, with `address` → `Address` (street, city, owner).
    static let splitTarget: JSON = ClinicSchema.snapshot(
        version: 2,
        entities: [
            ClinicSchema.entity(
                "Owner",
                attributes: [
                    ClinicSchema.attribute("name", "string"), ClinicSchema.attribute("email", "string", optional: true),
                    ClinicSchema.attribute("joined", "date"),
                ],
                relationships: [
                    ClinicSchema.relationship("pets", to: "Pet", kind: "toMany", inverse: "owner"),
                    ClinicSchema.relationship(
                        "address", to: "Address", kind: "toOne", inverse: "owner", deleteRule: "cascade"),
                ]),
            ClinicSchema.pet(),
            ClinicSchema.entity(
                "Address",
                attributes: [ClinicSchema.attribute("street", "string"), ClinicSchema.attribute("city", "string")],
                relationships: [ClinicSchema.relationship("owner", to: "Owner", kind: "toOne", inverse: "address")]),
        ])

    static let split = MigrationKind(
        name: "split",
        target: splitTarget,
        mapping: [
            "mappings": [
                ["destination": "Address", "source": "Owner", "attributes": ["street": "street", "city": "city"]],
                ["destination": "Owner", "links": [["relationship": "address", "to": "Address"]]],
            ]
        ],
        expected: { data in
            var table = data.objectTable()
            table["Owner"] = table["Owner"]!.mapValues { owner in
                var owner = owner
                owner["address"] = .array([owner["street"]!, owner["city"]!, "points back"])
                owner["street"] = nil
                owner["city"] = nil
                return owner
            }
            return table
        },
        canonical: { export in
            var table = export
            let addresses = table["Address"] ?? [:]
            table["Address"] = nil
            var claimed: Set<Int64> = []
            table["Owner"] = (table["Owner"] ?? [:]).reduce(into: [:]) { result, entry in
                var owner = entry.value
                if let id = owner["address"]?.intValue, let address = addresses[id] {
                    claimed.insert(id)
                    let back: JSON = address["owner"]?.intValue == entry.key ? "points back" : "points elsewhere"
                    owner["address"] = .array([address["street"] ?? .null, address["city"] ?? .null, back])
                }
                result[entry.key] = owner
            }
            let orphans = addresses.filter { !claimed.contains($0.key) }
            if !orphans.isEmpty { table["Address (no owner points to it)"] = orphans }
            return table
        })
}

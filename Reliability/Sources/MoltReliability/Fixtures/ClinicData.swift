import Foundation

/// Objects as a `molt export` file holds them, for comparing: entity → `_id` → attribute and relationship values
/// (to-many relationships sorted, since their order is not data unless ordered).
typealias ObjectTable = [String: [Int64: [String: JSON]]]

/// The campaign's data at version 1, generated from the seed: owners and their pets, with every attribute type,
/// the edge values of each (the largest integers, dates before 1970, empty text and data, quotes, newlines,
/// non-ASCII text) and pets without an owner.
///
/// It is written as a `molt import` file, and kept in memory to compute what each migration must produce.
struct ClinicData: Sendable {
    struct Owner: Sendable {
        var id: Int64
        var name: String
        var email: String?
        var street: String
        var city: String
        var joined: Double
        var pets: [Int64]
    }

    struct Pet: Sendable {
        var id: Int64
        var name: String
        var species: String
        var weight: Int64
        var birth: Double?
        var vaccinated: Bool
        var chip: String?
        /// Base64, as export files hold data.
        var photo: String?
        var owner: Int64?
    }

    var owners: [Owner]
    var pets: [Pet]

    var count: Int { owners.count + pets.count }

    static let awkwardNames = [
        "Rex \"the\" dog", "O'Brien", "Zoë 🐕", "line\nbreak", "back\\slash", "", "tab\there", "Ωμέγα",
        String(repeating: "long ", count: 60), "'; DROP TABLE \"Pet\"; --",
    ]
    static let species = ["cat", "dog", "fish", "rabbit", "parrot"]
    /// The largest integers a double holds exactly (Molt refuses to widen one it would round), and small ones.
    static let edgeWeights: [Int64] = [9_007_199_254_740_992, -9_007_199_254_740_992, 0, -1, 1]
    static let edgeDates: [Double] = [0, -1.5, 1_000_000_000.123456, 4_102_444_800.5]

    /// `objects` objects (an eighth of them owners), the same for the same seed.
    static func generate(objects: Int, seed: UInt64) -> ClinicData {
        var random = SeededGenerator(seed: seed, stream: "clinic-data-\(objects)")
        let ownerCount = max(1, objects / 8)
        let petCount = max(0, objects - ownerCount)
        var owners = (1...ownerCount).map { index in
            let id = Int64(index)
            return Owner(
                id: id, name: index % 97 == 0 ? awkwardNames[index / 97 % awkwardNames.count] : "Owner \(index)",
                email: index % 3 == 0 ? nil : "owner\(index)@example.org", street: "\(index) Main Street",
                city: "City \(index % 50)",
                joined: 1_600_000_000 + Double(index) + Double.random(in: 0..<1, using: &random),
                pets: [])
        }
        var pets: [Pet] = []
        pets.reserveCapacity(petCount)
        for index in 0..<petCount {
            let id = Int64(index + 1)
            let owner: Int64? = random.chance(0.9) ? Int64.random(in: 1...Int64(ownerCount), using: &random) : nil
            if let owner { owners[Int(owner - 1)].pets.append(id) }
            let edge = index % 211
            pets.append(
                Pet(
                    id: id,
                    name: index % 13 == 0 ? awkwardNames[index / 13 % awkwardNames.count] : "Pet \(index + 1)",
                    species: species[Int.random(in: 0..<species.count, using: &random)],
                    weight: edge < edgeWeights.count ? edgeWeights[edge] : Int64.random(in: 1...90_000, using: &random),
                    birth: edge < edgeDates.count
                        ? edgeDates[edge]
                        : (random.chance(0.8) ? 1_500_000_000 + Double.random(in: 0..<1e8, using: &random) : nil),
                    vaccinated: random.chance(0.5),
                    chip: random.chance(0.5) ? UUID(uuid: uuidBytes(&random)).uuidString : nil,
                    photo: index % 101 == 0
                        ? ""
                        : (random.chance(0.1)
                            ? Data(random.bytes(Int.random(in: 1...16, using: &random))).base64EncodedString() : nil),
                    owner: owner))
        }
        return ClinicData(owners: owners, pets: pets)
    }

    private static func uuidBytes(_ random: inout SeededGenerator) -> uuid_t {
        let b = random.bytes(16)
        return (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }

    // MARK: The import file

    /// The data as a `molt import` file of schema version 1.
    func importFile() -> String {
        var output = #"{"format":"molt-data","formatVersion":1,"schemaVersion":1,"entities":{"Owner":["#
        for (index, owner) in owners.enumerated() {
            if index > 0 { output += "," }
            JSON.object(ownerFields(owner).merging(["_id": .int(owner.id)]) { $1 }).write(to: &output)
        }
        output += #"],"Pet":["#
        for (index, pet) in pets.enumerated() {
            if index > 0 { output += "," }
            JSON.object(petFields(pet).merging(["_id": .int(pet.id)]) { $1 }).write(to: &output)
        }
        output += "]}}"
        return output
    }

    func ownerFields(_ owner: Owner) -> [String: JSON] {
        [
            "name": .string(owner.name), "email": owner.email.map(JSON.string) ?? .null,
            "street": .string(owner.street),
            "city": .string(owner.city), "joined": .double(owner.joined), "pets": .array(owner.pets.map(JSON.int)),
        ]
    }

    func petFields(_ pet: Pet) -> [String: JSON] {
        [
            "name": .string(pet.name), "species": .string(pet.species), "weight": .int(pet.weight),
            "birth": pet.birth.map(JSON.double) ?? .null, "vaccinated": .bool(pet.vaccinated),
            "chip": pet.chip.map(JSON.string) ?? .null, "photo": pet.photo.map(JSON.string) ?? .null,
            "owner": pet.owner.map(JSON.int) ?? .null,
        ]
    }

    /// The objects of version 1, as an export of them reads.
    func objectTable() -> ObjectTable {
        var owners: [Int64: [String: JSON]] = [:]
        for owner in self.owners {
            var fields = ownerFields(owner)
            fields["pets"] = .array(owner.pets.sorted().map(JSON.int))
            owners[owner.id] = fields
        }
        var pets: [Int64: [String: JSON]] = [:]
        for pet in self.pets { pets[pet.id] = petFields(pet) }
        return ["Owner": owners, "Pet": pets]
    }
}

extension ObjectTable {
    /// The objects of a `molt export` JSON file (to-many relationships sorted).
    init(export: JSON) throws {
        guard let entities = export["entities"]?.objectValue else {
            throw HarnessError("the export has no \"entities\" object")
        }
        var table: ObjectTable = [:]
        for (entity, rows) in entities {
            var objects: [Int64: [String: JSON]] = [:]
            for row in rows.arrayValue ?? [] {
                guard var fields = row.objectValue, let id = fields["_id"]?.intValue else {
                    throw HarnessError("an object of '\(entity)' in the export has no integer _id")
                }
                fields["_id"] = nil
                for (key, value) in fields {
                    if case .array(let ids) = value {
                        fields[key] = .array(ids.sorted { ($0.intValue ?? 0) < ($1.intValue ?? 0) })
                    }
                }
                objects[id] = fields
            }
            table[entity] = objects
        }
        self = table
    }

    /// The first differences from `expected`, one line each (at most `limit`), and how many there are in all.
    func differences(from expected: ObjectTable, limit: Int = 3) -> (lines: [String], total: Int) {
        var lines: [String] = []
        var total = 0
        func note(_ line: String) {
            total += 1
            if lines.count < limit { lines.append(line) }
        }
        for entity in Set(keys).union(expected.keys).sorted() {
            let found = self[entity] ?? [:]
            let wanted = expected[entity] ?? [:]
            if found.count != wanted.count { note("\(entity): \(found.count) objects, expected \(wanted.count)") }
            for (id, fields) in wanted.sorted(by: { $0.key < $1.key }) {
                guard let actual = found[id] else {
                    note("\(entity) _id \(id) is missing")
                    continue
                }
                for key in Set(fields.keys).union(actual.keys).sorted() {
                    let want = fields[key] ?? .raw("(absent)")
                    let got = actual[key] ?? .raw("(absent)")
                    if !want.sameData(as: got) {
                        note(
                            "\(entity) _id \(id).\(key): \(Shell.shorten(got.text(), 80)), expected \(Shell.shorten(want.text(), 80))"
                        )
                    }
                }
            }
            for id in found.keys where wanted[id] == nil { note("\(entity) _id \(id) should not exist") }
        }
        return (lines, total)
    }
}

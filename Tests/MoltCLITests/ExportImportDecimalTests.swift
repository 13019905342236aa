import Foundation
import Molt
import Testing

/// `molt export` writes a decimal as JSON text (`"19.99"`), so that no JSON reader rounds a digit; `molt import`
/// reads it back exactly, and refuses a value a sized type cannot hold, naming it.
@Suite("molt export and molt import: decimals and sized numbers")
struct ExportImportDecimalTests {
    static let schema = Schema(version: 1) {
        Entity("Ledger") {
            Attribute("amount", .decimal, isOptional: true)
            Attribute("small", .int16, isOptional: true)
            Attribute("medium", .int32, isOptional: true)
            Attribute("level", .float, isOptional: true)
        }
    }

    static let amounts = [
        "12345678901234567890123456789012345678", "-0.000000000000000000000000000000000001", "1.1", "-42",
    ]

    @Test("decimals round-trip exactly as JSON text, sized numbers as numbers")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let store = try Store.open(at: dir.file("original.sqlite"), schema: Self.schema)
        try store.write { objects in
            for (i, text) in Self.amounts.enumerated() {
                _ = try objects.insert(
                    "Ledger",
                    [
                        "amount": .decimal(Decimal(string: text)!), "small": .int(Int64(Int16.min) + Int64(i)),
                        "medium": .int(Int64(Int32.max) - Int64(i)),
                        "level": .double(Double(Float.leastNonzeroMagnitude)),
                    ])
            }
        }
        try store.close()
        try Fixtures.write(Self.schema, to: dir.file("schema.json"))
        let export = try Molt.run(["export", "original.sqlite"], in: dir.url)
        #expect(export.status == 0, "\(export)")
        for text in Self.amounts { #expect(export.stdout.contains("\"amount\" : \"\(text)\""), "\(text)") }
        #expect(export.stdout.contains("\"small\" : -32768"))
        try Data(export.stdout.utf8).write(to: dir.file("data.json"))
        let imported = try Molt.run(["import", "copy.sqlite", "--schema", "schema.json", "data.json"], in: dir.url)
        #expect(imported.status == 0, "\(imported)")
        let again = try Molt.run(["export", "copy.sqlite"], in: dir.url)
        #expect(again.stdout == export.stdout)
        let copy = try Store.open(at: dir.file("copy.sqlite"), schema: Self.schema)
        defer { try? copy.close() }
        let read = try copy.read { try $0.fetch("Ledger").map { $0["amount"].decimal! } }
        #expect(read == Self.amounts.map { Decimal(string: $0)! })
    }

    @Test("an imported value out of a sized type's range is refused, naming entity, attribute and value")
    func outOfRange() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Self.schema, to: dir.file("schema.json"))
        let data = #"{"format":"molt-data","formatVersion":1,"entities":{"Ledger":[{"_id":1,"small":40000}]}}"#
        try Data(data.utf8).write(to: dir.file("data.json"))
        let imported = try Molt.run(["import", "copy.sqlite", "--schema", "schema.json", "data.json"], in: dir.url)
        #expect(imported.status != 0)
        #expect(imported.stderr.contains("'Ledger.small'") && imported.stderr.contains("40000"), "\(imported)")
    }
}

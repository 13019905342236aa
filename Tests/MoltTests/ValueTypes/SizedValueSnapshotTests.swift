import Foundation
import Testing
import Molt

/// The JSON snapshot names the new types as their raw values and writes a decimal default as text.
@Suite("Value types: schema snapshots")
struct SizedValueSnapshotTests {
    static let schema = Schema(version: 3) {
        Entity("Order") {
            Attribute("lines", .int16, default: 1)
            Attribute("weight", .int32, default: .int(Int64(Int32.max)))
            Attribute("ratio", .float, default: 0.5)
            Attribute("total", .decimal, default: .decimal(Decimal(string: "12345678901234567890123456789.012345678")!))
            Attribute("legacy", .int, isOptional: true)
        }
    }

    @Test("a snapshot with the new types reads back equal, and names them as written")
    func roundTrip() throws {
        let json = try Self.schema.snapshotJSON()
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""type" : "int16""#) && text.contains(#""type" : "int32""#))
        #expect(text.contains(#""type" : "float""#) && text.contains(#""type" : "decimal""#))
        #expect(text.contains(#""default" : "12345678901234567890123456789.012345678""#))
        #expect(text.contains(#""type" : "int""#))
        #expect(try Schema(snapshotJSON: json) == Self.schema)
    }

    @Test("an old snapshot reads as before, and a default that does not fit its type is refused")
    func oldAndInvalid() throws {
        let old =
            #"{"entities":[{"attributes":[{"name":"n","optional":false,"type":"int","default":3}],"name":"E"}],"formatVersion":1,"version":1}"#
        let schema = try Schema(snapshotJSON: Data(old.utf8))
        #expect(schema.entities[0].attributes[0].type == .int)
        let bad = Schema(version: 1) { Entity("E") { Attribute("n", .int16, default: 40_000) } }
        #expect(throws: MoltError.self) { try bad.validate() }
        let text =
            #"{"entities":[{"attributes":[{"name":"n","optional":false,"type":"decimal","default":"1.5x"}],"name":"E"}],"formatVersion":1,"version":1}"#
        #expect(throws: (any Error).self) { try Schema(snapshotJSON: Data(text.utf8)) }
    }
}

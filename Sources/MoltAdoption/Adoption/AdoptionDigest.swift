import Foundation
import Molt

/// A count and a running 64-bit FNV-1a hash of objects in identifier order: their identifier, every attribute
/// value (type and exact bits; a date as the seconds since 1970 that Molt stores) and the targets of every
/// relationship given (unordered ones sorted). Two stores
/// that hold the same objects with the same values and links have equal digests; the proof compares the
/// original's, taken as it was read, with the new store's, read back from it.
package struct AdoptionDigest: Equatable, Sendable {
    package private(set) var count = 0
    package private(set) var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    private mutating func mixBytes(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
    }

    private mutating func mixInteger(_ integer: UInt64) {
        withUnsafeBytes(of: integer.littleEndian) { mixBytes($0) }
    }

    private mutating func mixValue(_ value: Value) {
        switch value {
        case .null: mixInteger(0)
        case .string(let text):
            mixInteger(1)
            mixInteger(UInt64(text.utf8.count))
            mixBytes(text.utf8)
        case .int(let integer): mixInteger(2); mixInteger(UInt64(bitPattern: integer))
        case .double(let real): mixInteger(3); mixInteger(real.bitPattern)
        case .bool(let flag): mixInteger(4); mixInteger(flag ? 1 : 0)
        case .date(let date): mixInteger(5); mixInteger(date.timeIntervalSince1970.bitPattern)
        case .data(let data):
            mixInteger(6)
            mixInteger(UInt64(data.count))
            mixBytes(data)
        case .uuid(let uuid):
            mixInteger(7)
            mixBytes(uuid.uuidString.utf8)
        case .decimal(let decimal):
            mixInteger(8)
            mixBytes(DecimalText.text(decimal).utf8)
        }
    }

    /// Adds one object: `values` by attribute name (absent is null), `links` by relationship name; the
    /// relationships in `skipping` are left out (sides filled from their inverse).
    package mutating func add(
        id: Int64, values: [String: Value], links: [String: [Int64]], of entity: Entity, skipping: [String]
    ) {
        count += 1
        mixInteger(UInt64(bitPattern: id))
        for attribute in entity.attributes { mixValue(values[attribute.name] ?? .null) }
        for relationship in entity.relationships where !skipping.contains(relationship.name) {
            var targets = links[relationship.name] ?? []
            if relationship.kind == .toMany && !relationship.isOrdered { targets.sort() }
            mixInteger(UInt64(targets.count))
            for target in targets { mixInteger(UInt64(bitPattern: target)) }
        }
    }
}

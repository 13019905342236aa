import Foundation
import Molt

/// A leaf of Mixed values (realm-core's `ArrayMixed`, `AnyRealmValue` in Realm Swift).
///
/// Slot 0 holds one integer per value: `payload << 8 | where << 5 | (type + 1)` (0 for null). Small integers
/// and bools are the payload itself; other values are an index into slot 1 (64-bit integers, floats and
/// doubles as bits, link keys), slot 2 (pairs: dates, decimals, typed links), slot 3 (strings: strings,
/// binaries, ObjectIds, UUIDs) or slot 4 (refs to nested lists and maps).
struct RealmMixedLeaf {
    let count: Int
    private let composite: RealmNode
    private let ints: RealmNode?
    private let pairs: RealmNode?
    private let strings: RealmStrings?
    private let refs: RealmNode?
    private let file: RealmFileBytes
    private let reader: RealmCollectionReader
    private let what: String

    init(_ file: RealmFileBytes, _ node: RealmNode, reader: RealmCollectionReader, _ what: String) throws {
        self.file = file
        self.reader = reader
        self.what = what
        guard node.hasRefs, node.count >= 1, let composite = try node.child(0, "the values of \(what)") else {
            throw file.damaged("\(what) lacks its Mixed values")
        }
        try composite.requireIntegers("the values of \(what)")
        self.composite = composite
        count = composite.count
        func slot(_ index: Int, _ name: String) throws -> RealmNode? {
            index < node.count ? try node.child(index, "the \(name) of \(what)") : nil
        }
        ints = try slot(1, "integers")
        pairs = try slot(2, "pairs")
        strings = try slot(3, "strings").map { try RealmStrings(file, $0, "the strings of \(what)") }
        refs = try slot(4, "nested collections")
        try ints?.requireIntegers("the integers of \(what)")
        try pairs?.requireIntegers("the pairs of \(what)")
        try refs?.requireIntegers("the nested collections of \(what)")
    }

    func value(_ index: Int) throws -> RealmValue {
        let raw = composite.int(index)
        if raw == 0 { return .null }
        let type = Int(raw & 0x1F) - 1
        let location = Int((raw & 0xE0) >> 5)
        let payload = raw >> 8
        func int(_ at: Int64) throws -> Int64 {
            guard let ints, at >= 0, at < ints.count else { throw bad(index, "an integer it does not have") }
            return ints.int(Int(at))
        }
        func pair(_ at: Int64) throws -> (Int64, Int64) {
            guard let pairs, at >= 0, at * 2 + 1 < pairs.count else { throw bad(index, "a pair it does not have") }
            return (pairs.int(Int(at * 2)), pairs.int(Int(at * 2 + 1)))
        }
        func bytes(_ at: Int64) throws -> Data {
            guard let strings, at >= 0, at < strings.count else { throw bad(index, "a string it does not have") }
            guard let data = try strings.stringBytes(Int(at)) else { throw bad(index, "a null string") }
            return data
        }
        switch type {
        case 0: return .int(location != 0 ? try int(payload) : payload)
        case 1: return .bool(payload != 0)
        case 2:
            guard let strings, payload >= 0, payload < strings.count else {
                throw bad(index, "a string it does not have")
            }
            return try strings.string(Int(payload)).map(RealmValue.string) ?? .null
        case 4: return .data(try bytes(payload))
        case 8:
            let (seconds, nanoseconds) = try pair(payload)
            guard nanoseconds > -1_000_000_000, nanoseconds < 1_000_000_000 else {
                throw bad(index, "a date with \(nanoseconds) nanoseconds")
            }
            return .timestamp(RealmTimestamp(seconds: seconds, nanoseconds: Int32(nanoseconds)))
        case 9: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: try int(payload))))
        case 10: return .double(Double(bitPattern: UInt64(bitPattern: try int(payload))))
        case 11:
            let (low, high) = try pair(payload)
            return .decimal(RealmDecimal128(low: UInt64(bitPattern: low), high: UInt64(bitPattern: high)))
        case 15:
            let data = try bytes(payload)
            // realm-core stores the 12 bytes as a string, which may carry its terminating zero.
            guard data.count >= 12 else { throw bad(index, "an ObjectId of \(data.count) bytes") }
            return .objectID(RealmObjectID(bytes: [UInt8](data.prefix(12))))
        case 16:
            let (table, key) = try pair(payload)
            return .link(table: table, key: key)
        case 17: return try uuid(try bytes(payload), index)
        case 19, 21: return try nested(payload, location: location, isDictionary: type == 21, index)
        default:
            throw bad(index, "the unknown Mixed type \(type)")
        }
    }

    /// The UUID whose 16 bytes (perhaps with a terminating zero) `data` holds.
    private func uuid(_ data: Data, _ index: Int) throws -> RealmValue {
        guard data.count >= 16 else { throw bad(index, "a UUID of \(data.count) bytes") }
        let b = [UInt8](data.prefix(16))
        return .uuid(
            UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                    b[15]
                )))
    }

    /// The nested list or dictionary at `payload` of the leaf's refs.
    private func nested(_ payload: Int64, location: Int, isDictionary: Bool, _ index: Int) throws -> RealmValue {
        guard location == 4, let refs, payload >= 0, payload < refs.count else {
            throw bad(index, "a nested collection it does not have")
        }
        let ref = refs.int(Int(payload))
        guard ref >= 0, ref & 1 == 0 else { throw bad(index, "a nested collection that is not a ref") }
        if ref == 0 { return isDictionary ? .dictionary([]) : .list([]) }
        return try reader.nested(ref: Int(ref), isDictionary: isDictionary, "element \(index) of \(what)")
    }

    private func bad(_ index: Int, _ problem: String) -> MoltError {
        file.damaged("element \(index) of \(what) refers to \(problem)")
    }
}

import Foundation

/// A value read from a Realm file, in Realm's own terms (before any mapping to Molt's).
///
/// Floats and doubles keep their exact bits (equality compares bits, so NaN equals NaN and -0.0 differs
/// from 0.0); dates keep Realm's seconds and nanoseconds; links name the target table and object key.
package enum RealmValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case timestamp(RealmTimestamp)
    case decimal(RealmDecimal128)
    case objectID(RealmObjectID)
    case uuid(UUID)
    /// A link to the object with `key` in the table with key `table`.
    case link(table: Int64, key: Int64)
    case list([RealmValue])
    /// A set's elements in the order Realm keeps them (sorted).
    case set([RealmValue])
    /// A map's entries in the order Realm keeps them.
    case dictionary([RealmMapEntry])
    /// The keys of the objects whose link column (the backlink column's origin) links to this object.
    case backlinks([Int64])

    package static func == (a: RealmValue, b: RealmValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.int(let x), .int(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.float(let x), .float(let y)): return x.bitPattern == y.bitPattern
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.data(let x), .data(let y)): return x == y
        case (.timestamp(let x), .timestamp(let y)): return x == y
        case (.decimal(let x), .decimal(let y)): return x == y
        case (.objectID(let x), .objectID(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.link(let t1, let k1), .link(let t2, let k2)): return t1 == t2 && k1 == k2
        case (.list(let x), .list(let y)), (.set(let x), .set(let y)): return x == y
        case (.dictionary(let x), .dictionary(let y)): return x == y
        case (.backlinks(let x), .backlinks(let y)): return x == y
        default: return false
        }
    }

    package var description: String {
        switch self {
        case .null: "null"
        case .int(let v): "\(v)"
        case .bool(let v): "\(v)"
        case .float(let v): "\(v)f"
        case .double(let v): "\(v)"
        case .string(let v): String(reflecting: v)
        case .data(let v): "<\(v.count) bytes>"
        case .timestamp(let v): "\(v)"
        case .decimal(let v): "\(v)"
        case .objectID(let v): "ObjectId(\(v))"
        case .uuid(let v): v.uuidString
        case .link(let table, let key): "link(\(table), \(key))"
        case .list(let v): "[\(v.map(\.description).joined(separator: ", "))]"
        case .set(let v): "set[\(v.map(\.description).joined(separator: ", "))]"
        case .dictionary(let v): "[\(v.map { "\(String(reflecting: $0.key)): \($0.value)" }.joined(separator: ", "))]"
        case .backlinks(let v): "backlinks\(v)"
        }
    }
}

/// One entry of a Realm map.
package struct RealmMapEntry: Sendable, Equatable {
    package var key: String
    package var value: RealmValue
}

/// A Realm date: seconds since 1970 and nanoseconds of the same sign (realm-core's `Timestamp`).
package struct RealmTimestamp: Sendable, Hashable, CustomStringConvertible {
    package var seconds: Int64
    package var nanoseconds: Int32

    package init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    package var description: String { "\(seconds)s\(nanoseconds)ns" }
}

/// A Realm/MongoDB ObjectId: 12 bytes (a 4-byte big-endian time, then 8 bytes).
package struct RealmObjectID: Sendable, Hashable, CustomStringConvertible {
    package var bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// The 24 lowercase hexadecimal digits Realm prints.
    package var description: String { bytes.map { String(format: "%02x", $0) }.joined() }
}

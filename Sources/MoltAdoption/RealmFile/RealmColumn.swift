import Foundation

/// One column of a Realm table, as its spec states it.
///
/// A column key packs the column's index (bits 0–15: its leaf is slot `index + 1` of every cluster), its type
/// (16–21), its attributes (22–29) and a tag. The spec holds the type, the name and the attributes (nullable
/// `16`, list `32`, dictionary `64`, set `128`, indexed `1`, unique `2`, full-text indexed `256`) per column;
/// link and backlink columns also name the table at their other end.
struct RealmColumn: Equatable, Sendable {
    /// realm-core's column types (`ColumnType`): the values stored in the spec.
    enum Kind: Int, Sendable, CustomStringConvertible {
        case int = 0, bool = 1, string = 2, binary = 4, mixed = 6, timestamp = 8, float = 9, double = 10
        case decimal = 11, link = 12, backlink = 14, objectID = 15, typedLink = 16, uuid = 17

        var description: String {
            switch self {
            case .int: "Int"
            case .bool: "Bool"
            case .string: "String"
            case .binary: "Data"
            case .mixed: "Mixed"
            case .timestamp: "Date"
            case .float: "Float"
            case .double: "Double"
            case .decimal: "Decimal128"
            case .link: "link"
            case .backlink: "backlink"
            case .objectID: "ObjectId"
            case .typedLink: "typed link"
            case .uuid: "UUID"
            }
        }
    }

    /// How a column holds its values: one per object, or a collection of them.
    enum Collection: Equatable, Sendable {
        case none, list, set
        /// A map whose keys are of `keyKind` (String for every Realm Swift map).
        case dictionary(keyKind: Kind)
    }

    let name: String
    let kind: Kind
    let collection: Collection
    let isNullable: Bool
    let isIndexed: Bool
    let isUnique: Bool
    let isFullTextIndexed: Bool
    /// The column key, as links and the primary key name the column.
    let key: Int64
    /// The key of the table at the other end of a link or backlink column.
    let targetTableKey: Int64?
    /// For a backlink column, the key of the link column it is the inverse of (in the target table).
    let originColumnKey: Int64?

    /// The column's slot in a cluster: its index + 1 (slot 0 holds the object keys).
    var leafSlot: Int { Int(key & 0xFFFF) + 1 }
}

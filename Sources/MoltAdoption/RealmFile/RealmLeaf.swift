import Foundation
import Molt

/// The values of one column in one cluster (or one B+tree leaf of a collection), decoded by Realm type.
///
/// Each form is realm-core's leaf for that type: integers (`ArrayInteger`; nullable ones `ArrayIntNull`, whose
/// slot 0 holds the null value), bools as integers (nullable ones `ArrayBoolNull`, null being 3), floats and doubles (4 and 8 bytes; null is the NaN
/// `0x7fc000aa` / `0x7ff80000000000aa`), strings and binaries (``RealmStrings``), dates (slot 0 the seconds
/// as nullable integers, slot 1 the nanoseconds), decimals (``RealmDecimal128``), ObjectIds and UUIDs (blocks
/// of a null-bit byte and 8 values), links (`ArrayKey`: key + 1, 0 for none; in lists the key itself),
/// backlinks and Mixed (``RealmMixedLeaf``).
struct RealmLeaf {
    private enum Form {
        case int, intNull, bool, boolNull, float, double, strings(RealmStrings), binaries(RealmStrings)
        case timestamps(seconds: RealmNode, nanoseconds: RealmNode)
        case decimals, fixed(Int), link(adjustment: Int64, table: Int64), backlinks, mixed(RealmMixedLeaf)
    }

    let count: Int
    private let node: RealmNode
    private let form: Form
    private let isNullable: Bool
    private let file: RealmFileBytes
    private let what: String
    private let reader: RealmCollectionReader

    /// The leaf at `node` holding values of `kind`; `inList` for a collection's B+tree leaf (links are stored
    /// unadjusted there).
    init(
        _ file: RealmFileBytes, _ node: RealmNode, kind: RealmColumn.Kind, nullable: Bool, inList: Bool,
        target: Int64?, reader: RealmCollectionReader, _ what: @autoclosure () -> String
    ) throws {
        let what = what()
        self.file = file
        self.node = node
        self.what = what
        self.reader = reader
        isNullable = nullable
        switch kind {
        case .int, .bool, .float, .double:
            (form, count) = try Self.numbers(file, node, kind: kind, nullable: nullable, what)
        case .string:
            let strings = try RealmStrings(file, node, what)
            form = .strings(strings)
            count = strings.count
        case .binary:
            let strings = try RealmStrings(file, node, what)
            form = .binaries(strings)
            count = strings.count
        case .timestamp:
            (form, count) = try Self.timestamps(file, node, what)
        case .decimal:
            guard node.scheme == .bytes, [0, 4, 8, 16].contains(node.width) else {
                throw file.damaged("\(what) holds decimals \(node.width) \(node.scheme) wide")
            }
            form = .decimals
            count = node.count
        case .objectID, .uuid:
            (form, count) = try Self.fixed(file, node, width: kind == .objectID ? 12 : 16, what)
        case .link:
            try node.requireIntegers(what)
            guard let target else { throw file.damaged("\(what) is a link without a target table") }
            form = .link(adjustment: inList ? 0 : 1, table: target)
            count = node.count
        case .backlink:
            try node.requireIntegers(what)
            form = .backlinks
            count = node.count
        case .mixed:
            let mixed = try RealmMixedLeaf(file, node, reader: reader, what)
            form = .mixed(mixed)
            count = mixed.count
        case .typedLink:
            throw MoltError(
                .unsupportedFormat,
                "\(what) in the Realm file at \(file.url.path) is a typed link column, which Realm Swift never writes and Molt does not read."
            )
        }
    }

    /// The value at `index` (< `count`).
    func value(_ index: Int) throws -> RealmValue {
        switch form {
        case .int: return .int(node.int(index))
        case .bool: return .bool(node.int(index) != 0)
        case .intNull:
            let value = node.int(index + 1)
            return value == node.int(0) ? .null : .int(value)
        case .boolNull:
            let value = node.int(index)
            return value == 3 ? .null : .bool(value != 0)
        case .float:
            let bits = UInt32(truncatingIfNeeded: file.unsigned(node.payload + index * 4, width: 4))
            if isNullable && bits == 0x7fc0_00aa { return .null }
            return .float(Float(bitPattern: bits))
        case .double:
            let bits = file.unsigned(node.payload + index * 8, width: 8)
            if isNullable && bits == 0x7ff8_0000_0000_00aa { return .null }
            return .double(Double(bitPattern: bits))
        case .strings(let strings): return try strings.string(index).map(RealmValue.string) ?? .null
        case .binaries(let strings): return try strings.data(index).map(RealmValue.data) ?? .null
        case .timestamps(let seconds, let nanoseconds):
            let value = seconds.int(index + 1)
            if value == seconds.int(0) { return .null }
            let nanos = nanoseconds.int(index)
            guard nanos > -1_000_000_000, nanos < 1_000_000_000 else {
                throw file.damaged("element \(index) of \(what) has \(nanos) nanoseconds")
            }
            return .timestamp(RealmTimestamp(seconds: value, nanoseconds: Int32(nanos)))
        case .decimals: return decimal(index)
        case .fixed(let width): return fixedValue(index, width: width)
        case .link(let adjustment, let table):
            let value = node.int(index)
            if adjustment == 1 && value == 0 { return .null }
            return .link(table: table, key: value - adjustment)
        case .backlinks:
            let value = node.int(index)
            if value == 0 { return .backlinks([]) }
            if value & 1 == 1 { return .backlinks([value >> 1]) }
            guard value > 0 else { throw file.damaged("element \(index) of \(what) is not a ref") }
            return .backlinks(try reader.integers(ref: Int(value), "element \(index) of \(what)"))
        case .mixed(let mixed): return try mixed.value(index)
        }
    }

    /// A leaf of integers or bools (nullable ones with their null value in slot 0), or of 4- or 8-byte floats.
    private static func numbers(
        _ file: RealmFileBytes, _ node: RealmNode, kind: RealmColumn.Kind, nullable: Bool, _ what: String
    ) throws -> (Form, Int) {
        switch kind {
        case .int, .bool:
            try node.requireIntegers(what)
            // A nullable bool is a bool whose null is the value 3 (`ArrayBoolNull`); a nullable integer keeps its
            // null value in slot 0 (`ArrayIntNull`).
            if nullable && kind == .bool { return (.boolNull, node.count) }
            if nullable {
                guard node.count >= 1 else { throw file.damaged("\(what) lacks its null value") }
                return (.intNull, node.count - 1)
            } else {
                return (kind == .int ? .int : .bool, node.count)
            }
        case .float, .double:
            let width = kind == .float ? 4 : 8
            guard node.scheme == .bytes, node.width == width || (node.width == 0 && node.count == 0) else {
                throw file.damaged(
                    "\(what) should hold \(width)-byte numbers but its elements are \(node.width) \(node.scheme) wide")
            }
            return (kind == .float ? .float : .double, node.count)
        default:
            throw file.damaged("\(what) is not a column of numbers")
        }
    }

    /// A leaf of dates: its seconds (nullable integers, slot 0 the null value) and nanoseconds.
    private static func timestamps(_ file: RealmFileBytes, _ node: RealmNode, _ what: String) throws -> (Form, Int) {
        guard node.hasRefs, node.count >= 2, let seconds = try node.child(0, "the seconds of \(what)"),
            let nanoseconds = try node.child(1, "the nanoseconds of \(what)")
        else { throw file.damaged("\(what) lacks its seconds or its nanoseconds") }
        try seconds.requireIntegers("the seconds of \(what)")
        try nanoseconds.requireIntegers("the nanoseconds of \(what)")
        guard seconds.count >= 1, nanoseconds.count == seconds.count - 1 else {
            throw file.damaged("\(what) has \(seconds.count - 1) seconds but \(nanoseconds.count) nanoseconds")
        }
        return (.timestamps(seconds: seconds, nanoseconds: nanoseconds), nanoseconds.count)
    }

    /// A leaf of ObjectIds (`width` 12) or UUIDs (16): blocks of a null-bit byte and 8 values.
    private static func fixed(
        _ file: RealmFileBytes, _ node: RealmNode, width: Int, _ what: String
    ) throws -> (
        Form, Int
    ) {
        guard node.scheme == .bytes, node.width <= 1 else {
            throw file.damaged("\(what) should hold bytes but its elements are \(node.width) \(node.scheme) wide")
        }
        let bytes = node.payloadSize
        let blocks = (bytes + width * 8) / (width * 8 + 1)
        guard (bytes - blocks) % width == 0 else {
            throw file.damaged("\(what) holds \(bytes) bytes, not a whole number of \(width)-byte values")
        }
        return (.fixed(width), (bytes - blocks) / width)
    }

    /// The decimal at `index`, in the leaf's width (0: a leaf of nulls, or with the context flag of zeros).
    private func decimal(_ index: Int) -> RealmValue {
        let decimal: RealmDecimal128
        switch node.width {
        case 0: return node.contextFlag ? .decimal(RealmDecimal128(low: 0, high: 6176 << 49)) : .null
        case 4: decimal = RealmDecimal128(narrow: file.unsigned(node.payload + index * 4, width: 4), bits: 32)
        case 8: decimal = RealmDecimal128(narrow: file.unsigned(node.payload + index * 8, width: 8), bits: 64)
        default:
            decimal = RealmDecimal128(
                low: file.unsigned(node.payload + index * 16, width: 8),
                high: file.unsigned(node.payload + index * 16 + 8, width: 8))
        }
        // realm-core narrows a null to the NaN with payload 0xaa of each width: any such NaN is null.
        if decimal.isNaN && isNullable && Self.isNullDecimal(node: node, file: file, index: index) { return .null }
        return .decimal(decimal)
    }

    /// The ObjectId or UUID at `index`, or null where its block's null bit is set.
    private func fixedValue(_ index: Int, width: Int) -> RealmValue {
        let base = node.payload + index / 8 * (width * 8 + 1)
        if file.byte(base) & (1 << UInt8(index % 8)) != 0 { return .null }
        let bytes = file.bytes(base + 1 + (index % 8) * width, width)
        if width == 12 { return .objectID(RealmObjectID(bytes: bytes)) }
        return .uuid(
            UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                    bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )))
    }

    /// Whether the decimal at `index` has the bits of realm-core's null in the leaf's width.
    private static func isNullDecimal(node: RealmNode, file: RealmFileBytes, index: Int) -> Bool {
        switch node.width {
        case 4: return file.unsigned(node.payload + index * 4, width: 4) == 0x7c00_00aa
        case 8: return file.unsigned(node.payload + index * 8, width: 8) == 0x7c00_0000_0000_00aa
        default:
            return file.unsigned(node.payload + index * 16, width: 8) == 0xaa
                && file.unsigned(node.payload + index * 16 + 8, width: 8) == 0x7c00_0000_0000_0000
        }
    }
}

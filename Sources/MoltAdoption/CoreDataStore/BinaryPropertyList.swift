import Foundation

/// A value of a binary property list (`bplist00`), with the keyed archiver's object references (UIDs) kept as
/// numbers: what ``CoreDataModelCache`` reads a Core Data model's archive from.
///
/// Foundation's `PropertyListSerialization` reads the same format, but gives UIDs as an opaque private class on
/// Linux and another on Apple platforms; this reader is small and behaves alike everywhere.
package indirect enum PropertyListValue: Equatable {
    case bool(Bool)
    case int(Int64)
    case real(Double)
    case date(Double)
    case data([UInt8])
    case string(String)
    case uid(Int)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
    case null

    /// Reads a binary property list.
    ///
    /// - Throws: ``BinaryPropertyListMalformed`` naming what is wrong: not a `bplist00`, an offset or a reference
    ///   outside the data, a key that is not a string, an object that contains itself.
    package init(binary bytes: [UInt8]) throws {
        var reader = try BinaryPropertyListReader(bytes)
        self = try reader.object(reader.top, depth: 0)
    }

    package subscript(key: String) -> PropertyListValue? {
        if case .dictionary(let values) = self { return values[key] }
        return nil
    }
}

/// Why a binary property list cannot be read.
package struct BinaryPropertyListMalformed: Error, Equatable {
    /// What is wrong, in a few words.
    package var reason: String
}

private struct BinaryPropertyListReader {
    let bytes: [UInt8]
    let offsets: [Int]
    let referenceSize: Int
    let top: Int

    init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else {
            throw BinaryPropertyListMalformed(reason: "it is not a binary property list (bplist00)")
        }
        self.bytes = bytes
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.integer(bytes[(trailer + 8)..<(trailer + 16)])
        top = Self.integer(bytes[(trailer + 16)..<(trailer + 24)])
        let table = Self.integer(bytes[(trailer + 24)..<(trailer + 32)])
        // Every count and offset is bounded by the data's size before any arithmetic: a damaged trailer must be
        // refused, not overflow.
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, count <= bytes.count,
            top >= 0, top < count, table >= 8, table <= trailer, count * offsetSize <= trailer - table
        else { throw BinaryPropertyListMalformed(reason: "its trailer is damaged") }
        offsets = (0..<count).map { index in
            Self.integer(bytes[(table + index * offsetSize)..<(table + (index + 1) * offsetSize)])
        }
    }

    static func integer(_ slice: ArraySlice<UInt8>) -> Int {
        slice.reduce(0) { ($0 << 8) | Int($1) }
    }

    mutating func object(_ index: Int, depth: Int) throws -> PropertyListValue {
        guard index >= 0, index < offsets.count, offsets[index] >= 0, offsets[index] < bytes.count - 32 else {
            throw BinaryPropertyListMalformed(reason: "a reference to object \(index), which is not there")
        }
        guard depth < 512 else { throw BinaryPropertyListMalformed(reason: "objects nested too deeply, or in a loop") }
        var position = offsets[index]
        let marker = bytes[position], low = Int(marker & 0x0F)
        position += 1
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: return .null
            }
        case 0x1:
            let size = 1 << low
            let raw = try slice(position, size)
            let unsigned = raw.reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
            return .int(size >= 8 ? Int64(bitPattern: unsigned) : Int64(unsigned))
        case 0x2:
            let raw = try slice(position, 1 << low)
            let bits = raw.reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
            return .real(low == 2 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits))
        case 0x3:
            return .date(Double(bitPattern: try slice(position, 8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }))
        case 0x4:
            let length = try self.length(low, at: &position)
            return .data(Array(try slice(position, length)))
        case 0x5:
            let length = try self.length(low, at: &position)
            return .string(String(decoding: try slice(position, length), as: UTF8.self))
        case 0x6:
            let length = try self.length(low, at: &position)
            let units = try slice(position, length * 2)
            let utf16 = stride(from: units.startIndex, to: units.endIndex, by: 2).map {
                UInt16(units[$0]) << 8 | UInt16(units[$0 + 1])
            }
            return .string(String(decoding: utf16, as: UTF16.self))
        case 0x8:
            return .uid(Self.integer(try slice(position, low + 1)))
        case 0xA, 0xC:
            let count = try self.length(low, at: &position)
            return .array(try references(position, count).map { try object($0, depth: depth + 1) })
        case 0xD:
            let count = try self.length(low, at: &position)
            let all = try references(position, count * 2)
            var values: [String: PropertyListValue] = [:]
            for (key, value) in zip(all[..<count], all[count...]) {
                guard case .string(let name) = try object(key, depth: depth + 1) else {
                    throw BinaryPropertyListMalformed(reason: "a dictionary key that is not a string")
                }
                values[name] = try object(value, depth: depth + 1)
            }
            return .dictionary(values)
        default:
            throw BinaryPropertyListMalformed(reason: "an object of unknown kind 0x\(String(marker, radix: 16))")
        }
    }

    /// The count in a marker's low nibble, or, when it is 15, in the integer object that follows.
    func length(_ low: Int, at position: inout Int) throws -> Int {
        guard low == 0x0F else { return low }
        let marker = try slice(position, 1).first!
        guard marker >> 4 == 0x1 else { throw BinaryPropertyListMalformed(reason: "a length that is not an integer") }
        let size = 1 << Int(marker & 0x0F)
        let length = Self.integer(try slice(position + 1, size))
        guard length <= bytes.count else { throw BinaryPropertyListMalformed(reason: "a length beyond the data") }
        position += 1 + size
        return length
    }

    func references(_ position: Int, _ count: Int) throws -> [Int] {
        let raw = try slice(position, count * referenceSize)
        return (0..<count).map { index in
            Self.integer(raw[(raw.startIndex + index * referenceSize)..<(raw.startIndex + (index + 1) * referenceSize)])
        }
    }

    func slice(_ position: Int, _ length: Int) throws -> ArraySlice<UInt8> {
        guard length >= 0, position >= 0, length <= bytes.count, position + length <= bytes.count - 32 else {
            throw BinaryPropertyListMalformed(reason: "an object runs past the end of the data")
        }
        return bytes[position..<(position + length)]
    }
}

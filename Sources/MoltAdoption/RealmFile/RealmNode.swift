import Foundation
import Molt

/// One array of a Realm file (realm-core's `Array`): an 8-byte header, then its elements.
///
/// The header holds the capacity (bytes 0–2), the flags (byte 4: inner B+tree node `0x80`, has refs `0x40`,
/// context flag `0x20`, width scheme `0x18`, log2 of the width + 1 `0x07`) and the element count (bytes 5–7,
/// big-endian). Elements are little-endian, `width` bits each (scheme 0), `width` bytes each (scheme 1) or one
/// byte each (scheme 2); the node is padded to 8 bytes. ``init(_:at:)`` checks that the whole node lies inside
/// the file, so element reads below `count` need no further check.
struct RealmNode {
    /// How `width` is counted.
    enum WidthScheme: UInt8 {
        case bits = 0, bytes = 1, ignore = 2
    }

    let ref: Int
    let isInnerNode: Bool
    let hasRefs: Bool
    let contextFlag: Bool
    let scheme: WidthScheme
    /// Bits (scheme 0) or bytes (scheme 1) per element: 0, 1, 2, 4, 8, 16, 32 or 64.
    let width: Int
    let count: Int
    /// The offset of the first element.
    var payload: Int { ref + 8 }
    /// The bytes the elements take, before padding.
    let payloadSize: Int
    private let file: RealmFileBytes

    /// The array whose header is at `ref`.
    ///
    /// - Throws: `MoltError.corruptStore` when `ref` is not 8-aligned, is 0, or the node does not fit in the file.
    init(_ file: RealmFileBytes, at ref: Int, _ what: @autoclosure () -> String) throws {
        guard ref > 0, ref % 8 == 0 else {
            throw file.damaged(
                "\(what()) refers to offset \(ref), which is not a node's (not a positive multiple of 8)")
        }
        try file.check(ref, 8, "the header of \(what())")
        self.file = file
        self.ref = ref
        let flags = file.byte(ref + 4)
        isInnerNode = flags & 0x80 != 0
        hasRefs = flags & 0x40 != 0
        contextFlag = flags & 0x20 != 0
        guard let scheme = WidthScheme(rawValue: (flags & 0x18) >> 3) else {
            throw file.damaged("\(what()) (offset \(ref)) has an unknown width scheme \((flags & 0x18) >> 3)")
        }
        self.scheme = scheme
        width = (1 << Int(flags & 0x07)) >> 1
        count = Int(file.byte(ref + 5)) << 16 | Int(file.byte(ref + 6)) << 8 | Int(file.byte(ref + 7))
        switch scheme {
        case .bits: payloadSize = (count * width + 7) / 8
        case .bytes: payloadSize = count * width
        case .ignore: payloadSize = count
        }
        try file.check(ref + 8, payloadSize, "the elements of \(what()) (offset \(ref))")
    }

    /// Throws unless the node's elements are integers of `scheme` (bits), as refs and numbers are.
    func requireIntegers(_ what: @autoclosure () -> String) throws {
        guard scheme == .bits else {
            throw file.damaged("\(what()) (offset \(ref)) should hold integers but its width scheme is \(scheme)")
        }
    }

    /// The signed integer at `index` (widths 1, 2 and 4 are unsigned, 8 and more signed, as realm-core reads).
    ///
    /// The caller checks `index < count` and that the scheme is bits (``requireIntegers(_:)``).
    @inline(__always)
    func int(_ index: Int) -> Int64 {
        switch width {
        case 0: return 0
        case 1, 2, 4:
            let bit = index * width
            let byte = file.byte(payload + bit / 8)
            return Int64((byte >> UInt8(bit % 8)) & UInt8((1 << width) - 1))
        case 8: return Int64(Int8(bitPattern: file.byte(payload + index)))
        case 16: return Int64(Int16(truncatingIfNeeded: file.unsigned(payload + index * 2, width: 2)))
        case 32: return Int64(Int32(truncatingIfNeeded: file.unsigned(payload + index * 4, width: 4)))
        default: return Int64(bitPattern: file.unsigned(payload + index * 8, width: 8))
        }
    }

    /// The unsigned integer at `index` (realm-core's `ArrayUnsigned`: widths of 8 bits and more are unsigned).
    @inline(__always)
    func unsigned(_ index: Int) -> UInt64 {
        switch width {
        case 0, 1, 2, 4: return UInt64(int(index))
        default: return file.unsigned(payload + index * (width / 8), width: width / 8)
        }
    }

    /// The integer at `index`, bounds-checked, for the few fixed slots of structural arrays.
    func checkedInt(_ index: Int, _ what: @autoclosure () -> String) throws -> Int64 {
        try requireIntegers(what())
        guard index >= 0, index < count else {
            throw file.damaged("\(what()) (offset \(ref)) has \(count) elements, no element \(index)")
        }
        return int(index)
    }

    /// The element at `index` read as a ref (even, non-negative) or nil when it is 0 (no array).
    ///
    /// - Throws: `MoltError.corruptStore` when the element is odd (a tagged number) or negative.
    func ref(_ index: Int, _ what: @autoclosure () -> String) throws -> Int? {
        let value = try checkedInt(index, what())
        guard value >= 0, value & 1 == 0 else {
            throw file.damaged("\(what()) should be a ref but is \(value)")
        }
        return value == 0 ? nil : Int(value)
    }

    /// The element at `index` read as a tagged number (odd: `value << 1 | 1`).
    func tagged(_ index: Int, _ what: @autoclosure () -> String) throws -> Int64 {
        let value = try checkedInt(index, what())
        guard value & 1 == 1 else { throw file.damaged("\(what()) should be a tagged number but is \(value)") }
        return value >> 1
    }

    /// The node at the ref held by element `index`, or nil when it holds 0.
    func child(_ index: Int, _ what: @autoclosure () -> String) throws -> RealmNode? {
        let name = what()
        guard let ref = try ref(index, name) else { return nil }
        return try RealmNode(file, at: ref, name)
    }
}

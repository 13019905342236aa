import Foundation
import Molt

/// A leaf of strings or binary values (realm-core's `ArrayString`, `ArrayBinary`), in any of its three forms.
///
/// - Short strings (no refs, width in bytes): each element takes `width` bytes, its last byte holding
///   `width - 1 - length` (`width` for null); the bytes are followed by a zero.
/// - Medium (refs, no context flag; `ArraySmallBlobs`): slot 0 the end offsets, slot 1 one blob of every value,
///   slot 2 a null flag per element. Strings keep their terminating zero in the blob.
/// - Big (refs and the context flag; `ArrayBigBlobs`): one ref per element to a blob of its own (0 for null).
struct RealmStrings {
    private enum Form {
        case short
        case medium(offsets: RealmNode, blob: RealmNode, nulls: RealmNode?)
        case big
    }

    let count: Int
    private let node: RealmNode
    private let form: Form
    private let file: RealmFileBytes
    private let what: String

    init(_ file: RealmFileBytes, _ node: RealmNode, _ what: @autoclosure () -> String) throws {
        self.file = file
        self.node = node
        let what = what()
        self.what = what
        if !node.hasRefs {
            guard node.scheme == .bytes else {
                throw MoltError(
                    .unsupportedFormat,
                    "\(what) in the Realm file at \(file.url.path) is an enumerated string column (an optimization of realm-core's that Realm Swift does not make), which Molt does not read."
                )
            }
            guard node.width <= 64 else { throw file.damaged("\(what) has short strings \(node.width) bytes wide") }
            form = .short
            count = node.count
        } else if node.contextFlag {
            try node.requireIntegers(what)
            form = .big
            count = node.count
        } else {
            guard node.count >= 2, let offsets = try node.child(0, "the offsets of \(what)"),
                let blob = try node.child(1, "the bytes of \(what)")
            else { throw file.damaged("\(what) lacks its offsets or its bytes") }
            try offsets.requireIntegers("the offsets of \(what)")
            let nulls = node.count > 2 ? try node.child(2, "the null flags of \(what)") : nil
            if let nulls {
                try nulls.requireIntegers("the null flags of \(what)")
                guard nulls.count == offsets.count else {
                    throw file.damaged("\(what) has \(offsets.count) offsets but \(nulls.count) null flags")
                }
            }
            form = .medium(offsets: offsets, blob: blob, nulls: nulls)
            count = offsets.count
        }
    }

    /// The string at `index` (the caller checks `index < count`), nil for null.
    func string(_ index: Int) throws -> String? {
        guard let (offset, length) = try bytes(index, terminated: true) else { return nil }
        guard let text = file.string(offset, length) else {
            throw file.damaged("element \(index) of \(what) is not UTF-8 text")
        }
        return text
    }

    /// The binary value at `index`, nil for null.
    func data(_ index: Int) throws -> Data? {
        guard let (offset, length) = try bytes(index, terminated: false) else { return nil }
        return file.data(offset, length)
    }

    /// The bytes of the string at `index`, without its terminating zero (as `ArrayMixed` keeps binaries,
    /// ObjectIds and UUIDs); nil for null.
    func stringBytes(_ index: Int) throws -> Data? {
        guard let (offset, length) = try bytes(index, terminated: true) else { return nil }
        return file.data(offset, length)
    }

    /// Where the bytes of element `index` lie, without a string's terminating zero; nil for null.
    private func bytes(_ index: Int, terminated: Bool) throws -> (Int, Int)? {
        switch form {
        case .short:
            let width = node.width
            if width == 0 { return nil }
            let slot = node.payload + index * width
            let tail = Int(file.byte(slot + width - 1))
            if tail == width { return nil }
            guard tail < width else { throw file.damaged("element \(index) of \(what) has a bad length byte \(tail)") }
            let length = width - 1 - tail
            return (slot, length)
        case .medium(let offsets, let blob, let nulls):
            if let nulls, nulls.int(index) != 0 { return nil }
            let begin = index == 0 ? 0 : Int(offsets.int(index - 1))
            let end = Int(offsets.int(index))
            guard blob.scheme == .ignore, begin >= 0, begin <= end, end <= blob.payloadSize else {
                throw file.damaged(
                    "element \(index) of \(what) spans bytes \(begin)..<\(end) of a \(blob.payloadSize)-byte blob")
            }
            let length = end - begin
            if terminated {
                guard length >= 1, file.byte(blob.payload + end - 1) == 0 else {
                    throw file.damaged("element \(index) of \(what) lacks its terminating zero")
                }
                return (blob.payload + begin, length - 1)
            }
            return (blob.payload + begin, length)
        case .big:
            let value = node.int(index)
            if value == 0 { return nil }
            guard value > 0, value & 1 == 0 else { throw file.damaged("element \(index) of \(what) is not a ref") }
            let blob = try RealmNode(file, at: Int(value), "element \(index) of \(what)")
            guard !blob.contextFlag else {
                throw MoltError(
                    .unsupportedFormat,
                    "Element \(index) of \(what) in the Realm file at \(file.url.path) is a value of more than 16 MB, stored in chunks, which Molt does not read yet."
                )
            }
            let length = blob.count
            if terminated {
                guard length >= 1, file.byte(blob.payload + length - 1) == 0 else {
                    throw file.damaged("element \(index) of \(what) lacks its terminating zero")
                }
                return (blob.payload, length - 1)
            }
            return (blob.payload, length)
        }
    }
}

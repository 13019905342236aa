/// A decoder of raw DEFLATE streams (RFC 1951), for the model Core Data compresses into `Z_MODELCACHE`.
///
/// Foundation has no DEFLATE on Linux, and linking zlib for one small blob per store would put another library
/// in every `molt` process. The decoder is the plain canonical-Huffman one (no tables beyond the code counts):
/// model caches are a few kilobytes.
///
/// ```swift
/// let archive = try Inflate.decompress(Array(cacheBlob))
/// ```
package enum Inflate {
    /// Why a stream cannot be decoded.
    package struct Malformed: Error, Equatable {
        /// What is wrong, in a few words.
        package var reason: String
    }

    /// The bytes `input` compresses.
    ///
    /// - Parameters:
    ///   - input: A raw DEFLATE stream (no zlib or gzip header).
    ///   - limit: The most bytes the output may hold; a stream that expands beyond is refused.
    /// - Throws: ``Malformed`` for a stream that is cut short, uses a reserved block type, refers back before its
    ///   start, or expands beyond `limit`.
    package static func decompress(_ input: [UInt8], limit: Int = 64 << 20) throws -> [UInt8] {
        var reader = BitReader(bytes: input)
        var output: [UInt8] = []
        var last = false
        while !last {
            last = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0: try stored(&reader, into: &output)
            case 1: try compressed(&reader, Self.fixed, into: &output, limit: limit)
            case 2: try compressed(&reader, try dynamicCodes(&reader), into: &output, limit: limit)
            default: throw Malformed(reason: "a block of the reserved type 3")
            }
            guard output.count <= limit else { throw Malformed(reason: "it expands beyond \(limit) bytes") }
        }
        return output
    }

    // MARK: - Blocks

    private static func stored(_ reader: inout BitReader, into output: inout [UInt8]) throws {
        reader.alignToByte()
        let length = try reader.bits(16), complement = try reader.bits(16)
        guard length == ~complement & 0xFFFF else { throw Malformed(reason: "a stored block's length is damaged") }
        output += try reader.bytes(length)
    }

    private static func compressed(
        _ reader: inout BitReader, _ codes: (literals: Huffman, distances: Huffman), into output: inout [UInt8],
        limit: Int
    ) throws {
        while true {
            let symbol = try codes.literals.decode(&reader)
            if symbol < 256 {
                output.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let index = symbol - 257
            guard index < lengthBase.count else { throw Malformed(reason: "an unknown length code \(symbol)") }
            let length = lengthBase[index] + (try reader.bits(lengthExtra[index]))
            let code = try codes.distances.decode(&reader)
            guard code < distanceBase.count else { throw Malformed(reason: "an unknown distance code \(code)") }
            let distance = distanceBase[code] + (try reader.bits(distanceExtra[code]))
            guard distance <= output.count else { throw Malformed(reason: "a reference before the start") }
            guard output.count + length <= limit else { throw Malformed(reason: "it expands beyond \(limit) bytes") }
            let start = output.count - distance
            for offset in 0..<length { output.append(output[start + offset]) }
        }
    }

    /// The codes of a dynamic block, read from its header.
    private static func dynamicCodes(_ reader: inout BitReader) throws -> (literals: Huffman, distances: Huffman) {
        let literalCount = try reader.bits(5) + 257, distanceCount = try reader.bits(5) + 1
        let lengthCodeCount = try reader.bits(4) + 4
        var lengthCodeLengths = [Int](repeating: 0, count: 19)
        for position in codeLengthOrder.prefix(lengthCodeCount) { lengthCodeLengths[position] = try reader.bits(3) }
        let lengthCode = try Huffman(lengths: lengthCodeLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try lengthCode.decode(&reader)
            switch symbol {
            case 0..<16:
                lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw Malformed(reason: "a repeat with nothing before") }
                lengths += repeatElement(previous, count: 3 + (try reader.bits(2)))
            case 17: lengths += repeatElement(0, count: 3 + (try reader.bits(3)))
            default: lengths += repeatElement(0, count: 11 + (try reader.bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else {
            throw Malformed(reason: "code lengths run past their count")
        }
        return (
            try Huffman(lengths: Array(lengths[..<literalCount])), try Huffman(lengths: Array(lengths[literalCount...]))
        )
    }

    // MARK: - Tables of RFC 1951

    private static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    private static let lengthExtra = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    private static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    private static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// The codes of a block of fixed codes.
    private static let fixed: (literals: Huffman, distances: Huffman) = {
        let literals =
            [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112)
            + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8)
        // The lengths are valid by construction.
        return (try! Huffman(lengths: literals), try! Huffman(lengths: [Int](repeating: 5, count: 30)))
    }()
}

/// A canonical Huffman code, by the number of codes of each length and the symbols in code order.
private struct Huffman {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int] = []

    init(lengths: [Int]) throws {
        for length in lengths { counts[length] += 1 }
        counts[0] = 0
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<16 { offsets[length] = offsets[length - 1] + counts[length - 1] }
        symbols = [Int](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
    }

    /// Reads one symbol, a bit at a time.
    func decode(_ reader: inout BitReader) throws -> Int {
        var code = 0, first = 0, index = 0
        for length in 1..<16 {
            code |= try reader.bits(1)
            let count = counts[length]
            if code - first < count { return symbols[index + code - first] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw Inflate.Malformed(reason: "a code that no symbol has")
    }
}

/// The bits of a byte array, least significant first, as DEFLATE packs them.
private struct BitReader {
    let bytes: [UInt8]
    var position = 0
    var buffer = 0
    var count = 0

    mutating func bits(_ needed: Int) throws -> Int {
        while count < needed {
            guard position < bytes.count else { throw Inflate.Malformed(reason: "the stream is cut short") }
            buffer |= Int(bytes[position]) << count
            position += 1
            count += 8
        }
        let value = buffer & ((1 << needed) - 1)
        buffer >>= needed
        count -= needed
        return value
    }

    mutating func alignToByte() {
        buffer = 0
        count = 0
    }

    mutating func bytes(_ length: Int) throws -> [UInt8] {
        guard position + length <= bytes.count else { throw Inflate.Malformed(reason: "the stream is cut short") }
        defer { position += length }
        return Array(bytes[position..<(position + length)])
    }
}

import GRDBSQLite

/// `SQLITE_TRANSIENT`, which Swift does not import: SQLite copies the bytes before the call returns.
let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// Two independent 64-bit hashes of one row's values, each value by its storage class, length and bytes.
struct SQLiteRowHash {
    private var a: UInt64 = 0x243F_6A88_85A3_08D3
    private var b: UInt64 = 0x1319_8A2E_0370_7344

    private enum Tag: UInt64 { case null = 1, integer, real, text, blob }

    mutating func mix(_ word: UInt64) {
        a = (a ^ word) &* 0x9E37_79B9_7F4A_7C15
        a ^= a >> 32
        b = (b &+ word) &* 0xC2B2_AE3D_27D4_EB4F
        b = (b << 29) | (b >> 35)
    }

    /// A stored value as SQLite holds it.
    mutating func add(_ value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            mix(Tag.integer.rawValue)
            mix(UInt64(bitPattern: sqlite3_value_int64(value)))
        case SQLITE_FLOAT: addReal(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let start = sqlite3_value_text(value)
            addBytes(.text, UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(value))))
        case SQLITE_BLOB:
            let start = sqlite3_value_blob(value)
            addBytes(.blob, UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(value))))
        default: mix(Tag.null.rawValue)
        }
    }

    mutating func addReal(_ real: Double) {
        mix(Tag.real.rawValue)
        mix(real.bitPattern)
    }

    /// The upper-case text of a UUID's 16 bytes, `8-4-4-4-12` hexadecimal digits, as Molt stores it.
    mutating func addUUIDText(_ bytes: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { text in
            let digits: StaticString = "0123456789ABCDEF"
            var out = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[out] = UInt8(ascii: "-")
                    out += 1
                }
                text[out] = digits.utf8Start[Int(byte >> 4)]
                text[out + 1] = digits.utf8Start[Int(byte & 0xF)]
                out += 2
            }
            addBytes(.text, UnsafeRawBufferPointer(text))
        }
    }

    private mutating func addBytes(_ tag: Tag, _ bytes: UnsafeRawBufferPointer) {
        mix(tag.rawValue)
        mix(UInt64(bytes.count))
        guard let base = bytes.baseAddress else { return }
        var index = 0
        if bytes.count >= 64 {
            // Four lanes of 8 bytes each, independent of each other so that the processor runs them side by side
            // (a large value is hashed at memory speed). Each step is a bijection of its lane for a given word, so
            // values that differ in one word never collide; the lanes then go into both of the row's hashes.
            var lanes: (UInt64, UInt64, UInt64, UInt64) = (
                0x9E37_79B9_7F4A_7C15, 0xBF58_476D_1CE4_E5B9, 0x94D0_49BB_1331_11EB, 0x2545_F491_4F6C_DD1D
            )
            @inline(__always) func step(_ lane: inout UInt64, _ word: UInt64) {
                lane = (lane ^ word) &* 0xFF51_AFD7_ED55_8CCD
                lane ^= lane >> 29
            }
            while index + 32 <= bytes.count {
                step(&lanes.0, (base + index).loadUnaligned(as: UInt64.self))
                step(&lanes.1, (base + index + 8).loadUnaligned(as: UInt64.self))
                step(&lanes.2, (base + index + 16).loadUnaligned(as: UInt64.self))
                step(&lanes.3, (base + index + 24).loadUnaligned(as: UInt64.self))
                index += 32
            }
            mix(lanes.0)
            mix(lanes.1)
            mix(lanes.2)
            mix(lanes.3)
        }
        while index + 8 <= bytes.count {
            mix((base + index).loadUnaligned(as: UInt64.self))
            index += 8
        }
        if index < bytes.count {
            var tail: UInt64 = 0
            for offset in index..<bytes.count { tail |= UInt64(bytes[offset]) << (8 * UInt64(offset - index)) }
            mix(tail)
        }
    }

    /// The row's two hashes, each finished so that every bit depends on every value (MurmurHash3's finalizer).
    var final1: UInt64 { Self.finish(a) }
    var final2: UInt64 { Self.finish(b ^ 0x5851_F42D_4C95_7F2D) }

    private static func finish(_ h: UInt64) -> UInt64 {
        var h = h
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h &*= 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }
}

/// Rewrites the `?` placeholders Molt's core writes into PostgreSQL's `$1…$n`, leaving alone a `?` inside a
/// string literal, a quoted identifier, a dollar-quoted body or a comment.
enum PostgresPlaceholders {
    /// The statement with numbered placeholders, and how many it has.
    ///
    /// ```swift
    /// PostgresPlaceholders.rewrite("SELECT '?' FROM t WHERE a = ? AND b = ?")
    /// // ("SELECT '?' FROM t WHERE a = $1 AND b = $2", 2)
    /// ```
    static func rewrite(_ sql: String) -> (sql: String, count: Int) {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return (sql, 0) }
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var count = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                let end = closing(byte, in: bytes, from: i + 1)
                output.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-"):
                let end = bytes[i...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                output.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*"):
                let end = blockCommentEnd(in: bytes, from: i + 2)
                output.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "$"):
                let end = dollarQuoteEnd(in: bytes, from: i)
                output.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "?"):
                count += 1
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(count).utf8)
                i += 1
            default:
                output.append(byte)
                i += 1
            }
        }
        return (String(decoding: output, as: UTF8.self), count)
    }

    /// The index after the quote that closes a quoted run (a doubled quote is part of the run).
    private static func closing(_ quote: UInt8, in bytes: [UInt8], from start: Int) -> Int {
        var i = start
        while i < bytes.count {
            if bytes[i] == quote {
                if i + 1 < bytes.count && bytes[i + 1] == quote { i += 2; continue }
                return i + 1
            }
            i += 1
        }
        return bytes.count
    }

    private static func blockCommentEnd(in bytes: [UInt8], from start: Int) -> Int {
        var i = start
        while i + 1 < bytes.count {
            if bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/") { return i + 2 }
            i += 1
        }
        return bytes.count
    }

    /// The end of a `$tag$ … $tag$` body starting at `start`, or `start + 1` when the `$` starts none.
    private static func dollarQuoteEnd(in bytes: [UInt8], from start: Int) -> Int {
        var i = start + 1
        while i < bytes.count, bytes[i] == UInt8(ascii: "_") || (bytes[i] | 0x20 >= 97 && bytes[i] | 0x20 <= 122) {
            i += 1
        }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "$") else { return start + 1 }
        let tag = bytes[start...i]
        var j = i + 1
        while j + tag.count <= bytes.count {
            if bytes[j..<(j + tag.count)].elementsEqual(tag) { return j + tag.count }
            j += 1
        }
        return bytes.count
    }
}

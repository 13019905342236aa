import Foundation
import GRDB

/// The texts of a foreign store read byte for byte, as every adoption reads them.
///
/// GRDB's `String` of a text column stops at a NUL and replaces bytes that are not UTF-8 with U+FFFD, which would
/// change an adopted value without a word. An adoption reads a text's bytes instead: UTF-8 is kept whole (a NUL,
/// a byte-order mark), and a text that is not UTF-8, which no Molt string can hold, is left to the caller to
/// refuse, naming where it is.
enum ExactText {
    /// The text of `bytes` when they are UTF-8, every byte kept (a NUL, a byte-order mark); nil otherwise.
    static func decoded(_ bytes: Data) -> String? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }

    /// Column `index` of `row`, a row of a statement being read, as stored, a text read byte for byte; nil when
    /// it is a text whose bytes are not UTF-8.
    static func value(in row: Row, at index: Int) throws -> DatabaseValue? {
        let stored: DatabaseValue = row[index]
        guard case .string = stored.storage else { return stored }
        return try row.withUnsafeData(atIndex: index) { bytes in decoded(bytes ?? Data()) }?.databaseValue
    }

    /// `text` as a message quotes it: a NUL shown as `\0`, which a terminal or a log would drop or cut at.
    static func quoted(_ text: some StringProtocol) -> String {
        text.split(separator: "\0", omittingEmptySubsequences: false).joined(separator: "\\0")
    }
}

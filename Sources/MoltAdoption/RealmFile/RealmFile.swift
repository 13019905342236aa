import Foundation
import Molt

/// A Realm file, read without Realm: its header, its tables, and their objects one at a time.
///
/// The file is mapped read-only and never written; every ref and count is checked before it is followed, so
/// a damaged file throws `MoltError.corruptStore` instead of crashing or looping. Formats 22 to 24 are read
/// (Realm Swift 10.x, realm-core 10–14); others are refused naming their version.
///
/// ```swift
/// let file = try RealmFile(at: url)
/// let memos = try #require(file.table(named: "class_UserMemo"))
/// try file.forEachObject(in: memos) { object in print(object.key, object.values) }
/// ```
package final class RealmFile: @unchecked Sendable {
    /// The file format version (22–24; 0 for a file with nothing committed).
    package let formatVersion: Int
    /// Whether the file is in streaming form (written in one go, as `compact` and `writeCopy` do).
    package let isStreaming: Bool
    /// Every table, in the group's order.
    let tables: [RealmTable]
    let bytes: RealmFileBytes

    /// Opens the Realm file at `url` for reading.
    ///
    /// - Throws: `MoltError.storeNotFound` without a file; `.unsupportedFormat` for a format outside 22–24 or
    ///   an encrypted file; `.corruptStore` for a damaged one.
    package init(at url: URL) throws {
        bytes = try RealmFileBytes(url: url)
        let header = try RealmFileHeader(bytes)
        formatVersion = header.formatVersion
        isStreaming = header.isStreaming
        tables = header.topRef == 0 ? [] : try Self.tables(bytes, top: header.topRef)
    }

    /// The table named `name` (Realm Swift's classes are `class_` + the class name).
    func table(named name: String) -> RealmTable? { tables.first { $0.name == name } }

    /// The table with `key`, as link columns name their targets.
    func table(key: Int64) -> RealmTable? { tables.first { $0.key == key } }

    /// The group's top array: table names (slot 0), table refs (1), the logical file size (2, tagged), then
    /// free-space lists, version and history, which a reader does not need.
    private static func tables(_ file: RealmFileBytes, top ref: Int) throws -> [RealmTable] {
        let top = try RealmNode(file, at: ref, "the top array")
        guard top.hasRefs, top.count >= 3 else {
            throw file.damaged("its top array has \(top.count) slots, fewer than the 3 every Realm file has")
        }
        let logicalSize = try top.tagged(2, "the logical file size")
        guard logicalSize >= 0, logicalSize <= file.size else {
            throw file.damaged(
                "it states a size of \(logicalSize) bytes but holds \(file.size) (the file is probably truncated)")
        }
        guard let namesNode = try top.child(0, "the table names"), let refs = try top.child(1, "the table list")
        else { return [] }
        let names = try RealmStrings(file, namesNode, "the table names")
        guard names.count == refs.count else {
            throw file.damaged("it names \(names.count) tables but lists \(refs.count)")
        }
        try refs.requireIntegers("the table list")
        var tables: [RealmTable] = []
        for index in 0..<refs.count {
            let value = refs.int(index)
            if value & 1 == 1 { continue }  // A removed table's slot.
            guard value > 0 else { throw file.damaged("table \(index) of the table list has the ref \(value)") }
            guard let name = try names.string(index) else { throw file.damaged("table \(index) has no name") }
            let table = try RealmTable(file, name: name, at: Int(value))
            guard table.key & 0xFFFF == Int64(index) else {
                throw file.damaged(
                    "table '\(name)' is at index \(index) of the table list but has the key \(table.key)")
            }
            tables.append(table)
        }
        return tables
    }
}

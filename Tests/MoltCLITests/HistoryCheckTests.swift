import Foundation
import Molt
import Testing

/// `molt migrate` appends to the store's history: a history that could not be read back is refused before the
/// first write, naming the row and the column, and the store is left as it was. On SQLite the check is one
/// statement, and only suspicious rows are decoded.
@Suite("migrate refuses a damaged history before it writes")
struct HistoryCheckTests {
    @Test(
        "a damaged row of the history is named, and nothing is written",
        arguments: [
            ("details", "'not json'", "the JSON of its step records"),
            ("details", "X'00FF'", "text"),
            ("startedAt", "'yesterday'", "a number"),
            ("fromVersion", "'one'", "an integer"),
        ])
    func damagedRow(column: String, literal: String, expected: String) throws {
        let dir = TemporaryDirectory()
        try Fixtures.memoStore(at: dir.file("s.sqlite"))
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        var v2 = Fixtures.memoV1.withVersion(2)
        v2.entities[0].attributes.append(Attribute("note", .string, isOptional: true))
        try Fixtures.write(v2, to: dir.file("2.json"))
        let first = try Molt.run(["migrate", "s.sqlite", "--to", "1.json"], in: dir.url)
        try #require(first.status == 0, "\(first)")
        let damage = try Molt.run(
            [
                "-c", "sqlite3 \"$0\" \"$1\"", dir.file("s.sqlite").path,
                "UPDATE _molt_history SET \(column) = \(literal)",
            ],
            shell: true)
        try #require(damage.status == 0, "\(damage)")
        let before = try snapshotOfFiles(in: dir.url)
        let refused = try Molt.run(["migrate", "s.sqlite", "--to", "2.json"], in: dir.url)
        #expect(refused.status == 3, "\(refused)")
        #expect(
            refused.stderr.contains("in column '\(column)'")
                && refused.stderr.contains("where Molt writes \(expected)"), "\(refused.stderr)")
        #expect(try snapshotOfFiles(in: dir.url) == before)
    }
}

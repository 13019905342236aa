import Foundation
import Testing
@testable import Molt

@Suite("Smoke")
struct SmokeTests {
    @Test("create, write, reopen, migrate by adding an attribute", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let v0 = Memo.v0()
        do {
            let store = try Store.open(at: url, schema: v0, options: kind.options)
            try store.write { objects in
                for i in 0..<10 {
                    try objects.insert("UserMemo", ["objectID": .uuid(UUID()), "memoTitle": .string("memo \(i)"), "memoDate": .date(Date(timeIntervalSince1970: Double(i)))])
                }
            }
            try store.close()
        }
        var v1 = v0.withVersion(1)
        v1.entities[0].attributes.append(Attribute("count", .int, default: 7))
        let store = try Store.open(at: url, schema: v1, options: kind.options)
        let memos = try store.read { try $0.fetch("UserMemo") }
        #expect(memos.count == 10)
        #expect(memos.allSatisfy { $0["count"] == 7 })
        #expect(try Store.version(at: url) == 1)
    }
}

import Foundation
import Molt

/// The memo app of seed 000 at each of its versions.
enum Memo {
    static func v0() -> Schema {
        Schema(version: 0) {
            Entity("UserMemo", primaryKey: "objectID") {
                Attribute("objectID", .uuid)
                Attribute("memoTitle", .string)
                Attribute("memoDate", .date)
                Attribute("memoSubtitle", .string, isOptional: true)
                Attribute("memoContent", .string, isOptional: true)
                Attribute("favorite", .bool, default: false)
            }
        }
    }
}

import Foundation
import GRDB

extension Value {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .string(let v): return v.databaseValue
        case .int(let v): return v.databaseValue
        case .double(let v): return v.databaseValue
        case .bool(let v): return (v ? 1 : 0 as Int64).databaseValue
        case .date(let v): return v.timeIntervalSince1970.databaseValue
        case .data(let v): return v.databaseValue
        case .uuid(let v): return v.uuidString.databaseValue
        }
    }

    /// The value of an attribute of `type` read from SQLite. Storage that does not fit the type (a store
    /// edited by hand) reads as the closest value rather than crashing.
    init(_ dbValue: DatabaseValue, as type: AttributeType) {
        switch (dbValue.storage, type) {
        case (.null, _): self = .null
        case (.string(let s), .string): self = .string(s)
        case (.string(let s), .uuid): self = UUID(uuidString: s).map(Value.uuid) ?? .string(s)
        case (.int64(let i), .int): self = .int(i)
        case (.int64(let i), .bool): self = .bool(i != 0)
        case (.int64(let i), .double): self = .double(Double(i))
        case (.double(let d), .double): self = .double(d)
        case (.double(let d), .date): self = .date(Date(timeIntervalSince1970: d))
        case (.int64(let i), .date): self = .date(Date(timeIntervalSince1970: Double(i)))
        case (.blob(let b), .data): self = .data(b)
        case (.int64(let i), _): self = .int(i)
        case (.double(let d), _): self = .double(d)
        case (.string(let s), _): self = .string(s)
        case (.blob(let b), _): self = .data(b)
        }
    }
}

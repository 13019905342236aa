import Foundation
import GRDB
import Molt

/// A scan of `(owner, target)` pairs ordered by owner, walked alongside the scan of the owners (in increasing
/// identifier order): how a to-many relationship of a foreign store is read without a query per object. The first
/// two columns of each row are the owner's and the target's identifiers; a row where either is not an integer is
/// refused with `invalid(row)`.
struct PairWalk {
    let cursor: RowCursor
    let relationship: String
    private let invalid: (Row) -> MoltError
    private var pending: (owner: Int64, target: Int64)?

    init(_ db: Database, sql: String, relationship: String, invalid: @escaping (Row) -> MoltError) throws {
        cursor = try Row.fetchCursor(db, sql: sql)
        self.relationship = relationship
        self.invalid = invalid
        pending = try next()
    }

    private func next() throws -> (owner: Int64, target: Int64)? {
        guard let row = try cursor.next() else { return nil }
        guard case .int64(let owner) = (row[0] as DatabaseValue).storage,
            case .int64(let target) = (row[1] as DatabaseValue).storage
        else { throw invalid(row) }
        return (owner, target)
    }

    /// The targets of `owner`, in order; owners must be asked in increasing order.
    mutating func targets(of owner: Int64) throws -> [Int64] {
        var result: [Int64] = []
        while let pair = pending, pair.owner <= owner {
            if pair.owner == owner { result.append(pair.target) }
            pending = try next()
        }
        return result
    }
}

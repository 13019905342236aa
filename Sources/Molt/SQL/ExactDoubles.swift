/// The check that an `int → double` conversion is exact for every stored value, shared by every path that
/// converts in SQL.
package enum ExactDoubles {
    /// Throws the one refusal (``ValueConversion/inexactDouble(entity:attribute:value:objectID:version:)``)
    /// when an integer of `table.column` has no exact double.
    package static func check(_ check: SQLTableChange.ExactDouble, table: String, in db: any SQLConnection) throws {
        try self.check(
            column: check.column, table: table, entity: check.entity, attribute: check.attribute,
            version: check.version, in: db)
    }

    static func check(
        column: String, table: String, entity: String, attribute: String, version: Int?, in db: any SQLConnection
    ) throws {
        let q = db.dialect.quote
        let sql =
            "SELECT \(q(StoreLayout.idColumn)), \(q(column)) FROM \(q(table)) WHERE \(db.dialect.inexactDoubleCondition(q(column))) LIMIT 1"
        guard let row = try db.fetchRows(sql, types: [.int, .int]).first, case .int(let id) = row[0],
            case .int(let value) = row[1]
        else { return }
        throw ValueConversion.inexactDouble(
            entity: entity, attribute: attribute, value: value, objectID: id, version: version)
    }
}

/// The data checks the kit adds to Molt's structural validation: every value of every object of the newest
/// schema has its attribute's type, and required attributes hold a value.
///
/// SQLite stores what it is given whatever the column's declared type, so a mapping expression or raw SQL in
/// a stage can leave text in an integer attribute, or a malformed UUID; Molt's validation at commit checks the
/// tables, not each value.
enum DataValidation {
    /// The problems found, at most `limit` of them, one sentence each.
    static func problems(
        in objects: Objects, schema: Schema, names: [ObjectRef: String], limit: Int = 20
    ) throws -> [(entity: String, attribute: String, text: String)] {
        var problems: [(entity: String, attribute: String, text: String)] = []
        for entity in schema.entities {
            try objects.forEach(entity.name) { object in
                guard problems.count < limit else { return }
                let id = object.id ?? 0
                let name = names[ObjectRef(entity: entity.name, id: id)].map { " (fixture \"\($0)\")" } ?? ""
                for attribute in entity.attributes {
                    let value = object[attribute.name]
                    if value.isNull {
                        if !attribute.isOptional {
                            problems.append(
                                (
                                    entity.name, attribute.name,
                                    "'\(entity.name)' _id \(id)\(name): \(attribute.name) is required but holds null"
                                ))
                        }
                    } else if attribute.coerce(value) != value {  // an int16 holds `.int` values in range, …
                        problems.append(
                            (
                                entity.name, attribute.name,
                                "'\(entity.name)' _id \(id)\(name): \(attribute.name) holds \(value), not a\(attribute.type.rawValue.hasPrefix("int") ? "n" : "") \(attribute.type.rawValue) value"
                            ))
                    }
                }
            }
        }
        return Array(problems.prefix(limit))
    }
}

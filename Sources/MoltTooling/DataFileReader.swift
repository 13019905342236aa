import Foundation
import Molt

/// Reads a `molt export` file (``DataFile``) object by object from a ``JSONStreamReader``, checking each object
/// against the schema: the read half of `molt import`, in bounded memory.
///
/// ```swift
/// let reader = DataFileReader(JSONStreamReader(descriptor: fd), name: "data.json", schema: schema)
/// try reader.read { row in try importer.insert(row.entity, fileID: row.fileID, values: row.values, links: row.links) }
/// ```
///
/// Errors are ``MoltError``s (``MoltError/Code/invalidValue``, or ``MoltError/Code/unsupportedFormat`` for a newer
/// format) that name the file, the object and the key; `molt` reports them as bad input.
package struct DataFileReader {
    /// One object of the file, its values checked against the schema.
    package struct Row {
        package var entity: Entity
        package var fileID: Int64?
        package var values: [String: Value]
        package var links: [String: [Int64]]
    }

    package let json: JSONStreamReader
    /// The file's name, for messages.
    package let name: String
    package let schema: Schema

    package init(_ json: JSONStreamReader, name: String, schema: Schema) {
        self.json = json
        self.name = name
        self.schema = schema
    }

    /// Bytes read so far.
    package var bytesRead: Int { json.bytesRead }

    /// Calls `body` with every object of the file, in file order. The format fields are checked as soon as
    /// they are read (an export writes them first, so a file of another format is refused before any object
    /// is read), and their presence once the file ends.
    ///
    /// - Returns: The file's `identifierMarks`: the largest identifier each entity of the exporting store ever
    ///   handed out (empty for files written before they were exported).
    @discardableResult
    package func read(_ body: (Row) throws -> Void) throws -> [String: Int64] {
        var format: JSONValue?, formatVersion: JSONValue?, sawEntities = false
        var marks: [String: Int64] = [:]
        do {
            try json.beginObject()
            while let key = try json.nextKey() {
                switch key {
                case "format":
                    format = try json.value()
                    try check(format: format, version: formatVersion)
                case "formatVersion":
                    formatVersion = try json.value()
                    try check(format: format, version: formatVersion)
                case "entities":
                    try entities(body)
                    sawEntities = true
                case "identifierMarks":
                    guard case .object(let fields) = try json.value() else {
                        throw notAnExport("unexpected value at 'identifierMarks'")
                    }
                    for (entity, value) in fields {
                        guard case .int(let mark) = value else {
                            throw notAnExport("unexpected value at 'identifierMarks.\(entity)'")
                        }
                        marks[entity] = mark
                    }
                default: try json.skipValue()
                }
            }
            try json.expectEnd()
        } catch let failure as JSONStreamReader.Failure {
            throw notAnExport("invalid JSON: \(failure.reason)")
        }
        guard format != nil else { throw notAnExport("it lacks the key 'format'") }
        guard formatVersion != nil else { throw notAnExport("it lacks the key 'formatVersion'") }
        guard sawEntities else { throw notAnExport("it lacks the key 'entities'") }
        return marks
    }

    /// Refuses the format fields read so far when they are not a molt export's, or of a newer format version.
    private func check(format: JSONValue?, version: JSONValue?) throws {
        if let format { guard case .string = format else { throw notAnExport("unexpected value at 'format'") } }
        if let version { guard case .int = version else { throw notAnExport("unexpected value at 'formatVersion'") } }
        guard case .string(let formatName)? = format, case .int(let number)? = version else {
            if case .string(let formatName)? = format, formatName != DataFile.formatName {
                throw unsupported(formatName, nil)
            }
            return
        }
        guard formatName == DataFile.formatName, number <= DataFile.currentFormatVersion else {
            throw unsupported(formatName, number)
        }
    }

    private func unsupported(_ formatName: String, _ version: Int64?) -> MoltError {
        MoltError(
            .unsupportedFormat,
            "\(name) is format '\(formatName)'\(version.map { " \($0)" } ?? ""), but this molt reads '\(DataFile.formatName)' \(DataFile.currentFormatVersion) at most."
        )
    }

    private func notAnExport(_ reason: String) -> MoltError {
        MoltError(.invalidValue, "\(name) is not a molt export file (\(reason)); write one with `molt export`.")
    }

    private func entities(_ body: (Row) throws -> Void) throws {
        guard try json.peekValue() == UInt8(ascii: "{") else { throw notAnExport("unexpected value at 'entities'") }
        try json.beginObject()
        while let entityName = try json.nextKey() {
            // An entity of a hierarchy with its inherited members: a file's object holds them all.
            guard let entity = schema.effectiveEntity(named: entityName) else {
                throw MoltError(
                    .invalidValue,
                    "\(name) holds objects of entity '\(entityName)', which schema version \(schema.version) does not have."
                )
            }
            guard try json.peekValue() == UInt8(ascii: "[") else {
                throw notAnExport("unexpected value at 'entities.\(entityName)'")
            }
            try json.beginArray()
            var index = 0
            while try json.nextElement() {
                guard case .object(let object) = try json.value() else {
                    throw notAnExport("unexpected value at 'entities.\(entityName)[\(index)]'")
                }
                try body(try Self.row(object, of: entity, file: name))
                index += 1
            }
        }
    }

    package static func row(_ object: [String: JSONValue], of entity: Entity, file: String) throws -> Row {
        var fileID: Int64?
        if let id = object["_id"] {
            guard case .int(let value) = id else {
                throw MoltError(
                    .invalidValue, "\(file): an object of '\(entity.name)' has an `_id` that is not an integer: \(id).")
            }
            fileID = value
        }
        // Built only for a message: most rows have none.
        func label() -> String { fileID.map { "'\(entity.name)' _id \($0)" } ?? "an object of '\(entity.name)'" }
        var values: [String: Value] = [:]
        values.reserveCapacity(object.count)
        var links: [String: [Int64]] = [:]
        for (key, json) in object where key != "_id" {
            if let attribute = entity.attribute(named: key) {
                guard let value = DataFile.value(json, for: attribute.type) else {
                    throw MoltError(
                        .invalidValue,
                        "\(file): \(label()) has \(json) for attribute '\(entity.name).\(key)', which holds \(attribute.type.rawValue) values."
                    )
                }
                values[key] = value  // an explicit null stays null: only a missing key takes the default
            } else if entity.relationship(named: key) != nil {
                switch json {
                case .null: links[key] = []
                case .int(let id): links[key] = [id]
                case .array(let items):
                    links[key] = try items.map { item in
                        guard case .int(let id) = item else {
                            throw MoltError(
                                .invalidValue,
                                "\(file): \(label()) lists \(item) in relationship '\(entity.name).\(key)'; give `_id`s."
                            )
                        }
                        return id
                    }
                default:
                    throw MoltError(
                        .invalidValue,
                        "\(file): \(label()) has \(json) for relationship '\(entity.name).\(key)'; give an `_id` or a list of them."
                    )
                }
            } else {
                throw MoltError(
                    .invalidValue,
                    "\(file): \(label()) has '\(key)', which is not an attribute or relationship of '\(entity.name)'.")
            }
        }
        return Row(entity: entity, fileID: fileID, values: values, links: links)
    }

}

import ArgumentParser
import Foundation
import Molt

/// `molt export STORE [--format json|csv] [--entity E]`: every object of a store (or of one entity) as JSON that
/// `molt import` reads back exactly, or as CSV.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print a store's objects as JSON (which `molt import` reads back exactly) or CSV.",
        discussion: """
            JSON holds every entity (or the one given with --entity), each object with its `_id`, its attributes \
            and its relationships (the `_id`s they point to). Values are lossless: dates are the exact number of \
            seconds since 1970-01-01T00:00:00Z, data is Base64, UUIDs are text, the infinities are the strings \
            "Infinity" and "-Infinity".

            CSV holds one entity (--entity, unless the store has only one): a header row, then a row per object; \
            null is an empty cell, text is quoted, a to-many relationship is its `_id`s separated by spaces.
            """)

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case json, csv
    }

    @OptionGroup var storeArgument: StoreArgument

    @Option(name: .long, help: "The output format.")
    var format: OutputFormat = .json

    @Option(name: .long, help: ArgumentHelp("Export only this entity.", valueName: "entity"))
    var entity: String?

    func validate() throws {
        if entity?.isEmpty == true { throw ValidationError("The name given to --entity is empty.") }
    }

    func run() throws {
        let info = try Files.existingStore(at: storeArgument.store)
        var entities = info.schema.entities
        if let entity {
            guard let found = info.schema.entity(named: entity) else {
                throw CLIFailure(
                    .badInput,
                    "The store has no entity '\(entity)'; it has \(info.schema.entities.map(\.name).joined(separator: ", ")).")
            }
            entities = [found]
        }
        if format == .csv && entities.count != 1 {
            throw CLIFailure(
                .usage,
                "CSV holds one entity, and this store has \(entities.count): choose one with --entity (\(entities.map(\.name).joined(separator: ", "))).")
        }
        let store = try Store.open(at: info.location, schema: info.schema, options: StoreAddress.options(for: info))
        defer { try? store.close() }
        let rows = try store.read { objects in
            try entities.map { entity in (entity, try Self.rows(of: entity, in: objects)) }
        }
        switch format {
        case .json:
            var file = DataFile(format: DataFile.formatName, formatVersion: DataFile.currentFormatVersion, schemaVersion: info.version, entities: [:])
            for (entity, objects) in rows { file.entities[entity.name] = objects }
            try Terminal.json(file)
        case .csv:
            let (entity, objects) = rows[0]
            let columns = ["_id"] + entity.attributes.map(\.name) + entity.relationships.map(\.name)
            Terminal.line(columns.joined(separator: ","))
            for object in objects {
                Terminal.line(columns.map { DataFile.csvCell(object[$0] ?? .null) }.joined(separator: ","))
            }
        }
    }

    /// Every object of an entity, in `_id` order, as JSON objects.
    static func rows(of entity: Entity, in objects: Objects) throws -> [[String: JSONValue]] {
        var result: [[String: JSONValue]] = []
        try objects.forEach(entity.name) { object in
            var row: [String: JSONValue] = ["_id": .int(object.id ?? 0)]
            for attribute in entity.attributes { row[attribute.name] = DataFile.json(object[attribute.name]) }
            for relationship in entity.relationships {
                let ids = try objects.destinations(relationship.name, of: object).compactMap(\.id).map(JSONValue.int)
                row[relationship.name] = relationship.kind == .toMany ? .array(ids) : (ids.first ?? .null)
            }
            result.append(row)
        }
        return result
    }
}

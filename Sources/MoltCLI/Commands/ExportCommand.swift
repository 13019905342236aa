import ArgumentParser
import Foundation
import Molt
import MoltTooling

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
        let location = try Files.existingStoreLocation(storeArgument.store)
        let out = ByteSink(descriptor: STDOUT_FILENO)
        // The version, the schema and every object are read in one read-only transaction.
        try Store.reading(at: location) { snapshot, objects in
            let entities = try chosenEntities(snapshot.schema)
            let bar = Terminal.progressBarOnStandardError(title: "Exporting")
            defer { bar?.finish() }
            var progress = ExportProgress(
                bar: bar, total: try bar.map { _ in try entities.reduce(0) { $0 + (try objects.count($1.name)) } } ?? 0)
            switch format {
            case .json:
                try Self.writeJSON(
                    entities, version: snapshot.schema.version, marks: try objects.identifierMarks(of: entities),
                    objects: objects,
                    to: out, progress: &progress)
            case .csv: try Self.writeCSV(entities[0], objects: objects, to: out, progress: &progress)
            }
        }
        try out.flush()
    }

    /// The entities to export: all, or the one of --entity; CSV takes exactly one.
    private func chosenEntities(_ schema: Schema) throws -> [Entity] {
        // Each object once, under its own entity with every value it holds (its inherited ones too): an entity of a
        // hierarchy is scanned for its own rows, and an abstract one has none.
        var entities = schema.entities.filter { !$0.isAbstract }.compactMap { schema.effectiveEntity(named: $0.name) }
        if let entity {
            guard let found = schema.entity(named: entity) else {
                throw CLIFailure(
                    .badInput,
                    "The store has no entity '\(entity)'; it has \(schema.entities.map(\.name).joined(separator: ", "))."
                )
            }
            entities = [schema.effectiveEntity(named: found.name) ?? found]
        }
        if format == .csv && entities.count != 1 {
            throw CLIFailure(
                .usage,
                "CSV holds one entity, and this store has \(entities.count): choose one with --entity (\(entities.map(\.name).joined(separator: ", ")))."
            )
        }
        return entities
    }

    /// Objects written so far, for the bar on standard error.
    struct ExportProgress {
        var bar: ProgressBar?
        var total: Int
        var done = 0

        mutating func advance() {
            done += 1
            if done % 4096 == 0 || done == total { bar?.update(done, of: total) }
        }
    }

    /// The export file, in exactly the form `JSONEncoder` gives ``DataFile`` with sorted keys, one object at a time.
    static func writeJSON(
        _ entities: [Entity], version: Int, marks: [String: Int64], objects: Objects, to out: ByteSink,
        progress: inout ExportProgress
    ) throws {
        out.append("{\n  \"entities\" : {")
        let sorted = entities.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for (number, entity) in sorted.enumerated() {
            out.append(number == 0 ? "\n    " : ",\n    ")
            out.appendJSONString(entity.name)
            out.append(" : [")
            let keys = ObjectKeys(entity)
            var first = true
            try objects.scan(entity) { object in
                out.append(first ? "\n      {" : ",\n      {")
                first = false
                keys.write(object, to: out)
                out.append("\n      }")
                try out.flushIfFull()
                progress.advance()
            }
            out.append(first ? "\n\n    ]" : "\n    ]")
        }
        out.append(sorted.isEmpty ? "\n\n  },\n" : "\n  },\n")
        out.append(
            "  \"format\" : \"\(DataFile.formatName)\",\n  \"formatVersion\" : \(DataFile.currentFormatVersion),\n")
        let marked = sorted.filter { marks[$0.name] != nil }
        if !marked.isEmpty {
            out.append("  \"identifierMarks\" : {")
            for (number, entity) in marked.enumerated() {
                out.append(number == 0 ? "\n    " : ",\n    ")
                out.appendJSONString(entity.name)
                out.append(" : \(marks[entity.name]!)")
            }
            out.append("\n  },\n")
        }
        out.append("  \"schemaVersion\" : \(version)\n}\n")
    }

    /// One entity as CSV: a header row, then a row per object.
    static func writeCSV(_ entity: Entity, objects: Objects, to out: ByteSink, progress: inout ExportProgress) throws {
        let columns = ["_id"] + entity.attributes.map(\.name) + entity.relationships.map(\.name)
        out.append(columns.joined(separator: ",") + "\n")
        try objects.scan(entity) { object in
            var cells = [String(object.id)]
            cells += object.values.map { DataFile.csvCell(DataFile.json($0)) }
            for (relationship, ids) in zip(entity.relationships, object.links) {
                let json: JSONValue =
                    relationship.kind == .toMany
                    ? .array(ids.map(JSONValue.int)) : ids.first.map(JSONValue.int) ?? .null
                cells.append(DataFile.csvCell(json))
            }
            out.append(cells.joined(separator: ",") + "\n")
            try out.flushIfFull()
            progress.advance()
        }
    }
}

/// The keys of an entity's objects in the export file — `_id`, attributes, relationships — in `JSONEncoder`'s
/// sorted order, each with its bytes ready to write.
private struct ObjectKeys {
    enum Slot { case id, attribute(Int), toOne(Int), toMany(Int) }

    let slots: [(prefix: [UInt8], slot: Slot)]

    init(_ entity: Entity) {
        var named: [(String, Slot)] = [("_id", .id)]
        named += entity.attributes.enumerated().map { ($1.name, .attribute($0)) }
        named += entity.relationships.enumerated().map { ($1.name, $1.kind == .toMany ? .toMany($0) : .toOne($0)) }
        named.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        slots = named.enumerated().map { number, key in
            let text = ByteSink(descriptor: -1)
            text.append(number == 0 ? "\n        " : ",\n        ")
            text.appendJSONString(key.0)
            text.append(" : ")
            return (text.pending, key.1)
        }
    }

    func write(_ object: ScannedObject, to out: ByteSink) {
        for (prefix, slot) in slots {
            out.append(bytes: prefix)
            switch slot {
            case .id: out.append(object.id)
            case .attribute(let index): out.appendJSON(object.values[index])
            case .toOne(let index):
                if let id = object.links[index].first { out.append(id) } else { out.append("null") }
            case .toMany(let index):
                let ids = object.links[index]
                guard !ids.isEmpty else {
                    out.append("[\n\n        ]")
                    continue
                }
                out.append("[")
                for (position, id) in ids.enumerated() {
                    out.append(position == 0 ? "\n          " : ",\n          ")
                    out.append(id)
                }
                out.append("\n        ]")
            }
        }
    }
}

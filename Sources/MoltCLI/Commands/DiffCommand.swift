import ArgumentParser
import Foundation
import Molt

/// `molt diff OLD.json NEW.json [--json]`: every change between two schema snapshots, whether Molt can infer
/// it (and why not), which ones delete data, and likely renames with the fix.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two schema snapshots: every change, inferable or not, destructive ones, likely renames.",
        discussion: """
            Each change is marked `inferable` (Molt migrates it without code), `destructive` (it deletes stored data) \
            or `refused` (it needs a custom stage; the reason and the fix follow). An attribute removed and one of \
            the same type added in the same entity is suggested as a rename, with the `originalName` to declare; \
            one removed while another entity gains it under the same name is a likely move (a split), which only \
            a stage or a mapping carries. \
            Exits 0 whatever the changes are; use `molt check` to fail on them.
            """)

    @Argument(help: ArgumentHelp("The older schema snapshot.", valueName: "old.json"))
    var old: String

    @Argument(help: ArgumentHelp("The newer schema snapshot.", valueName: "new.json"))
    var new: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        let source = try Files.schema(at: old)
        let destination = try Files.schema(at: new)
        let report = DiffReport(SchemaDiff(from: source, to: destination), newFile: (new as NSString).lastPathComponent)
        if output.json {
            try Terminal.json(report)
        } else {
            report.print()
        }
    }
}

/// The changes between two schemas, as `molt diff` and `molt check` show them.
struct DiffReport: Encodable {
    struct Change: Encodable {
        var description: String
        var entity: String
        var property: String?
        var inferable: Bool
        var destructive: Bool
        var refusal: String?
    }

    /// A removed property and an added one that are probably the same, renamed.
    struct RenameSuggestion: Encodable {
        var entity: String
        var from: String
        var to: String
        var type: String
        var fix: String
    }

    var fromVersion: Int
    var toVersion: Int
    var inferable: Bool
    var changes: [Change]
    var suggestedRenames: [RenameSuggestion]
    var likelyMoves: [MoveSuggestion]

    /// A removed attribute that another entity gains under the same name: probably moved (a split).
    struct MoveSuggestion: Encodable {
        var entity: String
        var attribute: String
        var destination: String
        var type: String
        var fix: String
    }

    init(_ diff: SchemaDiff, newFile: String) {
        fromVersion = diff.source.version
        toVersion = diff.destination.version
        inferable = diff.isInferable
        changes = diff.changes.map {
            Change(
                description: $0.description, entity: $0.entity, property: $0.property, inferable: $0.isInferable,
                destructive: $0.isDestructive, refusal: $0.refusal)
        }
        suggestedRenames = Self.renames(in: diff, newFile: newFile)
        likelyMoves = diff.likelyMoves.map { move in
            MoveSuggestion(
                entity: move.entity, attribute: move.attribute, destination: move.destination, type: move.type.rawValue,
                fix: move.fix(from: diff.source.version, to: diff.destination.version))
        }
    }

    /// The likely renames of the diff, with the fix in the snapshot file's terms.
    static func renames(in diff: SchemaDiff, newFile: String) -> [RenameSuggestion] {
        diff.likelyRenames.map { rename in
            RenameSuggestion(
                entity: rename.entity, from: rename.from, to: rename.to, type: rename.type?.rawValue ?? "entity",
                fix: rename.fix(inFile: newFile))
        }
    }

    func print() {
        Terminal.line("Version \(fromVersion) → \(toVersion): \(Format.count(changes.count, "change"))")
        for change in changes {
            let mark = !change.inferable ? "refused    " : change.destructive ? "destructive" : "inferable  "
            Terminal.line("  \(mark)  \(change.description)")
            if let refusal = change.refusal { Terminal.line("               \(refusal)") }
        }
        if !suggestedRenames.isEmpty {
            Terminal.line()
            Terminal.line("Likely renames:")
            for rename in suggestedRenames {
                let from = rename.type == "entity" ? rename.from : "\(rename.entity).\(rename.from)"
                Terminal.line("  '\(from)' → '\(rename.to)' (\(rename.type))")
                Terminal.line("    \(rename.fix)")
            }
        }
        if !likelyMoves.isEmpty {
            Terminal.line()
            Terminal.line("Likely moves:")
            for move in likelyMoves {
                Terminal.line(
                    "  '\(move.entity).\(move.attribute)' → '\(move.destination).\(move.attribute)' (\(move.type))")
                Terminal.line("    \(move.fix)")
            }
        }
        let refused = changes.filter { !$0.inferable }.count
        let destructive = changes.filter(\.destructive).count
        Terminal.line()
        if changes.isEmpty {
            Terminal.line("The schemas describe the same store.")
        } else if refused == 0 {
            Terminal.line(
                "Molt can infer this migration\(destructive > 0 ? "; \(Format.count(destructive, "change")) delete\(destructive == 1 ? "s" : "") data" : "")."
            )
        } else {
            Terminal.line(
                "Molt cannot infer this migration: \(Format.count(refused, "change")) need\(refused == 1 ? "s" : "") a custom stage."
            )
        }
    }
}

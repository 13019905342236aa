import Foundation
import Molt

/// The versions of a Core Data model in the order the app shipped them: every `<version>.xcdatamodel` of an
/// `.xcdatamodeld` folder, or one `.xcdatamodel`.
///
/// The order is read from what the files say (``ordered(_:order:)``): the version identifier each version declares
/// (`userDefinedModelVersionIdentifier`: `1`, `2`, `2.24.1`), when every version has its own, and the number at
/// the end of the versions' names otherwise (Xcode names a new version `Model 2`, … `Model 117`; apps that rename
/// versions put their release there, `zmessaging1.27`, … `zmessaging2.101.0`). The `.xccurrentversion` file names
/// the version the app builds with, which need not be the newest (Core Data does not care: CoreDataPlus's tests
/// build with their first version): it plays no part in the order. When the files cannot tell (names of several
/// stems, no identifiers), or their two orders disagree, the history is refused, naming the candidates and how to
/// give the order (`molt convert-model --version-order`).
package struct CoreDataHistory {
    package var models: [CoreDataModel]

    /// Reads the model at `url`: an `.xcdatamodeld` folder (every version), an `.xcdatamodel` folder (one
    /// version), or a `contents` file.
    ///
    /// - Parameter order: The versions' names in the order the app shipped them, when the files cannot tell it;
    ///   nil to read it from them.
    /// - Throws: `MoltError` (`invalidSchema`) when the path is none of these, a version cannot be read, or the
    ///   order of the versions cannot be told.
    package init(at url: URL, order: [String]? = nil) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw MoltError(
                .invalidSchema,
                "There is no Core Data model at \(url.path). Give the path of an .xcdatamodeld or .xcdatamodel folder.")
        }
        if !isDirectory.boolValue {
            models = [
                try Self.readVersion(
                    contents: url, name: url.deletingLastPathComponent().deletingPathExtension().lastPathComponent)
            ]
        } else if url.pathExtension == "xcdatamodel" {
            models = [
                try Self.readVersion(
                    contents: url.appendingPathComponent("contents"),
                    name: url.deletingPathExtension().lastPathComponent)
            ]
        } else {
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
                .filter { $0.hasSuffix(".xcdatamodel") }
                .map { String($0.dropLast(".xcdatamodel".count)) }
            guard !names.isEmpty else {
                throw MoltError(
                    .invalidSchema,
                    "\(url.path) holds no .xcdatamodel version: give the path of an .xcdatamodeld folder (Xcode's versioned model) or of one .xcdatamodel."
                )
            }
            let read = try names.map { name in
                try Self.readVersion(contents: url.appendingPathComponent("\(name).xcdatamodel/contents"), name: name)
            }
            do {
                models = try Self.ordered(read, order: order)
            } catch let error as MoltError {
                throw MoltError(.invalidSchema, "\(url.lastPathComponent): \(error.message)")
            }
        }
    }

    package init(models: [CoreDataModel]) { self.models = models }

    /// The versions in the order the app shipped them: `order` when given (it must name every version once);
    /// else by their version identifiers when each has its own dotted number, and by the numbers at the end of
    /// their names (``order(_:)``), which must agree when both tell.
    ///
    /// - Throws: `MoltError` (`invalidSchema`) naming the candidates and how to give the order, when the files
    ///   cannot tell it or tell two orders; naming the versions `order` misses or does not have.
    package static func ordered(_ models: [CoreDataModel], order: [String]? = nil) throws -> [CoreDataModel] {
        let names = models.map(\.name)
        let byName = Dictionary(models.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let how =
            "Give the order in which they shipped, oldest first: `molt convert-model MODEL --out DIR --version-order \"\(names.sorted().joined(separator: ","))\"` (the same option for `molt adopt --model`)."
        if let order {
            let unknown = order.filter { byName[$0] == nil }
            let missing = names.filter { !order.contains($0) }.sorted()
            let repeated = Set(order.filter { name in order.filter { $0 == name }.count > 1 })
            guard unknown.isEmpty, missing.isEmpty, repeated.isEmpty else {
                var problems: [String] = []
                if !unknown.isEmpty { problems.append("names no version \(quoted(unknown))") }
                if !missing.isEmpty { problems.append("leaves out \(quoted(missing))") }
                if !repeated.isEmpty { problems.append("repeats \(quoted(repeated.sorted()))") }
                throw MoltError(
                    .invalidSchema,
                    "the version order \(problems.joined(separator: ", ")); the model's versions are \(quoted(names.sorted())). List each of them once, oldest first."
                )
            }
            return order.map { byName[$0]! }
        }
        if models.count == 1 { return models }
        let identified = identifierOrder(models)
        let named: [String]?
        let nameProblem: String?
        do {
            (named, nameProblem) = (try Self.order(names), nil)
        } catch let error as MoltError {
            (named, nameProblem) = (nil, error.message)
        }
        switch (identified, named) {
        case (let identified?, let named?) where identified != named:
            throw MoltError(
                .invalidSchema,
                "the versions' identifiers (userDefinedModelVersionIdentifier) order them \(quoted(identified)), but the numbers in their names order them \(quoted(named)): molt cannot tell which order they shipped in. \(how)"
            )
        case (let order?, _), (nil, let order?):
            return order.map { byName[$0]! }
        case (nil, nil):
            throw MoltError(
                .invalidSchema,
                "the order of the versions \(quoted(names.sorted())) cannot be told from their files: \(nameProblem ?? "") Not every version has an identifier of its own (userDefinedModelVersionIdentifier) to order them by either. \(how)"
            )
        }
    }

    /// The versions' names ordered by their identifiers (`1`, `2.24.1`), when every version has a dotted number
    /// of its own; nil otherwise.
    private static func identifierOrder(_ models: [CoreDataModel]) -> [String]? {
        var numbered: [(name: String, number: [Int])] = []
        for model in models {
            guard let identifier = model.versionIdentifier?.trimmingCharacters(in: .whitespaces),
                identifier.wholeMatch(of: #/[0-9]+(\.[0-9]+)*/#) != nil
            else { return nil }
            numbered.append((model.name, identifier.split(separator: ".").map { Int($0) ?? 0 }))
        }
        let sorted = numbered.sorted { $0.number.lexicographicallyPrecedes($1.number) }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.number == b.number { return nil }
        return sorted.map(\.name)
    }

    private static func quoted(_ names: [String]) -> String { names.map { "'\($0)'" }.joined(separator: ", ") }

    /// Orders version names by the dotted number at their end (`Model 9` < `Model 10`, `x2.24` < `x2.24.1` <
    /// `x2.25`), the name without a number first.
    ///
    /// - Throws: `MoltError` when the names do not share one stem (`Model 3` and `Other 4`) or two have the same
    ///   number.
    package static func order(_ names: [String]) throws -> [String] {
        let parsed = names.map { name -> (name: String, stem: String, number: [Int]) in
            let match = name.firstMatch(of: #/[0-9]+(\.[0-9]+)*$/#)
            let stem = match.map { String(name[..<$0.range.lowerBound]) } ?? name
            let number = match.map { $0.output.0.split(separator: ".").map { Int($0) ?? 0 } } ?? []
            return (name, stem.trimmingCharacters(in: .whitespaces), number)
        }
        let stems = Set(parsed.map(\.stem))
        guard stems.count == 1 else {
            throw MoltError(
                .invalidSchema,
                "The model's versions have names of different stems (\(stems.sorted().map { "'\($0)'" }.joined(separator: ", "))), so their order cannot be read from their numbers. Convert the versions one by one (molt convert-model VERSION.xcdatamodel), in the order they shipped."
            )
        }
        let sorted = parsed.sorted { $0.number.lexicographicallyPrecedes($1.number) }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.number == b.number {
            throw MoltError(
                .invalidSchema,
                "The versions '\(a.name)' and '\(b.name)' have the same number, so their order cannot be told. Rename one of them."
            )
        }
        return sorted.map(\.name)
    }

    private static func readVersion(contents url: URL, name: String) throws -> CoreDataModel {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MoltError(
                .invalidSchema,
                "Core Data model '\(name)' has no contents file at \(url.path): versions saved before Xcode 4 keep a binary form that molt cannot read. Open the model in Xcode once to write it as XML, or leave this version out."
            )
        }
        return try CoreDataModel(contentsXML: data, name: name)
    }
}

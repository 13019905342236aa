import Foundation
import Molt

/// The versions of a Core Data model in the order the app shipped them: every `<version>.xcdatamodel` of an
/// `.xcdatamodeld` folder, or one `.xcdatamodel`.
///
/// Xcode names a new version after the model with a number (`Model`, `Model 2`, … `Model 117`), and apps that
/// rename versions put their release in the name (`zmessaging`, `zmessaging1.27`, … `zmessaging2.101.0`): the
/// versions are ordered by the number at the end of their names, compared component by component, the version
/// without a number first. The `.xccurrentversion` file names the version the app builds with, which must come
/// last: a history that orders otherwise is refused rather than walked in a wrong order.
package struct CoreDataHistory {
    package var models: [CoreDataModel]

    /// Reads the model at `url`: an `.xcdatamodeld` folder (every version), an `.xcdatamodel` folder (one
    /// version), or a `contents` file.
    ///
    /// - Throws: `MoltError` (`invalidSchema`) when the path is none of these, a version cannot be read, or the
    ///   current version is not the last in name order.
    package init(at url: URL) throws {
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
            let ordered = try Self.order(names)
            if let current = try Self.currentVersion(in: url), current != ordered.last {
                throw MoltError(
                    .invalidSchema,
                    "\(url.lastPathComponent): .xccurrentversion names '\(current)' as the current version, but by their names the versions end with '\(ordered.last!)': molt cannot tell the order in which they shipped. Rename the versions so that their numbers follow the order of release."
                )
            }
            models = try ordered.map { name in
                try Self.readVersion(contents: url.appendingPathComponent("\(name).xcdatamodel/contents"), name: name)
            }
        }
    }

    package init(models: [CoreDataModel]) { self.models = models }

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

    /// The version named by `.xccurrentversion`, without `.xcdatamodel`; nil when the file is absent.
    package static func currentVersion(in folder: URL) throws -> String? {
        let url = folder.appendingPathComponent(".xccurrentversion")
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let name = plist["_XCCurrentVersionName"] as? String
        else {
            throw MoltError(
                .invalidSchema,
                "\(url.path) is not a property list naming _XCCurrentVersionName. Restore it from version control.")
        }
        return name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
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

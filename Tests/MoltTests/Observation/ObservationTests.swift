import Foundation
import Molt
import MoltTooling
import Testing

/// Observed reads on every store kind: which commits re-run which reads, rollbacks, cancellation, closing.
@Suite("Observed reads")
struct ObservationTests {
    /// Folders own notes (cascade), notes have tags (many to many); `Other` is related to nothing.
    static let schema = Schema(version: 1) {
        Entity("Folder") {
            Attribute("name", .string)
            Relationship("notes", toMany: "Note", inverse: "folder", deleteRule: .cascade)
        }
        Entity("Note") {
            Attribute("text", .string)
            Relationship("folder", to: "Folder", inverse: "notes")
            Relationship("tags", toMany: "Tag", inverse: "notes")
        }
        Entity("Tag") {
            Attribute("label", .string)
            Relationship("notes", toMany: "Note", inverse: "tags")
        }
        Entity("Other") { Attribute("x", .int) }
    }

    static func texts(_ objects: [DynamicObject], _ attribute: String) -> [String] {
        objects.map { $0[attribute].string ?? "?" }.sorted()
    }

    struct Failure: Error {}

    @Test(
        "each write path re-runs the reads of the tables it wrote, and only those; a rollback re-runs none",
        arguments: StoreKind.allCases)
    func writePaths(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let home = try await store.write { try $0.insert("Folder", ["name": "home"]) }
        let (notes, tags, inHome, others) = (
            ObservationRecorder<[String]>(), ObservationRecorder<[String]>(), ObservationRecorder<[String]>(),
            ObservationRecorder<Int>()
        )
        let tokens = [
            notes.start(store) { Self.texts(try $0.fetch("Note"), "text") },
            tags.start(store) { Self.texts(try $0.fetch("Tag"), "label") },
            inHome.start(store) { Self.texts(try $0.destinations("notes", of: home), "text") },
            others.start(store) { try $0.count("Other") },
        ]
        for recorder in [notes, tags, inHome] { try await recorder.wait { $0 == [[]] } }
        try await others.wait { $0 == [0] }

        let milk = try await store.write { try $0.insert("Note", ["text": "milk"]) }
        try await notes.wait { $0 == [[], ["milk"]] }
        let red = try await store.write { try $0.insert("Tag", ["label": "red"]) }
        try await tags.wait { $0 == [[], ["red"]] }
        try await store.write { try $0.set("folder", of: milk, to: home) }
        try await inHome.wait { $0 == [[], ["milk"]] }
        try await store.write { try $0.add(red, to: "tags", of: milk) }
        try await store.write { objects in
            var blue = red
            blue["label"] = "blue"
            try objects.update(blue)
        }
        try await tags.wait { $0 == [[], ["red"], ["blue"]] }
        await #expect(throws: Failure.self) {
            try await store.write { objects in
                try objects.insert("Other", ["x": 1])
                throw Failure()
            }
        }
        try await store.write { try $0.delete(home) }  // cascades to milk, and its link to blue
        try await notes.wait { $0 == [[], ["milk"], []] }
        try await inHome.wait { $0 == [[], ["milk"], []] }
        try await store.write { objects in _ = try objects.insert("Other", ["x": 2]) }
        try await others.wait { $0 == [0, 1] }

        // Other's read ran at the start and after its one commit: not after the rolled-back one, nor the others.
        #expect(others.runs == 2)
        // Tag's read ran at the start, after the insert and the update of a tag; not for the notes, the folder,
        // the links, nor the deletion (which removes links, not tags).
        #expect(tags.runs == 3)
        #expect(notes.values == [[], ["milk"], []] && tags.values == [[], ["red"], ["blue"]])
        #expect(inHome.values == [[], ["milk"], []] && others.values == [0, 1])
        withExtendedLifetime(tokens) {}
    }

    @Test(
        "an import (molt import's importer) re-runs the reads of what it imported, once", arguments: StoreKind.allCases)
    func importing(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let (notes, tagsOfNotes, others) = (
            ObservationRecorder<[String]>(), ObservationRecorder<[[String]]>(), ObservationRecorder<Int>()
        )
        let tokens = [
            notes.start(store, dedupe: false) { Self.texts(try $0.fetch("Note"), "text") },
            tagsOfNotes.start(store) { objects in
                try objects.fetch("Note").map { Self.texts(try objects.destinations("tags", of: $0), "label") }
            },
            others.start(store) { try $0.count("Other") },
        ]
        try await notes.wait { $0 == [[]] }
        try await tagsOfNotes.wait { $0 == [[]] }
        try await others.wait { $0 == [0] }
        try await store.write { objects in
            let importer = try ObjectImporter(objects, keepingIDs: false)
            try importer.insert(
                Self.schema.entity(named: "Tag")!, fileID: 1, values: ["label": "red"], links: [:])
            try importer.insert(
                Self.schema.entity(named: "Note")!, fileID: 1, values: ["text": "milk"], links: ["tags": [1]])
            try importer.finish()
        }
        try await notes.wait { $0 == [[], ["milk"]] }
        try await tagsOfNotes.wait { $0 == [[], [["red"]]] }
        try await store.write { objects in _ = try objects.insert("Other", ["x": 1]) }
        try await others.wait { $0 == [0, 1] }
        #expect(notes.values == [[], ["milk"]] && notes.runs == 2)
        #expect(others.runs == 2)
        withExtendedLifetime(tokens) {}
    }

    @Test("without removeDuplicates, a read runs and delivers once per commit that wrote its table")
    func oncePerCommit() async throws {
        let store = try Store.inMemory(schema: Self.schema)
        let counts = ObservationRecorder<Int>()
        let token = counts.start(store, dedupe: false) { try $0.count("Note") }
        try await counts.wait { $0 == [0] }
        for (index, text) in ["a", "b", "c"].enumerated() {
            try await store.write { _ = try $0.insert("Note", ["text": .string(text)]) }
            try await counts.wait { $0 == Array(0...index + 1) }
        }
        try await store.write { _ = try $0.insert("Other", ["x": 1]) }
        try await store.write { try $0.deleteAll("Note", where: .equal("text", "a")) }
        try await counts.wait { $0.count == 5 }
        #expect(counts.values == [0, 1, 2, 3, 2])
        #expect(counts.runs == 5)
        token.cancel()
    }

    @Test("an observed aggregate re-runs after commits to its entity, and only those", arguments: StoreKind.allCases)
    func aggregates(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let sums = ObservationRecorder<Value>()
        let token = sums.start(store, dedupe: false) { try $0.sum("x", of: "Other") }
        try await sums.wait { $0 == [.int(0)] }
        try await store.write { _ = try $0.insert("Other", ["x": 5]) }
        try await sums.wait { $0 == [.int(0), .int(5)] }
        try await store.write { _ = try $0.insert("Note", ["text": "unrelated"]) }
        try await store.write { _ = try $0.insert("Other", ["x": 2]) }
        try await sums.wait { $0 == [.int(0), .int(5), .int(7)] }
        #expect(sums.runs == 3)
        token.cancel()
    }

    @Test(
        "an observation iterated as an AsyncSequence gets the first result, then each change",
        arguments: StoreKind.allCases)
    func asyncSequence(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        var seen: [Int] = []
        for try await count in store.observe({ try $0.count("Note") }).removeDuplicates() {
            seen.append(count)
            if count == 3 { break }
            try await store.write { objects in _ = try objects.insert("Note", ["text": "n"]) }
        }
        #expect(seen == [0, 1, 2, 3])
        try await ObservationRecorder<Int>.eventually { store.observationCount == 0 }
    }

    @Test("cancelling stops delivery and frees the observation", arguments: StoreKind.allCases)
    func cancellation(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        defer { try? store.close() }
        let cancelled = ObservationRecorder<Int>()
        let token = cancelled.start(store) { try $0.count("Note") }
        try await cancelled.wait { $0 == [0] }
        #expect(store.observationCount == 1)
        token.cancel()
        #expect(store.observationCount == 0)
        let witness = ObservationRecorder<Int>()
        let witnessToken = witness.start(store) { try $0.count("Note") }
        try await witness.wait { $0 == [0] }
        try await store.write { _ = try $0.insert("Note", ["text": "n"]) }
        try await witness.wait { $0 == [0, 1] }
        #expect(cancelled.values == [0] && cancelled.runs == 1)
        withExtendedLifetime(witnessToken) {}
    }

    @Test("closing the store ends its observations without an error", arguments: StoreKind.allCases)
    func closing(kind: StoreKind) async throws {
        let dir = TemporaryDirectory()
        let store = try kind.makeStore(schema: Self.schema, in: dir)
        let callback = ObservationRecorder<Int>()
        let token = callback.start(store) { try $0.count("Note") }
        let iteration = Task {
            var seen: [Int] = []
            for try await count in store.observe({ try $0.count("Note") }) { seen.append(count) }
            return seen
        }
        try await callback.wait { $0 == [0] }
        try await ObservationRecorder<Int>.eventually { store.observationCount == 2 }
        try store.close()
        #expect(try await iteration.value.allSatisfy { $0 == 0 })
        #expect(store.observationCount == 0 && callback.error == nil)
        withExtendedLifetime(token) {}
    }

    @Test("releasing the store ends its observations: none keeps it open")
    func releasing() async throws {
        let dir = TemporaryDirectory()
        var store: Store? = try StoreKind.wal.makeStore(schema: Self.schema, in: dir)
        weak let released = store
        let counts = ObservationRecorder<Int>()
        let token = counts.start(store!) { try $0.count("Note") }
        try await counts.wait { $0 == [0] }
        store = nil
        try await ObservationRecorder<Int>.eventually { released == nil }
        withExtendedLifetime(token) {}
    }
}

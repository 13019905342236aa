import Foundation
import MoltMacros
import Testing

/// People: version 1 splits the name, version 2 joins it (a change no inference can make) and adds a
/// required `initials` attribute.
enum PeopleStageV1: VersionedSchema {
    static let version = 1
    static let models: [any PersistentModel.Type] = [Team.self, Person.self]
    @Model struct Team {
        var name: String
        @Relationship(inverse: "team") var members: ToMany<Person> = []
    }
    @Model struct Person {
        var firstName: String
        var lastName: String
        var age: Int
        @Relationship(inverse: "members") var team: ToOne<Team> = nil
    }
}

enum PeopleStageV2: VersionedSchema {
    static let version = 2
    static let models: [any PersistentModel.Type] = [Team.self, Person.self]
    @Model struct Team {
        var name: String
        @Relationship(inverse: "team") var members: ToMany<Person> = []
    }
    @Model struct Person {
        var fullName: String
        var initials: String
        var age: Int
        var nickname: String?
        @Relationship(inverse: "members") var team: ToOne<Team> = nil
    }
}

@Suite("Typed migration stages")
struct TypedStageTests {
    typealias Old = PeopleStageV1
    typealias New = PeopleStageV2

    final class Folder: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("molt-typed-stage-\(UUID().uuidString)")
        init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// A version-1 store: Ada and Alan in team Math, Grace in team Navy.
    func seed(_ url: URL) throws {
        let store = try Store.open(at: url, schema: Old.schema)
        try store.write { objects in
            let math = try objects.insert(Old.Team(name: "Math"))
            let navy = try objects.insert(Old.Team(name: "Navy"))
            try objects.insert(Old.Person(firstName: "Ada", lastName: "Lovelace", age: 36, team: ToOne(math)))
            try objects.insert(Old.Person(firstName: "Alan", lastName: "Turing", age: 41, team: ToOne(math)))
            try objects.insert(Old.Person(firstName: "Grace", lastName: "Hopper", age: 85, team: ToOne(navy)))
        }
        try store.close()
    }

    @Test("Old models are read and new models written in one stage, with the dynamic API beside them")
    func typedAndDynamic() throws {
        let folder = Folder()
        let url = folder.url.appendingPathComponent("people.sqlite")
        try seed(url)
        let plan = try MigrationPlan(
            schemas: [Old.schema, New.schema],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    let navy = try migration.new.fetch(New.Team.self, where: \.name == "Navy")[0]
                    #expect(try migration.old.count(Old.Person.self, where: \.age > 40) == 2)
                    try migration.enumerateObjects(Old.Person.self, to: New.Person.self) { old, new in
                        New.Person(
                            fullName: "\(old.firstName) \(old.lastName)",
                            initials: "\(old.firstName.prefix(1))\(old.lastName.prefix(1))",
                            age: old.age, nickname: new["nickname"].string ?? (old.age > 80 ? "Amazing Grace" : nil),
                            team: old.firstName == "Alan" ? ToOne(navy) : ToOne(id: old.team.id))
                    }
                    // Dynamic and typed creation in the same migration.
                    try migration.new.insert(
                        New.Person(fullName: "Katherine Johnson", initials: "KJ", age: 101, team: ToOne(navy)))
                    try migration.create(
                        "Person", value: ["fullName": "Margaret Hamilton", "initials": "MH", "age": 88])
                }
            ])
        let store = try Store.open(at: url, schema: New.schema, options: Store.Options().migrating(with: plan))
        try store.read { objects in
            let people = try objects.fetch(New.Person.self, orderBy: [.ascending(\.fullName)])
            #expect(
                people.map(\.fullName) == [
                    "Ada Lovelace", "Alan Turing", "Grace Hopper", "Katherine Johnson", "Margaret Hamilton",
                ])
            #expect(people.map(\.initials) == ["AL", "AT", "GH", "KJ", "MH"])
            #expect(people.map(\.age) == [36, 41, 85, 101, 88])
            #expect(people.map(\.nickname) == [nil, nil, "Amazing Grace", nil, nil])
            let teams = try objects.fetch(New.Team.self, orderBy: [.ascending(\.name)])
            #expect(teams.map(\.name) == ["Math", "Navy"])
            #expect(try objects.destinations(\.members, of: teams[0]).map(\.fullName) == ["Ada Lovelace"])
            #expect(
                try objects.destinations(\.members, of: teams[1]).map(\.fullName).sorted() == [
                    "Alan Turing", "Grace Hopper", "Katherine Johnson",
                ])
            #expect(try objects.destination(\.team, of: people[4]) == nil)
        }
    }

    @Test("An old model that does not match the old version is refused, and the store is left as it was")
    func mismatchedModel() throws {
        let folder = Folder()
        let url = folder.url.appendingPathComponent("people.sqlite")
        try seed(url)
        let plan = try MigrationPlan(
            schemas: [Old.schema, New.schema],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    try migration.enumerateObjects(New.Person.self, to: New.Person.self) { old in old }
                }
            ])
        let error = #expect(throws: MoltError.self) {
            try Store.open(at: url, schema: New.schema, options: Store.Options().migrating(with: plan))
        }
        #expect(
            error?.message.contains(
                "The model 'Person' does not match entity 'Person' of the store's schema version 1:") == true)
        #expect(try Store.version(at: url) == 1)
    }

    @Test("Old objects of an entity are read as models with enumerateOldObjects")
    func oldObjects() throws {
        let folder = Folder()
        let url = folder.url.appendingPathComponent("people.sqlite")
        try seed(url)
        let plan = try MigrationPlan(
            schemas: [Old.schema, New.schema],
            stages: [
                .custom(from: 1, to: 2) { migration in
                    var seen: [String] = []
                    try migration.enumerateOldObjects(Old.Person.self) {
                        seen.append("\($0.firstName)@\($0.team.id ?? 0)")
                    }
                    #expect(seen == ["Ada@1", "Alan@1", "Grace@2"])
                    try migration.enumerateObjects(Old.Person.self, to: New.Person.self) { old in
                        New.Person(
                            fullName: old.firstName, initials: "", age: old.age,
                            team: old.team.id.map { ToOne(id: $0) } ?? nil)
                    }
                }
            ])
        let store = try Store.open(at: url, schema: New.schema, options: Store.Options().migrating(with: plan))
        #expect(try store.read { try $0.fetch(New.Person.self).map(\.fullName) } == ["Ada", "Alan", "Grace"])
    }
}

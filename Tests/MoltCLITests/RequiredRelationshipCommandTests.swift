import Foundation
import Molt
import Testing

/// What `molt info` and `molt check STORE` say about required relationships.
@Suite("molt info and check on required relationships")
struct RequiredRelationshipCommandTests {
    static let schema = Schema(version: 1) {
        Entity("User") {
            Attribute("name", .string)
            Relationship("posts", toMany: "Post", inverse: "author")
        }
        Entity("Post") {
            Attribute("title", .string)
            Relationship("author", to: "User", inverse: "posts", isOptional: false)
        }
    }

    /// A store with one user and one post linked to her.
    static func store(in dir: TemporaryDirectory) throws -> URL {
        let url = dir.file("posts.sqlite")
        let store = try Store.open(at: url, schema: schema)
        try store.write { objects in
            let ada = try objects.insert("User", ["name": "Ada"])
            try objects.set("author", of: try objects.insert("Post", ["title": "Hello"]), to: ada)
        }
        try store.close()
        return url
    }

    @Test("info marks a required relationship, in text and in JSON (absent for optional ones)")
    func info() throws {
        let dir = TemporaryDirectory()
        let url = try Self.store(in: dir)
        let text = try Molt.run(["info", url.path])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.split(separator: "\n").contains("    author: User (required, inverse posts)"))
        let json = try Molt.run(["info", url.path, "--json"])
        let entities = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any])["entities"]
        let relationships = (entities as! [[String: Any]]).map { ($0["relationships"] as! [[String: Any]])[0] }
        #expect(relationships.map { $0["required"] as? Bool } == [nil, true])
    }

    @Test("check STORE reports a required relationship emptied behind Molt's back, with exit 3")
    func check() throws {
        let dir = TemporaryDirectory()
        let url = try Self.store(in: dir)
        #expect(try Molt.run(["check", url.path]).status == 0)
        let store = try Store.open(at: url, schema: Self.schema)
        // SQL of the test's own: Molt's write records no table, so nothing checks the link at commit.
        try store.write { objects in _ = try objects.db.execute(.update, "UPDATE \"Post\" SET \"author\" = NULL") }
        try store.close()
        let damaged = try Molt.run(["check", url.path])
        #expect(damaged.status == 3, "\(damaged)")
        #expect(
            damaged.stderr.contains(
                "the required relationship 'Post.author' is empty: 1 'Post' object (_id 1) has no 'author'"),
            "\(damaged.stderr)")
    }

    @Test("check DIR warns that making a relationship required depends on the data, naming the data (exit 0)")
    func checkFolder() throws {
        let dir = TemporaryDirectory()
        var optional = Self.schema
        optional.entities[1].relationships[0].isOptional = true
        var required = Self.schema
        required.version = 2
        try Fixtures.write(optional, to: dir.file("1.json"))
        try Fixtures.write(required, to: dir.file("2.json"))
        let result = try Molt.run(["check", dir.url.path])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                warning: 2.json: step 1 → 2 depends on the data: 'Post.author' becomes required (it was optional): a store at version 1 where a 'Post' object links to nothing through 'author' is refused. Link every 'Post' object in a custom stage from version 1 to 2 (`migration.new.set("author", of: object, to: destination)`), delete the ones that have none, or keep 'Post.author' optional.
                Checked 2 versions (1, 2): 0 errors, 1 warning.

                """)
    }

    @Test(
        "info marks a minimum count, and check STORE lists an owner left under it behind Molt's back, as sound (exit 0)"
    )
    func minimumCount() throws {
        let dir = TemporaryDirectory()
        var schema = Self.schema
        schema.entities[0].relationships[0].minimumCount = 1
        let url = dir.file("posts.sqlite")
        let store = try Store.open(at: url, schema: schema)
        try store.write { objects in
            let ada = try objects.insert("User", ["name": "Ada"])
            try objects.set("author", of: try objects.insert("Post", ["title": "Hello"]), to: ada)
        }
        let text = try Molt.run(["info", url.path])
        #expect(
            text.stdout.split(separator: "\n").contains("    posts: [Post] (at least 1, inverse author)"), "\(text)")
        let json = try Molt.run(["info", url.path, "--json"])
        let entities = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any])["entities"]
        let relationships = (entities as! [[String: Any]]).map { ($0["relationships"] as! [[String: Any]])[0] }
        #expect(relationships.map { $0["minimumCount"] as? Int } == [1, nil])
        #expect(try Molt.run(["check", url.path]).status == 0)
        // SQL of the test's own, the post and its link: Molt's write records no table, so nothing checks the count
        // at commit. An owner under its minimum is not damage (Core Data keeps such owners too): listed, exit 0.
        try store.write { objects in
            _ = try objects.db.execute(.update, "DELETE FROM \"User_posts\"")
            _ = try objects.db.execute(.update, "DELETE FROM \"Post\"")
        }
        try store.close()
        let short = try Molt.run(["check", url.path])
        #expect(short.status == 0, "\(short)")
        #expect(
            short.stdout.contains(
                "  kept under a minimum count (as Core Data keeps them; writes that change them must meet it): the relationship 'User.posts' is under its minimum count of 1: 1 'User' object (_id 1) has no 'posts'"
            ), "\(short)")
    }

}

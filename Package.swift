// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Molt",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        // The core: runtime schemas, stores, inferred and custom migrations. Never builds swift-syntax.
        .library(name: "Molt", targets: ["Molt"]),
        // Typed models: @Model and friends, VersionedSchema. Builds swift-syntax.
        .library(name: "MoltMacros", targets: ["MoltMacros"]),
        // Test support: schema snapshots, fixtures, migrate-from-every-version checks.
        .library(name: "MoltTesting", targets: ["MoltTesting"]),
        // Stores in PostgreSQL: the same schemas and plans over postgres-nio. Only apps that use it build NIO.
        .library(name: "MoltPostgres", targets: ["MoltPostgres"]),
        // Adoption: brings an app's existing Core Data, SwiftData, GRDB or SQLite store into Molt, once, in place.
        .library(name: "MoltAdoption", targets: ["MoltAdoption"]),
        .executable(name: "molt", targets: ["molt"]),
    ],
    traits: [
        .trait(
            name: "PostgreSQL",
            description: "The molt CLI opens postgres:// stores (builds NIO, postgres-nio and BoringSSL). Without it "
                + "(--disable-default-traits), molt is for SQLite files only, builds in a fraction of the time and starts faster."
        ),
        .default(enabledTraits: ["PostgreSQL"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // MoltPostgres imports these itself (they also come with postgres-nio): declared, so that a build that
        // enforces member import visibility finds them.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Tests only: random schema evolutions over random data (Tests/MoltTests/Properties).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "Molt",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "MoltPostgres",
            dependencies: [
                "Molt",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .macro(
            name: "MoltMacrosPlugin",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(name: "MoltMacros", dependencies: ["Molt", "MoltMacrosPlugin"]),
        // What the CLI and the test kit share and apps never link: data files (export, import), dry runs. Not a
        // product: its declarations are `package`, reached by MoltCLI and MoltTesting only.
        .target(name: "MoltTooling", dependencies: ["Molt"]),
        .target(name: "MoltTesting", dependencies: ["Molt", "MoltTooling"]),
        // Reads other engines' stores (Core Data models and stores, GRDB and plain SQLite databases) and adopts
        // them into Molt stores; also what `molt convert-model` and `molt adopt` are made of.
        .target(
            name: "MoltAdoption",
            dependencies: [
                "Molt", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        .target(
            name: "MoltCLI",
            dependencies: [
                "Molt", "MoltTooling", "MoltAdoption",
                .target(name: "MoltPostgres", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "molt", dependencies: ["MoltCLI"]),
        // A child process for crash and concurrency tests: migrates a store, or is killed while it does.
        .executableTarget(
            name: "molt-test-worker", dependencies: ["Molt", "MoltAdoption", "MoltPostgres"], path: "Tests/Worker"),
        .testTarget(
            name: "MoltTests",
            dependencies: [
                "Molt", "MoltAdoption", "MoltPostgres", "MoltTooling", "MoltTesting", "molt-test-worker",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "MoltTestingTests", dependencies: ["Molt", "MoltTesting", "MoltMacros"]),
        .testTarget(
            name: "MoltCLITests",
            dependencies: [
                "Molt", "MoltAdoption", "MoltCLI", "MoltPostgres", "MoltTesting", "MoltTooling", "molt",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["__Snapshots__"]),
        // Public @Model structs in a library of their own, as an app keeps its models; MoltPublicModelsTests uses
        // them from another module, which is what proves the generated public members compile and suffice.
        .target(name: "MoltPublicModelsFixture", dependencies: ["MoltMacros"], path: "Tests/PublicModels"),
        .testTarget(name: "MoltPublicModelsTests", dependencies: ["Molt", "MoltPublicModelsFixture"]),
        .testTarget(
            name: "MoltMacrosTests",
            dependencies: [
                "Molt", "MoltMacros", "MoltMacrosPlugin",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every target states the modules it imports (ManifestImportTests checks each import against the lists above), and
// a member reached only through another module's import is an error (MemberImportVisibility).
for target in package.targets where target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}

// swift-tools-version: 6.1
// Benchmarks live in their own package so that the root package never depends on benchmark tooling.
// Run: swift run -c release --package-path Benchmarks molt-benchmarks [--json] [scenario…]
import PackageDescription

let package = Package(
    name: "MoltBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Molt", path: "../"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The PostgreSQL scenarios' hand-written baseline talks to the server as an app would.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .executableTarget(
            name: "molt-benchmarks",
            dependencies: [
                .product(name: "Molt", package: "Molt"),
                .product(name: "MoltPostgres", package: "Molt"),
                .product(name: "MoltAdoption", package: "Molt"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Not linked: built next to molt-benchmarks so that the CLI scenarios time the release binary.
                .product(name: "molt", package: "Molt"),
            ],
            path: "Sources/MoltBenchmarks"
        )
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.1
// The black-box reliability campaign lives in its own package, so that the root package never depends on it.
// It drives a release-built `molt` binary as a user would; it does not link Molt.
// Run: swift run -c release --package-path Reliability molt-reliability [--quick] [--json] [--only KIND…]
import PackageDescription

let package = Package(
    name: "MoltReliability",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // The system SQLite, for checking stores (integrity, foreign keys, a digest of every table) and for
        // damaging them on purpose. Never used to migrate: that is molt's job.
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .executableTarget(
            name: "molt-reliability",
            dependencies: [
                "CSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/MoltReliability"
        ),
    ],
    swiftLanguageModes: [.v6]
)

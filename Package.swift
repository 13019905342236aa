// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Molt",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Molt", targets: ["Molt"]),
        .executable(name: "molt", targets: ["molt"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "Molt",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "MoltCLI",
            dependencies: [
                "Molt",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "molt", dependencies: ["MoltCLI"]),
        .testTarget(name: "MoltTests", dependencies: ["Molt", "MoltCLI"]),
    ],
    swiftLanguageModes: [.v6]
)

import Foundation
import FuzzSupport
import Molt

/// libFuzzer's entry: the bytes as a schema snapshot (`Schema(snapshotJSON:)`). A snapshot that reads must
/// write back and read again as the same schema.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    FuzzSupport.expectingOnlyMoltErrors {
        let schema = try Schema(snapshotJSON: data)
        let again = try Schema(snapshotJSON: try schema.snapshotJSON())
        precondition(again == schema, "A snapshot read back as another schema: \(schema) / \(again)")
    }
    return 0
}

/// The executable's entry point (SwiftPM links it as `main`): libFuzzer's driver on ``fuzzSnapshot(_:_:)``.
@_cdecl("fuzz_snapshot_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzSnapshot)
}

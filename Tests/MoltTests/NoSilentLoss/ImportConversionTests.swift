import Foundation
import Testing
@testable import Molt
import MoltTooling

@Suite("No silent loss: values read from a data file")
struct ImportConversionTests {
    @Test("an integer in the file is read into a double attribute only when the double holds it exactly")
    func integersIntoDoubles() {
        let exact: Int64 = 1 << 53
        #expect(DataFile.value(.int(exact), for: .double) == .double(9_007_199_254_740_992))
        #expect(DataFile.value(.int(exact + 1), for: .double) == nil)
        #expect(DataFile.value(.int(-(exact + 1)), for: .double) == nil)
        #expect(DataFile.value(.int(exact + 1), for: .date) == nil)
        #expect(DataFile.value(.int(42), for: .date) == .date(Date(timeIntervalSince1970: 42)))
    }
}

import Foundation

/// The process's peak resident memory (Linux `VmHWM`), which can be reset so that each measured operation
/// reports its own peak rather than the setup's.
enum PeakMemory {
    /// Resets the high-water mark to the current resident size (`echo 5 > /proc/self/clear_refs`, Linux ≥ 4.0).
    static func reset() {
        #if os(Linux)
        if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            handle.write(Data("5".utf8))
            try? handle.close()
        }
        #endif
    }

    /// The peak resident memory since the last reset, in MiB, or nil where `/proc/self/status` is missing.
    static func currentPeakMiB() -> Double? { peakMiB(status: "/proc/self/status") }

    /// The peak resident memory of a running process, in MiB, or nil when it has none (exited) or there is no
    /// `/proc`.
    static func peakMiB(ofProcess pid: Int32) -> Double? { peakMiB(status: "/proc/\(pid)/status") }

    private static func peakMiB(status path: String) -> Double? {
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").compactMap { Double($0) }
            return digits.first.map { $0 / 1024 }
        }
        return nil
    }
}

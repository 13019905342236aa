import Foundation
import Molt

// Replaced by the crash and concurrency tests' worker.
print("molt-test-worker")

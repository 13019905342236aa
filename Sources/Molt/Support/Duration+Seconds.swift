extension Duration {
    /// The duration as a number of seconds, for records and reports that store a `TimeInterval`.
    ///
    /// ```swift
    /// let start = ContinuousClock.now
    /// try work()
    /// let seconds = (ContinuousClock.now - start).inSeconds  // 0.0123
    /// ```
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// The names of earlier releases, kept for one release so that code written against them still compiles (with a
/// deprecation warning whose fix-it writes the new name). See the "Migrating to this release" article.
extension ObjectSort {
    /// Whether smaller values come first: the earlier name of ``isAscending``, from when the type was called
    /// `SortDescriptor`.
    ///
    /// ```swift
    /// if sort.ascending { … }     // before
    /// if sort.isAscending { … }   // now
    /// ```
    @available(*, deprecated, renamed: "isAscending")
    public var ascending: Bool {
        get { isAscending }
        set { isAscending = newValue }
    }
}

import Testing
@testable import SearchField

@Suite("A configuration's text, from which scenario hashes are made", .timeLimit(.minutes(5)))
struct ConfigurationTextTests {
    /// Records name their scenario by a hash of this text: a change here splits every history.
    @Test func theTextStaysAsRecordsHaveAlwaysHashedIt() {
        #expect(Preset.splitState.defaultConfiguration.canonicalDescription == """
            SearchFieldConfiguration(debounce: 300000000, normalizer: SearchField.QueryNormalizer(trims: true, minimumLength: 2), \
            stalledDelay: Optional(200000000), cacheCapacity: 0, restartKey: SearchField.RestartKey.identity, writeBack: false, writeBackBound: 16)
            """)
        #expect(Preset.naive.defaultConfiguration.canonicalDescription.contains("debounce: 0, "))
        #expect(Preset.naive.defaultConfiguration.canonicalDescription.contains("stalledDelay: nil, "))
    }
}

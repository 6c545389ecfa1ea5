import Testing
@testable import SearchField

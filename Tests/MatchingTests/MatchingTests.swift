import Testing
@testable import Matching

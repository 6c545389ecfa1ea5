import Testing
@testable import Typists

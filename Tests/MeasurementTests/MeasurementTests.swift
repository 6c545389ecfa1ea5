import Testing
@testable import Measurement

// Support for a user's own tests: measuring a search field from Swift Testing (docs/library.md).
@_exported import Typestorm

enum MatchingPlaceholder {}

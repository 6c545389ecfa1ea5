/// The Matching module. See ../shared/DESIGN.md for what it owns.
public enum MatchingModule {}

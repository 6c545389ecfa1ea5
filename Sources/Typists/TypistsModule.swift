/// The Typists module. See ../shared/DESIGN.md for what it owns.
public enum TypistsModule {}

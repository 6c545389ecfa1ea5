/// The LiveLoad module. See ../shared/DESIGN.md for what it owns.
public enum LiveLoadModule {}

/// The Orchestration module. See ../shared/DESIGN.md for what it owns.
public enum OrchestrationModule {}

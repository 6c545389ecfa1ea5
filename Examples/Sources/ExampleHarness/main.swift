import SearchExamples
import Typestorm

// The whole typestorm command line, with the examples beside the presets:
// swift run --package-path Examples ExampleHarness simulate --strategies seed-000,split-state-seed
TypestormTool.main(fields: ExampleFields.all.merging(MisusedFields.all) { first, _ in first })

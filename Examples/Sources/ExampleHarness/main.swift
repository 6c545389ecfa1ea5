import SearchExamples
import Typestorm

// The whole typestorm command line, with the examples beside the presets:
// swift run ExampleHarness simulate --strategies seed-000,split-state-seed
TypestormTool.main(fields: ExampleFields.all)

import TypestormCLI
import CJemalloc
import Foundation

let code = await Typestorm.main(arguments: Array(CommandLine.arguments.dropFirst()))
exit(code)

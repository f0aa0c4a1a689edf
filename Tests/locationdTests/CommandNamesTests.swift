import ArgumentParser
import Testing

@testable import locationd

/// Every command and subcommand names itself.
///
/// ArgumentParser builds the whole tree of commands at each start; a command without a
/// `commandName` has its name derived from its type's name (`String(describing:)`,
/// demangled), about 3.5 M instructions each, at every `locationd` start
/// (docs/performance.md, start-up).
@Test func everyCommandNamesItself() {
    var unnamed: [String] = []
    var pending: [any ParsableCommand.Type] = [Locationd.self]
    while let command = pending.popLast() {
        if command.configuration.commandName == nil { unnamed.append("\(command)") }
        pending += command.configuration.subcommands
    }
    #expect(unnamed == [])
}

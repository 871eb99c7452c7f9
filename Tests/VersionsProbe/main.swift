import FileCoordination
import Foundation

// A second process for the versions-store tests, on the store named by QUIRE_VERSIONS_DIR:
//   VersionsProbe add ITEM CONTENTS        adds a version, prints its id
//   VersionsProbe conflict ITEM CONTENTS   adds a conflict version, prints its id
//   VersionsProbe list ITEM                prints "<id> conflict=<bool> resolved=<bool>" per stored version
//   VersionsProbe resolve ITEM ID          resolves that conflict version
//   VersionsProbe remove ITEM ID           removes that version
//   VersionsProbe removeAll ITEM           removes every version of the item
//   VersionsProbe move ITEM DESTINATION    moves the item in a coordinated write (item(at:didMoveTo:))
//   VersionsProbe delete ITEM              deletes the item in a coordinated .forDeleting write
// Presenters of the item in other processes hear of each change through the shared arbiter (QUIRE_COORDINATION_DIR).
// Exits 1 with a line on standard error when the call fails, 2 on bad arguments.

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    FileHandle.standardError.write(
        Data(
            "usage: VersionsProbe add|conflict|list|resolve|remove|removeAll|move|delete ITEM [CONTENTS|ID|DESTINATION]\n"
                .utf8))
    exit(2)
}
let item = URL(fileURLWithPath: arguments[1])
do {
    switch (arguments[0], arguments.count) {
    case ("add", 3):
        print(try FileVersion.add(ofItemAt: item, withContentsOf: URL(fileURLWithPath: arguments[2])).id)
    case ("conflict", 3):
        print(try FileVersion.addConflictVersion(ofItemAt: item, withContentsOf: URL(fileURLWithPath: arguments[2])).id)
    case ("list", 2):
        for version in try FileVersion.otherVersions(ofItemAt: item) {
            print("\(version.id) conflict=\(version.isConflict) resolved=\(version.isResolved)")
        }
    case ("resolve", 3):
        guard let version = try FileVersion.otherVersions(ofItemAt: item).first(where: { $0.id == arguments[2] }) else {
            FileHandle.standardError.write(Data("no version \(arguments[2])\n".utf8))
            exit(1)
        }
        _ = try version.setResolved(true)
    case ("remove", 3):
        guard let version = try FileVersion.otherVersions(ofItemAt: item).first(where: { $0.id == arguments[2] }) else {
            FileHandle.standardError.write(Data("no version \(arguments[2])\n".utf8))
            exit(1)
        }
        try version.remove()
    case ("removeAll", 2):
        try FileVersion.removeOtherVersions(ofItemAt: item)
    case ("move", 3):
        let coordinator = FileCoordinator()
        let destination = URL(fileURLWithPath: arguments[2])
        try coordinator.coordinate(
            writingItemAt: item, options: .forMoving, writingItemAt: destination, options: .forReplacing
        ) { source, target in
            try FileManager.default.moveItem(at: source, to: target)
            coordinator.item(at: source, didMoveTo: target)
        }
    case ("delete", 2):
        try FileCoordinator().coordinate(writingItemAt: item, options: .forDeleting) { url in
            try FileManager.default.removeItem(at: url)
        }
    default:
        FileHandle.standardError.write(Data("bad arguments: \(arguments)\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}

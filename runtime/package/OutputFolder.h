//===- OutputFolder.h - writing a folder of ours safely ---------*- C++ -*-===//
//
// Packages (`hetc compile -o`) and checkpoints (`hetrun --save`) are folders
// written whole: staged in a sibling `<target>.partial-XXXXXX`, then moved
// into place. Replacing an existing one swaps the two folders in one step
// (renameat2 RENAME_EXCHANGE), so at every instant the target holds the
// old folder or the new one, complete. Nothing is deleted unless it is
// provably ours: a folder of the kind's own file names holding its marker
// file; never through a symbolic link, never another file type. Stale
// staging folders of ours, left by a killed writer, go at the next write.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_PACKAGE_OUTPUTFOLDER_H
#define HETC_RUNTIME_PACKAGE_OUTPUTFOLDER_H

#include <string>

namespace hetc::package {

/// What a folder of one kind holds.
struct FolderKind {
  const char *what;   // "package", "checkpoint": for messages
  const char *marker; // a file every such folder has ("manifest.pb")
  bool (*ownsFile)(const std::string &name); // a file name the writer makes
};

/// Packages: manifest.pb, rank<N>.pb, weights.safetensors,
/// constants.safetensors.
const FolderKind &packageFolder();
/// Checkpoints: state.json, params.safetensors, optimizer.safetensors.
const FolderKind &checkpointFolder();

/// Makes an empty staging folder beside `target` (`*staged`), removing
/// the stale staging folders of `kind` left there. An error message, or
/// empty on success.
std::string makeStagingFolder(const std::string &target, const FolderKind &kind,
                              std::string *staged);

/// Moves the finished `staged` folder to `target`. An existing `target`
/// must be an empty folder or a folder of `kind`; it is replaced in one
/// step and then deleted. An error message (naming `target` and why it
/// was left alone), or empty on success; `staged` is left for the caller
/// to remove on error.
std::string replaceFolder(const std::string &staged, const std::string &target,
                          const FolderKind &kind);

/// Removes the folder `dir` (not through a link) when it holds nothing but
/// regular files of `kind`: a staging folder, or a finished one.
void removeOwnFolder(const std::string &dir, const FolderKind &kind);

} // namespace hetc::package

#endif // HETC_RUNTIME_PACKAGE_OUTPUTFOLDER_H

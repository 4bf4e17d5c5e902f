//===- FileDigest.h - checksums of a package's files ------------*- C++ -*-===//
//
// The manifest records the size and a 64-bit digest of every other file of
// the package (Manifest.files); the runtime checks them before it reads a
// byte, so a file changed or damaged after `hetc compile` wrote it is an
// error, not silently different training. The digest catches corruption
// (flipped bits, truncation, a deleted instruction), not deliberate
// tampering: it is fast, not cryptographic.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_PACKAGE_FILEDIGEST_H
#define HETC_RUNTIME_PACKAGE_FILEDIGEST_H

#include <cstdint>
#include <string>

namespace hetc::package {

/// The digest of `size` bytes at `data`.
uint64_t digestBytes(const void *data, size_t size);

/// The size and digest of the regular file `path`; false with `*error`
/// when it cannot be read.
bool digestFile(const std::string &path, int64_t *bytes, uint64_t *digest,
                std::string *error);

} // namespace hetc::package

#endif // HETC_RUNTIME_PACKAGE_FILEDIGEST_H

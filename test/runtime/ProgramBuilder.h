//===- ProgramBuilder.h - hand-built programs for executor tests -*- C++ -*-===//
//
// Builds a Program proto buffer by buffer (owners at fresh 64-byte-aligned
// offsets, aliases and views over them) and instruction by instruction, plus
// the manifest and weights of an in-memory LoadedPackage, packages of
// several ranks from one builder per rank, and a temporary token file.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_RUNTIME_PROGRAMBUILDER_H
#define HETC_TEST_RUNTIME_PROGRAMBUILDER_H

#include "runtime/exec/Executor.h"
#include "runtime/package/Package.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace hetc::runtime::test {

namespace pkg = hetc::pkg;

class ProgramBuilder {
public:
  explicit ProgramBuilder(int64_t batch = 2, int64_t seq = 3,
                          int64_t vocab = 4) {
    manifest_.set_format_version(hetc::package::kFormatVersion);
    manifest_.set_model_name("test");
    manifest_.set_global_batch(batch);
    manifest_.set_seq_len(seq);
    manifest_.set_vocab_size(vocab);
    manifest_.add_ranks()->set_program_file("rank0.pb");
    program_.set_num_samples(batch);
  }

  // A buffer owning fresh bytes.
  int buffer(const std::string &name, pkg::DType dtype, Shape shape,
             pkg::BufferKind kind, pkg::InputRole role = pkg::ROLE_UNSPECIFIED) {
    pkg::Buffer *b = program_.add_buffers();
    b->set_id(program_.buffers_size() - 1);
    b->set_name(name);
    b->set_dtype(dtype);
    for (int64_t d : shape)
      b->add_shape(d);
    b->set_kind(kind);
    b->set_role(role);
    b->set_alias_of(-1);
    b->set_offset(end_);
    end_ += (exec::bufferBytes(*b) + 63) / 64 * 64;
    program_.set_arena_bytes(end_);
    manifest_.mutable_ranks(0)->set_arena_bytes(end_);
    return b->id();
  }
  int f32(const std::string &name, Shape shape,
          pkg::BufferKind kind = pkg::ACTIVATION) {
    return buffer(name, pkg::F32, std::move(shape), kind);
  }
  // An f32 buffer owning fresh bytes of the host arena.
  int hostF32(const std::string &name, Shape shape,
              pkg::BufferKind kind = pkg::ACTIVATION) {
    int id = buffer(name, pkg::F32, std::move(shape), kind);
    pkg::Buffer *b = program_.mutable_buffers(id);
    end_ = b->offset();
    program_.set_arena_bytes(end_);
    manifest_.mutable_ranks(0)->set_arena_bytes(end_);
    b->set_host(true);
    b->set_offset(hostEnd_);
    hostEnd_ += (exec::bufferBytes(*b) + 63) / 64 * 64;
    program_.set_host_arena_bytes(hostEnd_);
    manifest_.mutable_ranks(0)->set_host_arena_bytes(hostEnd_);
    return id;
  }
  // A view of `target`'s bytes with another shape.
  int alias(int target, Shape shape) {
    return view(target, 0, std::move(shape),
                "reshape." + std::to_string(program_.buffers_size()));
  }
  // A view of `target`'s elements from `elementOffset` on.
  int view(int target, int64_t elementOffset, Shape shape, std::string name) {
    pkg::Buffer *b = program_.add_buffers();
    const pkg::Buffer &t = program_.buffers(target);
    b->set_id(program_.buffers_size() - 1);
    b->set_name(std::move(name));
    b->set_dtype(t.dtype());
    for (int64_t d : shape)
      b->add_shape(d);
    b->set_kind(t.kind());
    b->set_role(t.role());
    b->set_host(t.host());
    b->set_offset(t.offset() +
                  elementOffset * hetc::package::dtypeSize(t.dtype()));
    b->set_alias_of(target);
    return b->id();
  }
  // A TOKENS or LABELS input of `rows` samples from `firstSample` on.
  int tokens(const std::string &name, pkg::InputRole role, int64_t firstSample,
             int64_t rows, pkg::DType dtype = pkg::I64) {
    int id = buffer(name, dtype, {rows, manifest_.seq_len()}, pkg::INPUT, role);
    program_.mutable_buffers(id)->set_first_sample(firstSample);
    return id;
  }

  pkg::Instruction &launch(const std::string &kernel, std::vector<int> operands,
                           std::vector<int> results) {
    pkg::Instruction *inst = program_.add_instructions();
    inst->set_kernel(kernel);
    for (int o : operands)
      inst->add_operands(o);
    for (int r : results)
      inst->add_results(r);
    inst->set_location("loc(\"test\":" +
                       std::to_string(program_.instructions_size()) + ":1)");
    return *inst;
  }

  void weight(const std::string &name, Shape shape, std::vector<float> values) {
    hetc::package::NamedTensor t;
    t.name = name;
    t.dtype = "F32";
    t.shape = shape;
    t.data.resize(values.size() * sizeof(float));
    std::memcpy(t.data.data(), values.data(), t.data.size());
    weights_.push_back(std::move(t));
  }
  void constant(const std::string &name, Shape shape, std::vector<float> values) {
    weight(name, std::move(shape), std::move(values));
    constants_.push_back(weights_.back());
    weights_.pop_back();
  }

  void setLoss(int id) { program_.set_loss_buffer(id); }
  // The rank's sample range (the whole batch by default).
  void setSamples(int64_t first, int64_t count) {
    program_.set_first_sample(first);
    program_.set_num_samples(count);
  }
  // Where the plan puts the rank (its manifest entry).
  void place(int stage, int replica, const std::string &device) {
    manifest_.mutable_ranks(0)->set_stage(stage);
    manifest_.mutable_ranks(0)->set_replica(replica);
    manifest_.mutable_ranks(0)->set_device(device);
  }
  pkg::Program &program() { return program_; }
  pkg::Manifest &manifest() { return manifest_; }

  exec::LoadedPackage package() const {
    exec::LoadedPackage p;
    p.manifest = manifest_;
    p.programs = {program_};
    p.weights = weights_;
    p.constants = constants_;
    return p;
  }

  const std::vector<hetc::package::NamedTensor> &weights() const {
    return weights_;
  }
  const std::vector<hetc::package::NamedTensor> &constants() const {
    return constants_;
  }

private:
  pkg::Manifest manifest_;
  pkg::Program program_;
  std::vector<hetc::package::NamedTensor> weights_, constants_;
  int64_t end_ = 0, hostEnd_ = 0;
};

// The package whose rank r runs ranks[r]'s program: rank 0's manifest with
// every rank's entry, and the weights and constants of all, merged by name.
inline exec::LoadedPackage multiRankPackage(std::vector<ProgramBuilder> ranks) {
  exec::LoadedPackage p;
  p.manifest = ranks[0].manifest();
  p.manifest.clear_ranks();
  std::set<std::string> weights, constants;
  for (size_t r = 0; r < ranks.size(); ++r) {
    pkg::RankInfo *info = p.manifest.add_ranks();
    *info = ranks[r].manifest().ranks(0);
    info->set_rank(static_cast<int>(r));
    info->set_program_file(hetc::package::programFileName(static_cast<int>(r)));
    p.programs.push_back(ranks[r].program());
    p.programs.back().set_rank(static_cast<int>(r));
    for (const hetc::package::NamedTensor &t : ranks[r].weights())
      if (weights.insert(t.name).second)
        p.weights.push_back(t);
    for (const hetc::package::NamedTensor &t : ranks[r].constants())
      if (constants.insert(t.name).second)
        p.constants.push_back(t);
  }
  return p;
}

inline void setFloat(pkg::Instruction &inst, const std::string &name, double v) {
  (*inst.mutable_attributes())[name].set_f(v);
}
inline void setInt(pkg::Instruction &inst, const std::string &name, int64_t v) {
  (*inst.mutable_attributes())[name].set_i(v);
}
inline void setBool(pkg::Instruction &inst, const std::string &name, bool v) {
  (*inst.mutable_attributes())[name].set_b(v);
}
inline void setString(pkg::Instruction &inst, const std::string &name,
                      const std::string &v) {
  (*inst.mutable_attributes())[name].set_s(v);
}
inline void setInts(pkg::Instruction &inst, const std::string &name,
                    std::vector<int64_t> v) {
  for (int64_t x : v)
    (*inst.mutable_attributes())[name].mutable_ints()->add_values(x);
}

// A deterministic token stream over [0, vocab).
inline std::vector<uint16_t> tokenStream(int n, int64_t vocab) {
  std::vector<uint16_t> tokens;
  for (int i = 0; i < n; ++i)
    tokens.push_back(static_cast<uint16_t>((i * i + 3 * i + 1) % vocab));
  return tokens;
}

// A uint16 token file removed at the end of the test.
class TokenFile {
public:
  explicit TokenFile(const std::vector<uint16_t> &tokens) {
    char name[] = "/tmp/hetc-exec-test-XXXXXX";
    int fd = ::mkstemp(name);
    EXPECT_GE(fd, 0);
    path_ = name;
    size_t bytes = tokens.size() * sizeof(uint16_t);
    EXPECT_EQ(::write(fd, tokens.data(), bytes), static_cast<ssize_t>(bytes));
    ::close(fd);
  }
  ~TokenFile() { std::remove(path_.c_str()); }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace hetc::runtime::test

#endif // HETC_TEST_RUNTIME_PROGRAMBUILDER_H

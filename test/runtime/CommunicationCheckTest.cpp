//===- CommunicationCheckTest.cpp - the ranks' messages agree -------------===//
//
// The three-rank pipeline of PipelineModel.h (sends and recvs between the
// stages, a reduce_scatter and an all_gather between the two replicas)
// passes; each edit that would make a rank wait forever fails, naming the
// rank and the instruction.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/CommunicationCheck.h"

#include "PipelineModel.h"
#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

// The index of the `nth` instruction of `kernel` in `program`.
int find(const pkg::Program &program, const std::string &kernel, int nth = 0) {
  for (int i = 0; i < program.instructions_size(); ++i)
    if (program.instructions(i).kernel() == kernel && nth-- == 0)
      return i;
  ADD_FAILURE() << "no " << kernel;
  return 0;
}

void erase(pkg::Program &program, int index) {
  program.mutable_instructions()->erase(program.mutable_instructions()->begin() +
                                        index);
}

Status check(const std::vector<pkg::Program> &programs) {
  return exec::validateCommunication(programs);
}

TEST(CommunicationCheck, ThePipelineAgrees) {
  HETC_ASSERT_OK(check(pipeline::package().programs));
}

TEST(CommunicationCheck, ARecvWithoutItsSend) {
  std::vector<pkg::Program> programs = pipeline::package().programs;
  erase(programs[0], find(programs[0], "send"));
  EXPECT_TRUE(isError(check(programs), StatusCode::kInvalidArgument,
                      "has no matching send on rank 0"));
}

TEST(CommunicationCheck, ASendWithoutItsRecv) {
  std::vector<pkg::Program> programs = pipeline::package().programs;
  erase(programs[2], find(programs[2], "recv"));
  EXPECT_TRUE(isError(check(programs), StatusCode::kInvalidArgument,
                      "has no matching recv on rank 2"));
}

TEST(CommunicationCheck, TagsAndSizesMustMatch) {
  std::vector<pkg::Program> programs = pipeline::package().programs;
  setInt(*programs[1].mutable_instructions(find(programs[1], "recv")), "tag", 7);
  EXPECT_TRUE(isError(check(programs), StatusCode::kInvalidArgument,
                      "the two sides must agree in order, tag and size"));
}

TEST(CommunicationCheck, AMemberSkipsACollective) {
  std::vector<pkg::Program> programs = pipeline::package().programs;
  erase(programs[2], find(programs[2], "all_gather"));
  EXPECT_TRUE(isError(check(programs), StatusCode::kInvalidArgument,
                      "differs between its members"));
}

// Sets the group of every collective of `ranks` to `group`.
void regroup(std::vector<pkg::Program> &programs, std::vector<int> ranks,
             std::vector<int64_t> group) {
  for (int rank : ranks)
    for (pkg::Instruction &inst : *programs[rank].mutable_instructions())
      if (inst.kernel() == "all_gather" || inst.kernel() == "reduce_scatter") {
        inst.mutable_attributes()->erase("group"); // setInts appends
        setInts(inst, "group", group);
      }
}

TEST(CommunicationCheck, AGroupOfRanksOutsideTheJob) {
  std::vector<pkg::Program> programs = pipeline::package().programs;
  regroup(programs, {1, 2}, {1, 2, 7});
  EXPECT_TRUE(isError(check(programs), StatusCode::kInvalidArgument,
                      "a collective's group names rank 7 of 3"));
}

TEST(CommunicationCheck, AGroupMemberThatRunsNoCollective) {
  std::vector<pkg::Program> programs = pipeline::package().programs;
  regroup(programs, {1, 2}, {0, 1, 2});
  EXPECT_TRUE(isError(check(programs), StatusCode::kInvalidArgument,
                      "is in a group with rank 0, which runs no collective "
                      "in that group"));
}

TEST(CommunicationCheck, ARankOutsideItsCollectivesGroup) {
  std::vector<pkg::Program> programs = pipeline::package().programs;
  regroup(programs, {1, 2}, {1});
  EXPECT_TRUE(isError(check(programs), StatusCode::kInvalidArgument,
                      ": the group does not include rank 2"));
}

TEST(CommunicationCheck, PeerOutsideTheJob) {
  std::vector<pkg::Program> programs = pipeline::package().programs;
  setInt(*programs[0].mutable_instructions(find(programs[0], "send")), "peer", 5);
  EXPECT_TRUE(isError(check(programs), StatusCode::kInvalidArgument,
                      "peer 5 is not another rank of the 3"));
}

} // namespace
} // namespace hetc::runtime::test

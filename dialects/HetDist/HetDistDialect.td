//===- HetDistDialect.td - hetd dialect and op base classes -*- tablegen -*-===//
//
// hetd is the distribution level: per-stage forward and backward functions
// of the training step, and per-rank functions that call them in the order
// of the global schedule, with the messages and collectives between ranks.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETDIST_DIALECT
#define HETC_DIALECT_HETDIST_DIALECT

include "mlir/IR/OpBase.td"

def HetDist_Dialect : Dialect {
  let name = "hetd";
  let cppNamespace = "::hetc::hetd";
  let summary = "Pipeline stages, batch-slice messages and uneven collectives";
  let description = [{
    A distribution plan (docs/plan-format.md) turns one training step into
    work for many ranks. `hetd-partition-stages` cuts the step at the plan's
    stage boundaries into functions marked `hetd.stage` and `hetd.phase`
    ("forward" or "backward"), one pair per stage and micro-batch size.
    `hetd-build-ranks` then writes one function per rank, marked
    `hetd.rank`, that calls its stage's functions once per micro-batch in
    the order of the global schedule, moves activations and their gradients
    with `hetd.send` / `hetd.recv`, sums gradients over the stage's
    replicas with `hetd.reduce_scatter` onto uneven shards, updates its
    shard and restores the parameters with `hetd.all_gather`.

    Communication ops have side effects on the ranks' shared channel, so
    they keep their program order: a rank's op order is the schedule.
    Collectives name their `group` (member ranks in increasing order); a
    collective inside a function marked `hetd.rank` must list that rank.
  }];
}

class HetD_Op<string mnemonic, list<Trait> traits = []>
    : Op<HetDist_Dialect, mnemonic, traits>;

#endif // HETC_DIALECT_HETDIST_DIALECT

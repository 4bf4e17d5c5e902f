#!/usr/bin/python3
"""permute_nodes.py CLUSTER.yaml SEED OUT.yaml: writes the cluster with its nodes in
another order (SEED 0: reversed; else a shuffle seeded by SEED), nothing else
changed."""
import random
import sys

import yaml

cluster = yaml.safe_load(open(sys.argv[1]))
seed = int(sys.argv[2])
nodes = cluster["nodes"]
if seed == 0:
    nodes.reverse()
else:
    random.Random(seed).shuffle(nodes)
with open(sys.argv[3], "w") as out:
    yaml.safe_dump(cluster, out, sort_keys=False)

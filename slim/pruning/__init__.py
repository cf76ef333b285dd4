"""Structured pruning on the IR (needs the ``torch`` extra for everything but the config).

``slim.prune(model, data, config)`` prunes and fine-tunes; ``slim.prune_groups(model, data)`` lists
the dependency groups (what is pruned together, what cannot be and why). The pieces, each
replaceable: groups.py (DependencyGraph over rules.py, the per-op coupling rules), weights.py (the
per-layer pruning functions, as data), importance.py / taylor.py (criteria), allocate.py (ratios,
global ranking, FLOPs targets), apply.py (cutting or zeroing the IR), flops.py, analysis.py (one
model prepared for pruning), pruner.py (the whole). docs/PRUNING.md tells the story.

Nothing is imported here, so ``slim.pruning.config`` loads without torch.
"""

//! Generalized Tree Reduction (GTR paper, Algorithms 4–6); HDD and HDD* are GTR with deletion only.
//!
//! [`gtr`] walks the tree level by level and applies each template to a level's nodes: at-most-one
//! templates through ddmin over the nodes, others through the backtracking search of Algorithm 5.
//! [`gtr_star`] repeats GTR until the size stops changing (1-transformation-minimal results).

use super::ddmin::ddmin;
use super::labeled::{Edit, Edits, ReducibleTree};
use super::templates::Template;
use super::tester::Tester;
use crate::oracle::Outcome;

/// The deepest level GTR visits. Each level costs at least a run or two, so a tree 400,000
/// levels deep (JSON nested 100,000 deep) would take hours even when nothing below can be
/// removed; what lies deeper is left to the character pass (ddmin), which cuts by halves.
pub const MAX_LEVELS: usize = 1000;

/// Algorithm 4: one top-down pass over the levels (at most [`MAX_LEVELS`]).
pub fn gtr<T: ReducibleTree>(tree: &mut T, templates: &[&dyn Template<T>], tester: &Tester<'_>) {
    let mut depth = 0;
    while !tester.exhausted() && depth < MAX_LEVELS {
        if tree.level(depth).is_empty() {
            break;
        }
        for &template in templates {
            // Recomputed per template: the previous one may have changed the level.
            let level = tree.level(depth);
            if level.is_empty() {
                break;
            }
            if template.at_most_one() {
                reduce_level_by_ddmin(tree, &level, template, tester);
            } else {
                reduce_level_nodes(tree, &level, template, tester);
            }
        }
        depth += 1;
    }
}

/// Algorithm 6: GTR until the size stops changing.
pub fn gtr_star<T: ReducibleTree>(tree: &mut T, templates: &[&dyn Template<T>], tester: &Tester<'_>) {
    loop {
        let before = tree.size(tree.root());
        gtr(tree, templates, tester);
        if tree.size(tree.root()) == before || tester.exhausted() {
            return;
        }
    }
}

fn edit_size<T: ReducibleTree>(tree: &T, node: T::Node, edit: Option<Edit<T::Node>>) -> usize {
    match edit {
        None => tree.size(node),
        Some(Edit::Delete) => 0,
        Some(Edit::Replace(r)) | Some(Edit::Promote { with: r, .. }) => tree.size(r),
    }
}

/// At-most-one templates (Algorithm 4, line 7): ddmin over the level's nodes that have a
/// candidate, where a node left out of the kept set gets its candidate applied.
fn reduce_level_by_ddmin<T: ReducibleTree>(
    tree: &mut T,
    level: &[T::Node],
    template: &dyn Template<T>,
    tester: &Tester<'_>,
) {
    let mut changes: Edits<T::Node> = Vec::new();
    for &n in level {
        if let Some(&edit) = template.candidates(tree, n).first() {
            changes.push((n, edit));
        }
    }
    if changes.is_empty() {
        return;
    }
    let all: Vec<usize> = (0..changes.len()).collect();
    let kept = {
        let tree = &*tree;
        let build = |kept: &[usize]| -> Option<Vec<u8>> {
            let edits = not_kept(&changes, kept);
            template.compatible(tree, &edits).then(|| tree.unparse_with(&edits))
        };
        ddmin(all, tester, true, &build)
    };
    let applied = not_kept(&changes, &kept);
    if !applied.is_empty() {
        tree.apply(&applied);
    }
}

/// The changes whose index is not in `kept` (the ones to apply).
fn not_kept<N: Copy>(changes: &[(N, Edit<N>)], kept: &[usize]) -> Vec<(N, Edit<N>)> {
    let mut keep = vec![false; changes.len()];
    for &k in kept {
        keep[k] = true;
    }
    changes.iter().zip(keep).filter(|(_, k)| !k).map(|(c, _)| *c).collect()
}

/// Above this many smaller candidates for one node, [`reduce_level_nodes`] searches them by
/// halves rather than one by one.
pub(crate) const HALVING_FROM: usize = 32;

/// Algorithm 5: backtracking search for the smallest replacement of each node of a level.
fn reduce_level_nodes<T: ReducibleTree>(
    tree: &mut T,
    level: &[T::Node],
    template: &dyn Template<T>,
    tester: &Tester<'_>,
) {
    let candidates: Vec<Vec<Edit<T::Node>>> = level.iter().map(|&n| template.candidates(tree, n)).collect();
    if candidates.iter().all(Vec::is_empty) {
        return;
    }
    let mut conf: Vec<Option<Edit<T::Node>>> = vec![None; level.len()];
    let edits_with = |conf: &[Option<Edit<T::Node>>], i: usize, e: Edit<T::Node>| -> Edits<T::Node> {
        conf.iter()
            .enumerate()
            .filter_map(|(k, c)| {
                if k == i {
                    Some((level[k], e))
                } else {
                    c.map(|c| (level[k], c))
                }
            })
            .collect()
    };
    loop {
        let mut improved = false;
        for i in 0..level.len() {
            let current = edit_size(tree, level[i], conf[i]);
            let trial: Vec<Edit<T::Node>> = candidates[i]
                .iter()
                .copied()
                .filter(|&c| edit_size(tree, level[i], Some(c)) < current)
                .collect();
            if trial.is_empty() {
                continue;
            }
            let mut best = current;
            if trial.len() > HALVING_FROM {
                // A node with many smaller candidates (the top of a deep chain, a document
                // of thousands of values): one run per candidate is one run per level of
                // nesting. Search the candidates by halves instead, largest to smallest,
                // for the smallest that still fails, as if failing were monotone in size
                // (it is for "nested too deep" and "contains X" alike); only failing
                // candidates are kept, so a non-monotone oracle costs minimality, never
                // correctness. GTR* then repeats: once the node has few candidates left,
                // they are tried one by one as Algorithm 5 does.
                let mut trial = trial;
                trial.sort_by_key(|&c| std::cmp::Reverse(edit_size(tree, level[i], Some(c))));
                let (mut lo, mut hi) = (0, trial.len());
                while lo < hi && !tester.exhausted() {
                    let mid = lo + (hi - lo) / 2;
                    let c = trial[mid];
                    if tester.test(&tree.unparse_with(&edits_with(&conf, i, c))) == Outcome::Fail {
                        conf[i] = Some(c);
                        improved = true;
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
            } else if tester.jobs() == 1 {
                // In order, each candidate only if smaller than the replacement found so far.
                for c in trial {
                    let size = edit_size(tree, level[i], Some(c));
                    if size < best && tester.test(&tree.unparse_with(&edits_with(&conf, i, c))) == Outcome::Fail {
                        conf[i] = Some(c);
                        best = size;
                        improved = true;
                    }
                }
            } else {
                // All at once, then the same choice the sequential loop makes: a candidate's
                // outcome does not depend on which of this node's other candidates was tried.
                let inputs: Vec<Vec<u8>> = trial
                    .iter()
                    .map(|&c| tree.unparse_with(&edits_with(&conf, i, c)))
                    .collect();
                let outcomes = tester.test_batch(&inputs);
                for (c, outcome) in trial.into_iter().zip(outcomes) {
                    let size = edit_size(tree, level[i], Some(c));
                    if size < best && outcome == Outcome::Fail {
                        conf[i] = Some(c);
                        best = size;
                        improved = true;
                    }
                }
            }
        }
        if !improved || tester.exhausted() {
            break;
        }
    }
    let applied: Edits<T::Node> = conf
        .iter()
        .enumerate()
        .filter_map(|(k, c)| c.map(|c| (level[k], c)))
        .collect();
    if !applied.is_empty() {
        tree.apply(&applied);
    }
}

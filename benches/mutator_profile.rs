//! Where a grammar-aware mutation's time goes: `Mutator::mutate` per call on the seed corpora,
//! and the same steps timed one by one (parse, inner nodes, generation, clone+graft+unparse,
//! splice scanning). `$(scripts/bench-bin mutator_profile) [CALLS]`.

use std::time::Instant;

use hellfuzz::generate::{Generator, Limits};
use hellfuzz::grammar::Grammar;
use hellfuzz::harness::Mutator;
use hellfuzz::mine::{samples::mine_builtin, Probabilities, ProbabilityMode};
use hellfuzz::parse::Parser;
use hellfuzz::tree::{NodeId, NodeKind, Tree};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MAX_SIZE: usize = 4096;

fn seeds(dir: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| std::fs::read(p).unwrap())
        .filter(|s| s.len() <= MAX_SIZE)
        .collect()
}

fn inner_nodes(tree: &Tree) -> Vec<NodeId> {
    let mut nodes = Vec::new();
    tree.pre_order(tree.root(), |n| {
        if !matches!(tree.kind(n), NodeKind::Leaf { .. }) {
            nodes.push(n);
        }
    });
    nodes
}

fn ns(t: Instant) -> u128 {
    t.elapsed().as_nanos()
}

fn profile(name: &str, dir: &str, calls: u64) {
    let grammar = Grammar::load(name).unwrap();
    let inputs = seeds(dir);
    // Whole mutate calls, as libFuzzer makes them (round-robin over the seeds).
    let mut mutator = Mutator::for_builtin(&grammar, name, None);
    let t = Instant::now();
    let mut produced = 0;
    for i in 0..calls {
        let input = &inputs[i as usize % inputs.len()];
        produced += mutator.mutate(input, MAX_SIZE, i).is_some() as u64;
    }
    let total = ns(t) / calls as u128;
    // libFuzzer's chains: a corpus unit, then up to 4 mutants of mutants (`-mutate_depth=5`), so
    // most inputs are new.
    let mut mutator = Mutator::for_builtin(&grammar, name, None);
    let t = Instant::now();
    let mut current = inputs[0].clone();
    for i in 0..calls {
        if i % 5 == 0 {
            current = inputs[(i / 5) as usize % inputs.len()].clone();
        }
        if let Some((m, _)) = mutator.mutate(&current, MAX_SIZE, i) {
            current = m;
        }
    }
    println!("{name}: chained mutate {} ns/call", ns(t) / calls as u128);
    // Fingerprint of the mutants of one pass over distinct inputs (to check a change keeps them).
    let mut fresh = Mutator::for_builtin(&grammar, name, None);
    let mut digest = std::collections::hash_map::DefaultHasher::new();
    for (i, input) in inputs.iter().enumerate() {
        for s in 0..5 {
            std::hash::Hash::hash(
                &fresh.mutate(input, MAX_SIZE, (i * 5 + s) as u64).map(|m| m.0),
                &mut digest,
            );
            // Only the first call on each input is a fresh parse; the rest test repeated inputs.
            if s == 0 {
                std::hash::Hash::hash(&0u8, &mut digest);
            }
        }
    }
    println!(
        "{name}: mutants fingerprint {:016x}",
        std::hash::Hasher::finish(&digest)
    );
    let mut fresh = Mutator::for_builtin(&grammar, name, None);
    let mut digest = std::collections::hash_map::DefaultHasher::new();
    for (i, input) in inputs.iter().enumerate() {
        std::hash::Hash::hash(&fresh.mutate(input, MAX_SIZE, i as u64).map(|m| m.0), &mut digest);
    }
    println!(
        "{name}: distinct-inputs fingerprint {:016x}",
        std::hash::Hasher::finish(&digest)
    );

    // The steps, one by one.
    let parser = Parser::new(&grammar);
    let (model, _) = mine_builtin(&grammar, name);
    let probs = Probabilities::new(&grammar, Some(&model), ProbabilityMode::Mined);
    let trees: Vec<Tree> = inputs.iter().map(|i| parser.parse(i).unwrap()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (mut parse, mut inner, mut newgen, mut generate, mut graft, mut scan) = (0, 0, 0, 0, 0, 0);
    let (mut gen_nodes, mut gen_bytes) = (0, 0);
    for i in 0..calls {
        let input = &inputs[i as usize % inputs.len()];
        let t = Instant::now();
        let tree = parser.parse(input).unwrap();
        parse += ns(t);
        let t = Instant::now();
        let nodes = inner_nodes(&tree);
        inner += ns(t);
        let node = nodes[rng.random_range(0..nodes.len())];
        let symbol = tree.kind(node).symbol().unwrap();
        let room = MAX_SIZE.saturating_sub(tree.len() - tree.len_of(node));
        let cap = room.min(2 * tree.len_of(node) + 64).max(1);
        let budget = rng.random_range(1..=cap);
        let t = Instant::now();
        let mut g = Generator::new(&grammar, &probs, Limits::up_to(budget), i);
        newgen += ns(t);
        let t = Instant::now();
        let fresh = g.tree_of(symbol);
        generate += ns(t);
        gen_nodes += fresh.count() as u128;
        gen_bytes += fresh.len() as u128;
        let t = Instant::now();
        let mut copy = tree.clone();
        let new = copy.graft(&fresh, fresh.root());
        copy.replace(node, new);
        std::hint::black_box(copy.unparse());
        graft += ns(t);
        let t = Instant::now();
        let donor = &trees[rng.random_range(0..trees.len())];
        let matches = inner_nodes(donor)
            .into_iter()
            .filter(|&n| donor.kind(n).symbol() == Some(symbol))
            .count();
        std::hint::black_box(matches);
        scan += ns(t);
    }
    let c = calls as u128;
    println!(
        "{name}: mutate {total} ns/call ({produced}/{calls} mutants) | per step: parse {} · inner_nodes {} · Generator::new {} · tree_of {} (avg {} nodes, {} bytes) · clone+graft+unparse {} · splice scan {} ns",
        parse / c,
        inner / c,
        newgen / c,
        generate / c,
        gen_nodes / c,
        gen_bytes / c,
        graft / c,
        scan / c
    );
}

fn main() {
    let calls = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    profile("json", "seeds/json", calls);
    profile("expr", "seeds/expr", calls);
}

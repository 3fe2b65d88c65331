//! Writes grammar-aware mutants of a seed corpus, for measuring how many a real parser accepts
//! (`scripts/eval-mutator-validity`). Each mutant mutates a seed or an earlier mutant, as in a
//! fuzzing campaign where mutants join the corpus.
//! `$(scripts/bench-bin mutants) GRAMMAR SEEDS_DIR OUT_DIR [COUNT] [MAX_SIZE]`

use hellfuzz::grammar::Grammar;
use hellfuzz::harness::Mutator;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: mutants GRAMMAR SEEDS_DIR OUT_DIR [COUNT] [MAX_SIZE]");
        std::process::exit(2);
    }
    let (name, seeds, out) = (&args[1], &args[2], &args[3]);
    let count: usize = args.get(4).map_or(1000, |c| c.parse().expect("COUNT is a number"));
    let max_size: usize = args.get(5).map_or(4096, |c| c.parse().expect("MAX_SIZE is a number"));
    let grammar = Grammar::load(name).unwrap_or_else(|e| panic!("{e}"));
    let mut mutator = Mutator::for_builtin(&grammar, name, None);
    let mut pool: Vec<Vec<u8>> = std::fs::read_dir(seeds)
        .expect("SEEDS_DIR is readable")
        .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
        .collect();
    pool.sort();
    std::fs::create_dir_all(out).expect("OUT_DIR can be made");
    let (mut made, mut failed) = (0usize, 0usize);
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for i in 0..count * 4 {
        if made == count {
            break;
        }
        // Mostly seeds, sometimes an earlier mutant.
        let pick = (i.wrapping_mul(2_654_435_761)) % pool.len();
        let Some((mutant, kind)) = mutator.mutate(&pool[pick], max_size, i as u64) else {
            failed += 1;
            continue;
        };
        std::fs::write(format!("{out}/mutant-{made:05}"), &mutant).expect("OUT_DIR is writable");
        *kinds.entry(format!("{kind:?}")).or_default() += 1;
        if i % 4 == 0 {
            pool.push(mutant);
        }
        made += 1;
    }
    eprintln!("mutants: {made} written to {out} ({failed} inputs gave none); kinds: {kinds:?}");
}

use std::sync::mpsc;
use std::thread;

pub fn parallel_sum(data: Vec<u32>, workers: usize) -> u32 {
    let chunk = (data.len() + workers - 1) / workers.max(1);
    let (tx, rx) = mpsc::channel();
    let mut handles = Vec::new();
    for part in data.chunks(chunk.max(1)) {
        let part = part.to_vec();
        let tx = tx.clone();
        handles.push(thread::spawn(move || {
            let s: u32 = part.iter().sum();
            tx.send(s).unwrap();
        }));
    }
    drop(tx);
    for h in handles {
        h.join().expect("worker panicked");
    }
    rx.iter().sum()
}

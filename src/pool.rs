//! One worker pool for the library's parallel work: the reducer's batches of candidates and
//! triage's reruns of crash files run on it, items handed out through a crossbeam-channel queue.
//!
//! Scoped threads, started per call and ended with it: the work borrows the caller's data, and
//! a call runs for seconds to hours (each item is an oracle call or a process), so starting a
//! few threads costs nothing next to it. Results are returned or handed on with their index, so
//! callers keep their input order whatever order the threads finish in.

/// Runs `work(index, item)` for each of `items` on up to `jobs` threads, and `done(index, result)`
/// on the calling thread as each result arrives (in the order they finish). With `jobs <= 1` or
/// a single item everything runs on the calling thread, in order. A `work` that panics ends the
/// call with that panic once the other threads have stopped.
pub fn for_each<T, R>(items: &[T], jobs: usize, work: impl Fn(usize, &T) -> R + Sync, mut done: impl FnMut(usize, R))
where
    T: Sync,
    R: Send,
{
    if jobs <= 1 || items.len() <= 1 {
        for (i, item) in items.iter().enumerate() {
            done(i, work(i, item));
        }
        return;
    }
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<usize>();
    for i in 0..items.len() {
        job_tx.send(i).expect("the receiver is alive");
    }
    drop(job_tx);
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<(usize, R)>();
    let work = &work;
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(items.len()) {
            let (job_rx, result_tx) = (job_rx.clone(), result_tx.clone());
            scope.spawn(move || {
                for i in job_rx {
                    if result_tx.send((i, work(i, &items[i]))).is_err() {
                        break;
                    }
                }
            });
        }
        // The loop below ends when every worker has dropped its sender.
        drop(result_tx);
        for (i, r) in result_rx {
            done(i, r);
        }
    });
}

/// [`for_each`] collecting the results in the order of `items`.
pub fn map<T, R>(items: &[T], jobs: usize, work: impl Fn(usize, &T) -> R + Sync) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let mut results: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for_each(items, jobs, work, |i, r| results[i] = Some(r));
    results.into_iter().map(|r| r.expect("every item ran")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;
    use std::sync::Mutex;

    proptest! {
        #[test]
        fn map_equals_the_sequential_map_for_any_number_of_jobs(
            items in proptest::collection::vec(any::<u32>(), 0..60),
            jobs in 0usize..9,
        ) {
            let expected: Vec<u64> = items.iter().enumerate().map(|(i, &x)| x as u64 * 3 + i as u64).collect();
            prop_assert_eq!(map(&items, jobs, |i, &x| x as u64 * 3 + i as u64), expected);
        }
    }

    #[test]
    fn items_run_once_each_on_several_threads() {
        let items: Vec<u32> = (0..40).collect();
        let threads = Mutex::new(HashSet::new());
        let mut seen = vec![0; items.len()];
        for_each(
            &items,
            4,
            |_, &x| {
                threads.lock().unwrap().insert(std::thread::current().id());
                // Long enough that one thread cannot take every item before the others start.
                std::thread::sleep(std::time::Duration::from_millis(2));
                x * 2
            },
            |i, r| {
                assert_eq!(r, items[i] * 2);
                seen[i] += 1;
            },
        );
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        let threads = threads.into_inner().unwrap();
        assert!(threads.len() > 1 && threads.len() <= 4, "{}", threads.len());
        assert!(!threads.contains(&std::thread::current().id()));
    }

    #[test]
    fn one_job_runs_in_order_on_the_calling_thread() {
        let order = Mutex::new(Vec::new());
        let caller = std::thread::current().id();
        for_each(
            &[5, 6, 7],
            1,
            |i, _| {
                assert_eq!(std::thread::current().id(), caller);
                order.lock().unwrap().push(i);
            },
            |_, ()| {},
        );
        assert_eq!(order.into_inner().unwrap(), [0, 1, 2]);
    }
}

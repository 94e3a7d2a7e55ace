//! A small job pool: runs a function on every item with N threads, and returns the
//! results in the items' order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;

/// Runs `f` on every item of `items`, `jobs` at a time (at least 1), and returns the
/// results in the same order. `progress` is called (from the worker threads, one at a
/// time) with the number of items done so far and the total.
pub fn map<T, R, F, P>(items: &[T], jobs: usize, f: F, progress: P) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
    P: Fn(usize, usize) + Sync,
{
    let next = AtomicUsize::new(0);
    let done = Mutex::new(0usize);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let workers = jobs.clamp(1, items.len().max(1));
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                if let Ok(mut slots) = results.lock() {
                    slots[i] = Some(r);
                }
                if let Ok(mut n) = done.lock() {
                    *n += 1;
                    progress(*n, items.len());
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_order_and_runs_everything() {
        let items: Vec<u32> = (0..100).collect();
        let out = map(&items, 3, |x| x * 2, |_, _| {});
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        let none: Vec<u32> = Vec::new();
        assert!(map(&none, 2, |x| *x, |_, _| {}).is_empty());
    }
}

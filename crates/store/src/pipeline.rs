//! The one way backends encode chunks in parallel: work items run on rayon's global pool
//! (the pool `-j` sizes), at most a bounded number at once, and their results come back
//! to the calling thread in the items' order, so that a format that must write in order
//! (HDF5's direct chunk write) can, and memory stays within the in-flight budget
//! ([`crate::grid::IN_FLIGHT_BYTES`]) however many items there are.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;

/// Runs `work` on each item of `items` on rayon's global pool, with at most `in_flight`
/// items started and not yet handed on, and hands each result to `deliver` on the
/// calling thread, in the items' order. Items are taken from `items` on the calling
/// thread, one as each earlier one is delivered. The first error (of `work` or
/// `deliver`) stops it: no further item is started, those running finish, and that error
/// is returned.
///
/// Called from a thread of the pool itself (where waiting could starve the pool), or with
/// `in_flight` of one, everything runs on the calling thread, in order.
pub fn run_ordered<I, T, E>(
    items: impl Iterator<Item = I>,
    in_flight: usize,
    work: impl Fn(I) -> Result<T, E> + Sync,
    mut deliver: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E>
where
    I: Send,
    T: Send,
    E: Send,
{
    if in_flight <= 1 || rayon::current_thread_index().is_some() {
        for item in items {
            deliver(work(item)?)?;
        }
        return Ok(());
    }
    keep_freed_chunks_in_the_heap();
    let (sender, receiver) = mpsc::channel::<(usize, std::thread::Result<Result<T, E>>)>();
    let work = &work;
    rayon::in_place_scope(|scope| {
        let mut items = items.enumerate();
        let mut pending: BTreeMap<usize, T> = BTreeMap::new();
        let (mut started, mut received, mut next_out) = (0usize, 0usize, 0usize);
        let mut failure: Option<E> = None;
        let mut exhausted = false;
        loop {
            while failure.is_none() && !exhausted && started - next_out < in_flight {
                match items.next() {
                    Some((index, item)) => {
                        let sender = sender.clone();
                        scope.spawn(move |_| {
                            // A panic comes back as a result, so that the loop below
                            // never waits for a result that will not come.
                            let result = std::panic::catch_unwind(AssertUnwindSafe(|| work(item)));
                            // The receiver lives until every started item came back.
                            let _ = sender.send((index, result));
                        });
                        started += 1;
                    }
                    None => exhausted = true,
                }
            }
            if received == started {
                break;
            }
            let Ok((index, result)) = receiver.recv() else {
                break;
            };
            received += 1;
            let result = match result {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            if failure.is_some() {
                continue;
            }
            match result {
                Ok(value) => {
                    pending.insert(index, value);
                }
                Err(e) => {
                    failure = Some(e);
                    pending.clear();
                    continue;
                }
            }
            while let Some(value) = pending.remove(&next_out) {
                next_out += 1;
                if let Err(e) = deliver(value) {
                    failure = Some(e);
                    pending.clear();
                    break;
                }
            }
        }
        failure.map_or(Ok(()), Err)
    })
}

/// A block a little smaller than the largest glibc's malloc lets raise its thresholds
/// (`DEFAULT_MMAP_THRESHOLD_MAX`, 32 MiB on 64-bit systems, compared with the mapped size
/// and its flag bits).
const ALLOCATOR_HEADROOM: usize = 31 << 20;

/// Lets the chunks in flight reuse the heap's memory instead of faulting in fresh pages
/// for each one. Each chunk's buffers (the decoded chunk, the codecs' working memory) are
/// allocated and freed on the pool's threads; with glibc's default thresholds (an mmap
/// threshold of 128 KiB, a trim threshold of twice it) every free of a chunk returns the
/// top of the thread's heap to the system, and the next chunk faults it back in: twenty
/// times the page faults and twice the system time of a copy with a large buffer alive.
/// glibc raises both thresholds when a block it mapped on its own is freed (mallopt(3),
/// "dynamic adjustment": the mmap threshold to the block's size, the trim threshold to
/// twice that), so one such block of [`ALLOCATOR_HEADROOM`], allocated zeroed (mapped,
/// never touched) and freed, once per process, keeps up to 62 MiB of freed memory in the
/// heaps for reuse, about the in-flight budget. Other allocators ignore it.
fn keep_freed_chunks_in_the_heap() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let block: Vec<u8> = vec![0; ALLOCATOR_HEADROOM];
        drop(std::hint::black_box(block));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order() {
        let mut seen = Vec::new();
        let result: Result<(), String> = run_ordered(
            0..200u64,
            7,
            |i| {
                // Later items finish sooner now and then.
                if i % 5 == 0 {
                    std::thread::yield_now();
                }
                Ok(i * 2)
            },
            |v| {
                seen.push(v);
                Ok(())
            },
        );
        assert_eq!(result, Ok(()));
        assert_eq!(seen, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn the_first_failure_stops_it() {
        let mut seen = Vec::new();
        let result = run_ordered(
            0..1000u32,
            4,
            |i| {
                if i == 10 {
                    Err(format!("item {i}"))
                } else {
                    Ok(i)
                }
            },
            |v| {
                seen.push(v);
                Ok(())
            },
        );
        assert_eq!(result, Err("item 10".to_string()));
        assert!(seen.len() <= 10);
        assert_eq!(seen, (0..seen.len() as u32).collect::<Vec<_>>());
    }

    #[test]
    fn a_failed_delivery_stops_it() {
        let mut delivered = 0;
        let result = run_ordered(0..1000u32, 3, Ok::<u32, String>, |v| {
            delivered += 1;
            if v == 5 {
                Err("full".to_string())
            } else {
                Ok(())
            }
        });
        assert_eq!(result, Err("full".to_string()));
        assert_eq!(delivered, 6);
    }

    #[test]
    fn one_at_a_time_runs_on_the_calling_thread() {
        let caller = std::thread::current().id();
        let result: Result<(), ()> = run_ordered(
            0..3,
            1,
            |_| Ok(std::thread::current().id()),
            |id| {
                assert_eq!(id, caller);
                Ok(())
            },
        );
        assert_eq!(result, Ok(()));
    }
}

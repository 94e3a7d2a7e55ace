//! The process-wide budget of chunk bytes being decoded: every reader that decodes a
//! chunk holds a [`Permit`] for the bytes it will produce while it decodes them (its
//! codecs' intermediate buffers live then), and waits while other threads hold the
//! budget, so that slabs read on several threads at once (variables copied in parallel)
//! decode at most [`DECODE_BUDGET_BYTES`] at a time between them, whatever each one's
//! batches allow; what the batches keep once decoded is bounded by their own cap
//! ([`crate::grid::IN_FLIGHT_BYTES`]). The permit is given back before the decoded chunk
//! is handed on, so a thread never waits on the budget while it holds some of it. A
//! chunk larger than the whole budget is decoded alone, once nothing else is in flight,
//! so that no request waits forever.

use std::sync::{Condvar, Mutex, PoisonError};

/// The bytes of decoded chunks in flight in the whole process: 256 MiB.
pub const DECODE_BUDGET_BYTES: usize = 256 << 20;

/// A budget of bytes shared by threads.
#[derive(Debug)]
pub struct Budget {
    total: usize,
    in_flight: Mutex<usize>,
    released: Condvar,
}

/// A share of a [`Budget`], given back when dropped.
#[derive(Debug)]
pub struct Permit<'a> {
    budget: &'a Budget,
    bytes: usize,
}

impl Budget {
    /// A budget of `total` bytes.
    pub const fn new(total: usize) -> Self {
        Self {
            total,
            in_flight: Mutex::new(0),
            released: Condvar::new(),
        }
    }

    /// Takes `bytes` of the budget, waiting while they do not fit beside what other
    /// threads hold (a request larger than the budget waits until nothing is held).
    pub fn acquire(&self, bytes: usize) -> Permit<'_> {
        let mut in_flight = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while *in_flight > 0 && in_flight.saturating_add(bytes) > self.total {
            in_flight = self
                .released
                .wait(in_flight)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *in_flight = in_flight.saturating_add(bytes);
        Permit {
            budget: self,
            bytes,
        }
    }

    /// The bytes held now.
    pub fn in_flight(&self) -> usize {
        *self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut in_flight = self
            .budget
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *in_flight = in_flight.saturating_sub(self.bytes);
        self.budget.released.notify_all();
    }
}

/// The process's budget of decoded chunk bytes ([`DECODE_BUDGET_BYTES`]).
pub fn decode_budget() -> &'static Budget {
    static BUDGET: Budget = Budget::new(DECODE_BUDGET_BYTES);
    &BUDGET
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn threads_never_hold_more_than_the_budget_together() {
        let budget = Budget::new(100);
        let peak = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for i in 0..8 {
                let (budget, peak) = (&budget, &peak);
                scope.spawn(move || {
                    for _ in 0..50 {
                        let _permit = budget.acquire(30 + i);
                        peak.fetch_max(budget.in_flight(), Ordering::Relaxed);
                    }
                });
            }
        });
        assert!(peak.load(Ordering::Relaxed) <= 100);
        assert_eq!(budget.in_flight(), 0);
    }

    #[test]
    fn a_request_beyond_the_budget_runs_alone() {
        let budget = Budget::new(10);
        let permit = budget.acquire(1000);
        assert_eq!(budget.in_flight(), 1000);
        drop(permit);
        assert_eq!(budget.in_flight(), 0);
    }
}

//! The progress bar of long copies: on stderr, only when stderr is a terminal, and only
//! once the copy has taken more than a second. Also where copies notice Ctrl-C.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::interrupt::Interrupted;

/// How long a copy runs before its bar appears.
const DELAY: Duration = Duration::from_secs(1);

/// Progress of a copy of `total` bytes.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Progress {
    /// A progress report for `total` bytes; silent unless stderr is a terminal.
    pub fn new(total: u64) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            let style = ProgressStyle::with_template(
                "nccopy {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            );
            if let Ok(style) = style {
                bar.set_style(style);
            }
            bar
        });
        Self {
            bar,
            started: Instant::now(),
        }
    }

    /// Counts `bytes` more as copied.
    pub fn advance(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            if bar.is_hidden() && self.started.elapsed() > DELAY {
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
            bar.inc(bytes);
        }
    }

    /// Fails with [`Interrupted`] once SIGINT (Ctrl-C) or SIGTERM was received.
    pub fn check_interrupt(&self) -> Result<(), Interrupted> {
        Interrupted::check().inspect_err(|_| self.finish())
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

//! The progress bar on stderr (only when stderr is a terminal): current test and ETA.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::runner::Progress;

pub struct TerminalProgress {
    bar: ProgressBar,
}

impl TerminalProgress {
    pub fn new() -> Self {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} (ETA {eta})")
                .expect("valid progress template"),
        );
        TerminalProgress { bar }
    }
}

impl Default for TerminalProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress for TerminalProgress {
    fn begin(&mut self, total_steps: u64) {
        self.bar.set_length(total_steps);
    }

    fn step(&mut self, message: &str) {
        if !self.bar.message().is_empty() {
            self.bar.inc(1);
        }
        self.bar.set_message(message.to_string());
    }

    fn update(&mut self, message: &str) {
        self.bar.set_message(message.to_string());
    }

    fn finish(&mut self) {
        self.bar.finish_and_clear();
    }
}

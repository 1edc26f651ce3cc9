//! The progress bar on stderr (only when stderr is a terminal): one line that fits the terminal
//! (indicatif cuts the message to its width), with the time elapsed and an ETA. The bar counts
//! planned milliseconds, not steps: the steps differ by orders of magnitude (a 4 KiB test of two
//! seconds, a sustained write of minutes), so an ETA from a step count jumps about.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::runner::Progress;

pub struct TerminalProgress {
    bar: ProgressBar,
    /// The planned milliseconds of the step under way, added to the bar when it ends.
    current_ms: u64,
}

impl TerminalProgress {
    pub fn new() -> Self {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{elapsed:>4} {bar:16} ETA {eta:>4}  {wide_msg}")
                .expect("valid progress template"),
        );
        TerminalProgress { bar, current_ms: 0 }
    }
}

impl Default for TerminalProgress {
    fn default() -> Self {
        Self::new()
    }
}

fn ms(seconds: f64) -> u64 {
    (seconds.max(0.0) * 1000.0).round() as u64
}

impl Progress for TerminalProgress {
    fn begin(&mut self, planned_s: f64) {
        self.bar.set_length(ms(planned_s).max(1));
    }

    fn step(&mut self, message: &str, planned_s: f64) {
        self.bar.inc(self.current_ms);
        self.current_ms = ms(planned_s);
        self.bar.set_message(message.to_string());
    }

    fn update(&mut self, message: &str) {
        self.bar.set_message(message.to_string());
    }

    fn finish(&mut self) {
        self.bar.finish_and_clear();
    }
}

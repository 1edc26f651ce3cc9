//! The progress bar on stderr (only when stderr is a terminal): one line that fits the terminal
//! (indicatif cuts the message to its width), with the time elapsed and an ETA. The bar counts
//! planned milliseconds, not steps: the steps differ by orders of magnitude (a 4 KiB test of two
//! seconds, a sustained write of minutes), so an ETA from a step count jumps about.

use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::runner::Progress;

pub struct TerminalProgress {
    bar: ProgressBar,
    /// The planned milliseconds of the step under way, added to the bar when it ends.
    current_ms: u64,
}

/// What the bar shows, read by `destbench ui`'s page, so that the page and the terminal show the
/// same progress and ETA from the same source.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProgressView {
    /// Planned time done, 0 to 1.
    pub fraction: f64,
    pub elapsed_s: f64,
    pub eta_s: f64,
    /// The two times in the bar's own words (`{elapsed}`, `{eta}`: "12s", "3m").
    pub elapsed: String,
    pub eta: String,
    pub message: String,
}

/// A handle on a [`TerminalProgress`]'s bar that another thread can read while the run goes on.
#[derive(Clone)]
pub struct ProgressReader(ProgressBar);

impl ProgressReader {
    pub fn view(&self) -> ProgressView {
        let bar = &self.0;
        let length = bar.length().unwrap_or(0).max(1);
        let (elapsed, eta) = (bar.elapsed(), bar.eta());
        ProgressView {
            fraction: (bar.position() as f64 / length as f64).min(1.0),
            elapsed_s: elapsed.as_secs_f64(),
            eta_s: eta.as_secs_f64(),
            elapsed: format!("{:#}", HumanDuration(elapsed)),
            eta: format!("{:#}", HumanDuration(eta)),
            message: bar.message(),
        }
    }
}

impl TerminalProgress {
    pub fn new() -> Self {
        Self::drawn_to(ProgressDrawTarget::stderr())
    }

    /// The same bar drawn nowhere, for a reader elsewhere (`destbench ui`'s page).
    pub fn hidden() -> Self {
        Self::drawn_to(ProgressDrawTarget::hidden())
    }

    pub fn reader(&self) -> ProgressReader {
        ProgressReader(self.bar.clone())
    }

    fn drawn_to(target: ProgressDrawTarget) -> Self {
        let bar = ProgressBar::with_draw_target(Some(0), target);
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

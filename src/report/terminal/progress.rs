//! The progress bar on stderr (only when stderr is a terminal): one line that fits the terminal
//! (indicatif cuts the message to its width), with the time elapsed and the runner's ETA
//! (`runner::Eta`, the one every display shows), counting down within a step. The bar counts
//! seconds of the predicted run, not steps: the steps differ by orders of magnitude.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::runner::{Eta, Progress};

/// The ETA as of the step under way, and when that step began.
type Shown = Arc<Mutex<(Eta, Instant)>>;

pub struct TerminalProgress {
    bar: ProgressBar,
    shown: Shown,
}

/// What the bar shows, read by `destbench ui`'s page, so that the page and the terminal show the
/// same progress and ETA from the same source.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProgressView {
    /// Predicted time done, 0 to 1 (0 until the run is planned).
    pub fraction: f64,
    pub elapsed_s: f64,
    /// None until the run is planned (the checks and the scratch come first).
    pub eta_s: Option<f64>,
    /// The two times in the bar's own words ("12s", "3m05s").
    pub elapsed: String,
    pub eta: String,
    pub message: String,
}

/// A handle on a [`TerminalProgress`] that another thread can read while the run goes on.
#[derive(Clone)]
pub struct ProgressReader {
    bar: ProgressBar,
    shown: Shown,
}

impl ProgressReader {
    pub fn view(&self) -> ProgressView {
        let (eta, began) = &*self.shown.lock().unwrap_or_else(|e| e.into_inner());
        let into_step = began.elapsed().as_secs_f64();
        let remaining = eta.countdown(into_step);
        let elapsed = eta.elapsed_s() + into_step;
        ProgressView {
            fraction: eta.fraction_at(into_step),
            elapsed_s: elapsed,
            eta_s: remaining,
            elapsed: short_duration(elapsed),
            eta: eta_text(remaining),
            message: self.bar.message(),
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
        ProgressReader {
            bar: self.bar.clone(),
            shown: Arc::clone(&self.shown),
        }
    }

    fn drawn_to(target: ProgressDrawTarget) -> Self {
        let bar = ProgressBar::with_draw_target(Some(0), target);
        let shown: Shown = Arc::new(Mutex::new((Eta::default(), Instant::now())));
        let read = Arc::clone(&shown);
        let eta_key = move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
            let (eta, began) = &*read.lock().unwrap_or_else(|e| e.into_inner());
            let _ = w.write_str(&eta_text(eta.countdown(began.elapsed().as_secs_f64())));
        };
        bar.set_style(
            ProgressStyle::with_template("{elapsed:>4} {bar:16} ETA {eta:>5}  {wide_msg}")
                .expect("valid progress template")
                .with_key("eta", eta_key),
        );
        bar.enable_steady_tick(Duration::from_secs(1));
        TerminalProgress { bar, shown }
    }

    fn show(&mut self, eta: &Eta) {
        *self.shown.lock().unwrap_or_else(|e| e.into_inner()) = (eta.clone(), Instant::now());
        self.bar.set_length(ms(eta.total_s()).max(1));
        self.bar.set_position(ms(eta.elapsed_s()));
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

/// The countdown in the bar's words; "…" before the run is planned.
fn eta_text(remaining_s: Option<f64>) -> String {
    remaining_s.map_or_else(|| "…".to_string(), short_duration)
}

/// "45s", "3m05s", "1h02m".
fn short_duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    let mut out = String::new();
    let _ = match s {
        0..60 => write!(out, "{s}s"),
        60..3600 => write!(out, "{}m{:02}s", s / 60, s % 60),
        _ => write!(out, "{}h{:02}m", s / 3600, s % 3600 / 60),
    };
    out
}

impl Progress for TerminalProgress {
    fn begin(&mut self, eta: &Eta) {
        self.show(eta);
    }

    fn step(&mut self, message: &str, eta: &Eta) {
        self.show(eta);
        self.bar.set_message(message.to_string());
    }

    fn update(&mut self, message: &str) {
        self.bar.set_message(message.to_string());
    }

    /// Printed above the bar, wrapped to the terminal's width (a note runs to some 200
    /// characters).
    fn note(&mut self, message: &str) {
        let width = terminal_size::terminal_size_of(std::io::stderr())
            .map_or(super::DEFAULT_WIDTH, |(w, _)| usize::from(w.0));
        let mut wrapped = String::new();
        super::wrap(&mut wrapped, "", message, width.max(40));
        for line in wrapped.lines() {
            self.bar.println(line);
        }
    }

    fn finish(&mut self, _eta: &Eta) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_short() {
        assert_eq!(short_duration(44.6), "45s");
        assert_eq!(short_duration(185.0), "3m05s");
        assert_eq!(short_duration(3720.0), "1h02m");
    }

    #[test]
    fn before_the_plan_nothing_is_done_and_no_eta_is_shown() {
        let progress = TerminalProgress::hidden();
        let view = progress.reader().view();
        assert_eq!(
            (view.fraction, view.eta_s, view.eta.as_str()),
            (0.0, None, "…")
        );
    }
}
